/**
 * `@media-agent/sdk/testing`: test harness pieces (storage conformance suite, scripted model).
 *
 * @packageDocumentation
 */
export * from './models/testing';
export * from './testing/index';
export type { ModelProvider, ModelRequest, ModelEvent } from './models/types';
export type { StorageAdapter } from './ports/storage-adapter';
export { ScriptExhaustedError, ScriptInvalidError, ScriptTemplateError } from './models/errors';
export { CapturingLogger } from './testing/capturing-logger';
export { approveRequested, requestedApproval } from './testing/requested-approval';
