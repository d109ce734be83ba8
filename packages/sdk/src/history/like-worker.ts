// The LIKE fallback runs on worker threads under a deadline: a guard function placed first in the
// scan's WHERE checks the clock every 1024 rows and throws once the deadline passed (better-sqlite3
// has no progress handler or interrupt); terminating the worker is the last-resort backstop.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Marker of the guard's error. */
export const DEADLINE_MARKER = 'HISTORY_QUERY_DEADLINE';

/** Name of the guard function the LIKE SQL must call first in its WHERE, with the row id. */
export const GUARD_FUNCTION = 'history_deadline_guard';

// CommonJS source of the worker (eval'd, so no file has to ship next to the bundle).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const dbs = new Map();
let deadline = 0;
let calls = 0;
function open(path) {
  let db = dbs.get(path);
  if (db) { dbs.delete(path); dbs.set(path, db); return db; }
  db = new Database(path, { readonly: true, fileMustExist: true, timeout: 100 });
  db.function('${GUARD_FUNCTION}', { deterministic: false, varargs: true }, () => {
    if ((calls++ & 1023) === 0 && Date.now() > deadline) throw new Error('${DEADLINE_MARKER}');
    return 1;
  });
  dbs.set(path, db);
  if (dbs.size > 16) { const [k, d] = dbs.entries().next().value; d.close(); dbs.delete(k); }
  return db;
}
parentPort.on('message', (req) => {
  if (req.close) { const db = dbs.get(req.close); if (db) { db.close(); dbs.delete(req.close); } return; }
  deadline = req.deadline;
  calls = 0;
  try {
    if (Date.now() > deadline) throw new Error('${DEADLINE_MARKER}');
    const rows = open(req.path).prepare(req.sql).all(...req.params);
    parentPort.postMessage({ id: req.id, rows });
  } catch (e) {
    parentPort.postMessage({ id: req.id, error: { message: String(e && e.message), code: e && e.code } });
  }
});
`;

/** A failed LIKE scan: `timeout` (deadline or lock) or another database error. */
export class LikeScanError extends Error {
  /**
   * @param kind - `timeout` or `failed`
   * @param code - the SQLite code when there is one
   */
  constructor(
    readonly kind: 'timeout' | 'failed',
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

interface Pending {
  resolve: (rows: unknown[]) => void;
  reject: (error: LikeScanError) => void;
  timer: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

/**
 * A small pool of worker threads, each with its own read-only connections, running LIKE scans
 * under a deadline. Idle workers do not keep the process alive.
 */
export class LikeWorkers {
  readonly #size: number;
  readonly #slots: Slot[] = [];
  readonly #driver: string;
  #next = 1;
  #closed = false;

  /** @param size - worker threads (at least 1) */
  constructor(size: number) {
    this.#size = Math.max(1, size);
    this.#driver = createRequire(import.meta.url).resolve('better-sqlite3');
  }

  /**
   * Runs `sql` (which calls {@link GUARD_FUNCTION} first in its WHERE) on the file at `path`.
   * @param deadlineMs - how long the scan may run
   * @throws LikeScanError `timeout` when the deadline passed (or the file was locked), `failed` otherwise
   */
  run(path: string, sql: string, params: unknown[], deadlineMs: number): Promise<unknown[]> {
    if (this.#closed) return Promise.reject(new LikeScanError('failed', 'history store closed'));
    const slot = this.#slot();
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      // Backstop: a worker that does not answer a second after the deadline is terminated.
      const timer = setTimeout(() => this.#kill(slot), deadlineMs + 1000);
      timer.unref();
      slot.pending.set(id, { resolve, reject, timer });
      slot.worker.ref();
      slot.worker.postMessage({ id, path, sql, params, deadline: Date.now() + deadlineMs });
    });
  }

  /** Closes every worker's connection to `path` (before the file is removed). */
  forget(path: string): void {
    for (const s of this.#slots) s.worker.postMessage({ close: path });
  }

  /** Terminates the workers. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#slots.splice(0).map((s) => this.#kill(s)));
  }

  #slot(): Slot {
    if (this.#slots.length < this.#size) {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver: this.#driver } });
      const slot: Slot = { worker, pending: new Map() };
      worker.on('message', (msg: { id: number; rows?: unknown[]; error?: { message: string; code?: string } }) => {
        const p = slot.pending.get(msg.id);
        if (!p) return;
        slot.pending.delete(msg.id);
        clearTimeout(p.timer);
        if (slot.pending.size === 0) worker.unref();
        if (!msg.error) return p.resolve(msg.rows ?? []);
        const timeout =
          msg.error.message.includes(DEADLINE_MARKER) ||
          msg.error.code === 'SQLITE_BUSY' ||
          msg.error.code === 'SQLITE_LOCKED';
        p.reject(new LikeScanError(timeout ? 'timeout' : 'failed', msg.error.message, msg.error.code));
      });
      worker.on('error', () => void this.#kill(slot));
      worker.unref();
      this.#slots.push(slot);
      return slot;
    }
    return this.#slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
  }

  async #kill(slot: Slot): Promise<void> {
    const i = this.#slots.indexOf(slot);
    if (i >= 0) this.#slots.splice(i, 1);
    for (const p of slot.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new LikeScanError('timeout', 'the scan did not stop at its deadline'));
    }
    slot.pending.clear();
    await slot.worker.terminate();
  }
}
