// The scheduler of one host process: polls the store for due schedules and, per schedule, in one transaction,
// advances the schedule (compare-and-set), claims its tick records and creates the tick's run. Any number of
// processes may run it on one store: the compare-and-set and the claim make each tick handled once, and a process
// killed at any point leaves all of a poll's writes for a schedule or none (docs/schedules.md#exactly-one-run-per-tick).
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import { capabilityVisibleTo } from '../../capabilities/visible-capabilities';
import { resolveRole } from '../../authorization/roles';
import { isMediaAgentError } from '../../core/errors';
import type { RunRecord } from '../../core/run-records';
import type { ScheduleRecord, ScheduleTickRecord } from '../../core/schedule-records';
import type { Clock } from '../../ports/clock';
import type { IdGenerator } from '../../ports/id-generator';
import type { IdentityResolver } from '../../ports/identity';
import type { Logger } from '../../ports/logger';
import type { StorageAdapter, StorageSession } from '../../ports/storage-adapter';
import { decisionEventData } from '../decisions/decision-events';
import type { RunEvent } from '../events/run-event';
import type { RunEventBus } from '../events/run-event-bus';
import type { RunService } from '../run-service';
import { SCHEDULE_STATE_KEY } from '../unattended-origin';
import { firingDay, tickPlan } from './schedule-tick-plan';
import { scheduleRunBudgets } from './schedule-budgets';
import { advancedSchedule, pastHandledTicks, skippedTickDecision, tickRecord } from './schedule-tick-state';

/** Milliseconds in a UTC day. */
const DAY_MS = 86_400_000;

/** A copy of `items` in random order (Fisher–Yates). */
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** How the runner polls. @public */
export interface ScheduleRunnerSettings {
  /** How often the runner looks for due schedules, in real ms (default 1 000). */
  pollMs: number;
  /** How late (host clock ms) a tick may be handled and still fire on time (default 60 000). */
  graceMs: number;
  /** The most due schedules handled per poll (default 20; a full poll is followed by another at once). */
  maxPerPoll: number;
}

/** The runner's defaults. @public */
export const DEFAULT_SCHEDULE_RUNNER_SETTINGS: Readonly<ScheduleRunnerSettings> = Object.freeze({
  pollMs: 1_000,
  graceMs: 60_000,
  maxPerPoll: 20,
});

/** What the runner needs. @public */
export interface ScheduleRunnerDeps {
  /** The store shared by every process. */
  storage: StorageAdapter;
  /** Builds and stores a tick's run in the claim's transaction. */
  runs: Pick<RunService, 'prepareRun' | 'insertRun'>;
  /** Whether the allowlist is still registered. */
  capabilities: Pick<CapabilityRegistry, 'has' | 'get'>;
  /** The owner's role: an admin-only capability of the allowlist needs an administrator owner. */
  identity: IdentityResolver;
  /** Run events. */
  bus: RunEventBus;
  /** The host clock (tick times, grace, daily caps). */
  clock: Clock;
  /** Decision ids. */
  ids: IdGenerator;
  /** Where failures go. */
  logger: Logger;
  /** Wakes this process's workers once a run is queued. */
  wake: () => void;
  /** This process's name in `ScheduleTickRecord.handledBy`. */
  owner: string;
  /** Polling settings. */
  settings: ScheduleRunnerSettings;
}

/** What one poll did with one due schedule. @public */
export interface ScheduleHandled {
  /** The schedule. */
  scheduleId: string;
  /**
   * `handled` (its tick records and run are stored), `lost` (another process handled it first: nothing stored by
   * this one), `failed` (an error; nothing stored, the next poll tries again).
   */
  outcome: 'handled' | 'lost' | 'failed';
  /** The tick records stored (empty unless `handled`). */
  ticks: ScheduleTickRecord[];
  /** The run started, or null. */
  runId: string | null;
}

/** Thrown inside the transaction to roll it back when a tick was claimed by another process. */
class TickClaimLost extends Error {}

/**
 * Fires due schedules: `start()` polls every `pollMs`, `stop()` ends it (a poll under way finishes first),
 * `pollOnce()` handles the due schedules now (tests, and hosts that drive their own timer).
 * @public
 */
export class ScheduleRunner {
  readonly #deps: ScheduleRunnerDeps;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running = false;
  #busy: Promise<unknown> | undefined;

  /** @param deps - storage, run service, registry, identity, events, clock, ids, logger, settings */
  constructor(deps: ScheduleRunnerDeps) {
    this.#deps = deps;
  }

  /** Starts polling (idempotent). */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule(0);
  }

  /** Stops polling; resolves once a poll under way has finished. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#busy?.catch(() => undefined);
  }

  #schedule(delayMs: number): void {
    if (!this.#running) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const poll = this.pollOnce();
      this.#busy = poll;
      void poll
        .then(
          (handled) => handled.length >= this.#deps.settings.maxPerPoll,
          (error: unknown) => {
            this.#deps.logger.error('schedule poll failed', { message: (error as Error).message });
            return false;
          },
        )
        .then((full) => {
          this.#busy = undefined;
          this.#schedule(full ? 0 : this.#deps.settings.pollMs);
        });
    }, delayMs);
    this.#timer.unref?.();
  }

  /**
   * Handles every due schedule (at most `maxPerPoll`, earliest `nextTickAt` first), one transaction each.
   * @returns what became of each
   */
  async pollOnce(): Promise<ScheduleHandled[]> {
    const { storage, clock, settings } = this.#deps;
    // Each process walks the due schedules in its own order, so processes polling together spread over them
    // instead of queueing behind one another schedule by schedule.
    // The instant this poll sees the due schedules: their ticks are planned and judged on time or late as of then,
    // so a tick seen within its grace fires even when the transactions before it in this poll take long.
    const seenAt = clock.now();
    const due = shuffled(await storage.schedules.due(seenAt, settings.maxPerPoll));
    const out: ScheduleHandled[] = [];
    for (const schedule of due) out.push(await this.#tryHandle(schedule, seenAt));
    // A schedule lost to a process that was handling an older tick of it (locked then, or handled since) may still
    // have a tick due as of `seenAt`: one more try each, once those transactions are done.
    for (const [i, schedule] of due.entries())
      if (out[i]!.outcome === 'lost') out[i] = await this.#tryHandle(schedule, seenAt);
    return out;
  }

  /** {@link ScheduleRunner.#handle}, with an error logged and reported as `failed` (the next poll tries again). */
  async #tryHandle(schedule: ScheduleRecord, seenAt: number): Promise<ScheduleHandled> {
    try {
      return await this.#handle(schedule, seenAt);
    } catch (error) {
      this.#deps.logger.error('could not handle a due schedule; the next poll tries again', {
        scheduleId: schedule.id,
        code: isMediaAgentError(error) ? error.code : undefined,
        message: (error as Error).message,
      });
      return { scheduleId: schedule.id, outcome: 'failed', ticks: [], runId: null };
    }
  }

  /** Why the schedule's run may not start as its owner (a capability gone or not callable by them), or null. */
  async #refusal(schedule: ScheduleRecord): Promise<string | null> {
    const { capabilities, identity } = this.#deps;
    const allowlist = schedule.capabilityAllowlist ?? [];
    const gone = allowlist.filter((id) => !capabilities.has(id));
    if (gone.length > 0) return `capabilities of its allowlist are not registered: ${gone.join(', ')}`;
    const adminOnly = allowlist.filter((id) => capabilities.get(id).adminOnly === true);
    if (adminOnly.length === 0) return null;
    const role = await resolveRole(identity, schedule.owner);
    const denied = adminOnly.filter((id) => !capabilityVisibleTo(capabilities.get(id), role));
    return denied.length > 0
      ? `its owner ${schedule.owner} may no longer call ${denied.join(', ')} (administrators only)`
      : null;
  }

  /**
   * Handles one schedule the poll saw due at `seenAt`: its ticks are planned, and judged on time or late, as of
   * `seenAt` (the tick records' `handledAt`); the schedule's `updatedAt` and decisions take the clock's time.
   */
  async #handle(seen: ScheduleRecord, seenAt: number): Promise<ScheduleHandled> {
    const { storage, clock, settings, bus, runs, ids, owner } = this.#deps;
    const lost: ScheduleHandled = { scheduleId: seen.id, outcome: 'lost', ticks: [], runId: null };
    const refusal = await this.#refusal(seen);
    const now = seenAt;
    const changedAt = Math.max(clock.now(), seenAt);
    let written: { events: RunEvent[]; ticks: ScheduleTickRecord[]; run: RunRecord | null } | null;
    try {
      written = await storage.transaction(async (s) => {
        // Locked for this transaction; absent when another process is firing it, or when it is no longer due as of
        // `seenAt` (paused, deleted, or its due ticks handled since the poll read it). A schedule changed since the
        // poll read it is handled as it is stored now: it is locked, and the compare-and-set below is on this revision.
        const stored = await s.schedules.lockDue(seen.id, now);
        if (!stored) return null;
        const refusedNow = stored.revision === seen.revision ? refusal : await this.#refusal(stored);
        // The tick records are the truth of what was handled: never plan a tick at or before the newest one.
        const [newest] = await s.schedules.ticks(stored.id, { limit: 1 });
        const schedule = pastHandledTicks(stored, newest?.tickAt);
        const day = firingDay(schedule, now, settings.graceMs);
        const used =
          day === null ? { runs: 0, costUsd: 0 } : await s.schedules.firedBetween(schedule.id, day, day + DAY_MS);
        const plan = tickPlan({ schedule, now, graceMs: settings.graceMs, used });
        if (plan.records.length === 0) {
          // Only the row was behind its records: store where it really stands.
          if (schedule !== stored)
            await s.schedules.compareAndSet(
              stored.id,
              stored.revision,
              advancedSchedule(schedule, plan, null, changedAt),
            );
          return null;
        }
        // The fire's run, or why it cannot start (then the tick is recorded skipped, reason refused).
        let run: RunRecord | null = null;
        let refused = refusedNow;
        if (plan.fire !== null && refused === null) {
          try {
            run = runs.prepareRun(
              {
                goal: schedule.goal,
                mode: schedule.mode,
                actor: schedule.owner,
                ...(schedule.capabilityAllowlist !== null ? { capabilityAllowlist: schedule.capabilityAllowlist } : {}),
                budgets: scheduleRunBudgets(schedule.budgets),
                origin: 'schedule',
              },
              undefined,
              { runtimeState: { [SCHEDULE_STATE_KEY]: { scheduleId: schedule.id, tickAt: plan.fire } } },
            );
          } catch (error) {
            if (!isMediaAgentError(error)) throw error;
            refused = error.message;
          }
        }
        const records = plan.records.map((planned) =>
          tickRecord(
            schedule.id,
            planned.outcome === 'fired' && run === null
              ? { ...planned, outcome: 'skipped', reason: 'refused' }
              : planned,
            run?.id ?? null,
            { at: now, by: owner },
          ),
        );
        // The schedule first: a process that loses this compare-and-set stops (another one handles these ticks).
        if (
          !(await s.schedules.compareAndSet(
            schedule.id,
            schedule.revision,
            advancedSchedule(schedule, plan, run?.id ?? null, changedAt),
          ))
        )
          return null;
        for (const tick of records) if (!(await s.schedules.claimTick(tick))) throw new TickClaimLost();
        const events: RunEvent[] = [];
        if (run) {
          events.push(await runs.insertRun(s, run));
          events.push(
            await bus.emit(run.id, 'schedule.fired', { scheduleId: schedule.id, tickAt: plan.fire!, runId: run.id }, s),
          );
        }
        for (const tick of records) {
          if (tick.outcome !== 'skipped' || tick.reason === null) continue;
          events.push(
            await bus.emit(
              schedule.id,
              'schedule.skipped',
              {
                scheduleId: schedule.id,
                tickAt: tick.tickAt,
                reason: tick.reason,
                ticks: tick.ticks,
                firstTickAt: tick.firstTickAt,
              },
              s,
            ),
          );
          const detail = tick.reason === 'daily_budget' ? (plan.capped ?? 'runs') : (refused ?? '');
          const decision = skippedTickDecision(schedule, tick, detail, { id: ids.next('dec'), now: changedAt });
          if (decision) events.push(...(await this.#raise(s, decision)));
        }
        return { events, ticks: records, run };
      });
    } catch (error) {
      if (error instanceof TickClaimLost) return lost;
      throw error;
    }
    if (!written) return lost;
    bus.publish(...written.events);
    if (written.run) this.#deps.wake();
    return { scheduleId: seen.id, outcome: 'handled', ticks: written.ticks, runId: written.run?.id ?? null };
  }

  /** Stores a decision unless its dedupe key is stored, with its `decision.created` event on the schedule's stream. */
  async #raise(s: StorageSession, decision: Parameters<StorageSession['decisions']['insert']>[0]): Promise<RunEvent[]> {
    if (!(await s.decisions.insert(decision))) return [];
    return [
      await this.#deps.bus.emit(
        decision.subjectId,
        'decision.created',
        decisionEventData(decision, decision.raisedBy),
        s,
      ),
    ];
  }
}
