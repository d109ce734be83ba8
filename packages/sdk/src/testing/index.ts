/**
 * Test harness pieces of `@media-agent/sdk/testing` owned by the storage layer.
 * @packageDocumentation
 */
export {
  describeStorageConformance,
  type ConformanceTestApi,
  type StorageConformanceFactory,
} from './storage-conformance';
export * from './sandbox/index';
export type { GoalFacts, GoalFactsSnapshot } from '../runtime/goal-facts';
export { waitForRunStatus, listRunEvents } from './run-helpers';
export { learningReviewScript, type LearningReviewScenario } from './learning-review-script';
export * from './eval/index';
