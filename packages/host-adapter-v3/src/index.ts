/**
 * `@media-agent/host-adapter-v3`: connects media-agent to MoviePilot 3.x hosts.
 *
 * @packageDocumentation
 */

/**
 * The MoviePilot host generation this adapter package targets.
 *
 * @public
 */
export const HOST_GENERATION = 'v3' as const;

export type { V3Effect, V3Operation } from './contract/types';
export { V3_OPERATIONS } from './contract/operations';
export { V3UnknownOperationError, fillV3Path, matchV3Route, v3Operation } from './contract/catalog';
export { V3_RESPONSE_SHAPES, type V3ResponseShape } from './contract/responses';
export { V3_MEDIA_SOURCES, validateV3Request, type V3RequestCheck, type V3WireRequest } from './contract/validate';
export {
  V3Client,
  type V3Auth,
  type V3CallInput,
  type V3ClientOptions,
  type V3Collection,
  type V3Identity,
  type V3QueryValue,
  type V3Response,
  type V3Timeouts,
} from './client';
// One set of error classes and codes for both MoviePilot adapters (HostOperationError, HOST_ERROR_CODES, …).
export * from '@media-agent/host-adapter-kit/errors';
export {
  V3AuthError,
  V3HostError,
  V3OptionsError,
  V3PermissionDeniedError,
  V3TransportError,
  V3UnsupportedError,
  V3ValidationError,
  type V3ValidationIssue,
} from './errors';
export { V3_ERROR_CODES, type V3ErrorCode } from './error-codes';
export { V3_SOURCE_OF, fromV3Identity, toV3Identity } from './identity';
export { V3RunJournal, type V3JournalDownload, type V3JournalOrganize } from './journal';
export type { V3MediaSettings } from './standard/services';
export { MP_OPERATION_PLAN_TYPE, kindOfV3Operation, mpCapabilityId, v3NeedsApproval } from './operations-capabilities';
export {
  HOST_SUPERUSER_REQUIRED,
  V3Authorizer,
  V3_ADAPTER_OPERATIONS,
  V3_STANDARD_OPERATIONS,
  type V3DeclaredOperations,
  type V3HostRole,
  type V3PrincipalRole,
} from './authorizer';
export {
  defineV3PluginCapability,
  isV3PluginCapability,
  V3PluginDefinitionError,
  V3PluginOperationError,
  type V3PluginBinder,
  type V3PluginCapability,
  type V3PluginClient,
  type V3PluginContext,
  type V3PluginDefinition,
  type V3PluginDefinitionCode,
  type V3PluginRefusalCode,
} from './plugins';
export { V3CapabilityRegistry } from './registry';
export { verifyV3TransferFile, type V3CallArgs, type V3CallResult } from './verifiers';
export { v3SubscriptionBody, verifyV3SubscriptionAdd, type V3SubscriptionAddInput } from './subscriptions';
export { V3GoalFacts } from './goal-facts';
export { createV3AgentHost, type V3AgentHost, type V3AgentHostOptions, type V3HostStatus } from './host';
export { V3_DECISION_ACTOR, raiseV3Decisions, v3DecisionInputs, v3DecisionSubjects } from './decisions';
export { V3DownloadPlanPayloadSchema, V3OrganizePlanPayloadSchema } from './standard/plan-schemas';
export { V3_ORGANIZE_REVERT } from './standard/organize';
export { V3_POLICY_REVERT } from './standard/policy';
