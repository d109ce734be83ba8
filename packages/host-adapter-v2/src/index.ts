/**
 * `@media-agent/host-adapter-v2`: connects media-agent to MoviePilot 2.x hosts.
 *
 * @packageDocumentation
 */

/**
 * The MoviePilot host generation this adapter package targets.
 *
 * @public
 */
export const HOST_GENERATION = 'v2' as const;

// One set of error classes and codes for both MoviePilot adapters (HostOperationError, HOST_ERROR_CODES, …).
export * from '@media-agent/host-adapter-kit/errors';
export { HostContractError, HostMediaAmbiguousError, HostVersionError } from './errors';
export { V2_ERROR_CODES, type V2ErrorCode } from './error-codes';
export { V2HostContract, V2_MIN_VERSION, compareV2Versions, parseV2Version } from './host-contract';
export {
  V2_LOGIN_PATH,
  V2_OPENAPI_PATH,
  V2_OPERATIONS,
  V2_SUPERUSER_ROUTES,
  v2RouteEffect,
  type V2Operation,
  type V2OperationId,
  type V2RouteEffect,
  type V2SecurityScheme,
} from './operations';
export {
  V2HostClient,
  type V2CallParams,
  type V2ClientOptions,
  type V2ClientStats,
  type V2Credentials,
  type V2Timeouts,
} from './client';
export {
  V2SuperuserAuthorizer,
  HOST_SUPERUSER_REQUIRED,
  type SuperuserResolver,
  type V2CapabilityRoutes,
} from './authorizer';
export { verifyV2DownloadSubmit, verifyV2OrganizeExecute } from './standard/verifiers';
export {
  defineV2PluginCapability,
  discoverV2PluginCapabilities,
  type V2PluginDiscovery,
  isV2PluginCapability,
  pluginCapabilityId,
  pluginRoutes,
  V2PluginDefinitionError,
  V2PluginOperationError,
  type V2OpenApiDocument,
  type V2PluginBinder,
  type V2PluginCapability,
  type V2PluginClient,
  type V2PluginContext,
  type V2PluginDeclaration,
  type V2PluginDefinition,
  type V2PluginDefinitionCode,
  type V2PluginRefusalCode,
  type V2PluginRoute,
  type V2RouteRef,
  type V2SkippedPluginRoute,
} from './plugins';
export { V2CapabilityRegistry } from './registry';
export { V2Tracking, type TrackedDownload, type TrackedRun, type V2TrackingState } from './tracking';
export {
  createV2AgentHost,
  V2_ADMIN_ONLY_CAPABILITIES,
  type V2AgentHost,
  type V2AgentHostOptions,
  type V2HostStatus,
} from './host';
export { V2_DECISION_ACTOR, raiseV2Decisions, v2DecisionInputs, v2DecisionSubjects } from './decisions';
export { V2DownloadPlanPayloadSchema, V2OrganizePlanPayloadSchema } from './standard/plan-schemas';
export { V2_ORGANIZE_REVERT } from './standard/organize';
export { V2_POLICY_REVERT } from './standard/policy';
