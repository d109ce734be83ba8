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
