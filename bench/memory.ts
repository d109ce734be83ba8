/**
 * Benchmark `memory`: the cost of stable memory on the default Markdown store, in a temporary folder.
 *
 * Rows (p50 / p95 / p99 over the iterations, in ms):
 * - `write add` / `write batch (remove + add)`: one `memory` tool call on a user's `MEMORY.md` with
 *   about 20 entries — lock file, read, threat scan, apply, budget, atomic write (temporary file,
 *   fsync, rename) — against a bare `writeFile` + fsync + rename of the same bytes.
 * - `snapshot`: the memory block of a run (global + user `MEMORY.md` + `USER.md`, each entry scanned).
 * - `search literal`: `search_memory` over 200 topic files of about 20 KB each (4 MB), one keyword.
 * - `search regex`: the same with `use_regex` — the pattern runs on a worker thread (its start-up is
 *   most of the figure).
 *
 * Figures are from one run on the machine that printed them; compare rows, not machines.
 * Run with `npm run bench -- memory`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MarkdownMemoryStore, MemoryService, memoryUserKey } from '../packages/sdk/src/memory/index';
import { printMachine, printTable } from './_report';

function quantiles(samples: number[]): string[] {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(3);
  return [q(0.5), q(0.95), q(0.99)];
}

async function measure(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(5, n); i++) await fn(-1 - i);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

export async function run(): Promise<void> {
  printMachine();
  const dir = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  try {
    const memory = new MemoryService({
      store: new MarkdownMemoryStore(dir),
      clock: { now: () => Date.now() },
      roleOf: () => 'admin',
    });
    const alice = 'user:alice';
    await memory.writeGlobal(alice, { action: 'add', content: 'Downloads go to /data/downloads' });
    await memory.write(alice, {
      operations: Array.from({ length: 20 }, (_, i) => ({
        action: 'add' as const,
        content: `Fact ${i}: the NAS share ${i} is /volume1/share${i}`,
      })),
    });
    await memory.write(alice, { action: 'add', target: 'user', content: 'Prefers 1080p, no HDR; Chinese subtitles' });
    const rows: string[][] = [];
    const n = 300;
    rows.push([
      'write add',
      ...quantiles(
        await measure(n, async (i) => {
          await memory.write(alice, { action: 'add', content: `Rotating fact ${i}` });
          await memory.write(alice, { action: 'remove', old_text: `Rotating fact ${i}` });
        }).then((xs) => xs.map((x) => x / 2)),
      ),
    ]);
    rows.push([
      'write batch (remove + add)',
      ...quantiles(
        await measure(n, (k) => {
          const i = Math.abs(k);
          return memory.write(alice, {
            operations: [
              { action: 'remove', old_text: `Fact ${i % 20}:` },
              { action: 'add', content: `Fact ${i % 20}: the NAS share ${i % 20} is /volume1/share${i % 20}` },
            ],
          });
        }),
      ),
    ]);
    const bareFile = join(dir, 'bare.md');
    const text = 'x'.repeat(1500);
    rows.push([
      'bare writeFile + fsync + rename',
      ...quantiles(
        await measure(n, async () => {
          const tmp = `${bareFile}.tmp`;
          const h = await open(tmp, 'w', 0o600);
          await h.writeFile(text);
          await h.sync();
          await h.close();
          await rename(tmp, bareFile);
        }),
      ),
    ]);
    rows.push(['snapshot', ...quantiles(await measure(n, () => memory.snapshot(alice)))]);

    const topics = join(dir, 'users', memoryUserKey(alice), 'topics');
    mkdirSync(topics, { recursive: true });
    const line = 'Plex library Movies Anime; qBittorrent category movies; NAS share /volume1/media\n';
    for (let f = 0; f < 200; f++)
      writeFileSync(join(topics, `topic-${f}.md`), line.repeat(250) + (f === 137 ? 'needle-42 here\n' : ''));
    rows.push([
      'search literal (200 files, 4 MB)',
      ...quantiles(await measure(50, () => memory.search(alice, { query: 'needle-42' }))),
    ]);
    rows.push([
      'search regex (worker thread)',
      ...quantiles(await measure(50, () => memory.search(alice, { query: 'needle-\\d+', use_regex: true }))),
    ]);
    printTable(['operation', 'p50 ms', 'p95 ms', 'p99 ms'], rows, new Set([1, 2, 3]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
