/**
 * `@media-agent/sdk`: an in-process agent runtime for media managers.
 *
 * @packageDocumentation
 */
export { MediaAgentError, isMediaAgentError } from './errors';
export * from './models/index';
