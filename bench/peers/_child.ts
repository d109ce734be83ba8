/**
 * The child side of the peers benchmark: a side file calls {@link serve} with a function that opens its
 * SDK on the add-a-film workload; this module answers the parent's `round`, `check` and `exit` messages
 * over the IPC channel (`child_process.fork`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FILM_FINAL_TEXT, FILM_TOOL_CALLS, FILM_TURNS } from '../_add-a-film';
import { envInt } from '../_stats';

/** What one run played, counted by the side's model double and tool handlers. */
export interface FilmTally {
  turns: number;
  toolCalls: number;
  finalText: string | undefined;
}

/** One SDK opened on the workload. */
export interface FilmSide {
  /**
   * Runs the workload once; resolves with what the run played, or `null` when {@link FilmSide.check}
   * reads that from the side's own run record instead.
   */
  once: () => Promise<FilmTally | null>;
  /** Further checks of the last run (e.g. that it is in the database); throws when one fails. */
  check?: () => Promise<void>;
  close: () => Promise<void>;
}

/** A message from the parent. */
export type ParentMessage = { cmd: 'round'; runs: number } | { cmd: 'check' } | { cmd: 'exit' };

/** The child's answer to `round`. */
export interface RoundFigures {
  wallMs: number;
  cpuMs: number;
  writtenBytes: number;
  rssBytes: number;
}

/** A message from the child. */
export type ChildMessage =
  | { type: 'ready'; importMs: number }
  | { type: 'round'; figures: RoundFigures }
  | { type: 'checked' }
  | { type: 'error'; message: string };

/** Bytes this process passed to write() so far (`wchar` of /proc/self/io). */
export function bytesWritten(): number {
  const m = /^wchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
  if (!m) throw new Error('no wchar in /proc/self/io');
  return Number(m[1]);
}

/** Throws unless `tally` played the whole conversation. */
export function checkTally(tally: FilmTally | undefined): void {
  if (!tally) throw new Error('no run yet');
  if (tally.turns !== FILM_TURNS || tally.toolCalls !== FILM_TOOL_CALLS || tally.finalText !== FILM_FINAL_TEXT)
    throw new Error(
      `the run played ${tally.turns} model turns, ${tally.toolCalls} tool calls, final text ${JSON.stringify(tally.finalText)}`,
    );
}

const send = (m: ChildMessage) => process.send?.(m);

/**
 * Opens a side (in a fresh temporary directory, deleted at exit), warms it up, reports how long it took
 * from the start of its SDK import to the first run started, then answers the parent until `exit`.
 */
export function serve(open: (dir: string) => Promise<FilmSide>): void {
  if (!process.send) throw new Error('a peers child runs under child_process.fork');
  const dir = mkdtempSync(join(tmpdir(), 'bench-peers-'));
  const warmup = envInt('BENCH_WARMUP', 20, 0);
  let last: FilmTally | null | undefined;
  let side: FilmSide | undefined;
  let queue = Promise.resolve();
  const fail = (e: unknown) => {
    send({ type: 'error', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  };
  const handle = async (m: ParentMessage) => {
    if (!side) throw new Error('side not open');
    if (m.cmd === 'round') {
      const w0 = bytesWritten();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < m.runs; i++) last = await side.once();
      const wallMs = performance.now() - t0;
      const cpu = process.cpuUsage(c0);
      const figures = {
        wallMs,
        cpuMs: (cpu.user + cpu.system) / 1000,
        writtenBytes: bytesWritten() - w0,
        rssBytes: process.memoryUsage().rss,
      };
      send({ type: 'round', figures });
    } else if (m.cmd === 'check') {
      if (last !== null) checkTally(last);
      await side.check?.();
      send({ type: 'checked' });
    } else {
      await side.close();
      rmSync(dir, { recursive: true, force: true });
      process.disconnect();
    }
  };
  process.on('message', (m: ParentMessage) => {
    queue = queue.then(() => handle(m)).catch(fail);
  });
  queue = (async () => {
    const t0 = performance.now();
    side = await open(dir);
    const first = side.once();
    const importMs = performance.now() - t0;
    last = await first;
    for (let i = 1; i < warmup; i++) last = await side.once();
    if (last !== null) checkTally(last);
    await side.check?.();
    send({ type: 'ready', importMs });
  })().catch(fail);
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
}
