// Output helpers shared by the benchmarks (files starting with `_` are not run as benchmarks).
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

/** Prints the machine the figures come from: Node version, platform, CPU model and count, load average now. */
export function printMachine(): void {
  const cpu = cpus();
  console.log(
    `node ${process.version} · ${process.platform}/${process.arch} · ${cpu[0]?.model.trim() ?? 'unknown CPU'} (${cpu.length} logical CPUs)`,
  );
  console.log(
    `load average at start ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (other work on the machine skews every row)`,
  );
}

/** Prints a Markdown table; columns whose index is in `right` are right-aligned. */
export function printTable(header: string[], rows: string[][], right: Set<number>): void {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((s, c) => (right.has(c) ? s.padStart(widths[c]!) : s.padEnd(widths[c]!))).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w, c) => (right.has(c) ? `${'-'.repeat(w + 1)}:` : `${'-'.repeat(w + 2)}`)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

/** The version of the package installed at `dir` (its package.json), or `not installed`. */
export function installedVersion(dir: string): string {
  try {
    return (JSON.parse(readFileSync(`${dir}/package.json`, 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}
