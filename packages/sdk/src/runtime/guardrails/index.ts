/**
 * Run guardrails: the loop guard and the continuation rule.
 * @packageDocumentation
 */
export { callSignature, isPollingCall, resultFingerprint } from './call-signature';
export { LOOP_GUARD_CODES, type LoopGuardCode } from './codes';
export { CONTINUATION_PROMPT, CONTINUATION_PROMPT_ZH, continuationPromptFor, needsContinuation } from './continuation';
export { detectCycle, type CycleEntry } from './cycle';
export {
  DEFAULT_LOOP_GUARD_CONFIG,
  LoopGuard,
  LoopGuardStateError,
  type ContinuationVerdict,
  type LoopGuardConfig,
  type LoopGuardOptions,
  type LoopGuardState,
} from './loop-guard';
export type { GuardCall, GuardCallKind, GuardVerdict, GuardMode, GuardNotice, GuardOutcome } from './types';
