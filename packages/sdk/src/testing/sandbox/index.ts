/**
 * The sandbox media world: an in-memory media manager implementing the 15 standard
 * media capabilities, with a clock-driven downloader, fault switches and the `GoalFacts` port.
 * @packageDocumentation
 */
export {
  SANDBOX_DEFAULT_LIBRARY,
  SANDBOX_TITLES,
  sandboxReleases,
  type SandboxRelease,
  type SandboxTitle,
} from './data';
export {
  SandboxStateError,
  SandboxWorld,
  type SandboxDownload,
  type SandboxDurations,
  type SandboxFaults,
  type SandboxLibraryItem,
  type SandboxOrganize,
  type SandboxPlan,
  type SandboxWorldOptions,
  type SandboxWorldState,
} from './world';
export { registerSandboxCapabilities, sandboxCapabilities } from './capabilities';
export { addToLibraryScript } from './scripts';
export {
  SANDBOX_DECISION_ACTOR,
  raiseSandboxDecisions,
  sandboxDecisionInputs,
  sandboxDecisionSubjects,
} from './decisions';
export { SANDBOX_POSTER_CAPABILITY, sandboxPosterCapability, solidPng } from './poster';
