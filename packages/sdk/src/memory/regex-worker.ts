// Runs a regular expression over lines on a worker thread, under a deadline.
import { Worker } from 'node:worker_threads';
import { MemoryError } from './errors';

// The worker's whole program (CommonJS, evaluated): test every line, post the hits.
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const re = new RegExp(workerData.source, 'iu');
const hits = [];
workerData.files.forEach((text, f) => text.split(/\\r?\\n/).forEach((line, i) => { if (re.test(line)) hits.push([f, i]); }));
parentPort.postMessage(hits);
`;

/** Longest wait for the worker thread to start, in ms (apart from the pattern's own deadline). */
const STARTUP_LIMIT_MS = 10_000;

/**
 * The `[file, line]` indexes of the lines a regex (case-insensitive, Unicode) matches, computed on
 * a worker thread that is terminated at the deadline: a runaway pattern never blocks the event loop.
 * @param source - the pattern (already known to compile)
 * @param files - per file, its text (split into lines on `\n` or `\r\n`)
 * @param deadlineMs - longest run of the pattern, in ms, counted from when the worker thread runs
 * @throws {@link MemoryError} `MEMORY_SEARCH_TIMEOUT` past the deadline (or when the thread did not start in 10 s)
 * @internal
 */
export function matchLinesOffThread(
  source: string,
  files: readonly string[],
  deadlineMs: number,
): Promise<Array<[number, number]>> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(PROGRAM, { eval: true, workerData: { source, files } });
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      void worker.terminate();
    };
    const timeout = (ms: number, what: string) =>
      setTimeout(
        () =>
          done(() =>
            reject(
              new MemoryError(
                'MEMORY_SEARCH_TIMEOUT',
                `${what}; the search is incomplete, not empty — simplify the pattern`,
                { deadlineMs },
              ),
            ),
          ),
        ms,
      );
    // The deadline is the pattern's: it starts when the worker runs, not while a busy machine starts the
    // thread (which alone can take longer than the deadline on a loaded NAS). Starting is bounded apart.
    timer = timeout(
      Math.max(STARTUP_LIMIT_MS, deadlineMs),
      `the search worker did not start within ${Math.max(STARTUP_LIMIT_MS, deadlineMs)} ms`,
    );
    worker.once('online', () => {
      if (settled) return;
      clearTimeout(timer);
      timer = timeout(deadlineMs, `the regular expression ran past ${deadlineMs} ms`);
    });
    worker.once('message', (hits: Array<[number, number]>) => done(() => resolve(hits)));
    worker.once('error', (error) => done(() => reject(error)));
  });
}
