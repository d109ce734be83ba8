/**
 * `@media-agent/sdk/testing`: test harness pieces (storage conformance suite, scripted model).
 *
 * @packageDocumentation
 */
export {};
export * from './models/testing';
export * from './testing/index';
