/**
 * The storage conformance suite a store author runs; its cases live in `./storage-conformance/`, one file per
 * record kind or concern.
 */
export {
  type ConformanceTestApi,
  describeStorageConformance,
  type StorageConformanceFactory,
} from './storage-conformance/suite';
