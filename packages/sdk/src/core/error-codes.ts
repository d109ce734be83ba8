/**
 * Every stable code the SDK puts on an error, a denial, a failed tool result, a run's end or a
 * warning, each with one sentence saying what it means.
 *
 * @remarks
 * Programs switch on the code; the message may change between releases, the code may not. A code is
 * upper snake case and starts with its area (`CAPABILITY_`, `AUTH_`, `LEDGER_`, `PROVIDER_` …).
 * `docs/errors.md` is generated from this object (`npm run docs:errors`); a test fails when the page is
 * stale or when the source uses a code that is not listed here. The host adapters keep their own
 * registries (`V2_ERROR_CODES`, `V3_ERROR_CODES`) and type their errors as
 * `MediaAgentError<V2ErrorCode>` / `MediaAgentError<V3ErrorCode>`.
 *
 * @example
 * ```ts
 * import { ERROR_CODES, isMediaAgentError } from '@media-agent/sdk';
 *
 * try {
 *   await host.invoke('download.submit', { planId }, { actor: 'apikey:ci' });
 * } catch (error) {
 *   if (isMediaAgentError(error)) console.error(`${error.code}: ${ERROR_CODES[error.code]}`);
 * }
 * ```
 * @public
 */
export const ERROR_CODES = {
  // Actors and administrative requests
  ACTOR_INVALID: 'An actor string is not one of `user:<id>`, `apikey:<id>`, `agent:<runId>` or `system:<name>`.',
  PERSON_ID_INVALID:
    'A value given where a person is expected is neither `user:<id>` nor a bare `<id>` (wrong type, empty, spaces, or another actor kind); nothing was read or written.',
  ADMIN_FORBIDDEN:
    'Only an administrator (a `user:*` actor whose role is `admin`) may perform this administrative action.',
  REQUEST_INVALID: 'An administrative request is malformed (bad expiry, empty action, negative budget …).',
  HOST_NOT_STARTED:
    'A call that reads or writes storage was made before `host.start()` resolved; registering capabilities needs no start.',
  HOST_STOPPED:
    'The host was used, or started again, after `stop()`; make a new host with `createAgentHost`. An event subscription (`host.events`) open when the host stops fails with it once it delivered what it held.',
  HOST_STOPPING:
    'The agent host was stopping (`host.stop()`), so a tool call of the last model turn did not start; the run resumes on the next worker, whose model may call it again.',
  OPTIONS_INVALID: 'An option passed to `createAgentHost` or to a runtime component is invalid; the message names it.',

  // Approvals, plans and grants (administrative errors)
  APPROVAL_NOT_FOUND: 'No approval has the id.',
  GRANT_NOT_FOUND: 'No automation grant has the id.',
  CHECKLIST_INVALID: "The run's checklist given to `update_plan` is invalid (empty steps, several in progress …).",
  PLAN_NOT_FOUND: 'No plan (the reviewed artifact an approval binds to) has the id.',
  POLICY_REVISION_NOT_FOUND: 'No policy revision has the id.',
  APPROVAL_HASH_MISMATCH:
    'The payload hash echoed back when approving does not match the plan the approval is bound to; review the current plan and approve again.',
  APPROVAL_STATE: 'An approval changed state (revoked, consumed, expired) while an invocation was using it.',
  APPROVAL_STEP_NOT_APPROVED:
    'The call executes a step of the plan that the approval does not cover (the approver approved only some steps); the error names the steps that may run.',
  APPROVAL_STEP_UNKNOWN: 'A partial approval names a step the plan does not have; nothing was decided.',
  APPROVAL_EDIT_INVALID:
    "An approver's edit of the plan does not match the schema of the plan payloads its capability executes; nothing was decided and nothing executes.",
  APPROVAL_EDIT_WRONG_CAPABILITY:
    'An edit names another capability than the one the approval was asked for; an edit can never switch capability. Nothing was decided.',
  APPROVAL_EDIT_UNSUPPORTED:
    "The approval's capability declares no `planPayload` schema (or the approval was asked for without one), so its plan cannot be edited; approve or reject it as proposed.",
  APPROVAL_EDIT_DENIED:
    "The edited plan is refused by the policy of the capability it targets (e.g. administrators only, outside the household's policy); nothing was decided.",
  PLAN_REVISION_CONFLICT: 'The plan is no longer at the revision the caller expected (someone revised it meanwhile).',
  PLAN_TOO_LARGE:
    "A plan's payload is larger than the configured byte limit; store large data elsewhere and reference it.",
  GRANT_MATCHES_NOTHING:
    'A grant action covers no registered capability (a typo would authorize nothing); pass `allowUnmatched: true` for capabilities registered later.',
  GRANT_WIDENING:
    'A change would widen a grant; grants may only be revoked or shortened, so create a new grant instead.',

  // Authorization denials (on `denied` invocation results and `capability.denied` audit rows)
  AUTH_AUTOMATION_DISABLED: 'The global automation switch is off, so every automatic `execute` is denied.',
  AUTH_READ_ONLY_RECONCILE: 'The host is in read-only reconcile mode, so every automatic `execute` is denied.',
  AUTH_NOT_ALLOWED_IN_RUN:
    "The capability is not allowed in this run (a `plan_only` run, or outside the run's capability allowlist).",
  AUTH_READ_ONLY_SUBAGENT: 'A read-only subagent tried to invoke a capability that is not `read` or `preview`.',
  AUTH_APPROVAL_NOT_FOUND: 'The approval the call points to does not exist.',
  AUTH_APPROVAL_NOT_APPROVED: 'The approval exists but has not been approved (it is pending, rejected or revoked).',
  AUTH_APPROVAL_CONSUMED: 'The single-use approval was already consumed by a successful execution.',
  AUTH_APPROVAL_EXPIRED: 'The approval has passed its expiry.',
  AUTH_APPROVAL_WRONG_PLAN: 'The approval is bound to another plan (plan type or plan id differ from the call target).',
  AUTH_APPROVAL_PLAN_CHANGED: "The plan's payload hash or revision changed after it was approved.",
  AUTH_GRANT_REVOKED: 'The automation grant is revoked or otherwise not active.',
  AUTH_GRANT_EXPIRED: 'The automation grant has passed its expiry.',
  AUTH_GRANT_POLICY_NOT_PUBLISHED: 'The grant is bound to a policy revision that is no longer published.',
  AUTH_GRANT_OUT_OF_SCOPE:
    "The grant's action or scope (media entities, media kinds, capabilities) does not cover the call.",
  AUTH_GRANT_BUDGET_EXHAUSTED: "The grant's daily budget (invocations or bytes per UTC day) is used up.",
  AUTH_ADMIN_ONLY:
    'The capability is for administrators only, and the caller (or the person the run acts for) is an ordinary user.',
  AUTH_NO_AUTHORIZATION:
    'A non-human actor called a `propose`/`approve`/`execute` capability with neither a valid approval nor a covering grant.',

  // Capabilities and the invocation path
  CAPABILITY_NOT_FOUND: 'No capability is registered under the id.',
  CAPABILITY_DUPLICATE: 'Two capabilities were registered with one id.',
  CAPABILITY_DEFINITION_INVALID:
    'A capability definition is malformed (bad id, version, kind, replay policy or schema).',
  CAPABILITY_SCHEMA_UNSUPPORTED:
    "A capability's input schema cannot be offered to model providers, not even rewritten (e.g. a recursive `$ref`).",
  CAPABILITY_TARGET_FAILED: "The capability's `target()` function threw for this input; nothing was claimed or run.",
  CAPABILITY_TIMEOUT:
    "The handler did not finish within the capability's `timeoutMs` (or the host's `capabilityTimeoutMs`, default 120 000 ms): its `signal` aborted and a `read`/`preview` or replay-safe call failed; an effectful call past its deadline is `unknown` instead (verify before retrying).",
  CONTEXT_INVALID: 'A field of the invocation context has the wrong type.',
  TAINTED_ARGUMENT:
    "A run's `propose`/`approve`/`execute` call was refused before authorization: an identifier field holds a value no host read returned to the run and no person typed in it (`not_issued`), or a free-text field holds untrusted text the run was shown, such as a release name (`untrusted_text`). Audited as `capability.tainted`; nothing ran, and no approval is asked for: the model is told the field and why, and to use ids a read returned or ask the person (docs/untrusted-text.md).",
  INPUT_INVALID: "The input does not match the capability's schema; the handler was not called.",
  INPUT_TOO_LARGE: "The input's JSON is larger than the configured limit (default 1 MiB); the handler was not called.",
  INVOCATION_ABORTED:
    "The caller's abort signal fired: before the call started (nothing was claimed or run), or while the handler of a `read` or `preview` ran (the call ends at once, whether the handler stops or not; a side-effecting call aborted while it ran is `OUTCOME_UNKNOWN`).",
  INVOCATION_FAILED: 'A model tool call failed with an error that carried no code of its own.',
  HANDLER_FAILED: 'The handler threw an error that carried no code of its own; the ledger records the call as failed.',
  HANDLER_RESULT_INVALID:
    'Settling a claimed call failed unexpectedly (e.g. a result that cannot be recorded); the side effect may have happened, so the outcome is `unknown`.',
  OUTPUT_INVALID: "The handler's output does not match the capability's output schema.",
  OUTCOME_UNKNOWN:
    'The side effect may have happened but its outcome is not known (transport broke, timeout, crash); verify with a read before retrying.',
  VERIFIER_NOT_READ_ONLY: 'A verifier tried to invoke a capability that is not `read` or `preview`.',
  VERIFIER_READ_FAILED: "A verifier's read failed, so an `unknown` ledger entry stays unknown.",
  VERIFIED_NOT_APPLIED: 'A verifier established that the side effect of an `unknown` call did not happen.',

  // Invocation ledger
  CANONICAL_JSON_INVALID:
    'A value cannot be written as canonical JSON (a non-finite number, a cycle, a non-plain object) to derive an idempotency key.',
  LEDGER_CALL_ID_CONFLICT: 'The same call id was used again with different arguments; the call is refused.',
  IMPACT_NOT_DECLARED:
    'The capability declares no `impact`, so what the call would do is unknown (the call and its approval still work).',
  IMPACT_FAILED: "The capability's `impact` threw; the impact is unknown (the call and its approval still work).",
  IMPACT_TIMEOUT:
    "The capability's `impact` took longer than the host's `impactTimeoutMs`; the impact is unknown (the call and its approval still work).",
  IMPACT_INVALID:
    "The capability's `impact` returned something that is not an impact record; the impact is unknown (the call and its approval still work).",
  IMPACT_WITHHELD:
    'A dry run of an administrators-only capability by someone else: its impact (paths, sizes) is not computed or shown.',
  LEDGER_DRY_RUN: 'The ledger was asked to claim an execution for a dry-run call; a dry run can never write.',
  LEDGER_IN_PROGRESS: 'Another executor holds the claim of this idempotency key and is still running it.',
  INTENT_IN_PROGRESS:
    'Another run or person is already doing this kind of effect (a download, an organize) to the same media entity: the call did not run and no second job was created; `joined` on the result names that run, the person it acts for, its plan and its status (docs/intents.md).',
  LEDGER_STALE_EXECUTOR:
    'An executor whose token is no longer current tried to settle a ledger entry; the newer state was kept.',
  LEDGER_VERIFY_LOOP: 'A call was verified as not applied twice in a row; the SDK refuses to loop.',

  // Storage
  STORAGE_CLOSED: 'The storage adapter was used after `close()`.',
  STORAGE_CORRUPT: 'The store is not a valid database or is damaged.',
  STORAGE_FAILED:
    'A storage operation failed for a reason without a more specific code; `cause` holds the driver error.',
  STORAGE_LOCKED: 'The store stayed locked by another connection or process past the busy timeout.',
  STORAGE_UNAVAILABLE:
    'The database server could not be reached or dropped the connection (refused, unreachable, shut down or restarted); an in-flight transaction did not commit, or its outcome is unknown when the connection dropped during `COMMIT`.',
  STORAGE_AUTH_FAILED: 'The database server refused the credentials (wrong password, unknown role, no access).',
  STORAGE_CONFLICT:
    'A transaction kept failing with a serialization failure or deadlock after the bounded number of attempts; nothing of it was kept.',
  STORAGE_TIMEOUT:
    'A statement ran longer than the statement timeout, or a transaction stayed idle longer than the idle-in-transaction timeout, and the server ended it; the transaction was rolled back.',
  STORAGE_POOL_EXHAUSTED:
    'No database connection of the pool became free within the connection timeout (every connection was busy).',
  STORAGE_SCHEMA_TOO_NEW: 'The store was written by a newer SDK (its schema version is higher than this SDK supports).',
  STORAGE_READ_ONLY:
    'The store refused a write because it is read-only (a read-only file or mount, a read-only database or transaction); nothing of the write was kept.',
  STORAGE_FULL:
    'The disk (or the database size limit) is full; the write was rolled back whole. Free space, or prune and compact the store.',
  STORAGE_SCHEMA_TOO_OLD:
    'A read-only reader (the `media-agent audit` command line) found the store at an older schema version than it reads; it never migrates: start a host of this SDK on the store once, then read again.',

  // Maintenance (retention and prune)
  MAINTENANCE_BUSY:
    'A prune was asked while another one runs: of this host, or of another host (in this process or another one) holding the `maintenance` lease of the same store; try again when it ends.',
  MAINTENANCE_UNSUPPORTED:
    'The storage adapter has no maintenance repository (`storage.maintenance`), so retention cannot prune it; the SDK stores have one.',

  // Schedules (docs/schedules.md)
  SCHEDULE_INVALID:
    'A schedule definition is invalid (cron expression, time zone, an interval below the minimum, goal, mode, budgets, missed-tick policy); nothing was stored.',
  SCHEDULE_NOT_FOUND: 'No schedule has the id, or the caller may not see it (an ordinary user sees only their own).',
  SCHEDULE_CAPABILITY_FORBIDDEN:
    "A schedule's capability allowlist names a capability its owner may not call (an administrators-only capability for an ordinary user); nothing was stored.",
  SCHEDULE_KEY_REUSED:
    'A schedule was created with a client key the owner already used for a different definition; the first schedule is unchanged (the same definition returns the first).',
  SCHEDULE_CONFLICT:
    'A schedule kept changing under the request (other writers or its own ticks) and the change was not applied; try again.',

  // Undo through declared inverses (docs/approvals.md#undo)
  UNDO_REQUEST_INVALID:
    'An undo request is malformed: the target must be exactly one of `{ invocationId }` or `{ runId }` (a non-empty string of at most 200 characters), or the run holds more effects than one undo takes; nothing was undone.',
  UNDO_NOT_FOUND:
    'No invocation or run with that id left a record to undo (never made, or its records were pruned); nothing was undone.',
  UNDO_FORBIDDEN:
    'The effect to undo was performed by another person (for a run: its owner), and only an administrator may undo what someone else did; nothing was undone.',
  UNDO_INVERSE_INVALID:
    "An effect's declared inverse could not be called: its `input(output)` threw, or gave an input the inverse capability refuses; the undo stopped there and an `undo_failed` decision was raised.",
  UNDO_INVERSE_FAILED:
    'Calling an inverse threw something other than an SDK error (an SDK error keeps its own code in the undo step); the undo stopped there and an `undo_failed` decision was raised.',

  // Replay without side effects (docs/evaluation.md#replay-without-side-effects)
  REPLAY_NO_RECORDED_RESULT:
    'A replayed call reached a capability whose stored run holds no result (left) for that capability and input — the original call was denied, refused or never made: the replay answers it failed with this code, calls no handler, and reports the divergence.',

  // Audit chain (docs/audit.md)
  AUDIT_CHAIN_BROKEN:
    'The audit chain does not verify: a row was edited, deleted or inserted outside the SDK (`details.firstBreak` names the first: seq, id, what changed).',

  // Forks and undoing the last turn (docs/forks.md)
  FORK_POINT_INVALID:
    '`atSeq` is not a fork point of the run (in the middle of a step, beyond the end, below 1, not an integer); `details.before` and `details.after` name the nearest fork points. Nothing was written.',
  FORK_SUBAGENT_RUN: 'A subagent run cannot be forked or undone; fork its top-level run. Nothing was written.',
  FORK_DUPLICATE_EFFECT:
    "A fork called a `replay: 'never'` capability with the same arguments as an effect its lineage already performed (succeeded, pending or unknown); denied before the claim unless a person approved the plan (the run asks for that approval).",
  UNDO_NO_TURN:
    'The run has no message from a person after its goal, so there is no turn to undo. Nothing was written.',
  UNDO_NOT_INTERACTIVE:
    'Only an `interactive` run can undo its last turn (a background, channel or schedule run can be forked instead). Nothing was written.',
  UNDO_MESSAGE_PENDING:
    "The person's latest message is still queued (it has not reached the model), so there is nothing to undo yet. Nothing was written.",

  // Runs
  RUN_NOT_FOUND: 'No run has the id.',
  RUN_PRUNED:
    'A message was sent to a run whose conversation retention removed (`RunRecord.prunedAt`): it cannot be steered or woken again; start a new run (HTTP 409).',
  RUN_INPUT_DUPLICATE:
    'An input was handed over a second time (a channel message redelivered after a crash or a webhook retry): its `once` key was already claimed by the run or inbox message it made, so nothing was written again; `details.key`, `details.by`.',
  RUN_REQUEST_INVALID:
    'A run request is invalid (empty goal, bad mode, an allowlist naming an `execute` capability in a `plan_only` run …).',
  RUN_MIDDLEWARE_FAILED: 'A run middleware hook threw; the run fails with the hook and the cause in `details`.',
  RUN_START_RATE_LIMITED:
    'An actor (or the whole host) started more runs in the last minute than `limits.runStartsPerMinutePerActor` / `limits.runStartsPerMinuteTotal` allow; nothing was started (HTTP 429 with `Retry-After`).',
  STREAM_LIMIT_REACHED:
    'An actor (or the whole host) already has as many event streams open as `limits.streamsPerActor` / `limits.streamsTotal` allow; close one first (HTTP 429 with `Retry-After`).',
  STREAM_ACCESS_LOST:
    "An open event stream lost its subscriber's access (signed out, no longer authenticated, or demoted so it may no longer see some runs): it ends with one `access_lost` event.",
  DRIVER_FAILED: 'The run driver failed with an error that carried no code of its own; the run ends `failed`.',
  MODEL_FAILED: 'The model turn failed with an error that carried no code of its own; the run ends `failed`.',
  MODEL_OUTPUT_TRUNCATED:
    'The model replies hit the output token limit 3 times in a row (none of their calls ran), so the run ends `failed`.',
  GOAL_TARGET_AMBIGUOUS:
    'A call could not be tied to one goal target, so the run stops and asks the user which one is meant.',
  DELEGATE_DEPTH: 'A subagent tried to start a subagent deeper than the nesting limit.',
  DELEGATE_INVALID: 'The arguments of a subagent launch are invalid.',
  CONTEXT_TURN_TOO_LARGE:
    'One model turn with its tool results does not fit in the context window even after compaction.',

  // Loop guard (on blocks, stops, warnings and notices)
  LOOP_SAME_CALL_FAILING: 'The same call (tool and canonical arguments) failed again (warn at 2, block at 5).',
  LOOP_SAME_TOOL_FAILING: 'One tool failed repeatedly across arguments (warn at 3, stop at 8).',
  LOOP_SAME_RESULT: 'A read-only call returned the same result again (warn at 2, block at 5).',
  LOOP_IDENTICAL_CALLS: 'Identical calls with identical results came in a row, failures excluded (notice at 3).',
  LOOP_CYCLE: 'A cycle of 2–4 calls with identical results repeats within the last 64 calls.',
  LOOP_SEARCH_CAP: 'The per-run `search_tools` budget (50 searches) is spent.',
  LOOP_SUBAGENT_CAP: 'The per-run subagent launch budget (50 launches) is spent.',
  LOOP_BLOCKED_REPEATEDLY: 'The model kept making calls the guard refused (5 in a row), so the run stops.',
  LOOP_STOPPED: 'The run was already stopped by the loop guard; no further call is dispatched.',
  LOOP_PAUSED: 'Every call of the last model turn was refused, so the loop waits before the next model call.',
  LOOP_GUARD_STATE_INVALID: 'A persisted loop guard state cannot be read back (wrong shape or version).',

  // Tool calls from the model and the runtime's own tools
  TOOL_UNKNOWN: 'The model called a tool that was not offered in this request.',
  TOOL_ARGS_MALFORMED: "The model's tool arguments are not JSON or not a JSON object.",
  TOOL_ARGS_INVALID:
    "The model's tool arguments do not match the tool's schema (or are empty while the schema requires fields).",
  TOOL_CALL_TRUNCATED:
    'The reply that made the call hit the output token limit, so no call of it was run; the model is asked to issue it again, shorter.',
  TOOL_RESULT_EXPIRED: 'The stored large tool result has expired and was deleted.',
  TOOL_RESULT_NOT_FOUND: 'No stored large tool result has the `result_id`.',
  TOOL_RESULT_FOREIGN: 'The stored large tool result belongs to another run.',
  TOOL_RESULT_RANGE:
    'The `offset` or `limit` of a `read_tool_result` call is not usable (negative, not an integer, past the end).',
  TOOL_RESULT_FAILED: 'Reading a stored large tool result failed for a reason without a more specific code.',
  TOOL_RESULT_TOO_LARGE:
    'A tool result is too large for the context and could not be stored for paging, so the model sees this error instead.',
  TOOL_SEARCH_INPUT_INVALID: 'The arguments of a `search_tools` call are invalid.',
  TOOL_SEARCH_FAILED: 'A `search_tools` call failed for a reason without a more specific code.',
  TOOL_SEARCH_OFF:
    'Tool discovery is off because every tool is already offered, so `search_tools` has nothing to find.',

  // Model providers
  MODEL_NOT_CONFIGURED:
    'A run was started on a host created without a model; pass `createAgentHost({ model })` (the scripted provider of `/testing` for tests and demos).',
  MODEL_NOT_FOUND:
    "`host.start()` refused: the model server of a local provider (Ollama, llama.cpp, vLLM, LM Studio; any provider with `model.checkOnStart: true`) answers, but its model list does not hold the configured model; the message names the model and the server's list (first 20): pull or load the model, or fix `model.model`.",
  PROVIDER_AUTH: 'The model provider refused the credentials (HTTP 401/403); never retried.',
  PROVIDER_CONTEXT_OVERFLOW:
    "The request is larger than the model's context window; a run compacts to a smaller budget and resends (twice at most) before it fails with this code.",
  PROVIDER_RATE_LIMITED: 'The provider answered 429 on every attempt, honouring `retry-after` between attempts.',
  PROVIDER_UNAVAILABLE: 'The provider answered 5xx or 529 (overloaded) on every attempt.',
  PROVIDER_OUT_OF_CREDIT:
    'The provider answered 402 (out of credit or over its spending limit); not retried on that provider, a fallback chain moves to its next entry.',
  PROVIDER_TIMEOUT:
    'The provider did not connect, answer or stream within the configured timeout (`details.phase`: `connect`, `first_byte`, `idle`, `first_content` or `total`), or its model server did not answer the start-up model check in time (`start_check`).',
  PROVIDER_UNREACHABLE: 'The provider could not be reached (DNS, refused connection, reset) on every attempt.',
  PROVIDER_HTTP: 'The provider answered with an HTTP error status that has no more specific code (e.g. 400).',
  PROVIDER_PROTOCOL: 'The provider sent a stream the SDK cannot read (broken SSE, JSON or event order).',
  PROVIDER_UNKNOWN: 'The model configuration names a provider the SDK does not have.',
  PROVIDER_DELTA_UNKNOWN:
    'Warning: the provider streamed a part the translator does not understand; it was ignored (reported once per shape).',
  PROVIDER_THINKING_UNSIGNED:
    'Warning: an Anthropic thinking block ended without a signature (none, or an empty one); it is kept as an unsigned thinking part but never sent back, since the API accepts a thinking block only with its signature.',
  PROVIDER_THINKING_SUSPENDED:
    'Warning: an Anthropic request asked for thinking but continues a tool loop another provider family or model began, whose turn has no thinking block to start from (the API refuses thinking then); it was sent without `thinking`. The next user turn thinks again.',
  PROVIDER_FIELDS_DROPPED:
    'Warning: an OpenAI-compatible server refused optional request fields; the request was sent again without them, and later calls leave them out.',
  PROVIDER_RETRY_AFTER_CAPPED:
    "Warning: the provider's `retry-after` was longer than the configured cap, so the wait was shortened.",
  PROVIDER_FINISH_MISSING:
    'Warning: an OpenAI-compatible stream ended with `[DONE]` but no `finish_reason`; its text and tool calls were taken as the whole reply (a call whose arguments are not complete JSON still fails `TOOL_ARGS_MALFORMED`).',
  PROVIDER_TOOL_CALL_LATE:
    'Warning: an OpenAI-compatible stream sent tool-call fragments after its `finish_reason`; they were ignored, so that call is neither stored nor run.',

  // Standard media capabilities
  MEDIA_NOT_FOUND: 'The media entity, release, download or task named by the call does not exist.',
  MEDIA_ALREADY_IN_LIBRARY: 'The media is already in the library.',
  MEDIA_ALREADY_DOWNLOADING: 'The media is already being downloaded.',
  MEDIA_PLAN_CONFLICT:
    'The plan conflicts with the current state (changed meanwhile, or of another kind than the call expects).',
  MEDIA_INVALID_STATE:
    'The media, download or task is in a state that does not allow the call (e.g. retrying a running task).',
  MEDIA_STANDARD_CAPABILITIES_MISSING:
    'Standard media capabilities are missing from a registration; nothing was registered.',
  MEDIA_STANDARD_CAPABILITY_MISMATCH:
    'An implementation does not match its standard contract (kind, replay policy or schemas differ).',

  // MCP (`@media-agent/sdk/mcp`)
  MCP_UNAUTHENTICATED:
    "The host's authentication hook resolved no actor for an MCP request (it threw or gave no valid actor); nothing ran.",
  MCP_HOST_FORBIDDEN:
    "An MCP HTTP request's `Host` header is not one the endpoint answers to (`allowedHosts`; by default loopback names and the address the request arrived at): refused 403 before authentication, as DNS-rebinding protection; nothing ran.",
  MCP_ORIGIN_FORBIDDEN:
    "An MCP HTTP request's `Origin` header is not allowed (`allowedOrigins`; the request's own origin — host and port of its `Host` — always passes): refused 403 before authentication; nothing ran.",
  MCP_IDEMPOTENCY_KEY_INVALID:
    'A `tools/call` carried `_meta["media-agent/idempotency-key"]` that is not 1–128 characters of `A–Z a–z 0–9 . _ : ~ -`; nothing was run.',
  MCP_OPTIONS_INVALID:
    'Options of an MCP server or of `registerMcpServer` are invalid (a server name that is not one id word, a read-only tool the server does not list …).',
  MCP_TOOL_NAME_INVALID:
    'An MCP server lists a tool whose name cannot form a capability id `mcp.<server>.<tool>` (words of letters, digits, `_` and `-` joined by `.`, ≤ 128 characters in all); it was not registered.',
  MCP_TOOL_SCHEMA_UNSUPPORTED:
    "An MCP server's tool advertises an input schema that is not a JSON Schema object or that model providers reject even rewritten; it was not registered.",
  MCP_TOOL_ERROR: 'An MCP server answered a tool call with `isError`; the call failed, with the text the server gave.',
  MCP_RESULT_INVALID:
    'An MCP server answered a read-only tool call with a result that is not a valid MCP tool result; the call failed (a side-effecting call is `unknown` instead).',
  MCP_TRANSPORT_LOST:
    'The connection to an MCP server broke during a read-only tool call; the call failed (a side-effecting call is `unknown` instead).',
  MCP_CALL_TIMEOUT:
    'An MCP server gave no answer to a read-only tool call within `callTimeoutMs`; the call failed (a side-effecting call, which was sent, is `unknown` instead).',
  MCP_CALL_NOT_DELIVERED:
    'An MCP tool call provably never reached the server (HTTP 404 for an ended session, another 4xx, a connection refused), also when sent once more in a new session (a renewable transport: a Streamable HTTP transport object or a transport factory); nothing ran.',
  MCP_TOOL_CHANGED:
    'A consumed MCP server changed a tool after it was registered (its input or output schema, description, title or annotations differ from what the host accepted), or announced a change and its tools could not be listed again; the call was refused before anything was sent, and the tool stays disabled until the server is registered again.',
  MCP_TOOL_REMOVED:
    'A consumed MCP server no longer lists a registered tool; the call was refused before anything was sent, and the tool stays disabled until the server is registered again.',
  MCP_TOOL_LIST_INVALID:
    "A consumed MCP server's `tools/list` did not end within 100 pages, listed more than 1000 tools, or named one tool twice; at registration nothing was registered, later its tools' calls are refused (`MCP_TOOL_CHANGED`, unverified) until a listing succeeds.",
  MCP_PROTOCOL_UNSUPPORTED:
    'An MCP server answered `initialize` with a protocol version the installed `@modelcontextprotocol/sdk` does not support; nothing of that server was registered.',

  // HTTP surface (`@media-agent/sdk/http`): the runs API, its event stream and the web console
  HTTP_UNAUTHENTICATED:
    "The host's authentication hook resolved no actor for an HTTP request (it threw, or gave nothing or no valid actor); nothing was read or written.",
  HTTP_BODY_INVALID:
    'An HTTP request body is not a JSON object of the expected shape (malformed JSON, a missing or mistyped field); nothing was written.',
  HTTP_BODY_TOO_LARGE: 'An HTTP request body is larger than the router accepts (`maxBodyBytes`); nothing was written.',
  HTTP_QUERY_INVALID:
    'An HTTP query parameter or `Last-Event-ID` header is malformed (e.g. `after` that is not a non-negative integer); nothing was read.',
  HTTP_CONTENT_TYPE_UNSUPPORTED:
    "An HTTP request with a body did not declare it `application/json` (which also keeps other sites from posting with a person's cookie); nothing was written.",
  HTTP_ROUTE_NOT_FOUND: 'No HTTP route has this method and path.',

  // History archive and session search (`session_search`)
  HISTORY_INPUT_INVALID:
    "A session search, a history append or a history store's options are invalid (inverted time bounds, unknown roles, `window` above 20, an anchor without a session, a batch over 100 messages, a start time that is not epoch ms, a deadline that is not positive …); nothing was read or written.",
  HISTORY_STORE_UNAVAILABLE:
    "A user's history file cannot be used (a newer schema version than this SDK knows, or it cannot be opened); nothing was written.",
  HISTORY_SEARCH_FAILED: 'The `session_search` tool failed unexpectedly; the run goes on without its answer.',
  HISTORY_CAPTURE_FAILED:
    'A message could not be archived in the conversation history yet (a `warning` run event, `details.pending`); the run goes on and the message is kept on the run and retried until the store takes it.',
  HISTORY_QUERY_DEADLINE:
    'A history scan on a worker thread reached its deadline; the search reports `complete: false`, never "no match".',
  // Personal skills (`skills_list`, `skill_view`, `skill_manage`, `/skills` commands)
  SKILL_PATCH_INVALID:
    'A skill patch was refused before matching: empty or whitespace-only `old_string`, no change ("no edit applied"), or `replace_all` over approximate matches.',
  SKILL_PATCH_NO_MATCH:
    "A skill patch's `old_string` matched nowhere in the file, by any of the nine strategies; the message shows the most similar lines.",
  SKILL_PATCH_AMBIGUOUS:
    "A skill patch's `old_string` matched several places and `replace_all` was not set; the message lists them as `L<line>: <snippet>`.",
  SKILL_PATCH_ESCAPE_DRIFT:
    'A skill patch matched only approximately and its strings look over-escaped (`\\"`, literal `\\n`, doubled backslashes) compared with the file; re-read and resend.',
  SKILL_NAME_INVALID:
    'A skill or category name does not match `^[a-z0-9][a-z0-9_-]{0,63}$` (lower case, digits, `_` and `-`; no dots).',
  SKILL_PATH_INVALID:
    'A skill file path escapes its folder, is absolute, has a backslash, a hidden or `..` segment, a segment longer than 255 bytes, a symbolic link on the way, or is not `SKILL.md` or under `references/`, `templates/`, `scripts/`, `assets/`.',
  SKILL_DOCUMENT_INVALID:
    "A `SKILL.md` breaks the format: no front matter, `name` not the folder's name, missing or too long `description`, empty body, more than 100 000 characters, or a tool/permission field (skills never grant permissions).",
  SKILL_CONTENT_UNSAFE:
    'Text written into a skill matches an unsafe pattern (prompt injection, secret exfiltration, persistence, invisible Unicode); nothing was written.',
  SKILL_NOT_FOUND: 'No skill (or no file of the skill, or no archived skill) has that name.',
  SKILL_EXISTS:
    'A skill of that name already exists in some root (a personal skill can never shadow a public one), or its folder is in the way.',
  SKILL_READ_ONLY:
    'The skill may not be changed by this writer: public skills are read-only, and a background review changes only skills it created that are not pinned.',
  SKILL_READ_REQUIRED:
    'A background review must read a file with `skill_view` (and the file must not have changed since) before changing or removing it.',
  SKILL_DELETE_REFUSED:
    'A skill delete was refused: the skill is pinned, or a background delete names no existing merge target in `absorbed_into`.',
  SKILL_BATCH_INVALID:
    'A `skill_manage` call is malformed: not 1–20 operations, a delete together with other operations, or one file overwritten twice.',
  SKILL_LIBRARY_BUSY:
    "Another writer held the user's skill library lock longer than the wait (5 s by default); nothing was written.",
  SKILL_OWNERSHIP_CORRUPT:
    "The host-written ownership record of a user's skills is unreadable; every write is refused until it is repaired.",
  SKILL_FILE_TOO_LARGE: '`skill_view` was asked for a file larger than 512 KiB (never returned truncated).',
  SKILL_REVIEW_CANCELLED:
    'The background review was cancelled (new input arrived); a write it attempted afterwards was refused and rolled back.',
  SKILL_REVIEW_TOOL_FAILED:
    "A background review's skill or memory call failed with an error that is not the SDK's (a custom store's I/O error, say); the review's model is told, and that call wrote nothing the store did not commit.",
  SKILL_REVIEW_TOOL_DENIED:
    'A background learning review called a tool outside its whitelist (a business capability, terminal, MCP tool or file write): nothing ran, the call is audited as `capability.denied` with this reason and the model is told which tools it may use.',
  SKILL_UNAVAILABLE:
    'A background review called a skill tool on a host without personal skills (the `skills` option is not set).',
  SKILL_USER_INVALID: 'Personal skills need the stable id of a person (`user:<id>`); the run acts for nobody.',
  SKILL_INPUT_INVALID:
    "A skill tool's or the skill store's arguments do not match their shape (unknown action or field, wrong type, out of range, no write context); nothing was written.",

  // Decisions for people and their automatic investigation (`host.raiseDecision`, `host.chooseDecisionOption`)
  DECISION_INVALID:
    'A decision to raise is malformed (kind, subject, reason, evidence that is not an object, duplicate option ids, an option naming an unknown capability …), or a decision filter names an unknown field or status; nothing was stored.',
  DECISION_NOT_FOUND: 'No decision has the id.',
  DECISION_SUBJECT_NOT_FOUND:
    'A decision was raised about a subject the host does not know (a run id with no run, a download the host has not got); nothing was stored.',
  DECISION_OPTION_NOT_FOUND: 'The decision offers no option with the id chosen.',
  DECISION_CLOSED: 'The decision was dismissed; it takes no choice.',
  DECISION_IN_PROGRESS:
    'Another choice of the decision was still executing when the wait (`decisions.choiceWaitMs`) ended; read the decision later for its result.',
  // Spending budgets per person and for the household (docs/budgets.md)
  BUDGET_SETTINGS_INVALID:
    'A change of the spending budgets is malformed (an unknown field, role or period, a people key that is not a `user:`, `apikey:` or `system:` actor, a cap that is not null or a non-negative number); nothing was changed.',
  BUDGET_REACHED:
    "A subagent's next model call had no room in its owner's (or the household's) spending budget: the subagent ends `failed` with this code, and its parent run waits at its own next model call (top-level runs never fail with it: they wait, `budget_reached`).",
  // Stable memory (`MEMORY.md` / `USER.md`, proposals, `search_memory`)
  MEMORY_INPUT_INVALID:
    'A `memory` or `search_memory` call is malformed (unknown action or field, empty content or `old_text`, more than 20 operations …); nothing was written.',
  MEMORY_OVER_BUDGET:
    'A memory write would leave the file over its budget (`MEMORY.md` 2200, `USER.md` 1375 code points); nothing was written — merge or remove entries in one batch.',
  MEMORY_THREAT_DETECTED:
    'Memory content matched a prompt-injection, exfiltration or persistence pattern, or holds invisible Unicode; nothing was written.',
  MEMORY_ENTRY_NOT_FOUND: 'No memory entry contains the `old_text`; nothing was written.',
  MEMORY_ENTRY_AMBIGUOUS:
    'The `old_text` matches several different memory entries; nothing was written — use a precise fragment.',
  MEMORY_EMPTY_BATCH:
    'A batch would remove every memory entry; nothing was written — remove the last entry with a single `remove`.',
  MEMORY_DRIFT:
    'A memory file was edited outside the tool (it no longer splits into entries); a `.bak` copy was made and nothing was written.',
  MEMORY_BUSY:
    "Another process held the user's memory lock for longer than the wait (5 s); nothing was written — try again.",
  MEMORY_READ_FAILED:
    'A memory file could not be read; nothing was written (a failed read is never taken for an empty file).',
  MEMORY_USER_REQUIRED: 'The actor is not a user (`user:<id>`), so it has no personal memory.',
  MEMORY_FORBIDDEN: 'Only an administrator may write the global memory.',
  MEMORY_PROPOSAL_NOT_FOUND: 'No pending memory proposal has the id for this user.',
  MEMORY_PROPOSAL_LIMIT:
    'A user already has 100 pending memory proposals, or a proposal is larger than 64 KiB; nothing was staged.',
  MEMORY_ORIGINAL_CHANGED:
    'A memory proposal was not applied because an entry it replaces or removes changed since it was staged; the proposal is kept.',
  MEMORY_SEARCH_TIMEOUT:
    'A `search_memory` regular expression ran past its deadline; the search is incomplete, not empty.',
  // Read-only code orchestration (`execute_code`) and images in tool results
  CODE_ADMIN_ONLY: '`execute_code` was called in a run whose actor is not an administrator; nothing ran.',
  CODE_SANDBOX_UNAVAILABLE:
    'The optional peer `quickjs-emscripten` (the WebAssembly JavaScript sandbox of `execute_code`) is not installed.',
  CODE_INPUT_INVALID:
    'The arguments of an `execute_code` call are invalid (no `code` string, code over the size limit).',
  CODE_SYNTAX: 'The JavaScript of an `execute_code` cell does not parse; nothing ran and the kernel state is kept.',
  CODE_SCRIPT_ERROR: 'The JavaScript of an `execute_code` cell threw; assignments made before the throw are kept.',
  CODE_EXIT: 'The cell called `exit()`; the kernel and its state were destroyed.',
  CODE_TIMEOUT: 'The cell ran past its deadline (300 s by default); it was stopped and its kernel destroyed.',
  CODE_CPU_LIMIT: 'The cell used more sandbox CPU time than allowed; it was stopped and its kernel destroyed.',
  CODE_MEMORY_LIMIT: "The cell went over its kernel's memory limit; it was stopped and its kernel destroyed.",
  CODE_CANCELLED: 'The run was aborted while the cell ran; it was stopped and its kernel destroyed.',
  CODE_TOOL_NOT_READ:
    'A script called a capability that is not of kind `read`; it was refused before its handler (only reads run from code).',
  CODE_TOOL_UNKNOWN: 'A script called a capability that does not exist or is not enabled for the run.',
  CODE_CALL_BUDGET: 'A script made more capability calls than one cell allows (50 by default); the call was refused.',
  CODE_RESULT_TOO_LARGE:
    'A capability result given to a script is over the per-call limit (16 MiB by default); nothing of it was given — ask for smaller pages.',
  CODE_OWNER_CHANGED:
    "The run's actor lost the administrator role, or the run's enabled capabilities changed, while the cell ran; the call was refused.",
  IMAGE_INVALID:
    'Image data in a tool result is not a PNG, JPEG, WebP or GIF image (its bytes do not match the declared type).',
  IMAGE_TOO_LARGE: 'An image in a tool result is over the size limit (768 KiB per image, 1 MiB per data URL).',
  IMAGE_UNSUPPORTED_TYPE: 'An image in a tool result has a media type other than PNG, JPEG, WebP or GIF.',

  // Message channels (`ChannelPort`) and the outbox
  CHANNEL_RATE_LIMITED:
    'The channel asked to slow down (HTTP 429); `details.retryAfterMs` says how long. The outbox pauses only that chat and keeps its order.',
  CHANNEL_UNAVAILABLE:
    'The channel could not be reached (network error, 5xx); the outbox retries with backoff capped at 5 minutes, forever.',
  CHANNEL_REJECTED:
    "The channel refused the message for good (a 4xx other than 429: chat not found, bot blocked …); the outbox row is marked failed and audited, and the chat's next row goes on.",
  CHANNEL_MESSAGE_TOO_LONG: "A message's text is over the channel's length limit (`maxLength`); nothing was sent.",
  CHANNEL_UNKNOWN_USER:
    'A channel input came from a channel user the identity port links to no person (`personOf` answered null); it was refused, audited `channel.unknown_user`, and the chat told once.',
  CHANNEL_TAP_FORGED:
    "A tapped button's data did not verify (forged, altered, or signed for another chat); nothing was decided, and the tap was audited `channel.tap_refused`.",
  CHANNEL_TAP_STALE:
    'A tap or a text confirmation referred to an approval or choice that no longer stands (the payload changed, the plan was edited, it expired or was already decided, the choice was answered); nothing was decided twice, and the person was told why.',
  OUTBOX_INPUT_INVALID:
    'An outbox row to write is malformed (empty channel or chat id, unknown kind, empty idempotency key, payload not JSON); nothing was written.',

  // Testing entry (`@media-agent/sdk/testing`)
  SCRIPT_EXHAUSTED: 'The scripted model was called more times than its script has turns.',
  SCRIPT_INCOMPLETE: '`assertComplete()` found a script that did not play all its turns, or no script played at all.',
  SCRIPT_INVALID: 'A model script is malformed.',
  SCRIPT_TEMPLATE_UNFILLED:
    "A scripted step's template refers to a value the earlier results do not hold (the message names the capability, the path and what was held).",
  SANDBOX_STATE_INVALID: 'A saved sandbox media world cannot be loaded (wrong shape or version).',
  RUN_WAIT_TIMEOUT: 'A test helper waited for a run status that the run did not reach in time.',

  // Task evaluation (`@media-agent/sdk/testing`: scenarios, oracle, `npm run eval`)
  EVAL_TRAJECTORY_INVALID:
    'A trajectory to replay is not JSON, is larger than 256 KiB or 32 tool calls (a recorded one: 4 MiB or 512 calls), is malformed (a recorded part whose results do not match its calls), calls capabilities the host does not offer, or its final report names ids that do not exist.',
  EVAL_SCENARIO_UNKNOWN: 'A trajectory or `--scenario` names a scenario that is not registered.',
  EVAL_SCENARIO_INVALID: 'A scenario definition is invalid (an id that is not lower snake case, no oracle rules).',
  EVAL_PROVIDER_NOT_CONFIGURED:
    'Live evaluation found no model credentials in the environment (`ANTHROPIC_API_KEY` or `OPENAI_API_KEY`).',
  EVAL_ARGS_INVALID:
    'The evaluation command line is malformed (unknown argument, missing value, not exactly one mode).',
  EVAL_OUT_UNWRITABLE:
    'The `--out` folder of an evaluation cannot be created or written; checked before any run, so no run is lost.',
  EVAL_DB_INVALID:
    'The database an evaluation reads a stored run from is missing, not a file, not a SQLite database, holds no media-agent schema, or is at a schema this SDK cannot read (a PostgreSQL server that does not answer too).',
  EVAL_RUN_NOT_FOUND:
    'The database given to `--export-trajectory`, `--from-run` or `--compare-forks` holds no run with that id.',
  EVAL_EXPORT_UNWRITABLE:
    'The file `--export-trajectory` should write cannot be written (its folder is missing or read-only, or it is a directory); checked before the run is read, and nothing is half-written.',
} as const satisfies Record<string, string>;

/**
 * One stable code of {@link ERROR_CODES}: the type of {@link MediaAgentError.code}, so a typo in a code
 * fails the type check.
 * @public
 */
export type ErrorCode = keyof typeof ERROR_CODES;
