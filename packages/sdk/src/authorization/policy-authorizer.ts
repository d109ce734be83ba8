import { LRUCache } from 'lru-cache';
import type { StorageSession } from '../ports/storage-adapter';
import { readAutomationSettings } from './automation-settings';
import type { AuthorizationRequest, Authorizer } from './authorizer';
import { evaluateAuthorization, isAdministratorCall, type AuthorizationFacts } from './evaluate';
import type { AuthorizationVerdict } from './verdict';
import { grantCoversCapability } from './grant-rules';
import { utcDayStart } from '../core/utc-day';

/**
 * The default {@link Authorizer}: loads the automation settings, the approval the caller points at,
 * and the grants whose action covers the capability (with their policy revision and, for a grant with a
 * daily budget, today's usage counters: one keyed read, however many ledger entries the day has), then
 * applies the authorization rules to those facts.
 *
 * @remarks
 * The facts of a run the rules read (its mode, capability allow-list and depth) are fixed when the run is created,
 * so each run is read once and they are kept for the 1,024 runs used most recently; a run not
 * found is read again next time.
 * @public
 */
export class PolicyAuthorizer implements Authorizer {
  readonly #runs = new LRUCache<string, NonNullable<AuthorizationFacts['run']>>({ max: RUN_FACTS_CACHED });

  /**
   * Decides whether one invocation may run ({@link Authorizer.authorize}).
   * @param request - the question
   * @param session - the storage session of the invocation's transaction (read records only through it)
   * @returns the verdict; never throws for a denial
   */
  async authorize(request: AuthorizationRequest, session: StorageSession): Promise<AuthorizationVerdict> {
    const { capability } = request;
    const run = request.runId === undefined ? undefined : await this.#runFacts(request.runId, session);
    const facts: AuthorizationFacts = {
      run,
      actor: request.actor,
      role: request.role,
      capability: {
        id: capability.id,
        kind: capability.kind,
        policy: capability.policy,
        adminOnly: capability.adminOnly,
      },
      target: request.target,
      plan: request.plan,
      idempotencyKey: request.idempotencyKey,
      now: request.now,
      settings: ALL_ALLOWED,
      approval: undefined,
      grants: NO_GRANTS,
    };
    // Reads and console administrators need no authorization record (the run rule still applies).
    if (capability.kind === 'read' || capability.kind === 'preview' || isAdministratorCall(request.actor, request.role))
      return evaluateAuthorization(facts);
    facts.settings = await readAutomationSettings(session);
    facts.approval =
      request.approvalId === undefined
        ? undefined
        : { id: request.approvalId, record: await session.approvals.get(request.approvalId) };
    const dayStart = utcDayStart(request.now);
    const grants: AuthorizationFacts['grants'][number][] = [];
    for (const grant of await session.grants.list()) {
      if (!grantCoversCapability(grant, capability)) continue;
      grants.push({
        grant,
        policyRevision:
          grant.policyRevisionId === null ? undefined : await session.policies.get(grant.policyRevisionId),
        usageToday:
          grant.status !== 'active' ||
          (grant.budget.maxInvocationsPerDay === undefined && grant.budget.maxBytesPerDay === undefined)
            ? { invocations: 0, bytes: 0 }
            : await usageOf(session, grant.id, dayStart),
      });
    }
    facts.grants = grants;
    return evaluateAuthorization(facts);
  }

  /** The run's facts the rules read: kept once read (they never change), read again while the run is not found. */
  async #runFacts(runId: string, session: StorageSession): Promise<AuthorizationFacts['run']> {
    const known = this.#runs.get(runId);
    if (known) return known;
    const record = await session.runs.get(runId);
    if (!record) return undefined;
    const allowlist = record.capabilityAllowlist;
    const facts = { mode: record.mode, allowlist: allowlist && [...allowlist], readOnly: record.depth > 0 };
    this.#runs.set(runId, facts);
    return facts;
  }
}

/** How many runs' facts a {@link PolicyAuthorizer} keeps: 1,024 (a household runs a few at once). */
const RUN_FACTS_CACHED = 1024;

/** Settings for calls that need no authorization record (never read from storage). */
const ALL_ALLOWED: AuthorizationFacts['settings'] = Object.freeze({
  automationEnabled: true,
  readOnlyReconcile: false,
});
const NO_GRANTS: AuthorizationFacts['grants'] = Object.freeze([]);

async function usageOf(
  session: StorageSession,
  grantId: string,
  day: number,
): Promise<{ invocations: number; bytes: number }> {
  const usage = await session.grantUsage.get(grantId, day);
  return { invocations: usage.invocations, bytes: usage.bytes };
}
