/**
 * `@media-agent/host-adapter-v3/testing`: a MoviePilot 3.x host simulator for tests and tries without a real host.
 *
 * @packageDocumentation
 */

/**
 * The MoviePilot host generation this simulator speaks.
 *
 * @public
 */
export const SIMULATED_GENERATION = 'v3' as const;

export {
  MoviePilotV3Simulator,
  SimContractViolationError,
  SIM_DIRECTORIES,
  type SimDirectory,
  type SimDownload,
  type SimFaults,
  type SimOptions,
  type SimRequest,
  type SimTransfer,
  type SimUser,
  type SimViolation,
} from './testing/simulator';
export { SIM_DEFAULT_LIBRARY, SIM_RELEASES, SIM_TITLES, type SimRelease, type SimTitle } from './testing/data';
export { organizeCompletedDownloadScript } from './testing/scripts';
export { v3UnknownDownload, type V3ScenarioState } from './testing/eval-scenarios';
