import { MediaAgentError } from '@media-agent/sdk';

/**
 * Why a plugin's scoped client refused a request (nothing was sent to the host):
 * - `PLUGIN_OPERATION_UNDECLARED`: the route or operation is not among the plugin's declared ones;
 * - `PLUGIN_OPERATION_FORBIDDEN`: the invoking actor may not send it (admin-only, and its principal is
 *   not a host superuser — the rule a direct call of it is refused by);
 * - `PLUGIN_CLIENT_CLOSED`: the handler already returned; the client of one invocation cannot be kept.
 * @public
 */
export type PluginRefusalCode = 'PLUGIN_OPERATION_UNDECLARED' | 'PLUGIN_OPERATION_FORBIDDEN' | 'PLUGIN_CLIENT_CLOSED';

/**
 * Why a plugin capability cannot be defined or registered as written:
 * - `PLUGIN_DECLARATION_INVALID`: a declared route or operation is malformed, unknown to the host, or
 *   accepts none of the adapter's credentials (or the handler is not a function);
 * - `PLUGIN_KIND_TOO_WEAK`: a declared route or operation writes and the capability's `kind` is not `execute`;
 * - `PLUGIN_NOT_BOUND`: the plugin was registered where nothing gives it a scoped client (register it on
 *   the `host.capabilities` of the adapter's host);
 * - `PLUGIN_OPERATIONS_UNDECLARED`: a `plugin.*` capability made with `defineCapability` (nothing
 *   declared) was registered on an adapter's host.
 * @public
 */
export type PluginDefinitionCode =
  | 'PLUGIN_DECLARATION_INVALID'
  | 'PLUGIN_KIND_TOO_WEAK'
  | 'PLUGIN_NOT_BOUND'
  | 'PLUGIN_OPERATIONS_UNDECLARED';

/**
 * A plugin's request was refused before it reached the host (codes: {@link PluginRefusalCode}). The
 * refusal is audited as `capability.denied` on the plugin capability; when the handler lets it
 * propagate and has sent no write in this invocation, the invocation's result is `denied` with this
 * code, as a refusal before the handler is. Both adapters throw this class (`V2PluginOperationError` and
 * `V3PluginOperationError` are deprecated names of it).
 * @public
 */
export class PluginOperationError extends MediaAgentError<PluginRefusalCode> {
  /** The plugin capability. */
  readonly capabilityId: string;
  /** What it tried to send: `METHOD /path-template` (2.x) or a catalog operation id (3.x). */
  readonly operation: string;
  /**
   * @param code - `PLUGIN_OPERATION_UNDECLARED`, `PLUGIN_OPERATION_FORBIDDEN` or `PLUGIN_CLIENT_CLOSED`
   * @param capabilityId - the plugin capability
   * @param operation - the route or operation it tried to send
   * @param message - why
   */
  constructor(code: PluginRefusalCode, capabilityId: string, operation: string, message: string) {
    // `route` and `operationId`: the names the 2.x and 3.x adapters' details used for the same fact.
    super(code, message, { capabilityId, operation, route: operation, operationId: operation });
    this.capabilityId = capabilityId;
    this.operation = operation;
  }

  /** A former name, kept for one minor version.
   * @deprecated The 2.x name of {@link PluginOperationError.operation}. */
  get route(): string {
    return this.operation;
  }

  /** A former name, kept for one minor version.
   * @deprecated The 3.x name of {@link PluginOperationError.operation}. */
  get operationId(): string {
    return this.operation;
  }
}

/**
 * A plugin capability or declaration cannot be defined or registered as written (codes:
 * {@link PluginDefinitionCode}). `V2PluginDefinitionError` and `V3PluginDefinitionError` are deprecated
 * names of it.
 * @public
 */
export class PluginDefinitionError extends MediaAgentError<PluginDefinitionCode> {
  /**
   * @param code - see {@link PluginDefinitionCode}
   * @param capabilityId - the capability
   * @param message - what is wrong
   */
  constructor(code: PluginDefinitionCode, capabilityId: string, message: string) {
    super(code, message, { capabilityId });
  }
}
