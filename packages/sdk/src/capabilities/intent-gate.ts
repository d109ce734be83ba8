/**
 * One intent, one job (docs/intents.md): the invocation path's side — acquires a call's intent in the transaction
 * of its ledger claim, and answers a dry run without acquiring. The rules are in intent-join.ts.
 * @packageDocumentation
 */
import type { IntentRecord } from '../core/intent-records';
import { intentKey } from '../core/intent-records';
import type { InvocationTarget } from '../core/capability-descriptor';
import type { PlanRecord } from '../core/records';
import { TERMINAL_RUN_STATUSES, type RunRecord } from '../core/run-records';
import type { StorageSession } from '../ports/storage-adapter';
import {
  DEFAULT_INTENT_DIRECT_HOLD_MS,
  DEFAULT_INTENT_HOLD_MS,
  type IntentCaller,
  type IntentJoin,
  type IntentOptions,
  continuesHolderJob,
  intentEntity,
  intentFor,
  intentHolds,
  intentJoin,
  isIntentHolder,
} from './intent-join';
import type { Capability } from './types';

/** How far up a subagent's parents the lineage is read (subagents nest at most 2 deep). */
const MAX_PARENT_HOPS = 16;

/** One side-effecting call as the gate sees it. */
export interface IntentCall {
  /** The capability (its `intent` decides whether the gate acts). */
  capability: Pick<Capability, 'id' | 'intent'>;
  /** The caller's actor and run. */
  ctx: { actor: string; runId?: string | undefined };
  /** What the call touches. */
  target: InvocationTarget;
  /** The plan its target names, when any. */
  plan: PlanRecord | undefined;
  /** The call's idempotency key (a replay of a recorded call is never refused). */
  key: string | undefined;
  /** Now, in ms. */
  now: number;
}

/**
 * What the gate decided: `held` (the call goes on, holding `intent`), `continued` (the call executes the holder's
 * own plan: it goes on, the holder keeps the intent) or `joined` (it does not run).
 */
export type IntentGateResult =
  | { kind: 'held'; intent: IntentRecord }
  | { kind: 'continued' }
  | { kind: 'joined'; join: IntentJoin };

/** Whether a run record is over (or gone): its intents no longer hold. */
const ended = (run: RunRecord | undefined): boolean => !run || TERMINAL_RUN_STATUSES.includes(run.status);

/**
 * Acquires and checks the intents of side-effecting calls (docs/intents.md).
 * @internal
 */
export class IntentGate {
  readonly #hold: { holdMs: number; directHoldMs: number };

  constructor(options: IntentOptions = {}) {
    this.#hold = {
      holdMs: options.holdMs ?? DEFAULT_INTENT_HOLD_MS,
      directHoldMs: options.directHoldMs ?? DEFAULT_INTENT_DIRECT_HOLD_MS,
    };
  }

  /**
   * In the claim's transaction, after authorization: acquires the call's intent. Undefined when the call takes
   * none (no `intent` declared, no media entity known) or replays a call the ledger recorded (checked first, so a
   * replay is never refused); `held` when the caller holds it now; `continued` when it executes the holder's own
   * plan; `joined` when another holder's job covers it.
   */
  async acquire(s: StorageSession, call: IntentCall): Promise<IntentGateResult | undefined> {
    const effectClass = call.capability.intent?.effectClass;
    if (effectClass === undefined) return undefined;
    const mediaEntityId = intentEntity(call.target, call.plan);
    if (mediaEntityId === undefined) return undefined;
    if (call.key !== undefined) {
      const entry = await s.ledger.get(call.key);
      if (entry && entry.state !== 'failed') return undefined;
    }
    const caller = await callerOf(s, call.ctx);
    const record = intentFor(
      caller,
      { capabilityId: call.capability.id, mediaEntityId, effectClass, planId: call.target.planId },
      call.now,
      this.#hold,
    );
    let holder = await s.intents.acquire(record, call.now);
    if (isIntentHolder(holder, caller)) return { kind: 'held', intent: holder };
    if (continuesHolderJob(holder, call.target.planId)) return { kind: 'continued' };
    let run = holder.holderRunId !== null ? await s.runs.get(holder.holderRunId) : undefined;
    if (holder.holderRunId !== null && ended(run)) {
      // A run that ended without releasing (a crash between its end and the release): its hold is void.
      await s.intents.release(holder.key, holder.holderRunId);
      holder = await s.intents.acquire(record, call.now);
      if (isIntentHolder(holder, caller)) return { kind: 'held', intent: holder };
      if (continuesHolderJob(holder, call.target.planId)) return { kind: 'continued' };
      run = holder.holderRunId !== null ? await s.runs.get(holder.holderRunId) : undefined;
    }
    return { kind: 'joined', join: intentJoin(holder, run) };
  }

  /**
   * For a dry run: the join the call would get now, without acquiring anything; undefined when it would run (no
   * intent, no holder, the caller's own, an expired hold or one of a run that ended, or a recorded replay).
   */
  async peek(s: StorageSession, call: IntentCall): Promise<IntentJoin | undefined> {
    const effectClass = call.capability.intent?.effectClass;
    if (effectClass === undefined) return undefined;
    const mediaEntityId = intentEntity(call.target, call.plan);
    if (mediaEntityId === undefined) return undefined;
    if (call.key !== undefined) {
      const entry = await s.ledger.get(call.key);
      if (entry && entry.state !== 'failed') return undefined;
    }
    const holder = await s.intents.get(intentKey(mediaEntityId, effectClass));
    if (!holder || !intentHolds(holder, call.now)) return undefined;
    if (isIntentHolder(holder, await callerOf(s, call.ctx))) return undefined;
    if (continuesHolderJob(holder, call.target.planId)) return undefined;
    const run = holder.holderRunId !== null ? await s.runs.get(holder.holderRunId) : undefined;
    if (holder.holderRunId !== null && ended(run)) return undefined;
    return intentJoin(holder, run);
  }

  /**
   * After a call that holds `intent` succeeded (or was accepted): records the plan it created (a propose
   * capability's output `plan.id`) on the intent, when the intent has none yet.
   */
  async notePlan(s: StorageSession, intent: IntentRecord, output: unknown, now: number): Promise<void> {
    if (intent.planId !== null) return;
    const planId = (output as { plan?: { id?: unknown } } | null | undefined)?.plan?.id;
    if (typeof planId !== 'string' || planId.length === 0) return;
    await s.intents.acquire({ ...intent, planId }, now);
  }
}

/** The caller as the rules see it: its run and that run's ancestors, and who it acts for (the top run's owner). */
async function callerOf(s: StorageSession, ctx: { actor: string; runId?: string | undefined }): Promise<IntentCaller> {
  if (ctx.runId === undefined) return { runId: undefined, lineage: [], actor: ctx.actor };
  const lineage = [ctx.runId];
  let run = await s.runs.get(ctx.runId);
  let actor = run?.startedBy ?? ctx.actor;
  for (let hop = 0; run && run.parentRunId !== null && hop < MAX_PARENT_HOPS; hop++) {
    lineage.push(run.parentRunId);
    run = await s.runs.get(run.parentRunId);
    if (run) actor = run.startedBy;
  }
  return { runId: ctx.runId, lineage, actor };
}
