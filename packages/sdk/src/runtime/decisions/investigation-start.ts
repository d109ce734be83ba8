// How an automatic investigation of a decision starts: the attempts bound, the grants a recovery needs, the
// claim stored on the decision, the run it starts, and what a person gets when it cannot start.
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import { grantCoversCapability } from '../../authorization/grant-rules';
import { isMediaAgentError } from '../../core/errors';
import type { GrantRecord, JsonValue } from '../../core/records';
import type { DecisionOption, DecisionRecord } from '../../core/run-records';
import type { StartRunInput } from '../run-service';
import {
  AUTO_INVESTIGATE_ACTOR,
  AUTO_RECOVER_ACTOR,
  asObject,
  grantCoversRecovery,
  investigationBudgets,
  recoveryCapabilities,
} from './decision-rules';

/**
 * The decision handed to a person because its root cause used up its automatic recovery attempts.
 * @param d - the open decision (its `rootCause` set)
 * @param attempts - recoveries attempted for the root cause, this decision excluded
 * @param maxAttempts - `investigateMaxAttempts`
 * @internal
 */
export function attemptsExhaustedDecision(d: DecisionRecord, attempts: number, maxAttempts: number): DecisionRecord {
  return {
    ...d,
    status: 'awaiting_user',
    evidence: {
      ...asObject(d.evidence),
      autoRecover: {
        skipped: 'attempts_exhausted',
        attempts,
        maxAttempts,
        suggestion: `automatic recovery of ${d.rootCause} was attempted ${attempts} times; a person should look at it`,
      },
    },
  };
}

/**
 * The recovery capabilities of a decision's kind that are registered (`needed`), and those of them a standing
 * grant covers now (`covered`; a recovery runs only when one is).
 * @param kind - the decision kind
 * @param capabilities - the registry
 * @param grants - the active grants
 * @param now - the time, ms
 * @internal
 */
export function recoveryCoverage(
  kind: string,
  capabilities: Pick<CapabilityRegistry, 'has' | 'get'>,
  grants: readonly GrantRecord[],
  now: number,
): { needed: string[]; covered: string[] } {
  const needed = recoveryCapabilities(kind).filter((id) => capabilities.has(id));
  const covered = needed.filter((id) =>
    grants.some((g) => grantCoversRecovery(g, (grant) => grantCoversCapability(grant, capabilities.get(id)), now)),
  );
  return { needed, covered };
}

/**
 * The decision with its investigation claimed: `evidence.investigation` (run id, mode, dedupe key
 * `investigate:<id>`, start time) and `evidence.autoRecover` when there is anything to say about recovery.
 * @param d - the open decision
 * @param claim - the offered options, run id, mode, recovery notes and time
 * @internal
 */
export function claimedInvestigation(
  d: DecisionRecord,
  claim: {
    options: DecisionOption[];
    runId: string;
    mode: 'investigate' | 'recover';
    autoRecover: Record<string, JsonValue>;
    now: number;
  },
): DecisionRecord {
  const { options, runId, mode, autoRecover, now } = claim;
  return {
    ...d,
    options,
    evidence: {
      ...asObject(d.evidence),
      investigation: { runId, mode, dedupeKey: `investigate:${d.id}`, startedAt: now },
      ...(Object.keys(autoRecover).length > 0 ? { autoRecover } : {}),
    },
  };
}

/**
 * The run that investigates a decision. `investigate`: plan-only, read capabilities only. `recover`: executes,
 * with the reads and the registered recovery actions (`identity.resolve`, `task.retry`, `download.recheck`) on
 * this subject. Both: background origin, the investigation budgets.
 * @param d - the decision as claimed
 * @param mode - the investigation mode
 * @param capabilities - the registry
 * @param limits - `investigateMaxToolCalls` and the run budget `maxDurationSec` (600 when there is none)
 * @internal
 */
export function investigationRunInput(
  d: DecisionRecord,
  mode: 'investigate' | 'recover',
  capabilities: Pick<CapabilityRegistry, 'has' | 'list'>,
  limits: { maxToolCalls: number; maxDurationSec: number },
): StartRunInput {
  const reads = capabilities.list({ kind: 'read' }).map((c) => c.id);
  const recovery = ['identity.resolve', 'task.retry', 'download.recheck'].filter((id) => capabilities.has(id));
  const evidence = JSON.stringify(asObject(d.evidence)).slice(0, 4000);
  const task =
    mode === 'recover'
      ? `You may recover it within standing grants: ${recovery.join(', ')} on this subject only. Never replace the release, delete, cancel or organize. Check the facts first (task.inspect), act once, then state what you did.`
      : 'Do not change anything: find the cause with read capabilities.';
  return {
    goal: `Investigate decision ${d.id} (${d.kind}) about ${d.subjectType} ${d.subjectId}: ${d.reason}\nEvidence: ${evidence}\n${task} End with your conclusion and a suggestion for a person.`,
    mode: mode === 'recover' ? 'execute' : 'plan_only',
    actor: mode === 'recover' ? AUTO_RECOVER_ACTOR : AUTO_INVESTIGATE_ACTOR,
    capabilityAllowlist: mode === 'recover' ? [...reads, ...recovery] : reads,
    origin: 'background',
    budgets: investigationBudgets(limits.maxToolCalls, limits.maxDurationSec),
  };
}

/**
 * The decision handed to a person because its investigation run could not start (a daily budget, a bad
 * allowlist): an open one goes to `awaiting_user`, with the error's code (`DRIVER_FAILED` when it has none).
 * @param d - the decision as stored now
 * @param runId - the run that did not start
 * @param error - why
 * @internal
 */
export function runNotStartedDecision(d: DecisionRecord, runId: string, error: unknown): DecisionRecord {
  return {
    ...d,
    status: d.status === 'open' ? 'awaiting_user' : d.status,
    evidence: {
      ...asObject(d.evidence),
      agentInvestigation: {
        runId,
        runStatus: 'not_started',
        error: isMediaAgentError(error) ? error.code : 'DRIVER_FAILED',
      },
    },
  };
}

/**
 * The decision handed to a person because its investigation was claimed but its run was never stored (the
 * process stopped in between).
 * @param d - the open decision
 * @param runId - the claimed run
 * @internal
 */
export function runNeverStoredDecision(d: DecisionRecord, runId: string): DecisionRecord {
  return {
    ...d,
    status: 'awaiting_user',
    evidence: {
      ...asObject(d.evidence),
      agentInvestigation: { runId, runStatus: 'not_started', error: null },
    },
  };
}

/** How long a claimed investigation may go without a stored run before a person takes the decision, ms. @internal */
export const UNSTARTED_INVESTIGATION_MS = 60_000;

/**
 * True when an investigation claimed at `evidence.investigation.startedAt` has waited too long for its run.
 * @param d - the decision
 * @param now - the time, ms
 * @internal
 */
export function investigationOverdue(d: Pick<DecisionRecord, 'evidence'>, now: number): boolean {
  return now - Number(asObject(asObject(d.evidence).investigation).startedAt ?? 0) > UNSTARTED_INVESTIGATION_MS;
}
