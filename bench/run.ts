// Benchmark runner: `npm run bench` runs every benchmark; `npm run bench -- <name> [...]` runs the named ones.
// Each benchmark is bench/<name>.ts exporting `run(): Promise<void>` that prints its own figures.
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const all = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .map((f) => f.slice(0, -3))
  .sort();
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = wanted.filter((w) => !all.includes(w));
if (unknown.length) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; available: ${all.join(', ')}`);
  process.exit(2);
}
for (const name of wanted.length ? wanted : all) {
  console.log(`\n## bench: ${name}`);
  const mod = (await import(pathToFileURL(`${dir}/${name}.ts`).href)) as { run: () => Promise<void> };
  await mod.run();
}
