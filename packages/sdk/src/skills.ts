/**
 * `@media-agent/sdk/skills`: personal skills below the host — the file store, the `SkillStore` port a
 * store of your own implements and the records it takes and returns, the fuzzy patch matcher, the
 * `/skills` command parser, ownership, the skill tools' names and schemas, and the `SKILL_*` error class.
 *
 * @remarks
 * A host turns personal skills on with `createAgentHost({ skills: { dataDir } })` (`SkillsOptions`,
 * in this entry); the rest of this entry is for code that builds the store itself (to share it with the
 * learning review, or to seed skills), writes another store, or patches text the way `skill_manage` does.
 * The background learning review the host runs (`learning` option) is built from the parts here:
 * {@link runLearningReview} (one review run), its trigger rules ({@link reviewAfterTurn} and the
 * counters), {@link reviewPrompt} and {@link unconstrainedTools}; use them to review outside a host or to
 * test a review prompt.
 *
 * @example
 * ```ts
 * import { createAgentHost } from '@media-agent/sdk';
 * import { FileSkillStore } from '@media-agent/sdk/skills';
 *
 * const store = new FileSkillStore({ dataDir: './agent-data', publicDir: './public-skills' });
 * const host = createAgentHost({ skills: { store } });
 * ```
 *
 * @packageDocumentation
 */
export type {
  SkillCommand,
  SkillFileView,
  SkillManageResult,
  SkillOperation,
  SkillReadLog,
  SkillSource,
  SkillStore,
  SkillSummary,
  SkillWriteContext,
  SkillWriteMode,
  SkillWriteOrigin,
} from './ports/skill-store';
export { FileSkillStore, type FileSkillStoreOptions } from './skills/file-skill-store';
export { SkillError, type SkillErrorCode } from './skills/skill-error';
export { createSkillReadLog } from './skills/skill-read-log';
export { parseSkillCommand, type ParsedSkillCommand } from './skills/skill-command';
export {
  applyFuzzyPatch,
  type FuzzyPatchOutcome,
  type FuzzyPatchRefusal,
  type FuzzyPatchRequest,
} from './skills/fuzzy-patch';
export { FUZZY_STRATEGIES, type FuzzyStrategy } from './skills/fuzzy-strategies';
export type { SkillOwnership } from './skills/skill-ownership';
export { SKILL_MODEL_TOOLS, SKILL_TOOLS } from './runtime/tools/skill-tools';
export {
  runLearningReview,
  type LearningReviewOptions,
  type LearningReviewResult,
  type MemoryReviewHook,
  type ReviewCallRecord,
  type ReviewCompactor,
  type ReviewUsage,
} from './skills/review-run';
export {
  countModelResponse,
  countUserTurn,
  initialCounters,
  LEARNING_INTERVAL,
  reviewAfterTurn,
  reviewInputBudget,
  type LearningCounters,
  type ReviewDecision,
  type TurnEnd,
  unconstrainedTools,
} from './skills/review-triggers';
export { reviewPrompt } from './skills/review-prompts';
// the host's `learning` option and `host.learning` handle, and the `skills` option
export type {
  LearningOptions,
  LearningReviewDue,
  LearningReviewReport,
  ResolvedLearningOptions,
} from './runtime/learning/learning-options';
export type { LearningReviewsHandle } from './runtime/learning/learning-reviews';
export type { SkillsOptions } from './runtime/agent-options';
