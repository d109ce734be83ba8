/**
 * Test harness pieces of `@media-agent/sdk/testing` owned by the storage layer.
 * @packageDocumentation
 */
export {
  describeStorageConformance,
  type ConformanceTestApi,
  type StorageConformanceFactory,
} from './storage-conformance';
