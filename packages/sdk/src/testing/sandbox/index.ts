/**
 * The sandbox media world: an in-memory media manager implementing the 15 standard
 * media capabilities, with a clock-driven downloader, fault switches and the `GoalFacts` port.
 * @packageDocumentation
 */
export {
  SANDBOX_DEFAULT_LIBRARY,
  SANDBOX_QUARANTINE_DAYS,
  SANDBOX_TITLES,
  SANDBOX_VOLUMES,
  sandboxReleaseFiles,
  sandboxReleases,
  type SandboxRelease,
  type SandboxTitle,
  type SandboxVolume,
} from './data';
export type { SandboxDisk, SandboxFile, SandboxQuarantineEntry, SandboxVolumeState } from './disk';
export {
  SandboxDownloadPlanPayloadSchema,
  SandboxOrganizePlanPayloadSchema,
  type SandboxDownloadPlanPayload,
  type SandboxOrganizePlanPayload,
} from './plan-payloads';
export { SANDBOX_UNDO_CAPABILITY_IDS, sandboxUndoCapabilities } from './undo';
export {
  SandboxStateError,
  SandboxWorld,
  type SandboxDownload,
  type SandboxDownloadFile,
  type SandboxDurations,
  type SandboxFaults,
  type SandboxHandlerCall,
  type SandboxLibraryItem,
  type SandboxOrganize,
  type SandboxOrganizeEffect,
  type SandboxOrganizeFile,
  type SandboxOrganizeStep,
  type SandboxPlan,
  type SandboxWorldOptions,
  type SandboxWorldState,
} from './world';
export {
  INJECTION_CORPUS_SIZE,
  INJECTION_PATTERNS,
  hostileReleases,
  injectionCorpus,
  injectionSample,
  type InjectionCarrier,
  type InjectionCorpusOptions,
  type InjectionItem,
  type InjectionPattern,
  type InjectionTarget,
} from './injection-corpus';
export { registerSandboxCapabilities, sandboxCapabilities } from './capabilities';
export { addToLibraryScript } from './scripts';
export {
  SANDBOX_DECISION_ACTOR,
  raiseSandboxDecisions,
  sandboxDecisionInputs,
  sandboxDecisionSubjects,
} from './decisions';
export { SANDBOX_POSTER_CAPABILITY, sandboxPosterCapability, solidPng } from './poster';
