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

/**
 * The `[file, line]` indexes of the lines a regex (case-insensitive, Unicode) matches, computed on
 * a worker thread that is terminated at the deadline: a runaway pattern never blocks the event loop.
 * @param source - the pattern (already known to compile)
 * @param files - per file, its text (split into lines on `\n` or `\r\n`)
 * @param deadlineMs - longest run
 * @throws {@link MemoryError} `MEMORY_SEARCH_TIMEOUT` past the deadline
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
    const done = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      void worker.terminate();
    };
    const timer = setTimeout(
      () =>
        done(() =>
          reject(
            new MemoryError(
              'MEMORY_SEARCH_TIMEOUT',
              `the regular expression ran past ${deadlineMs} ms; the search is incomplete, not empty — simplify the pattern`,
              { deadlineMs },
            ),
          ),
        ),
      deadlineMs,
    );
    worker.once('message', (hits: Array<[number, number]>) => done(() => resolve(hits)));
    worker.once('error', (error) => done(() => reject(error)));
  });
}
