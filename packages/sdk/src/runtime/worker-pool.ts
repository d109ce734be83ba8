import type { Clock } from '../ports/clock';
import { releaseRunIntents } from './intent-release';
import type { IdGenerator } from '../ports/id-generator';
import type { Logger } from '../ports/logger';
import type { StorageAdapter, StorageSession } from '../ports/storage-adapter';
import type { RunRecord } from '../core/run-records';
import type { RunEvent } from './events/run-event';
import type { DrainSummary } from './drain-options';
import type { RunEventBus } from './events/run-event-bus';
import type { RunDriver, RunLease } from './run-driver';
import { decisionEventData } from './decisions/decision-events';
import { unattendedFailureDecision } from './unattended-origin';

/** Settings of the worker pool. @public */
export interface WorkerPoolSettings {
  /** Runs driven at once in this process (default 2). */
  concurrency: number;
  /** Lease length in ms; another process takes a run over after it expires (default 30 000, : 约 30s). */
  leaseMs: number;
  /**
   * How often an idle worker looks for runnable runs, in ms (default 500). A storage that can `watch`
   * (PostgreSQL: `LISTEN`/`NOTIFY`) also wakes idle workers as soon as another process queues or wakes a run.
   */
  pollMs: number;
}

/**
 * Workers that lease runnable runs from storage and drive them, one driver per run: the lease is
 * renewed every `leaseMs / 3` (heartbeat); a lost lease or an abort cancels the drive's signal.
 * @public
 */
export class WorkerPool {
  readonly #active = new Map<string, Drive>();
  readonly #idle = new Set<IdleWorker>();
  #running = false;
  #loops: Promise<void>[] = [];
  #unwatch: (() => void) | undefined;
  readonly #id: string;

  /** @param deps - storage, driver, run events, clock, ids, logger and settings */
  constructor(
    private readonly deps: {
      storage: StorageAdapter;
      bus: RunEventBus;
      driver: RunDriver;
      clock: Clock;
      ids: IdGenerator;
      logger: Logger;
      settings: WorkerPoolSettings;
      /**
       * A host with channels: writes a channel run's end notice in the transaction that records a driver failure
       * (`runtime/channels/channel-replies.ts` `channelEndNotice`); resolves to the outbox rows inserted.
       */
      channelNotice?: (
        s: StorageSession,
        run: RunRecord,
        events: ReadonlyArray<{ type: RunEvent['type']; data: unknown }>,
      ) => Promise<number>;
      /** Called after a commit that inserted outbox rows (wakes the outbox dispatcher). */
      onOutboxWritten?: () => void;
    },
  ) {
    this.#id = deps.ids.next('worker');
  }

  /** Starts `concurrency` worker loops (idempotent). */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#unwatch = this.deps.storage.watch?.((topic) => {
      if (topic === 'runs') this.wake();
    });
    this.#loops = Array.from({ length: this.deps.settings.concurrency }, (_, i) => this.#loop(`${this.#id}.${i}`));
  }

  /**
   * Stops taking runs at once and drains the runs being driven: each stops at its next step boundary (a wait
   * between steps ends at once); a step in flight (a model call, a capability handler) may finish within
   * `drainMs` and is committed; past it, its signal is aborted (a capability call in flight then ends at once, even
   * when its handler ignores the signal: see the invocation path). Every run's lease is then released (status
   * unchanged), so any worker leases it at once. Resolves when every loop has ended. Called again while
   * draining: the same drain, and a smaller `drainMs` (counted from the first call) cuts it short.
   * @param drainMs - how long steps in flight may run on, in ms (default 0: abort them at once)
   * @returns what the drain did
   */
  stop(drainMs = 0): Promise<DrainSummary> {
    this.#cutAt(drainMs);
    if (this.#stopping) return this.#stopping;
    this.#running = false;
    this.#unwatch?.();
    this.#unwatch = undefined;
    const began = this.#began;
    const draining = [...this.#active.values()];
    for (const entry of draining) entry.drain.abort();
    this.wake();
    const loops = Promise.all(this.#loops);
    this.#stopping = (async () => {
      await Promise.race([loops, this.#deadline.promise]);
      clearTimeout(this.#deadline.timer);
      // Steps still in flight at the deadline: aborted (their run is left as stored, for the next worker).
      let aborted = 0;
      for (const entry of this.#active.values()) {
        if (entry.controller.signal.aborted) continue;
        entry.reason ??= 'stop';
        entry.controller.abort();
        if (draining.includes(entry)) aborted++;
      }
      await loops;
      this.#loops = [];
      const released = draining.filter((entry) => entry.leftRunning).length;
      return { drained: draining.length - aborted, released, aborted, ms: Math.round(performance.now() - began) };
    })();
    return this.#stopping;
  }

  #stopping: Promise<DrainSummary> | undefined;
  readonly #deadline: {
    promise: Promise<void>;
    resolve: () => void;
    timer?: ReturnType<typeof setTimeout>;
    at: number;
  } = (() => {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve, at: Number.POSITIVE_INFINITY };
  })();

  /** Sets the drain's deadline `drainMs` after the first stop, unless one set before is earlier. */
  #cutAt(drainMs: number): void {
    const now = performance.now();
    if (!this.#stopping) this.#began = now;
    const due = this.#began + drainMs;
    if (due >= this.#deadline.at) return;
    this.#deadline.at = due;
    clearTimeout(this.#deadline.timer);
    if (due <= now) this.#deadline.resolve();
    else this.#deadline.timer = setTimeout(this.#deadline.resolve, due - now);
  }

  #began = 0;

  /** Wakes idle workers (a run was started or a message appended). */
  wake(): void {
    for (const w of [...this.#idle]) w.resume();
  }

  /**
   * An idle worker of this process, set aside for a run about to be created: the run is stored already leased to
   * `owner` (in the transaction that creates it, so the worker needs no transaction of its own to lease it), then
   * handed over with `take`; `cancel` when it was not stored. Undefined when no worker is idle or the pool stops.
   * @internal
   */
  offerLease(): LeaseOffer | undefined {
    if (!this.#running || this.#stopping) return undefined;
    const [waiter] = this.#idle;
    if (!waiter) return undefined;
    // Set aside: neither a wake nor its poll timer resumes it now.
    this.#idle.delete(waiter);
    clearTimeout(waiter.timer);
    let settled = false;
    const settle = (run?: RunRecord) => {
      if (settled) return;
      settled = true;
      // Handed over even when the pool began stopping meanwhile: it is leased to this worker, which drains it at once.
      waiter.resume(run);
    };
    return {
      owner: waiter.owner,
      leaseMs: this.deps.settings.leaseMs,
      take: (run) => settle(run),
      cancel: () => settle(),
    };
  }

  /** Aborts the drive of `runId` if this process runs it. */
  abortLocal(runId: string): void {
    const entry = this.#active.get(runId);
    if (entry) {
      entry.reason ??= 'abort';
      entry.controller.abort();
    }
  }

  /** Ids of the runs this process drives now. */
  activeRuns(): string[] {
    return [...this.#active.keys()];
  }

  async #loop(owner: string): Promise<void> {
    const { storage, clock, settings, logger } = this.deps;
    // The lease of the run this worker drove last, released in the transaction that leases the next one (one commit
    // instead of two), or on its own when the loop ends.
    let done: Ended | undefined;
    while (this.#running) {
      let run;
      try {
        const ended = done;
        // The usual poll (nothing to release) is the one statement it always was.
        run = ended
          ? await storage.transaction(async (s) => {
              await s.runs.releaseLease(ended.runId, owner);
              return s.runs.acquireLease(owner, clock.now(), settings.leaseMs);
            })
          : await storage.runs.acquireLease(owner, clock.now(), settings.leaseMs);
        done = undefined;
      } catch (error) {
        logger.error('worker could not lease a run', { owner, message: (error as Error).message });
      }
      if (!run) {
        // stop() may have been called while the lease query ran (its wake found no idle worker): do not sleep.
        if (!this.#running) break;
        const handed = await new Promise<RunRecord | undefined>((resolve) => {
          const waiter: IdleWorker = {
            owner,
            timer: setTimeout(() => waiter.resume(), settings.pollMs),
            resume: (given) => {
              clearTimeout(waiter.timer);
              this.#idle.delete(waiter);
              resolve(given);
            },
          };
          this.#idle.add(waiter);
        });
        // A run started in this process and leased to this worker in its own transaction (see `offerLease`): driven as
        // stored (a store may complete the record it inserts), when the lease is this worker's; else leased as usual.
        if (handed) {
          const stored = await storage.runs.get(handed.id).catch(() => undefined);
          if (stored?.leaseOwner === owner) done = await this.#drive(stored.id, owner, stored);
        }
        continue;
      }
      done = await this.#drive(run.id, owner, run);
    }
    if (done) await this.#release(done, owner);
  }

  /** Releases the lease of a run this worker drove; a drained run given up unfinished is noted (`leftRunning`). */
  async #release(ended: Ended, owner: string): Promise<void> {
    const { storage } = this.deps;
    const released = await storage.runs.releaseLease(ended.runId, owner).catch(() => false);
    // Drained and given up unfinished: another process leases it at once (it is `running` with no lease).
    if (released && ended.entry.drain.signal.aborted) {
      const left = await storage.runs.get(ended.runId).catch(() => undefined);
      ended.entry.leftRunning = left !== undefined && left.status === 'running';
    }
  }

  /**
   * Drives a leased run until its driver returns; its lease is still held then: the caller releases it (with the
   * next lease, or on its own).
   */
  async #drive(runId: string, owner: string, run: Parameters<RunDriver['process']>[0]): Promise<Ended> {
    const { storage, clock, settings, logger, driver } = this.deps;
    const entry: Drive = { controller: new AbortController(), drain: new AbortController(), leftRunning: false };
    // A run leased while the pool was stopping (the lease query was under way, or it was handed over) drains at once,
    // and is stopped at once when the stop's drain time is already over (nothing else would abort it).
    if (this.#stopping) {
      entry.drain.abort();
      if (performance.now() >= this.#deadline.at) {
        entry.reason = 'stop';
        entry.controller.abort();
      }
    }
    this.#active.set(runId, entry);
    /** Subagent runs driven inline under this lease: renewed with it. */
    const adopted = new Set<string>();
    const lease: RunLease = {
      owner,
      signal: entry.controller.signal,
      drain: entry.drain.signal,
      reason: () => entry.reason,
      adopt: (childId) => {
        adopted.add(childId);
        return () => adopted.delete(childId);
      },
    };
    const heartbeat = setInterval(
      () => {
        void (async () => {
          try {
            if (!(await storage.runs.renewLease(runId, owner, clock.now(), settings.leaseMs))) {
              entry.reason ??= 'lost';
              entry.controller.abort();
              return;
            }
            for (const childId of adopted) await storage.runs.renewLease(childId, owner, clock.now(), settings.leaseMs);
            const current = await storage.runs.get(runId);
            if (current?.abortRequested) {
              entry.reason ??= 'abort';
              entry.controller.abort();
            }
          } catch (error) {
            logger.warn('lease heartbeat failed', { runId, message: (error as Error).message });
          }
        })();
      },
      Math.max(10, Math.floor(settings.leaseMs / 3)),
    );
    try {
      if (run.abortRequested) entry.reason = 'abort';
      await driver.process(run, lease);
    } catch (error) {
      logger.error('run driver failed', {
        runId,
        cause: (error as Error).message,
        code: (error as { code?: string }).code,
      });
      // Stopping or a lost lease: the run stays as stored and another worker resumes it.
      if (entry.reason === 'stop' || entry.reason === 'lost') return { runId, entry };
      // The run ends `failed` with its terminal event in one transaction, so subscribers see it end.
      const code = (error as { code?: string }).code ?? 'DRIVER_FAILED';
      const message = (error as Error).message;
      let notices = 0;
      await storage
        .transaction(async (s) => {
          const now = clock.now();
          const failed = await s.runs.patch(
            runId,
            { status: 'failed', error: { code, message }, endedAt: now, updatedAt: now },
            owner,
          );
          if (!failed) return [];
          await releaseRunIntents(s, runId);
          const events = [
            await this.deps.bus.emit(runId, 'run_status', { status: 'failed', step: failed.step, reason: code }, s),
          ];
          // A channel run's person is told, as a step ending it would (docs/channels.md#replies-and-steering).
          if (this.deps.channelNotice)
            notices = await this.deps.channelNotice(s, failed, [{ type: events[0]!.type, data: events[0]!.data }]);
          // A scheduled run nobody watched never fails silently (runtime/unattended-origin.ts).
          const decision = unattendedFailureDecision(
            failed,
            'failed',
            { code, message },
            { id: this.deps.ids.next('dec'), now, reason: code },
          );
          if (decision && (await s.decisions.insert(decision)))
            events.push(
              await this.deps.bus.emit(runId, 'decision.created', decisionEventData(decision, decision.raisedBy), s),
            );
          return events;
        })
        .then((events) => {
          this.deps.bus.publish(...events);
          try {
            if (notices > 0) this.deps.onOutboxWritten?.();
          } catch {
            // The dispatcher's poll delivers the rows anyway.
          }
        })
        .catch((cause: unknown) =>
          logger.error('could not record a failed run', { runId, cause: (cause as Error).message }),
        );
    } finally {
      clearInterval(heartbeat);
      this.#active.delete(runId);
    }
    return { runId, entry };
  }
}

/** A worker loop waiting for work: resumed by a wake, its poll timer, or a run handed to it. */
interface IdleWorker {
  owner: string;
  timer: ReturnType<typeof setTimeout>;
  resume(run?: RunRecord): void;
}

/**
 * An idle worker set aside for a run about to be created in this process (see `WorkerPool.offerLease`).
 * @internal
 */
export interface LeaseOffer {
  /** The worker's lease owner name: the run is inserted with this lease. */
  owner: string;
  /** The lease length to store, in ms. */
  leaseMs: number;
  /** Hands the stored run to the worker, which drives it. */
  take(run: RunRecord): void;
  /** The run was not stored: the worker goes back to leasing. */
  cancel(): void;
}

/** A run whose drive ended, its lease not released yet. */
interface Ended {
  runId: string;
  entry: Drive;
}

/** A run this pool drives: its signal (aborts its step), its drain (stop at the next step boundary), why. */
interface Drive {
  controller: AbortController;
  drain: AbortController;
  reason?: 'abort' | 'lost' | 'stop';
  /** The drain gave its lease up while it was unfinished (`running`). */
  leftRunning: boolean;
}
