/**
 * `@media-agent/host-adapter-v2/testing`: a MoviePilot 2.x host simulator for tests and tries
 * without a real host: a real HTTP server that validates every request against the V2 contract.
 *
 * @packageDocumentation
 */

/**
 * The MoviePilot host generation this simulator speaks.
 *
 * @public
 */
export const SIMULATED_GENERATION = 'v2' as const;

export {
  MoviePilotV2Simulator,
  SIM_DIRECTORIES,
  type ContractViolation,
  type SimDirectory,
  type SimDownload,
  type SimRequestRecord,
  type SimTransfer,
  type SimUser,
  type V2SimSecrets,
  type V2SimulatorOptions,
} from './testing/simulator';
export {
  ContractValidator,
  loadV2Contract,
  V2_CONTRACT_FILES,
  type OpenApiDocument,
  type OpenApiOperation,
  type V2ContractName,
} from './testing/contract';
export { SIM_RELEASES, SIM_TITLES, type SimRelease, type SimTitle } from './testing/data';
