import { isHumanActor, parseActor } from '../core/actor';
import { releaseRunIntents } from './intent-release';
import { resolveRole } from '../authorization/roles';
import type { IdentityResolver } from '../ports/identity';
import { mayAccessRun } from './run-access';
import type { CapabilityRegistry } from '../capabilities/capability-registry';
import { MediaAgentError } from '../core/errors';
import type { RunEvent } from './events/run-event';
import type { LeaseOffer } from './worker-pool';
import { toRunEvent, type RunEventBus } from './events/run-event-bus';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { JsonValue } from '../core/records';
import {
  TERMINAL_RUN_STATUSES,
  type InboxRecord,
  type RunMode,
  type RunOrigin,
  type RunRecord,
  type RunStatus,
} from '../core/run-records';
import type { StorageAdapter, StorageSession } from '../ports/storage-adapter';
import type { AgentGoalReport } from './goal-report';
import type { RunChecklist } from './checklist';
import type { RunBudgets } from './run-budgets';

/**
 * A run request was malformed: empty goal, unknown mode or capability, an `execute`/`approve`
 * capability in a `plan_only` allowlist, bad budgets.
 * @public
 */
export class RunRequestError extends MediaAgentError {
  /** @param reason - what is wrong; @param details - structured facts */
  constructor(reason: string, details: Record<string, unknown> = {}) {
    super('RUN_REQUEST_INVALID', reason, details);
  }
}

/**
 * No run has the id.
 * @public
 */
export class RunNotFoundError extends MediaAgentError {
  /** @param runId - the id asked for */
  constructor(runId: string) {
    super('RUN_NOT_FOUND', `no run with id ${JSON.stringify(runId)}`, { runId });
  }
}

/**
 * A message was sent to a run that retention pruned (`RunRecord.prunedAt`): its events and messages are gone, so
 * it would resume with only its goal and the new message. Code `RUN_PRUNED`; `details.runId`, `details.prunedAt`.
 * @public
 */
export class RunPrunedError extends MediaAgentError {
  /** @param runId - the run; @param prunedAt - when retention pruned it (ms) */
  constructor(runId: string, prunedAt: number) {
    super(
      'RUN_PRUNED',
      `run ${JSON.stringify(runId)}: its conversation was removed by retention on ${new Date(prunedAt).toISOString()}; start a new run`,
      { runId, prunedAt },
    );
  }
}

/**
 * An input was handed over a second time: its `once` key (`RunService.startRun` / `appendToInbox` extras) was
 * already claimed by the run or inbox message it made, so nothing was written again. Code `RUN_INPUT_DUPLICATE`;
 * `details.key`, `details.by` (the run id or inbox id that handled it first).
 * @public
 */
export class RunInputDuplicateError extends MediaAgentError {
  /** @param key - the once key; @param by - the run or inbox id that claimed it */
  constructor(key: string, by: string) {
    super(
      'RUN_INPUT_DUPLICATE',
      `input ${JSON.stringify(key)} was already handled (${by}); nothing was written again`,
      {
        key,
        by,
      },
    );
  }
}

/** Settings key prefix of the once keys (`channels.input:` … keys are claimed as `once:<key>`). */
const ONCE_PREFIX = 'once:';

/**
 * Claims `once` in the caller's transaction for `by` (a run or inbox id), or throws `RUN_INPUT_DUPLICATE` when an
 * earlier transaction claimed it: the claim commits or rolls back with what the input made.
 */
async function claimOnce(s: StorageSession, once: string | undefined, by: string, at: number): Promise<void> {
  if (once === undefined) return;
  const key = `${ONCE_PREFIX}${once}`;
  const seen = (await s.settings.get(key)) as { by?: string } | undefined;
  if (seen !== undefined) throw new RunInputDuplicateError(once, typeof seen?.by === 'string' ? seen.by : '?');
  await s.settings.set(key, { by, at });
}

/** Input of `AgentHost.startRun`. @public */
export interface StartRunInput {
  /** The user's goal (1–10 000 characters). */
  goal: string;
  /** `execute` (default) or `plan_only` (only read, preview and propose capabilities). */
  mode?: RunMode;
  /** Who starts the run (`user:`, `apikey:`, `system:` …). Tool calls run as `agent:<runId>`. */
  actor: string;
  /** Limit the run to these capability ids. */
  capabilityAllowlist?: string[];
  /** Session the run belongs to. */
  sessionId?: string;
  /** Per-run budget overrides (defaults documented on each field). */
  budgets?: Partial<RunBudgets>;
  /**
   * `interactive` (default: loops are warned) or `background` / `channel` / `schedule` (loops stop the run; a
   * schedule's own runs have `schedule`).
   */
  origin?: RunOrigin;
}

/** What a delegating run passes for its read-only subagent (internal to the runtime). @public */
export interface SubagentParent {
  /** The delegating run. */
  parentRunId: string;
  /** The delegating run's depth (the child gets depth + 1; at most 2). */
  parentDepth: number;
  /** The worker driving the parent: the child is created leased to it and driven inline. */
  leaseOwner: string;
  /**
   * Expiry of the parent's lease (ms since epoch): the child's lease expires with it and is renewed with
   * it, so a child orphaned by a crash is taken over after the lease, like any run.
   */
  leaseExpiresAt: number;
}

/** A run with a page of its events, as `AgentHost.getRun` returns it. @public */
export interface RunDetail {
  /** The run. */
  run: RunRecord;
  /** Its checklist, when the model wrote one (`update_plan`). */
  checklist: RunChecklist | null;
  /** The verified goal report, when finalized (or the latest while waiting). */
  report: AgentGoalReport | null;
  /** Events with `seq > afterSeq`, at most `limit`. */
  events: RunEvent[];
  /** Inbox messages still queued for the run (applied ones are in the `inbox_applied` events). */
  inbox: InboxRecord[];
}

/**
 * Run bookkeeping for the host façade: start, read, list, steer, abort. Never calls the model
 * (workers do, under a lease).
 * @public
 */
export class RunService {
  /**
   * @param deps - storage, registry (allowlist checks), events, clock, ids; `wake` nudges local workers
   */
  constructor(
    private readonly deps: {
      storage: StorageAdapter;
      capabilities: CapabilityRegistry;
      bus: RunEventBus;
      clock: Clock;
      ids: IdGenerator;
      budgets: RunBudgets;
      wake: () => void;
      /**
       * An idle local worker for a run about to be created (`WorkerPool.offerLease`): the run is stored leased to it
       * and handed over, so no transaction of its own leases it. Without one, the workers are woken to lease it.
       */
      offerLease?: () => LeaseOffer | undefined;
      abortLocal: (runId: string) => void;
      identity: IdentityResolver;
      /**
       * A host with channels: writes a channel run's end notice in the transaction that cancels it outside a step
       * (`runtime/channels/channel-replies.ts` `channelEndNotice`); resolves to the outbox rows inserted.
       */
      channelNotice?: (
        s: StorageSession,
        run: RunRecord,
        events: ReadonlyArray<{ type: RunEvent['type']; data: unknown }>,
      ) => Promise<number>;
      /** Called after a commit that inserted outbox rows (wakes the outbox dispatcher; a throw is ignored). */
      onOutboxWritten?: () => void;
    },
  ) {}

  /**
   * Creates a `queued` run; a worker drives it. No model call happens in the caller's stack.
   * `extras` (runtime use): the run id to use, its initial runtime state, and `once`, a key claimed in the run's
   * own transaction (kept in the store's settings as `once:<key>`) so the same input never starts two runs, also
   * across restarts (a channel message redelivered).
   * @throws `RUN_REQUEST_INVALID`, `ACTOR_INVALID`, `RUN_INPUT_DUPLICATE` (`once` already claimed; nothing written)
   */
  async startRun(
    input: StartRunInput,
    parent?: SubagentParent,
    extras?: { id?: string; runtimeState?: JsonValue; once?: string },
  ): Promise<RunRecord> {
    const run = this.prepareRun(input, parent, extras);
    // An idle worker of this process takes the run as it is stored: it is inserted already leased to it.
    const offer = parent ? undefined : this.deps.offerLease?.();
    const stored: RunRecord = offer
      ? { ...run, leaseOwner: offer.owner, leaseExpiresAt: run.createdAt + offer.leaseMs }
      : run;
    // The run and its `queued` event, in one transaction (with the input's once key).
    let queued: RunEvent;
    try {
      queued = await this.deps.storage.transaction(async (s) => {
        await claimOnce(s, extras?.once, run.id, run.createdAt);
        return this.insertRun(s, stored, parent);
      });
    } catch (error) {
      offer?.cancel();
      throw error;
    }
    this.deps.bus.publish(queued);
    if (offer) offer.take(stored);
    else if (!parent) this.deps.wake();
    return run;
  }

  /**
   * Stores a run `prepareRun` built, with its `queued` event, in the caller's transaction `s`; the caller publishes
   * the event after the commit (and wakes the workers). The scheduler uses it to create a tick's run in the
   * transaction that claims the tick.
   * @returns the `queued` event, to publish after commit
   */
  async insertRun(s: StorageSession, run: RunRecord, parent?: SubagentParent): Promise<RunEvent> {
    await s.runs.insert(run);
    return this.deps.bus.emit(
      run.id,
      'run_status',
      { status: 'queued', step: 'drive', ...(parent ? { reason: `subagent of ${parent.parentRunId}` } : {}) },
      s,
    );
  }

  /**
   * Checks a run request and builds its `queued` record, without storing anything (a pure step but for the clock
   * and the id generator).
   * @throws `RUN_REQUEST_INVALID`, `ACTOR_INVALID`
   */
  prepareRun(
    input: StartRunInput,
    parent?: SubagentParent,
    extras?: { id?: string; runtimeState?: JsonValue },
  ): RunRecord {
    parseActor(input?.actor);
    const origin = input.origin ?? 'interactive';
    if (!['interactive', 'background', 'channel', 'schedule'].includes(origin))
      throw new RunRequestError(
        `origin must be interactive, background, channel or schedule, not ${JSON.stringify(origin)}`,
      );
    if (typeof input.goal !== 'string' || !input.goal.trim() || input.goal.length > 10_000)
      throw new RunRequestError('goal must be a non-empty string of at most 10000 characters');
    if (
      input.sessionId !== undefined &&
      !(typeof input.sessionId === 'string' && input.sessionId.length > 0 && input.sessionId.length <= 200)
    )
      throw new RunRequestError('sessionId must be a non-empty string of at most 200 characters');
    if (input.budgets !== undefined) {
      if (typeof input.budgets !== 'object' || input.budgets === null || Array.isArray(input.budgets))
        throw new RunRequestError('budgets must be an object');
      const unknown = Object.keys(input.budgets).filter(
        (k) => !['maxToolCalls', 'maxDurationSec', 'maxTokensPerRun', 'maxCostUsdPerRun', 'maxModelCalls'].includes(k),
      );
      if (unknown.length > 0) throw new RunRequestError(`unknown budgets: ${unknown.join(', ')}`);
    }
    if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(input.goal ?? ''))
      throw new RunRequestError('goal contains an unpaired surrogate (not valid Unicode text)');
    const mode = input.mode ?? 'execute';
    if (mode !== 'execute' && mode !== 'plan_only')
      throw new RunRequestError(`mode must be execute or plan_only, not ${JSON.stringify(mode)}`);
    let allowlist: string[] | null = null;
    if (input.capabilityAllowlist !== undefined) {
      if (!Array.isArray(input.capabilityAllowlist) || input.capabilityAllowlist.some((id) => typeof id !== 'string'))
        throw new RunRequestError('capabilityAllowlist must be an array of capability ids');
      const unknown = input.capabilityAllowlist.filter((id) => !this.deps.capabilities.has(id));
      if (unknown.length > 0)
        throw new RunRequestError(`unknown capabilities in the allowlist: ${unknown.join(', ')}`, { unknown });
      if (mode === 'plan_only') {
        const writes = input.capabilityAllowlist.filter(
          (id) => !['read', 'preview', 'propose'].includes(this.deps.capabilities.get(id).kind),
        );
        if (writes.length > 0)
          throw new RunRequestError(
            `a plan_only run may only use read, preview and propose capabilities; not ${writes.join(', ')}`,
            { capabilities: writes },
          );
      }
      allowlist = [...input.capabilityAllowlist];
    }
    const budgets: RunBudgets = { ...this.deps.budgets, ...(input.budgets ?? {}) };
    for (const [name, value] of Object.entries(budgets)) {
      if (value !== null && !(typeof value === 'number' && Number.isFinite(value) && value >= 0))
        throw new RunRequestError(`budget ${name} must be a non-negative number or null`);
    }
    const now = this.deps.clock.now();
    const run: RunRecord = {
      id: extras?.id ?? this.deps.ids.next('run'),
      goal: input.goal,
      mode,
      status: 'queued',
      step: 'drive',
      startedBy: input.actor,
      origin,
      parentRunId: parent?.parentRunId ?? null,
      depth: parent ? parent.parentDepth + 1 : 0,
      runtimeState: extras?.runtimeState ?? null,
      sessionId: input.sessionId ?? null,
      capabilityAllowlist: allowlist,
      budgets: budgets as unknown as JsonValue,
      usage: { toolCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, modelCalls: 0 },
      checklist: null,
      report: null,
      finalText: null,
      error: null,
      abortRequested: false,
      abortReason: null,
      wakeRequested: false,
      leaseOwner: parent?.leaseOwner ?? null,
      leaseExpiresAt: parent ? parent.leaseExpiresAt : null,
      notBefore: null,
      createdAt: now,
      updatedAt: now,
      startedAt: null,
      endedAt: null,
    };
    return run;
  }

  /**
   * A run with its checklist, report, queued inbox messages and a page of its events.
   * @param options - `afterSeq` (default 0) and `limit` (default 100, at most 1000) page the events; `actor`
   *   asks on a person's behalf (only the owner and administrators see the run)
   * @throws `RUN_NOT_FOUND` (also for a run the actor may not see), `ACTOR_INVALID`
   */
  async getRun(
    id: string,
    options: { afterSeq?: number; limit?: number; actor?: string } | null = {},
  ): Promise<RunDetail> {
    checkOptionsObject('options', options);
    const afterSeq = checkInteger('afterSeq', options?.afterSeq, 0, Number.MAX_SAFE_INTEGER) ?? 0;
    const limit = checkInteger('limit', options?.limit, 1, 1000) ?? 100;
    const run = await this.#require(id, options?.actor);
    const events = (await this.deps.storage.events.listByRun(id, { afterSeq, limit })).map(toRunEvent);
    const inbox = await this.deps.storage.inbox.listQueued(id);
    return {
      run,
      checklist: run.checklist as unknown as RunChecklist | null,
      report: run.report as unknown as AgentGoalReport | null,
      events,
      inbox,
    };
  }

  /**
   * Runs newest first, optionally by status or session (default limit 50). With `actor`, an ordinary user
   * gets only the runs they started; an administrator gets every run.
   * @throws `RUN_REQUEST_INVALID`, `ACTOR_INVALID`
   */
  async listRuns(
    filter: { status?: RunStatus; sessionId?: string; limit?: number; actor?: string } | null = {},
  ): Promise<RunRecord[]> {
    checkOptionsObject('filter', filter);
    const limit = checkInteger('limit', filter?.limit, 1, 1000) ?? 50;
    if (filter?.sessionId !== undefined && typeof filter.sessionId !== 'string')
      throw new RunRequestError('sessionId must be a string');
    if (
      filter?.status !== undefined &&
      !['queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled', 'budget_exceeded'].includes(filter.status)
    )
      throw new RunRequestError(`unknown status ${JSON.stringify(filter.status)}`);
    const { actor, ...rest } = filter ?? {};
    const own =
      actor !== undefined && !(isHumanActor(actor) && (await resolveRole(this.deps.identity, actor)) === 'admin')
        ? { startedBy: actor }
        : {};
    return this.deps.storage.runs.list({ ...rest, ...own, limit });
  }

  /**
   * Puts a person's message in the run's inbox. A running run gets it before its next model call; a
   * waiting or ended run is woken for one new drive. Nothing is dropped. Only the run's owner and
   * administrators may; the run then acts for the writer (their role decides admin-only capabilities),
   * while its owner stays the same.
   * @throws `RUN_NOT_FOUND` (also for a run the actor may not see), `RUN_REQUEST_INVALID` for empty text, `ACTOR_INVALID`,
   *   `RUN_PRUNED` for a run retention pruned (nothing is queued)
   * @param extras - runtime use: `id` the inbox id to use (a channel's steering message carries its channel message
   *   id in it, see `runtime/channels/conversation-binding.ts`); `once` a key claimed in the append's transaction
   *   (see {@link RunService.startRun}): the same input is never queued twice
   * @throws also `RUN_INPUT_DUPLICATE` (`once` already claimed; nothing written)
   */
  async appendToInbox(
    runId: string,
    text: string,
    actor: string,
    extras?: { id?: string; once?: string },
  ): Promise<InboxRecord> {
    parseActor(actor);
    if (typeof text !== 'string' || !text.trim() || text.length > 10_000)
      throw new RunRequestError('message text must be a non-empty string of at most 10000 characters');
    const record: InboxRecord = {
      id: extras?.id ?? this.deps.ids.next('msg'),
      runId,
      text,
      actor,
      status: 'queued',
      createdAt: this.deps.clock.now(),
      appliedAt: null,
    };
    const seen = await this.#require(runId, actor);
    if (seen.prunedAt !== undefined) throw new RunPrunedError(runId, seen.prunedAt);
    const event = await this.deps.storage.transaction(async (s) => {
      const run = await s.runs.get(runId);
      if (!run) throw new RunNotFoundError(runId);
      // Retention may have pruned it since: checked again in the transaction that would wake it.
      if (run.prunedAt !== undefined) throw new RunPrunedError(runId, run.prunedAt);
      await claimOnce(s, extras?.once, record.id, record.createdAt);
      await s.inbox.enqueue(record);
      // A waiting run is woken; an ended one becomes leasable again (`waiting` + wake) for one new drive.
      if (run.status !== 'running' && run.status !== 'queued')
        await s.runs.patch(runId, { wakeRequested: true, status: 'waiting', updatedAt: record.createdAt });
      return this.deps.bus.emit(runId, 'inbox_queued', { inboxId: record.id, text }, s);
    });
    this.deps.bus.publish(event);
    this.deps.wake();
    return record;
  }

  /**
   * Requests an abort: the driver stops before its next step (a model stream or tool call in flight is
   * aborted; completed effects are never undone) and the run ends `cancelled`.
   * @param options - `actor` aborts on a person's behalf (only the owner and administrators may)
   * @returns the run as it is now
   * @throws `RUN_NOT_FOUND` (also for a run the actor may not see), `ACTOR_INVALID`
   */
  async abort(runId: string, reason?: string, options?: { actor?: string }): Promise<RunRecord> {
    checkOptionsObject('options', options);
    if (options?.actor !== undefined) await this.#require(runId, options.actor);
    const now = this.deps.clock.now();
    const { run, event, notices } = await this.deps.storage.transaction<{
      run: RunRecord;
      event: RunEvent | undefined;
      notices?: number;
    }>(async (s) => {
      const current = await s.runs.get(runId);
      if (!current) throw new RunNotFoundError(runId);
      if (TERMINAL_RUN_STATUSES.includes(current.status)) return { run: current, event: undefined };
      const live = current.leaseOwner !== null && (current.leaseExpiresAt ?? 0) > now;
      if (!live) {
        // Nobody drives it (queued, waiting, or orphaned by a crash while running): cancel directly, in the same transaction that saw no lease.
        const interim = (current.report as { status?: string } | null)?.status === 'waiting';
        const cancelled = await s.runs.patch(runId, {
          status: 'cancelled',
          abortReason: reason ?? null,
          endedAt: now,
          updatedAt: now,
          notBefore: null,
          wakeRequested: false,
          // The report it had while waiting would contradict `cancelled` (docs/architecture.md#the-goal-report).
          ...(interim ? { report: null } : {}),
        });
        await releaseRunIntents(s, runId);
        const event = await this.deps.bus.emit(
          runId,
          'run_status',
          { status: 'cancelled', step: current.step, reason: reason ?? 'aborted' },
          s,
        );
        // A channel run's person is told, as a step ending it would (docs/channels.md#replies-and-steering).
        const notices = this.deps.channelNotice
          ? await this.deps.channelNotice(s, cancelled ?? current, [{ type: event.type, data: event.data }])
          : 0;
        return { run: (notices > 0 ? await s.runs.get(runId) : null) ?? cancelled ?? current, event, notices };
      }
      return {
        run:
          (await s.runs.patch(runId, { abortRequested: true, abortReason: reason ?? null, updatedAt: now })) ?? current,
        event: undefined,
      };
    });
    if (event) {
      this.deps.bus.publish(event);
      if ((notices ?? 0) > 0) wakeOutbox(this.deps.onOutboxWritten);
    } else {
      this.deps.abortLocal(runId);
      this.deps.wake();
    }
    return run;
  }

  /** The run, when it exists and `actor` (when given) may see it; else `RUN_NOT_FOUND`, saying nothing more. */
  async #require(id: string, actor?: string): Promise<RunRecord> {
    const run = await this.deps.storage.runs.get(id);
    if (!run) throw new RunNotFoundError(id);
    if (actor !== undefined && !(await mayAccessRun(this.deps.storage, this.deps.identity, run, actor)))
      throw new RunNotFoundError(id);
    return run;
  }
}

/** Wakes the outbox dispatcher after a commit that inserted rows; a throw there never fails the caller. */
function wakeOutbox(wake: (() => void) | undefined): void {
  try {
    wake?.();
  } catch {
    // The dispatcher's poll delivers the rows anyway.
  }
}

/**
 * An optional integer argument within [min, max], or a `RUN_REQUEST_INVALID` error (never a storage error).
 * @internal
 */
export function checkInteger(name: string, value: unknown, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!(typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max))
    throw new RunRequestError(`${name} must be an integer from ${min} to ${max}`);
  return value;
}

/**
 * An optional options argument must be an object (or null/undefined): a string where an options object
 * belongs (e.g. an actor passed positionally) is `RUN_REQUEST_INVALID`, never ignored.
 * @internal
 */
export function checkOptionsObject(name: string, value: unknown): void {
  if (value !== undefined && value !== null && (typeof value !== 'object' || Array.isArray(value)))
    throw new RunRequestError(`${name} must be an object; got ${typeof value}`);
}
