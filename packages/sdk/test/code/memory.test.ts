import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const worker = fileURLToPath(new URL('./fixtures/memory-worker.ts', import.meta.url));

describe('kernel memory', () => {
  it('is capped per kernel and back to baseline once the kernels are destroyed (separate process, real GC)', () => {
    const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', worker], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(child.status, child.stderr).toBe(0);
    const m = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as {
      baseline: { rss: number; external: number };
      during: { rss: number; external: number };
      after: { rss: number; external: number };
      ends: { end: string; peak: number }[];
    };
    expect(m.ends.map((e) => e.end)).toEqual(['memory', 'memory', 'cpu', 'ok', 'ok', 'ok']);
    // Each kernel's memory is a hard cap (48 MiB here), however much the script asks for.
    for (const e of m.ends) expect(e.peak).toBeLessThanOrEqual(48);
    // The kernels stopped at their limit gave their memory back at once; the three idle ones hold theirs…
    expect(m.during.external - m.baseline.external).toBeGreaterThan(90);
    expect(m.during.external - m.baseline.external).toBeLessThan(3 * 48 + 16);
    // …until they are destroyed.
    expect(m.after.external - m.baseline.external).toBeLessThan(16);
    // The child has 120 s (it runs six kernels to their CPU and memory limits); the test waits as long.
  }, 130_000);
});
