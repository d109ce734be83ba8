/**
 * `@media-agent/sdk/testing`: test harness pieces (storage conformance suite, scripted model).
 *
 * @packageDocumentation
 */
export * from './models/testing';
export * from './testing/index';
export type { ModelProvider, ModelRequest, ModelEvent } from './models/types';
export type { StorageAdapter } from './storage/storage-adapter';
export { ScriptExhaustedError, ScriptInvalidError } from './models/errors';
