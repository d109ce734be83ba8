/**
 * `@media-agent/host-adapter-v2/testing`: a MoviePilot 2.x host simulator for tests and tries without a real host.
 *
 * @packageDocumentation
 */

/**
 * The MoviePilot host generation this simulator speaks.
 *
 * @public
 */
export const SIMULATED_GENERATION = 'v2' as const;
