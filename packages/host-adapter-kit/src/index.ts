/**
 * `@media-agent/host-adapter-kit`: what the media-agent MoviePilot host adapters
 * (`@media-agent/host-adapter-v2`, `@media-agent/host-adapter-v3`) share. Host applications use the
 * adapters; this package is for adapter authors and for code that handles both adapters' errors.
 *
 * @packageDocumentation
 */

export { startAfter } from './start-check';
export {
  declaresJsonOnly,
  hostPluginSegments,
  rulePluginRoute,
  type PluginRouteContext,
  type PluginRouteOperation,
  type PluginRouteRefusal,
  type PluginRouteRuling,
} from './plugin-routes';
export {
  PluginDefinitionError,
  PluginOperationError,
  type PluginDefinitionCode,
  type PluginRefusalCode,
} from './plugin-errors';
export {
  auditPluginRefusal,
  bindPluginCapability,
  defineUnboundPlugin,
  GatedPluginClient,
  PluginCallGate,
  PluginRefusals,
  type PluginGateRules,
  type PluginServices,
} from './plugin-gate';
export { settingChanges, type SettingChange } from './setting-changes';
export { decisionRaiser, raiseEach, subjectsFromHostState } from './raise-decisions';
export { standardFromFamilies, type StandardFamily } from './standard-families';
export { HOST_ERROR_CODES, type HostErrorCode } from './error-codes';
export { HOST_SUPERUSER_REQUIRED } from './superuser-required';
export {
  HostAuthError,
  HostGenerationError,
  HostHttpError,
  HostNoIndexersError,
  HostOperationError,
  HostOptionsError,
  HostPermissionError,
  HostProtocolError,
  HostTransportError,
  HostUnreachableError,
  HostUnsupportedError,
  HostValidationError,
  type HostOperationErrorOptions,
  type HostValidationIssue,
} from './errors';
export type { SubmittedDownload } from './submitted-download';
export { hostSimulatorFaults, takeFault, type HostSimulatorFaults } from './simulator-faults';
export {
  adapterHostOptions,
  closeHostAndClient,
  metadataUnreachableWarning,
  sdkCapabilityRegistry,
  type AdapterHostParts,
} from './host-wiring';
export { planOfType } from './plan-of-type';
