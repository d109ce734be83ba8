// One run being processed: its state in memory and the writes of the step in progress.
import type { RunEventPayloads, RunEventType } from '../events/run-event';
import type { ModelMessage } from '../../models/types';
import type { JsonValue } from '../../core/records';
import type { RunRecord, RunUsage } from '../../core/run-records';
import { mergeByModel } from '../budgets/usage-by-model';
import type { RunPatch } from '../../ports/storage-adapter';
import type { RunMiddlewareRun } from '../middleware/run-middleware';
import type { RunLease } from './driver-types';
import { mergeSteps, StepWrites, type TakenStep } from './step-writes';
import type { StepRider } from './step-rider';
import { ROOT_CONTEXT, type Context } from '@opentelemetry/api';

/** A request to end the drive after the current step (loop guard, a middleware, an ambiguous goal). */
export interface StopRequest {
  /** Stable code. */
  code: string;
  /** The reason. */
  message: string;
  /** `fail`: the run ends failed whatever its origin; `stop`: interactive runs wait for their user. */
  kind: 'fail' | 'stop';
  /** Who asked, for people: `the loop guard`, `middleware "x"`. */
  by: string;
  /** Source of the warning event that announces a `stop`. */
  source: 'loop_guard' | 'runtime';
}

/**
 * Everything the runtime keeps about one run while a worker processes it: the run as last stored
 * (with this step's patch applied), the working conversation (after compactions; every message
 * stays in storage), how many messages are stored, the runtime state (middleware state, compaction,
 * goal targets, subagents), usage, the refused-turn counters, per-middleware objects in memory, and
 * the writes of the step in progress ({@link StepWrites}).
 *
 * @remarks
 * One session per processing of a run (one driver per run, under a lease), so its fields are the
 * truth for that run: they are written with each step, never re-read.
 */
export class RunSession {
  /** The run as stored after the last commit, with the pending patch applied. */
  run: RunRecord;
  /** The lease it is processed under. */
  readonly lease: RunLease;
  /** The working conversation: a compaction summary (if any) and the messages since. */
  readonly messages: ModelMessage[] = [];
  /** Messages of the run in storage, pending ones included (the index the next message will have). */
  storedCount = 0;
  /**
   * Messages of the run committed to storage, as of the last step commit (or as read when the drive started);
   * undefined until one of them told. Written on the last event of each step commit (`RunEventRecord.messageCount`).
   */
  committedMessages: number | undefined;
  /** Model turns in a row whose every call was refused (the next model call waits first). */
  refusedTurns = 0;
  /** The value of `refusedTurns` the last pause was for. */
  pausedFor = 0;
  /** Model replies in a row cut by the output limit (see `truncated-turn.ts`); 0 after a reply that was not cut. */
  truncatedTurns = 0;
  /** True when a message or a decided approval woke the run for this processing. */
  readonly woken: boolean;
  /** Set when something asked the drive to end after the current step. */
  stop: StopRequest | undefined;
  /** Per-middleware objects kept in memory during the drive (see `MiddlewareState.local`). */
  readonly locals = new Map<string, unknown>();
  /** The writes of the step in progress (a new buffer once a commit took them, see {@link RunSession.takeStep}). */
  writes = new StepWrites();
  /**
   * The writes of the step that opened the read-only call now running, taken from {@link RunSession.writes}
   * to commit with that call's step, or on their own (see `deferred-commit.ts`).
   */
  #deferred: TakenStep | undefined;
  /** When the oldest writes set aside were set aside (`performance.now()`, ms). */
  #deferredSince = 0;
  /**
   * True when writes set aside have waited through a model call (`turn-step.ts`): they commit before the next
   * tool handler runs (`deferred-commit.ts`), so what an earlier turn's calls returned survives a crash inside it.
   */
  deferredPastModelCall = false;
  /** What middleware see of the run. */
  readonly view: RunMiddlewareRun;
  /** The OpenTelemetry context of this processing's `invoke_agent` span (the parent of its model and tool spans). */
  trace: Context = ROOT_CONTEXT;
  #state: Record<string, JsonValue>;
  #usage: RunUsage;
  #stateDirty = false;
  #usageDirty = false;

  /**
   * @param run - the run as leased
   * @param lease - the lease it is processed under
   */
  constructor(run: RunRecord, lease: RunLease) {
    this.run = run;
    this.lease = lease;
    this.woken = run.wakeRequested;
    this.#state = { ...((run.runtimeState ?? {}) as Record<string, JsonValue>) };
    this.#usage = { ...run.usage };
    this.view = Object.freeze({
      id: run.id,
      goal: run.goal,
      mode: run.mode,
      origin: run.origin,
      depth: run.depth,
      parentRunId: run.parentRunId,
      capabilityAllowlist: run.capabilityAllowlist ? Object.freeze([...run.capabilityAllowlist]) : null,
      startedBy: run.startedBy,
    });
  }

  /** Run id. */
  get id(): string {
    return this.run.id;
  }

  /** Usage so far, this step included. */
  get usage(): Readonly<RunUsage> {
    return this.#usage;
  }

  /** Adds to the usage (written with the step). */
  addUsage(delta: Partial<RunUsage>): void {
    const u = this.#usage;
    const byModel = mergeByModel(u.byModel, delta.byModel);
    this.#usage = {
      toolCalls: u.toolCalls + (delta.toolCalls ?? 0),
      inputTokens: u.inputTokens + (delta.inputTokens ?? 0),
      outputTokens: u.outputTokens + (delta.outputTokens ?? 0),
      costUsd: u.costUsd + (delta.costUsd ?? 0),
      modelCalls: u.modelCalls + (delta.modelCalls ?? 0),
      ...(byModel ? { byModel } : {}),
    };
    this.#usageDirty = true;
  }

  /** A value of the runtime state. */
  getState(key: string): JsonValue | undefined {
    return this.#state[key];
  }

  /** Sets a value of the runtime state (written with the step). */
  setState(key: string, value: JsonValue): void {
    this.#state = { ...this.#state, [key]: value };
    this.#stateDirty = true;
  }

  /** A copy of the whole runtime state as the session holds it. */
  stateSnapshot(): Record<string, JsonValue> {
    return { ...this.#state };
  }

  /**
   * Takes a runtime-state value the commit in progress writes itself (in its run patch), without marking the state
   * changed: the channel conversation, which the step's commit derives from the step (`runtime/channels`).
   */
  adoptState(key: string, value: JsonValue): void {
    this.#state = { ...this.#state, [key]: value };
  }

  /** Sets run fields (written with the step) and applies them to {@link RunSession.run}. */
  patch(patch: RunPatch): void {
    Object.assign(this.writes.patch, patch);
    this.run = { ...this.run, ...patch };
  }

  /** Appends a message to the working conversation and to the step's writes. */
  append(message: ModelMessage): void {
    this.messages.push(message);
    this.storedCount++;
    this.writes.messages.push(message);
  }

  /** Adds a run event to the step's writes (published after the commit). */
  emit<T extends RunEventType>(type: T, data: RunEventPayloads[T]): void {
    this.writes.events.push({ type, data } as never);
  }

  /**
   * Takes the step's writes for a commit: the run patch (its fields, the runtime state and the usage
   * when they changed) and the rest of {@link StepWrites}. What the run does while the commit is under
   * way goes into a new buffer, for the next commit.
   */
  takeStep(): TakenStep {
    const writes = this.writes;
    const patch: RunPatch = {
      ...writes.patch,
      ...(this.#stateDirty ? { runtimeState: this.#state } : {}),
      ...(this.#usageDirty ? { usage: this.#usage } : {}),
    };
    this.writes = new StepWrites();
    this.#stateDirty = false;
    this.#usageDirty = false;
    return { patch, writes };
  }

  /**
   * Sets the step's writes aside to commit with the next step (after any already set aside);
   * {@link RunSession.takeDeferred} takes them.
   */
  defer(): void {
    const step = this.takeStep();
    if (!this.#deferred) this.#deferredSince = performance.now();
    this.#deferred = this.#deferred ? mergeSteps(this.#deferred, step) : step;
  }

  /**
   * When the oldest writes now set aside were set aside, as `performance.now()` in ms (meaningful while
   * {@link RunSession.hasDeferred}): they wait at most the commit window (`runs.commitWindowMs`) from then (`deferred-commit.ts`).
   */
  get deferredSince(): number {
    return this.#deferredSince;
  }

  /** Puts writes taken by {@link RunSession.takeDeferred} back, before any set aside since (their commit failed). */
  restoreDeferred(step: TakenStep): void {
    if (!this.#deferred) this.#deferredSince = performance.now();
    this.#deferred = this.#deferred ? mergeSteps(step, this.#deferred) : step;
  }

  /**
   * The writes set aside for the claim of the side-effecting call about to run (see `claim-commit.ts`): the
   * invocation path commits them in the claim's transaction. Cleared when the call's step ends.
   */
  claimRider: StepRider | undefined;

  /** True when writes of an earlier step wait to be committed. */
  get hasDeferred(): boolean {
    return this.#deferred !== undefined;
  }

  /** Takes the writes set aside by {@link RunSession.defer}, if any. */
  takeDeferred(): TakenStep | undefined {
    const deferred = this.#deferred;
    this.#deferred = undefined;
    this.deferredPastModelCall = false;
    return deferred;
  }

  /** True when the step has something to write. */
  get dirty(): boolean {
    return this.#stateDirty || this.#usageDirty || !this.writes.empty;
  }

  /** After a commit: the run as stored, with what was patched since the commit began applied. */
  committed(run: RunRecord): void {
    const pending = this.writes.patch;
    this.run = Object.keys(pending).length === 0 ? run : { ...run, ...pending };
  }

  /**
   * After a failed step: forgets its writes and takes the run, its state and usage as stored.
   * @param stored - the run as read from storage now
   */
  discard(stored: RunRecord): void {
    this.writes.clear();
    this.#deferred = undefined;
    this.deferredPastModelCall = false;
    this.run = stored;
    this.#state = { ...((stored.runtimeState ?? {}) as Record<string, JsonValue>) };
    this.#usage = { ...stored.usage };
    this.#stateDirty = false;
    this.#usageDirty = false;
    this.stop = undefined;
  }
}
