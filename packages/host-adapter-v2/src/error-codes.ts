/**
 * Every stable code the MoviePilot 2.x adapter adds to the SDK's `ERROR_CODES`, each with one sentence
 * saying what it means (listed in `docs/errors.md`).
 *
 * @remarks
 * The adapter's errors extend `MediaAgentError<V2ErrorCode>`, so a misspelt code fails the type check.
 * The adapter also throws SDK codes (`MEDIA_*`, `OUTCOME_UNKNOWN`, `CAPABILITY_*`) through the SDK's
 * error classes. Codes shared with the V3 adapter (`HOST_AUTH_FAILED`, `HOST_OPERATION_FAILED`,
 * `HOST_OPERATION_UNSUPPORTED`, `HOST_UNREACHABLE`, `PLUGIN_*`) mean the same on both.
 * @public
 */
export const V2_ERROR_CODES = {
  HOST_OPTIONS_INVALID: "The adapter's options are invalid (no URL, no credentials, or both kinds of credentials).",
  HOST_AUTH_FAILED:
    'Authentication failed or is impossible: login refused, a 401 after one refresh, or a route that accepts none of the configured credentials.',
  HOST_OPERATION_FAILED:
    "The host answered an enveloped operation with `success: false`; the message is the host's own.",
  HOST_HTTP_ERROR: "The host answered with an HTTP error status (a 422 carries FastAPI's validation `detail` list).",
  HOST_TRANSPORT_FAILED:
    'The request got no answer and was certainly not applied: a read whose retries are used up, or a write that never connected.',
  HOST_UNREACHABLE:
    'The host could not be reached (refused connection, unresolved name, connect timeout); nothing was sent.',
  HOST_OPERATION_UNSUPPORTED:
    "The operation is not in this host's OpenAPI document (its version does not serve it); nothing was sent.",
  HOST_CONTRACT_INVALID:
    "The host's OpenAPI document (`GET /api/v1/openapi.json`) could not be read or is not an OpenAPI document.",
  HOST_VERSION_UNSUPPORTED:
    'The host runs a MoviePilot 2.x version the adapter does not support (older than `V2_MIN_VERSION`, or 1.x); a 3.x host is HOST_GENERATION_MISMATCH.',
  HOST_GENERATION_MISMATCH:
    'The host is a MoviePilot of another generation (a 3.x host for the 2.x adapter); refused at start, nothing ran.',
  HOST_PROTOCOL_ERROR:
    "The host's answer is not what its contract declares (not JSON, or an enveloped route without the envelope); nothing was taken from it.",
  HOST_NO_INDEXERS:
    'The host has no usable indexer site (none active or none selected for search), so a resource search can find nothing.',
  AUTH_HOST_SUPERUSER_REQUIRED:
    'Denial: an admin-only capability was invoked by an actor that is not a MoviePilot superuser; no request was sent.',
  PLUGIN_OPERATION_UNDECLARED: "A plugin's scoped client refused a route the plugin did not declare; nothing was sent.",
  PLUGIN_OPERATION_FORBIDDEN:
    "A plugin's scoped client refused a superuser-only route for an actor that is not a superuser.",
  PLUGIN_CLIENT_CLOSED:
    'A plugin used its scoped client after its handler returned; a client lives for one invocation.',
  PLUGIN_DECLARATION_INVALID:
    "A plugin's declared route is malformed, not in the host's OpenAPI document, or accepts none of the adapter's credentials.",
  PLUGIN_KIND_TOO_WEAK: 'A plugin declares a route that writes, but its capability kind is not `execute`.',
  PLUGIN_NOT_BOUND:
    'A plugin capability was registered where nothing gives it a scoped client (register it on the V2 host).',
  PLUGIN_OPERATIONS_UNDECLARED:
    'A `plugin.*` capability made with `defineCapability` (no declared routes) was registered on a V2 host.',
} as const satisfies Record<string, string>;

/** One code of {@link V2_ERROR_CODES}: the `code` type of the adapter's errors. @public */
export type V2ErrorCode = keyof typeof V2_ERROR_CODES;
