// The rules of automatic decision handling: small pure functions (docs/decisions.md).
import type { GrantRecord, JsonValue } from '../../core/records';
import type { DecisionRecord } from '../../core/run-records';
import type { GoalFactsSnapshot } from '../goal-facts';

/** Decision kinds an automatic investigation may handle. @public */
export const AUTO_INVESTIGATED_KINDS: readonly string[] = Object.freeze([
  'identity_ambiguous',
  'download_failed',
  'download_stalled',
]);

/** Actor of automatic recovery runs, and of the resolutions they verify. @public */
export const AUTO_RECOVER_ACTOR = 'system:auto-recover';
/** Actor of automatic investigation runs (no recovery). @public */
export const AUTO_INVESTIGATE_ACTOR = 'system:auto-investigate';

/**
 * Why a decision gets no automatic investigation, or null when it gets one: the switch is off, the kind is
 * not one of {@link AUTO_INVESTIGATED_KINDS}, it is not `open`, the agent caused it (raised by an `agent:`
 * actor), or an investigation already ran or runs for it (one per decision, ever).
 * @public
 */
export function investigationSkip(
  decision: Pick<DecisionRecord, 'kind' | 'status' | 'raisedBy' | 'evidence'>,
  autoInvestigate: boolean,
): 'auto_investigate_off' | 'kind_not_investigated' | 'not_open' | 'caused_by_agent' | 'already_investigated' | null {
  if (!autoInvestigate) return 'auto_investigate_off';
  if (!AUTO_INVESTIGATED_KINDS.includes(decision.kind)) return 'kind_not_investigated';
  if (investigationOf(decision) !== undefined) return 'already_investigated';
  if (decision.status !== 'open') return 'not_open';
  if (decision.raisedBy.startsWith('agent:')) return 'caused_by_agent';
  return null;
}

/** The investigation stored on a decision's evidence, if any. @public */
export function investigationOf(
  decision: Pick<DecisionRecord, 'evidence'>,
): { runId: string; mode: 'investigate' | 'recover'; dedupeKey: string } | undefined {
  const e = asObject(decision.evidence).investigation;
  return e && typeof e === 'object' && !Array.isArray(e) && typeof (e as { runId?: unknown }).runId === 'string'
    ? (e as unknown as { runId: string; mode: 'investigate' | 'recover'; dedupeKey: string })
    : undefined;
}

/**
 * How many decisions of a root cause attempted an automatic recovery (`evidence.autoRecover.recoverAttempted`),
 * the given decision excluded.
 * @public
 */
export function recoveryAttempts(decisions: readonly DecisionRecord[], excludeId: string): number {
  return decisions.filter(
    (d) => d.id !== excludeId && asObject(asObject(d.evidence).autoRecover).recoverAttempted === true,
  ).length;
}

/**
 * The capabilities a recovery of this kind may call, besides reads: a download's `download.recheck` and
 * `task.retry`, an identity's `identity.resolve`. Replacing the release (`download.plan`, `download.submit`),
 * deleting, cancelling, organizing and policy changes are never among them.
 * @public
 */
export function recoveryCapabilities(kind: string): string[] {
  if (kind === 'identity_ambiguous') return ['identity.resolve'];
  if (kind === 'download_failed' || kind === 'download_stalled') return ['download.recheck', 'task.retry'];
  return [];
}

/**
 * Whether a standing grant covers the recovery action now: active, unexpired, its action covering the
 * capability (by `covers`), and not limited to media entities or kinds (the target of a download recheck is not
 * known before the call, so such a grant is conservatively taken as not covering it).
 * @public
 */
export function grantCoversRecovery(grant: GrantRecord, covers: (grant: GrantRecord) => boolean, now: number): boolean {
  if (grant.status !== 'active') return false;
  if (grant.expiresAt !== null && now >= grant.expiresAt) return false;
  if ((grant.scope.mediaEntityIds?.length ?? 0) > 0 || (grant.scope.mediaKinds?.length ?? 0) > 0) return false;
  return covers(grant);
}

/**
 * Budgets of an investigation run: `investigateMaxToolCalls` tool calls, and `min(600, maxDurationSec)` seconds.
 * @public
 */
export function investigationBudgets(
  investigateMaxToolCalls: number,
  maxDurationSec: number,
): { maxToolCalls: number; maxDurationSec: number } {
  return { maxToolCalls: investigateMaxToolCalls, maxDurationSec: Math.min(600, maxDurationSec) };
}

/** Seconds between two reads of the facts while a recovery is verified: `min(goalPollSec, 30)`. @public */
export function recoverPollSec(goalPollSec: number): number {
  return Math.min(goalPollSec, 30);
}

/** One recovery action a run took (from its `tool_call` events). @public */
export interface RecoveryAction {
  /** `download.recheck`, `task.retry` or `identity.resolve`. */
  capabilityId: string;
  /** The download, task or release it acted on (from its output), or null when unknown. */
  subjectId: string | null;
}

/**
 * The verdict of business facts on a run's recovery actions: `verified` when every action's subject is
 * moving again (a download `queued`, `downloading`, `completed` or `imported`; an organize `succeeded`; an
 * identity resolved), `failed` when one is `removed` (or its organize failed), else `pending` (keep polling until
 * the deadline). No action: `no_action`.
 * @public
 */
export function recoveryVerdict(
  actions: readonly RecoveryAction[],
  facts: GoalFactsSnapshot,
): 'verified' | 'failed' | 'pending' | 'no_action' {
  if (actions.length === 0) return 'no_action';
  let pending = false;
  for (const action of actions) {
    if (action.capabilityId === 'identity.resolve') continue; // its succeeded invocation is the fact
    const download = facts.downloads.find((d) => d.id === action.subjectId);
    const organize = facts.organizes.find((o) => o.id === action.subjectId);
    if (download) {
      if (download.status === 'removed') return 'failed';
      if (!['queued', 'downloading', 'completed', 'imported'].includes(download.status)) pending = true;
    } else if (organize) {
      if (organize.status === 'failed') return 'failed';
      if (organize.status !== 'succeeded') pending = true;
    } else pending = true;
  }
  return pending ? 'pending' : 'verified';
}

/** A JSON value as an object (an empty one when it is not). @internal */
export function asObject(value: JsonValue | undefined): Record<string, JsonValue> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, JsonValue>) : {};
}
