/**
 * The standard media capability contracts: ids, kinds, replay policies, policy kinds,
 * schemas, descriptions for the model, and helpers to implement and register them.
 * @packageDocumentation
 */
export * from './identity';
export * from './schemas';
export {
  STANDARD_CAPABILITIES,
  STANDARD_CAPABILITY_IDS,
  isStandardCapabilityId,
  type StandardCapabilities,
  type StandardCapabilityContract,
  type StandardCapabilityId,
  type StandardInput,
  type StandardOutput,
} from './contracts';
export {
  defineStandardCapability,
  registerStandardCapabilities,
  planReceipt,
  verifyDownloadSubmit,
  verifyPolicyApply,
  type StandardCapability,
  type StandardCapabilityExtras,
  type StandardHandler,
  type StandardImplementations,
} from './define-standard';
export {
  MediaStateError,
  StandardCapabilitiesMissingError,
  StandardCapabilityMismatchError,
  type MediaStateCode,
} from './errors';
