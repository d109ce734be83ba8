/**
 * One intent, one job (docs/intents.md): the pure rules — which media entity a call is about, who holds its intent,
 * whether a caller is that holder, and what a caller who joins is told.
 * @packageDocumentation
 */
import type { IntentRecord } from '../core/intent-records';
import { intentKey } from '../core/intent-records';
import type { InvocationTarget } from '../core/capability-descriptor';
import type { RunStatus } from '../core/run-records';

/** How long a run holds an intent unless it ends first: 6 hours, in ms (`intents.holdMs`). @public */
export const DEFAULT_INTENT_HOLD_MS = 6 * 3_600_000;
/** How long a caller outside runs holds an intent: 15 minutes, in ms (`intents.directHoldMs`). @public */
export const DEFAULT_INTENT_DIRECT_HOLD_MS = 15 * 60_000;

/**
 * How long intents are held (docs/intents.md#expiry). Each call of the holder refreshes its hold; a run's end
 * releases every intent it holds at once.
 * @public
 */
export interface IntentOptions {
  /**
   * How long a run holds an intent after its last call that took it, in ms (a positive finite number, else
   * `OPTIONS_INVALID`). A run that ends releases its intents at once; this bounds a run that never ends.
   * @defaultValue 21 600 000 (6 h, {@link DEFAULT_INTENT_HOLD_MS})
   */
  holdMs?: number;
  /**
   * How long a caller outside runs (a person's direct `host.invoke`, an API key) holds an intent after its call,
   * in ms (a positive finite number, else `OPTIONS_INVALID`). Nothing ends such a hold but time.
   * @defaultValue 900 000 (15 min, {@link DEFAULT_INTENT_DIRECT_HOLD_MS})
   */
  directHoldMs?: number;
}

/**
 * The job a refused caller joined: who holds the intent and how far it is (`InvocationUnsuccessful.joined`,
 * `DryRunVerdict.joined`; docs/intents.md#what-the-caller-gets).
 * @public
 */
export interface IntentJoin {
  /** The run holding the intent, or null when the holder is a caller outside runs. */
  runId: string | null;
  /** Who the holder acts for: the run's owner (e.g. `user:alice`), or the caller outside runs. */
  actor: string;
  /** The holder's plan, once known (the plan `download.plan` made or `download.submit` executes), else null. */
  planId: string | null;
  /** The holding run's status (`queued`, `running`, `waiting`), or null for a holder outside runs. */
  runStatus: RunStatus | null;
  /** What a `waiting` run waits for (its interim report's summary), when it says. */
  waitingFor?: string;
  /** The effect class joined, e.g. `download`. */
  effectClass: string;
  /** The media entity, e.g. `tmdb:438631`. */
  mediaEntityId: string;
  /** The capability whose call took (or last refreshed) the intent. */
  capabilityId: string;
  /** When the hold lapses unless refreshed (ms since the epoch). */
  expiresAt: number;
}

/**
 * The media entity a call is about: its target's `mediaEntityId`, else the `mediaEntityId` of the plan its target
 * names; undefined when neither says (the call takes no intent).
 */
export function intentEntity(
  target: InvocationTarget,
  plan: { mediaEntityId: string | null } | undefined,
): string | undefined {
  const id = target.mediaEntityId ?? (target.planId !== undefined ? plan?.mediaEntityId : undefined);
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

/** Who makes a call, as the intent rules see it. */
export interface IntentCaller {
  /** The run the call belongs to, if any. */
  runId: string | undefined;
  /** The run and its ancestors (a subagent's parent, …), the run first; empty outside runs. */
  lineage: readonly string[];
  /** Who the caller acts for: a run's owner, else the calling actor. */
  actor: string;
}

/**
 * The record a call acquires: held by its run (for `holdMs`) or, outside runs, by its actor (for `directHoldMs`).
 */
export function intentFor(
  caller: IntentCaller,
  call: { capabilityId: string; mediaEntityId: string; effectClass: string; planId: string | undefined },
  now: number,
  hold: { holdMs: number; directHoldMs: number },
): IntentRecord {
  return {
    key: intentKey(call.mediaEntityId, call.effectClass),
    mediaEntityId: call.mediaEntityId,
    effectClass: call.effectClass,
    holderRunId: caller.runId ?? null,
    holderActor: caller.actor,
    capabilityId: call.capabilityId,
    planId: call.planId ?? null,
    createdAt: now,
    expiresAt: now + (caller.runId !== undefined ? hold.holdMs : hold.directHoldMs),
  };
}

/**
 * Whether `caller` is the holder of `holder`: the holding run is the caller's run or one of its ancestors (a
 * subagent works for its parent); a holder outside runs is the same actor calling outside runs. Anyone else —
 * another run, another person, the same person's direct call while their run holds it — joins.
 */
export function isIntentHolder(holder: IntentRecord, caller: IntentCaller): boolean {
  if (holder.holderRunId !== null) return caller.lineage.includes(holder.holderRunId);
  return caller.runId === undefined && holder.holderActor === caller.actor;
}

/**
 * Whether a call that executes plan `planId` continues the holder's own job: the holder's plan is that plan (one
 * person planned, another — an approver, a run, an administrator — executes it). That is the same job, not a
 * second one, so the call goes on (and the holder keeps the intent).
 */
export function continuesHolderJob(holder: IntentRecord, planId: string | undefined): boolean {
  return planId !== undefined && holder.planId !== null && holder.planId === planId;
}

/** Whether a stored intent still holds at `now` (a row with `expiresAt <= now` may be taken over). */
export function intentHolds(holder: IntentRecord, now: number): boolean {
  return holder.expiresAt > now;
}

/** The join a caller gets from `holder`, with the holding run's status (and what a waiting run waits for). */
export function intentJoin(holder: IntentRecord, run: { status: RunStatus; report: unknown } | undefined): IntentJoin {
  const join: IntentJoin = {
    runId: holder.holderRunId,
    actor: holder.holderActor,
    planId: holder.planId,
    runStatus: holder.holderRunId !== null && run ? run.status : null,
    effectClass: holder.effectClass,
    mediaEntityId: holder.mediaEntityId,
    capabilityId: holder.capabilityId,
    expiresAt: holder.expiresAt,
  };
  const summary = (run?.report as { status?: unknown; summary?: unknown } | null | undefined)?.summary;
  if (run?.status === 'waiting' && typeof summary === 'string' && summary.length > 0)
    join.waitingFor = summary.slice(0, 300);
  return join;
}

/** `alice` for `user:alice`; any other actor as it is. */
function personOf(actor: string): string {
  return actor.startsWith('user:') ? actor.slice(5) : actor;
}

/**
 * The model-facing message of a call that joined: who holds the job, its status and plan, and that nothing ran.
 * @example
 * ```ts
 * joinMessage('download.plan', join);
 * // 'already in progress by run run_1 (for alice): running, plan plan_7. download.plan did not run and no second
 * //  download job was created for tmdb:438631; tell the person it is under way (follow it with task.inspect) instead of
 * //  starting another.'
 * ```
 */
export function joinMessage(capabilityId: string, join: IntentJoin): string {
  const who =
    join.runId !== null
      ? `run ${join.runId} (for ${personOf(join.actor)})`
      : `${personOf(join.actor)} (a direct request, outside runs)`;
  const status =
    join.runId === null
      ? 'requested directly'
      : join.runStatus === null
        ? 'status unknown'
        : join.runStatus === 'waiting' && join.waitingFor
          ? `waiting (${join.waitingFor})`
          : join.runStatus;
  const plan = join.planId !== null ? `, plan ${join.planId}` : '';
  return `already in progress by ${who}: ${status}${plan}. ${capabilityId} did not run and no second ${join.effectClass} job was created for ${join.mediaEntityId}; tell the person it is under way (follow it with task.inspect) instead of starting another.`;
}
