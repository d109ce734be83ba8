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
