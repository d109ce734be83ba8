/**
 * `@media-agent/sdk/media`: the standard media capability contracts (ids, kinds, replay policies,
 * schemas, descriptions for the model) and the helpers a host adapter implements and registers them with.
 *
 * @packageDocumentation
 */
export * from './media/index';
