/**
 * Every stable code the MoviePilot 3.x adapter adds to the SDK's `ERROR_CODES`, each with one sentence
 * saying what it means (listed in `docs/errors.md`).
 *
 * @remarks
 * The adapter's errors extend `MediaAgentError<V3ErrorCode>`, so a misspelt code fails the type check.
 * The adapter also throws SDK codes (`MEDIA_*`, `OUTCOME_UNKNOWN`, `CAPABILITY_*`) through the SDK's
 * error classes. Codes shared with the V2 adapter (`HOST_AUTH_FAILED`, `HOST_OPERATION_FAILED`,
 * `HOST_OPERATION_UNSUPPORTED`, `HOST_UNREACHABLE`, `PLUGIN_*`) mean the same on both.
 * @public
 */
export const V3_ERROR_CODES = {
  HOST_AUTH_FAILED:
    'Authentication failed: a missing or bad API key (401), a bad JWT (403), a failed login, or a 401 after one refresh.',
  HOST_OPERATION_FAILED: "The host answered with an error status or `success: false`; the message is the host's own.",
  HOST_VALIDATION_FAILED: "The host rejected the request's shape (HTTP 422); `issues` holds its validation list.",
  HOST_PERMISSION_DENIED: 'The host or the adapter refused an admin-only operation for a user who is not a superuser.',
  HOST_OPTIONS_INVALID: "The adapter's options are invalid (no or a bad URL, no credentials, half a login).",
  HOST_TRANSPORT_FAILED:
    'A request left this process but no answer came back (connection reset, timeout) on every attempt; reads only are retried.',
  HOST_UNREACHABLE:
    'The host could not be reached (refused connection, unresolved name, connect timeout); nothing was sent.',
  HOST_OPERATION_UNSUPPORTED: 'No operation in the V3 catalog can serve this request (e.g. pausing a torrent).',
  HOST_PROTOCOL_ERROR:
    'The host answered outside the MoviePilot 3.x protocol (no `{success, message, data}` envelope, a bare list, an all-null model, HTML or a file body, or data not of the declared shape); never a success.',
  HOST_GENERATION_MISMATCH:
    'The host is not of the generation the adapter serves (e.g. a MoviePilot 2.x host behind the 3.x adapter); `start()` refuses it and names what it found.',
  HOST_UNKNOWN_OPERATION: 'No operation with this id is in the V3 catalog; nothing was sent.',
  HOST_REQUEST_INVALID: 'A request to the host lacks a required path parameter; nothing was sent.',
  HOST_REQUIRES_CONFIRMATION:
    'The host could not recognise the media, so the plan was revised; a person must approve the new revision before submitting again.',
  PLUGIN_OPERATION_UNDECLARED:
    "A plugin's scoped client refused an operation the plugin did not declare; nothing was sent.",
  PLUGIN_OPERATION_FORBIDDEN:
    "A plugin's scoped client refused an admin-only operation for an actor that is not a superuser.",
  PLUGIN_CLIENT_CLOSED:
    'A plugin used its scoped client after its handler returned; a client lives for one invocation.',
  PLUGIN_DECLARATION_INVALID:
    "A plugin's `operations` is not a list of V3 catalog operation ids (unknown ids are named).",
  PLUGIN_KIND_TOO_WEAK: 'A plugin declares an operation that writes, but its capability kind is not `execute`.',
  PLUGIN_NOT_BOUND:
    'A plugin capability was registered where nothing gives it a scoped client (register it on the V3 host).',
  PLUGIN_OPERATIONS_UNDECLARED:
    'A `plugin.*` capability made with `defineCapability` (no declared operations) was registered on a V3 host.',
  SIM_CONTRACT_VIOLATION:
    'Testing: a request reached the V3 host simulator that a real MoviePilot 3.x host would reject.',
  SIM_NOT_STARTED: 'Testing: the V3 host simulator was used before `start()`.',
} as const satisfies Record<string, string>;

/** One code of {@link V3_ERROR_CODES}: the `code` type of the adapter's errors. @public */
export type V3ErrorCode = keyof typeof V3_ERROR_CODES;
