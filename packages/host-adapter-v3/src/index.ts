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
