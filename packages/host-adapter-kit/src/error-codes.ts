/**
 * Every stable code both MoviePilot adapters throw, each with one sentence saying what it means
 * (listed in `docs/errors.md`). A code means the same on both generations; each adapter's own registry
 * (`V2_ERROR_CODES`, `V3_ERROR_CODES`) adds only the codes of what truly differs between the hosts.
 * @public
 */
export const HOST_ERROR_CODES = {
  HOST_OPTIONS_INVALID:
    "The adapter's options are invalid (no or a bad URL, no credentials, half a login, or both kinds of credentials).",
  HOST_AUTH_FAILED:
    'Authentication failed or is impossible: login refused, a missing or bad API key or token (401/403) after one refresh, or a route that accepts none of the configured credentials.',
  HOST_OPERATION_FAILED:
    "The host refused the operation (`success: false`, or an error status where the adapter keeps the host's own message).",
  HOST_HTTP_ERROR: "The host answered with an HTTP error status (a 422 carries FastAPI's validation `detail` list).",
  HOST_VALIDATION_FAILED: "The host rejected the request's shape (HTTP 422); `issues` holds its validation list.",
  HOST_PERMISSION_DENIED: 'The host or the adapter refused an admin-only operation for a user who is not a superuser.',
  HOST_TRANSPORT_FAILED:
    'A request got no answer and was certainly or harmlessly not applied: reads are retried, then fail; a write that never connected.',
  HOST_UNREACHABLE:
    'The host could not be reached (refused connection, unresolved name, connect timeout); nothing was sent.',
  HOST_OPERATION_UNSUPPORTED:
    "This host's version does not serve the operation (not in its OpenAPI document or catalog); nothing was sent.",
  HOST_GENERATION_MISMATCH:
    'The host is a MoviePilot of another generation than the adapter speaks (a 3.x host behind the 2.x adapter, or a 2.x host behind the 3.x one); `start()` refuses it and names what it found.',
  HOST_PROTOCOL_ERROR:
    "The host's answer is not what its contract declares (not JSON, HTML or a file body, an enveloped route without its envelope, a bare list or an all-null model where an envelope is due, data not of the declared shape); nothing is taken from it, never a success.",
  HOST_NO_INDEXERS:
    'The host has no usable indexer site (none active or none selected for search), so a resource search can find nothing.',
  AUTH_HOST_SUPERUSER_REQUIRED:
    'Denial: the host allows the capability only to its superusers (administrators), and the actor (or the person behind its run) is not one; no request was sent, and no approval or grant can lift it.',
  PLUGIN_OPERATION_UNDECLARED:
    "A plugin's scoped client refused a route or operation the plugin did not declare; nothing was sent.",
  PLUGIN_OPERATION_FORBIDDEN:
    "A plugin's scoped client refused an admin-only route or operation for an actor that is not a superuser.",
  PLUGIN_CLIENT_CLOSED:
    'A plugin used its scoped client after its handler returned; a client lives for one invocation.',
  PLUGIN_DECLARATION_INVALID:
    "A plugin's declared routes or operations are malformed, unknown to the host, or accept none of the adapter's credentials (unknown ones are named).",
  PLUGIN_KIND_TOO_WEAK: 'A plugin declares a route or operation that writes, but its capability kind is not `execute`.',
  PLUGIN_NOT_BOUND:
    "A plugin capability was registered where nothing gives it a scoped client (register it on the adapter's host).",
  PLUGIN_OPERATIONS_UNDECLARED:
    "A `plugin.*` capability made with `defineCapability` (nothing declared) was registered on an adapter's host.",
} as const satisfies Record<string, string>;

/** One code of {@link HOST_ERROR_CODES}. @public */
export type HostErrorCode = keyof typeof HOST_ERROR_CODES;
