// Forks and undoing the last turn: reads the original, checks the request, writes the fork in one transaction.
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import { parseActor } from '../../core/actor';
import type { JsonValue } from '../../core/records';
import {
  TERMINAL_RUN_STATUSES,
  type RunEventRecord,
  type RunMessageRecord,
  type RunRecord,
} from '../../core/run-records';
import type { Clock } from '../../ports/clock';
import type { IdentityResolver } from '../../ports/identity';
import type { StorageAdapter } from '../../ports/storage-adapter';
import type { RunEvent } from '../events/run-event';
import type { RunEventBus } from '../events/run-event-bus';
import { mayAccessRun } from '../run-access';
import {
  checkOptionsObject,
  RunNotFoundError,
  RunPrunedError,
  RunRequestError,
  type RunService,
  type StartRunInput,
} from '../run-service';
import {
  ForkPointInvalidError,
  ForkSubagentRunError,
  UndoMessagePendingError,
  UndoNoTurnError,
  UndoNotInteractiveError,
} from './fork-errors';
import { forkNote } from './fork-note';
import { forkPointAt, forkPoints, nearestForkPoints } from './fork-points';
import { forkSeed } from './fork-seed';
import { FORK_STATE_KEY, forkStateOf, lineageRunsOf, MODEL_OVERRIDE_STATE_KEY, modelOverrideOf } from './fork-state';
import type { ForkedEffect, ForkPoint, ForkRunOptions, ListForkPointsOptions, UndoTurnResult } from './fork-types';
import { effectsAfter, forkedEffectOf, lineageEffects } from './forked-effects';
import type { PriorEffect } from '../../capabilities/invocation';
import { PROVENANCE_STATE_KEY, provenanceState } from '../loop/run-provenance-state';

/** Events read per page when a run's whole event list is read. */
const EVENT_PAGE = 1000;
/** At most this many ledger entries of a run are listed as its effects. */
const MAX_EFFECTS = 1000;

/** What the fork service needs. */
export interface ForkServiceDeps {
  storage: StorageAdapter;
  capabilities: CapabilityRegistry;
  bus: RunEventBus;
  clock: Clock;
  identity: IdentityResolver;
  /** The run service: builds the fork's record (`prepareRun`) and cancels an undone original (`abort`). */
  runs: RunService;
  /** Nudges the local workers (a `queued` fork). */
  wake: () => void;
}

/** An original run read for a fork, with its whole conversation and event list and its fork points. */
interface Original {
  run: RunRecord;
  events: RunEventRecord[];
  messages: RunMessageRecord[];
  points: ForkPoint[];
}

/**
 * Conversation control (docs/forks.md): the fork points of a run, a fork of it at one of them, and undoing the last
 * turn of an interactive conversation. The original is only read (undo may cancel it); every fork is written in
 * one storage transaction — the run, the copied messages, its `forked` event (seq 1) and its `run_status` — and its
 * events are published after the commit. A refused request writes nothing.
 * @public
 */
export class ForkService {
  /** @param deps - storage, registry, events, clock, identity, the run service, the workers' wake */
  constructor(private readonly deps: ForkServiceDeps) {}

  /**
   * The run's fork points, oldest first.
   * @throws `RUN_NOT_FOUND` (also a run `actor` may not read), `ACTOR_INVALID`, `RUN_PRUNED`, `RUN_REQUEST_INVALID`
   */
  async listForkPoints(runId: string, options: ListForkPointsOptions | null = {}): Promise<ForkPoint[]> {
    // Absent options are `{}`; `null` or anything that is not an object is refused.
    if (options === null) throw new RunRequestError('options must be an object or left out');
    checkOptionsObject('options', options);
    if (options?.actor !== undefined) parseActor(options.actor);
    const original = await this.#read(runId, options?.actor);
    return original.points;
  }

  /**
   * Forks `runId` at `options.atSeq` for `options.actor`: a `queued` run (see `AgentHost.forkRun`).
   * @throws `RUN_NOT_FOUND`, `ACTOR_INVALID`, `RUN_REQUEST_INVALID`, `RUN_PRUNED`, `FORK_SUBAGENT_RUN`,
   *   `FORK_POINT_INVALID` — nothing written
   */
  async forkRun(runId: string, options: ForkRunOptions): Promise<RunRecord> {
    checkForkOptions(options);
    const original = await this.#read(runId, options.actor);
    const point = forkPointAt(original.points, options.atSeq);
    if (!point) {
      const { before, after } = nearestForkPoints(original.points, options.atSeq);
      throw new ForkPointInvalidError(runId, options.atSeq, before, after);
    }
    const { run } = await this.#write(original, point, {
      actor: options.actor,
      model: options.model,
      goal: options.goal,
      undo: false,
    });
    return run;
  }

  /**
   * Undoes the person's last message of an interactive run: a fork before it, `waiting` for the next message, and
   * the original cancelled when it has not ended (see `AgentHost.undoLastTurn`).
   * @throws `RUN_NOT_FOUND`, `ACTOR_INVALID`, `RUN_PRUNED`, `FORK_SUBAGENT_RUN`, `UNDO_NOT_INTERACTIVE`,
   *   `UNDO_MESSAGE_PENDING`, `UNDO_NO_TURN` — nothing written
   */
  async undoLastTurn(runId: string, actor: string): Promise<UndoTurnResult> {
    parseActor(actor);
    const seen = await this.#require(runId, actor);
    if (seen.origin !== 'interactive') throw new UndoNotInteractiveError(runId, seen.origin);
    const queued = await this.deps.storage.inbox.listQueued(runId);
    if (queued.length > 0) throw new UndoMessagePendingError(runId, queued[0]!.id);
    const original = await this.#read(runId, actor, seen);
    const applied = [...original.events].reverse().find((e) => e.type === 'inbox_applied');
    const inboxId = (applied?.data as { inboxIds?: string[] } | undefined)?.inboxIds?.at(-1);
    // A fork whose person has not written since it was made: the last turn is one it copied (undo twice in a row).
    if ((!applied || inboxId === undefined) && seen.forkedFrom) return this.#undoCopiedTurn(original, actor);
    if (!applied || inboxId === undefined) throw new UndoNoTurnError(runId);
    const queuedEvent = original.events.find(
      (e) => e.type === 'inbox_queued' && (e.data as { inboxId?: unknown }).inboxId === inboxId,
    );
    const text = String((queuedEvent?.data as { text?: unknown } | undefined)?.text ?? '');
    // The greatest fork point before the commit that applied the message.
    const point = original.points.filter((p) => p.seq < applied.seq).at(-1);
    if (!point) throw new UndoNoTurnError(runId);
    const { run } = await this.#write(original, point, { actor, undo: true });
    let originalCancelled = false;
    if (!TERMINAL_RUN_STATUSES.includes(original.run.status)) {
      const now = await this.deps.runs.abort(runId, `undone: continued in ${run.id}`);
      originalCancelled = now.status === 'cancelled' || now.abortRequested;
    }
    return { run, forkedAt: point.seq, undoneMessage: { inboxId, text }, originalCancelled };
  }

  /**
   * Undo in a fork whose last person's message is one it copied from its lineage: the message's position (from the
   * positions people typed, kept in the fork's provenance state) is looked up in the ancestors, nearest first, until
   * one has a fork point before it within what it passed on; the new fork is made there. The effects of the runs in
   * between (the fork and any ancestor passed over) are all after that point: they are listed and join the lineage
   * the duplicate rule checks. The fork undone is cancelled when it has not ended.
   */
  async #undoCopiedTurn(fork: Original, actor: string): Promise<UndoTurnResult> {
    const { storage } = this.deps;
    const state = (fork.run.runtimeState ?? {}) as Record<string, JsonValue>;
    const position = provenanceState(state[PROVENANCE_STATE_KEY])
      .typedMessages.filter((n) => n > 1 && n <= fork.messages.length)
      .at(-1);
    if (position === undefined) throw new UndoNoTurnError(fork.run.id);
    const text = messageText(fork.messages[position - 1]?.message);
    const passed: { effects: ForkedEffect[]; lineage: PriorEffect[] } = { effects: [], lineage: [] };
    let child = fork;
    for (;;) {
      const from = child.run.forkedFrom;
      if (!from) throw new UndoNoTurnError(fork.run.id);
      const entries = await storage.ledger.listByRun(child.run.id, { limit: MAX_EFFECTS });
      passed.effects.push(...entries.map((e) => forkedEffectOf(e, child.run.id)));
      const childState = (child.run.runtimeState ?? {}) as Record<string, JsonValue>;
      passed.lineage.push(
        ...lineageEffects(child.run.id, entries, forkStateOf(childState[FORK_STATE_KEY])?.lineage ?? []),
      );
      const ancestor = await this.#read(from.runId, undefined);
      const point = ancestor.points.filter((p) => p.seq <= from.atSeq && p.messageCount < position).at(-1);
      if (point) {
        const queued = ancestor.events.find(
          (e) => e.type === 'inbox_queued' && (e.data as { text?: unknown }).text === text,
        );
        const { run } = await this.#write(ancestor, point, { actor, undo: true, passed });
        let originalCancelled = false;
        if (!TERMINAL_RUN_STATUSES.includes(fork.run.status)) {
          const now = await this.deps.runs.abort(fork.run.id, `undone: continued in ${run.id}`);
          originalCancelled = now.status === 'cancelled' || now.abortRequested;
        }
        const inboxId = String((queued?.data as { inboxId?: unknown } | undefined)?.inboxId ?? '');
        return { run, forkedAt: point.seq, undoneMessage: { inboxId, text }, originalCancelled };
      }
      child = ancestor;
    }
  }

  /** The run, when it exists and `actor` may read it; else `RUN_NOT_FOUND`, saying nothing more. */
  async #require(runId: string, actor: string | undefined): Promise<RunRecord> {
    if (typeof runId !== 'string' || runId.length === 0) throw new RunNotFoundError(String(runId));
    const run = await this.deps.storage.runs.get(runId);
    if (!run) throw new RunNotFoundError(runId);
    if (actor !== undefined && !(await mayAccessRun(this.deps.storage, this.deps.identity, run, actor)))
      throw new RunNotFoundError(runId);
    if (run.depth > 0) throw new ForkSubagentRunError(runId, run.parentRunId);
    return run;
  }

  /** The original with its events, conversation and fork points (access checked first). */
  async #read(runId: string, actor: string | undefined, seen?: RunRecord): Promise<Original> {
    const run = seen ?? (await this.#require(runId, actor));
    if (run.prunedAt !== undefined) throw new RunPrunedError(runId, run.prunedAt);
    const events: RunEventRecord[] = [];
    for (;;) {
      const page = await this.deps.storage.events.listByRun(runId, {
        afterSeq: events.at(-1)?.seq ?? 0,
        limit: EVENT_PAGE,
      });
      events.push(...page);
      if (page.length < EVENT_PAGE) break;
    }
    const messages = await this.deps.storage.messages.list(runId);
    return {
      run,
      events,
      messages,
      points: forkPoints(
        events,
        messages.map((m) => m.message),
      ),
    };
  }

  /** Writes the fork of `original` at `point` in one transaction, then publishes its events. */
  async #write(
    original: Original,
    point: ForkPoint,
    request: {
      actor: string;
      model?: string | undefined;
      goal?: string | undefined;
      undo: boolean;
      /** Effects of the runs an undo passed over (all after `point`), listed and added to the lineage. */
      passed?: { effects: ForkedEffect[]; lineage: PriorEffect[] };
    },
  ): Promise<{ run: RunRecord }> {
    const { storage, bus, clock, capabilities } = this.deps;
    const source = original.run;
    const entries = await storage.ledger.listByRun(source.id, { limit: MAX_EFFECTS });
    const sourceState = (source.runtimeState ?? {}) as Record<string, JsonValue>;
    const inherited = forkStateOf(sourceState[FORK_STATE_KEY]);
    // The effects after the fork point: the original's own, then those its own `forked` event listed (a fork of a fork).
    const ancestors = inheritedEffects(original.events);
    const after: ForkedEffect[] = uniqueByKey([
      ...effectsAfter(source.id, entries, original.events, point.seq),
      ...ancestors,
      ...(request.passed?.effects ?? []),
    ]);
    const lineage = uniqueByKey([
      ...lineageEffects(source.id, entries, inherited?.lineage ?? []),
      ...(request.passed?.lineage ?? []),
    ]);
    const model = request.model ?? modelOverrideOf(sourceState[MODEL_OVERRIDE_STATE_KEY]);
    const goalChanged = request.goal !== undefined && request.goal !== source.goal;
    const seed = forkSeed({
      original: source,
      events: original.events.filter((e) => e.seq <= point.seq),
      messageCount: point.messageCount,
      descriptor: (id) => (capabilities.has(id) ? capabilities.get(id) : undefined),
      fork: {
        fromRunId: source.id,
        atSeq: point.seq,
        lineage,
        ancestors: [source.id, ...(inherited ? lineageRunsOf(inherited) : [])],
      },
      model,
      goalChanged,
    });
    const input: StartRunInput = {
      goal: request.goal ?? source.goal,
      mode: source.mode,
      actor: request.actor,
      origin: source.origin,
      budgets: source.budgets as StartRunInput['budgets'],
      ...(source.capabilityAllowlist ? { capabilityAllowlist: source.capabilityAllowlist } : {}),
      ...(source.sessionId !== null ? { sessionId: source.sessionId } : {}),
    };
    const prepared = this.deps.runs.prepareRun(input, undefined, { runtimeState: seed.runtimeState });
    const fork: RunRecord = {
      ...prepared,
      checklist: seed.checklist,
      ...(request.undo ? { status: 'waiting' as const } : {}),
      forkedFrom: { runId: source.id, atSeq: point.seq },
    };
    const prefix = original.messages.slice(0, point.messageCount);
    // The note: always for a fork the model answers next; for an undo (the person speaks next) only when there is
    // something to tell.
    const note =
      !request.undo || after.length > 0 || goalChanged
        ? forkNote({ fromRunId: source.id, atSeq: point.seq, effects: after, goalChanged })
        : undefined;
    const now = clock.now();
    const published = await storage.transaction(async (s) => {
      await s.runs.insert(fork);
      let count = 0;
      for (const m of prefix) count = (await s.messages.append(fork.id, m.message, m.at)).seq;
      if (goalChanged)
        count = (
          await s.messages.append(
            fork.id,
            { role: 'user', content: `The person changed the goal: ${request.goal}` },
            now,
          )
        ).seq;
      if (note !== undefined) count = (await s.messages.append(fork.id, { role: 'user', content: note }, now)).seq;
      const events: RunEvent[] = [];
      events.push(
        await bus.emit(
          fork.id,
          'forked',
          {
            fromRunId: source.id,
            atSeq: point.seq,
            effectsAfter: after,
            ...(model !== undefined ? { model } : {}),
            ...(goalChanged ? { goalChanged: true } : {}),
            ...(request.undo ? { undo: true } : {}),
          },
          s,
        ),
      );
      events.push(
        await bus.emit(
          fork.id,
          'run_status',
          request.undo
            ? {
                status: 'waiting',
                step: 'drive',
                reason: `undo of run ${source.id}: waiting for the person's next message`,
              }
            : { status: 'queued', step: 'drive', reason: `fork of run ${source.id} at event ${point.seq}` },
          s,
          count,
        ),
      );
      return events;
    });
    bus.publish(...published);
    if (!request.undo) this.deps.wake();
    return { run: fork };
  }
}

/** The first of each ledger key, in order. */
function uniqueByKey<T extends { key: string }>(list: readonly T[]): T[] {
  const seen = new Set<string>();
  return list.filter((e) => !seen.has(e.key) && seen.add(e.key));
}

/** The text of a stored conversation message (a string content, or its text parts joined). */
function messageText(message: JsonValue | undefined): string {
  const content = (message as { content?: unknown } | undefined)?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : ''))
    .join('');
}

/** The effects a fork's own `forked` event (its first) listed: its ancestors' effects after its fork point. */
function inheritedEffects(events: readonly RunEventRecord[]): ForkedEffect[] {
  const first = events.find((e) => e.type === 'forked');
  const listed = (first?.data as { effectsAfter?: unknown } | undefined)?.effectsAfter;
  return Array.isArray(listed) ? (listed as ForkedEffect[]) : [];
}

/**
 * The options of `forkRun`, checked before anything is read: an object; `actor` a valid actor (`ACTOR_INVALID`);
 * `atSeq` is checked against the fork points (`FORK_POINT_INVALID`); `model` a non-empty string of at most 200
 * characters and `goal` one of at most 10 000 (`RUN_REQUEST_INVALID`).
 */
function checkForkOptions(options: ForkRunOptions): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new RunRequestError('fork options must be an object with atSeq and actor');
  parseActor(options.actor);
  if (
    options.model !== undefined &&
    !(typeof options.model === 'string' && options.model.trim().length > 0 && options.model.length <= 200)
  )
    throw new RunRequestError('model must be a non-empty string of at most 200 characters');
  if (
    options.goal !== undefined &&
    !(typeof options.goal === 'string' && options.goal.trim().length > 0 && options.goal.length <= 10_000)
  )
    throw new RunRequestError('goal must be a non-empty string of at most 10000 characters');
}
