import type { GrantRecord, PolicyRevisionRecord } from '../core/records';
import { actionCovers } from './action-pattern';
import type { RuleFailure } from './verdict';

/** Facts a grant is checked against. @public */
export interface GrantCheck {
  /** The capability invoked. */
  capability: { id: string; policy?: string | undefined };
  /** Media entity the call touches, when known. */
  mediaEntityId: string | undefined;
  /** Media kind the call touches, when known. */
  mediaKind: string | undefined;
  /** Bytes the call moves (0 when unknown). */
  bytes: number;
  /** The policy revision the grant is bound to, as stored now (undefined when missing or unbound). */
  policyRevision: PolicyRevisionRecord | undefined;
  /** Claims and bytes already charged to the grant today (UTC): its usage counters (`GrantUsageRepository`). */
  usageToday: { invocations: number; bytes: number };
  /** Now (ms). */
  now: number;
}

/**
 * Whether a grant's action covers the capability, including its `scope.capabilities` list.
 * @public
 */
export function grantCoversCapability(
  grant: GrantRecord,
  capability: { id: string; policy?: string | undefined },
): boolean {
  if (!actionCovers(grant.action, capability)) return false;
  const list = grant.scope.capabilities;
  return !list || list.length === 0 || list.some((pattern) => actionCovers(pattern, capability));
}

/**
 * Checks a standing automation grant: the action covers
 * the capability; status active; unexpired; a bound policy revision is still `published`; the scope
 * (`capabilities`, `mediaKinds`, `mediaEntityIds`) contains the target — a scoped axis with an
 * unknown target is refused (conservative, as notes for `download.recheck`); the daily
 * budgets (`maxInvocationsPerDay`, `maxBytesPerDay`) have room for this call.
 *
 * @returns `null` when the grant authorizes the call, else the failed rule
 * @public
 */
export function checkGrant(grant: GrantRecord, facts: GrantCheck): RuleFailure | null {
  if (!grantCoversCapability(grant, facts.capability))
    return {
      code: 'AUTH_GRANT_OUT_OF_SCOPE',
      reason: `grant ${grant.id} (${grant.action}) does not cover ${facts.capability.id}`,
    };
  if (grant.status !== 'active') return { code: 'AUTH_GRANT_REVOKED', reason: `grant ${grant.id} is ${grant.status}` };
  if (grant.expiresAt !== null && facts.now >= grant.expiresAt)
    return { code: 'AUTH_GRANT_EXPIRED', reason: `grant ${grant.id} has expired` };
  if (grant.policyRevisionId !== null && facts.policyRevision?.status !== 'published')
    return {
      code: 'AUTH_GRANT_POLICY_NOT_PUBLISHED',
      reason: `grant ${grant.id} is bound to policy revision ${grant.policyRevisionId}, which is no longer published`,
    };
  const { mediaKinds, mediaEntityIds } = grant.scope;
  if (mediaKinds && mediaKinds.length > 0 && (facts.mediaKind === undefined || !mediaKinds.includes(facts.mediaKind)))
    return {
      code: 'AUTH_GRANT_OUT_OF_SCOPE',
      reason: `grant ${grant.id} covers media kinds ${mediaKinds.join(', ')}, not ${facts.mediaKind ?? 'an unknown kind'}`,
    };
  if (
    mediaEntityIds &&
    mediaEntityIds.length > 0 &&
    (facts.mediaEntityId === undefined || !mediaEntityIds.includes(facts.mediaEntityId))
  )
    return {
      code: 'AUTH_GRANT_OUT_OF_SCOPE',
      reason: `grant ${grant.id} does not cover media entity ${facts.mediaEntityId ?? '(unknown)'}`,
    };
  const { maxInvocationsPerDay, maxBytesPerDay } = grant.budget;
  if (maxInvocationsPerDay !== undefined && facts.usageToday.invocations + 1 > maxInvocationsPerDay)
    return {
      code: 'AUTH_GRANT_BUDGET_EXHAUSTED',
      reason: `grant ${grant.id} allows ${maxInvocationsPerDay} invocations per day; ${facts.usageToday.invocations} used`,
    };
  if (maxBytesPerDay !== undefined && facts.usageToday.bytes + facts.bytes > maxBytesPerDay)
    return {
      code: 'AUTH_GRANT_BUDGET_EXHAUSTED',
      reason: `grant ${grant.id} allows ${maxBytesPerDay} bytes per day; ${facts.usageToday.bytes} used, this call needs ${facts.bytes}`,
    };
  return null;
}
