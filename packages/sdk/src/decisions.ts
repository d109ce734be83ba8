/**
 * `@media-agent/sdk/decisions`: the machinery behind the host's decisions — the service that raises,
 * chooses, dismisses and resolves them, the pure rules of automatic investigation and bounded recovery
 * (which kinds are investigated, budgets, attempts, when a grant covers a recovery, how a verification
 * reads), the default settings and the `DECISION_*` error class.
 *
 * @remarks
 * A host works with decisions through `AgentHost` (`raiseDecision`, `decisions`, `chooseDecisionOption`,
 * `dismissDecision`, `resolveDecision`) and configures them with `createAgentHost({ decisions })`
 * (`DecisionOptions`, in this entry); the records and inputs of the host API (`DecisionRecord`,
 * `RaiseDecisionInput`, `DecisionChoice`) are in the root entry. See docs/decisions.md.
 *
 * @example
 * ```ts
 * import { DEFAULT_DECISION_OPTIONS, DecisionError } from '@media-agent/sdk/decisions';
 *
 * console.log(DEFAULT_DECISION_OPTIONS.investigateMaxAttempts); // 2
 * try {
 *   await host.chooseDecisionOption(id, 'recheck', { actor: 'user:alice' });
 * } catch (error) {
 *   if (error instanceof DecisionError && error.code === 'DECISION_CLOSED') console.log('already settled');
 *   else throw error;
 * }
 * ```
 *
 * @packageDocumentation
 */
export { DecisionService, type DecisionServiceDeps } from './runtime/decisions/decision-service';
export { DEFAULT_DECISION_OPTIONS } from './runtime/decisions/decision-settings';
export { DecisionError } from './runtime/decisions/decision-errors';
export {
  AUTO_INVESTIGATED_KINDS,
  AUTO_INVESTIGATE_ACTOR,
  AUTO_RECOVER_ACTOR,
  grantCoversRecovery,
  investigationBudgets,
  investigationOf,
  investigationSkip,
  recoverPollSec,
  recoveryAttempts,
  recoveryCapabilities,
  recoveryVerdict,
  type RecoveryAction,
} from './runtime/decisions/decision-rules';
// the host's `decisions` option, what raises a decision, and the records' parts
export type { DecisionTrigger } from './runtime/decisions/decision-service';
export type {
  DecisionOptions,
  DecisionSubjects,
  ResolvedDecisionOptions,
} from './runtime/decisions/decision-settings';
export type {
  DecisionExecution,
  DecisionCapabilityExecution,
  DecisionRecoveryExecution,
  DecisionRefusedChoice,
} from './core/run-records';
// the decision an undo raises when an inverse fails halfway (docs/approvals.md#undo)
export { UNDO_ACTOR, UNDO_FAILED_KIND, undoFailedDecision } from './runtime/undo/undo-decision';
