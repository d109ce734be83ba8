// What type-checking a small host costs its author: `tsc --extendedDiagnostics` on a 41-line V3 host
// (bench/fixtures/typecheck-host) that imports the SDK and an adapter from their built packages, as a
// user's project does. Needs `npm run build` first. Prints wall time, tsc's check time, memory and
// type instantiations; `-- typecheck --no-skip-lib-check` also checks every declaration file.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const fixture = fileURLToPath(new URL('./fixtures/typecheck-host/', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** One tsc run; returns the figures tsc prints with --extendedDiagnostics. */
function check(skipLibCheck: boolean): { figures: Record<string, string>; wallMs: number } {
  const started = performance.now();
  const out = execFileSync(
    process.execPath,
    [tsc, '-p', 'tsconfig.json', '--extendedDiagnostics', '--skipLibCheck', String(skipLibCheck)],
    { cwd: fixture, encoding: 'utf8' },
  );
  const wallMs = performance.now() - started;
  const figures = Object.fromEntries(
    out
      .split('\n')
      .map((l) => /^([A-Za-z ]+):\s+(\S+)/.exec(l))
      .filter((m) => m !== null)
      .map((m) => [m[1]!.trim(), m[2]!]),
  );
  return { figures, wallMs };
}

export async function run(): Promise<void> {
  if (!existsSync(fileURLToPath(new URL('../packages/sdk/dist/index.d.ts', import.meta.url))))
    throw new Error('bench typecheck: run `npm run build` first');
  const modes = process.argv.includes('--no-skip-lib-check') ? [true, false] : [true];
  for (const skip of modes) {
    const { figures: r, wallMs } = check(skip);
    console.log(
      `tsc host.ts (skipLibCheck ${skip}): wall ${(wallMs / 1000).toFixed(1)} s, check ${r['Check time']}, memory ${r['Memory used']}, ` +
        `instantiations ${r['Instantiations']}, types ${r['Types']}, files ${r['Files']}`,
    );
  }
}
