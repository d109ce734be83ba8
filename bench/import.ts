// Time to import each built entry point of the SDK from a fresh Node process (median of 10).
// Needs `npm run build` first: it measures dist/, what a user's process loads.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const RUNS = 10;
const pkgDir = fileURLToPath(new URL('../packages/sdk/', import.meta.url));

/** Milliseconds one fresh process spends in `await import(specifier)` (process start-up excluded). */
function importOnce(specifier: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`;
  return Number(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: pkgDir, encoding: 'utf8' }),
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<void> {
  const pkg = JSON.parse(readFileSync(`${pkgDir}package.json`, 'utf8')) as { exports: Record<string, unknown> };
  if (!existsSync(`${pkgDir}dist`))
    throw new Error('bench import: run `npm run build` first (it measures packages/sdk/dist)');
  for (const subpath of Object.keys(pkg.exports).filter((k) => k !== './package.json')) {
    const specifier = `@media-agent/sdk${subpath.slice(1)}`;
    const times = Array.from({ length: RUNS }, () => importOnce(specifier));
    console.log(
      `import ${specifier.padEnd(26)} median ${median(times).toFixed(0).padStart(5)} ms  (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}, ${RUNS} fresh processes)`,
    );
  }
}
