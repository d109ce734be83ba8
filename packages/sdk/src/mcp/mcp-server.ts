import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  SetLevelRequestSchema,
  type CallToolResult,
  type LoggingLevel,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallerLogLevel, InvocationListener } from '../capabilities/types';
import type { CapabilityDescriptor } from '../core/capability-descriptor';
import type { AgentHost } from '../runtime/agent-host';
import { MediaAgentError } from '../core/errors';
import { approvalCanLift } from '../authorization/approval-can-lift';
import { approvedFor, askForApproval } from './approval-ask';
import { mcpCallResult, mcpErrorResult, type McpApprovalAsk } from './call-result';
import { resolveActor, type McpAuthenticate, type McpCaller } from './caller';
import { mcpTool, publishable } from './published-tools';
import { mcpCallScope } from './client-idempotency';
import { withRecordedLegacyScope } from './legacy-call-scope';
import { visibleCapabilities } from '../capabilities/visible-capabilities';
import type { ToolSpanOutcome } from '../runtime/tracing/run-tracer';
import type { TracingOptions } from '../runtime/tracing/tracing-options';
import { McpServerSpans } from './server-span';
import { negotiatedVersionRecorder } from './negotiated-version';

/**
 * Options of an MCP server that publishes a host's capabilities.
 * @public
 */
export interface McpServerOptions {
  /**
   * Who each request acts as; see {@link McpAuthenticate}. Required: there is no default identity.
   * Every `tools/call` then goes through the host's one invocation path as that actor, with its approvals,
   * grants, ledger and audit.
   */
  authenticate: McpAuthenticate;
  /** The server name clients see. @defaultValue `media-agent` */
  name?: string;
  /** The server version clients see. @defaultValue `0.1.0` */
  version?: string;
  /**
   * Which registered capabilities are published (after the runtime's own tools and families, which never are).
   * @defaultValue every capability
   */
  publish?: (descriptor: CapabilityDescriptor) => boolean;
  /**
   * Whether a denied call that executes a plan asks a person for an approval on the caller's behalf (the
   * result names it; the client calls again once approved) — only for a denial an approval can lift
   * (`AUTH_NO_AUTHORIZATION`, `AUTH_APPROVAL_*`, `APPROVAL_STEP_NOT_APPROVED`, `AUTH_GRANT_*`).
   * @defaultValue true
   */
  requestApprovals?: boolean;
  /**
   * OpenTelemetry spans of the calls: an `execute_tool` span per `tools/call` (GenAI semantic conventions, as
   * for tool calls in runs; docs/architecture.md#traces), a child of the trace context in the HTTP request's
   * headers when the host registered a propagator (e.g. W3C `traceparent` with the OpenTelemetry Node SDK).
   * @defaultValue the global tracer provider's tracer (a no-op until the host registers one), no content
   */
  tracing?: TracingOptions;
}

/** The caller facts of one request, from what its transport established (never from the message). */
export type CallerOf = (extra: {
  sessionId?: string;
  authInfo?: McpCaller['authInfo'];
  requestInfo?: { headers: McpCaller['headers'] };
}) => McpCaller;

/**
 * Builds an MCP server (the official SDK's low-level `Server`) that lists the host's capabilities as tools
 * and answers `tools/call` through `host.invoke`. Connect it to a transport yourself, or use
 * {@link serveMcpStdio} / {@link createMcpHttpHandler}.
 *
 * @remarks
 * - `tools/list`: each published capability the caller's role may call as a tool named by its id, with its
 *   input schema and annotations from kind and replay ({@link mcpToolAnnotations}); `update_plan`,
 *   `search_tools`, `read_tool_result`, `delegate` and the memory, history and skills families are never listed
 *   or callable. An admin-only capability (`adminOnly: true`) is listed only to a caller whose role
 *   (`host.roleOf(actor)`: `admin` only for a `user:` actor the host's identity resolver calls an administrator)
 *   is `admin`; called anyway by anyone else, it is denied `AUTH_ADMIN_ONLY` (audited, no approval asked).
 * - `tools/call`: the actor is what `options.authenticate` resolves from the transport; `_meta` and the
 *   arguments never name an actor. Invalid arguments are refused by the invocation path before any handler
 *   (a tool error with `INPUT_INVALID` and the paths); an unknown or unpublished tool is a JSON-RPC
 *   `InvalidParams` error. Results carry `status`, output or error code, and what to do next; `denied`,
 *   `failed` and `unknown` set `isError`.
 * - Content: the first block is `structuredContent` as JSON text; image, audio and embedded-resource parts of the
 *   output (`{ type: 'image', data, mediaType? }`, `{ type: 'audio', data, mimeType }`,
 *   `{ type: 'resource', resource: { uri, mimeType?, text | blob } }`, at any depth) follow as MCP content blocks,
 *   and the output names each by `content_index` instead of carrying its bytes.
 * - Notifications: a handler's `ctx.progress(...)` becomes `notifications/progress` when the client sent
 *   `_meta.progressToken`; `ctx.logToCaller(...)` becomes `notifications/message` (`logger`: the capability id) at
 *   or above the level set with `logging/setLevel` (the server declares the `logging` capability).
 * - A client that may retry a call (a lost response) sends its own key in
 *   `_meta["media-agent/idempotency-key"]` ({@link mcpCallScope}): a retry with the same key and arguments
 *   returns the recorded result (`replayed: true`) instead of a second side effect.
 *
 * @param host - a started host (its capabilities are read at each `tools/list`)
 * @param options - the authentication hook (required), name, version, publish filter
 * @returns the server, not yet connected
 * @throws `MCP_OPTIONS_INVALID` ({@link MediaAgentError}) without an `authenticate` function
 *
 * @example
 * ```ts
 * import { createMcpServer } from '@media-agent/sdk/mcp';
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 *
 * const server = createMcpServer(host, { authenticate: () => 'apikey:desktop-client' });
 * await server.connect(new StdioServerTransport());
 * ```
 * @public
 */
export function createMcpServer(host: AgentHost, options: McpServerOptions): Server {
  return buildMcpServer(host, options, (extra) => ({
    // An HTTP transport gives the request's facts; a stream transport (stdio) gives none.
    transport: extra.requestInfo ? 'http' : 'stdio',
    ...(extra.authInfo ? { authInfo: extra.authInfo } : {}),
    ...(extra.requestInfo ? { headers: extra.requestInfo.headers } : {}),
    ...(extra.sessionId ? { sessionId: extra.sessionId } : {}),
  }));
}

/**
 * {@link createMcpServer} with the transport's way of describing the caller.
 * @param callerOf - how the transport's facts become an {@link McpCaller}
 */
export function buildMcpServer(host: AgentHost, options: McpServerOptions, callerOf: CallerOf): Server {
  checkServerOptions(options);
  const server = new Server(
    { name: options.name ?? 'media-agent', version: options.version ?? '0.1.0' },
    // `logging`: a capability's `ctx.logToCaller` reaches the client as `notifications/message`.
    { capabilities: { tools: { listChanged: false }, logging: {} } },
  );
  // The level a client set with `logging/setLevel`, per session (stdio: the one connection; stateless HTTP:
  // the one request, so an HTTP client gets every level).
  const levels = new Map<string | undefined, LoggingLevel>();
  server.setRequestHandler(SetLevelRequestSchema, async (request, extra) => {
    levels.set(extra.sessionId, request.params.level);
    return {};
  });
  const spans = new McpServerSpans(options.tracing);
  // The revision this connection negotiated at `initialize` (stdio); over stateless HTTP each request's
  // `MCP-Protocol-Version` header says it.
  const negotiated = negotiatedVersionRecorder(server);
  const published = (descriptor: CapabilityDescriptor) =>
    publishable(descriptor) && (options.publish?.(descriptor) ?? true);
  const lookup = (name: string): CapabilityDescriptor => {
    const descriptor = host.capabilities.has(name) ? host.capabilities.get(name) : undefined;
    if (!descriptor || !published(descriptor)) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name}`);
    return descriptor;
  };

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const actor = await resolveActor(options.authenticate, callerOf(extra)).catch((error: Error) => {
      throw new McpError(ErrorCode.InvalidRequest, error.message);
    });
    // Each caller sees what their role may call: the role is asked at every listing (a role can change).
    const role = await host.roleOf(actor);
    return { tools: visibleCapabilities(host.capabilities.list().filter(published), role).map(mcpTool) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    // Authenticated before the tool name is looked at: an unauthenticated caller learns nothing of the tools.
    const authenticated = await resolveActor(options.authenticate, callerOf(extra)).catch(
      (error: unknown) => error as Error,
    );
    if (authenticated instanceof Error) return mcpErrorResult(authenticated);
    const descriptor = lookup(request.params.name);
    const input: unknown = request.params.arguments ?? {};
    const caller = callerOf(extra);
    const meta = request.params._meta;
    const listener = callListener(
      descriptor.id,
      meta?.progressToken,
      levels.get(extra.sessionId),
      extra.sendNotification,
    );
    // The server span's parent is the caller's trace context (`params._meta`, else the HTTP headers): tracing,
    // never identity.
    const answer = await spans.run(
      request,
      extra,
      { descriptor, protocolVersion: negotiated.version },
      () => callTool(descriptor, input, caller, extra.signal, meta, listener),
      (done) => ({ ...done.traced, approvalRequested: done.ask?.approvalId, isError: done.result.isError === true }),
    );
    return answer.result;
  });

  /** One call through the invocation path as the authenticated actor; errors become tool results. */
  async function callTool(
    descriptor: CapabilityDescriptor,
    input: unknown,
    caller: McpCaller,
    signal: AbortSignal,
    meta: unknown,
    listener: InvocationListener,
  ): Promise<{ result: CallToolResult; traced: ToolSpanOutcome; ask?: McpApprovalAsk | undefined }> {
    let actor: Awaited<ReturnType<typeof resolveActor>>;
    try {
      actor = await resolveActor(options.authenticate, caller);
    } catch (error) {
      return { result: mcpErrorResult(error), traced: failedOutcome(error) };
    }
    try {
      const scope = await withRecordedLegacyScope(host.ledger, descriptor, input, actor, mcpCallScope(meta, actor));
      const approvalId = await approvedFor(host, descriptor, input, actor);
      const invocation = await host.invoke(descriptor.id, input, {
        actor,
        signal,
        listener,
        ...scope,
        ...(approvalId ? { approvalId } : {}),
      });
      const ask =
        // Only a denial an approval can lift asks a person (never AUTH_ADMIN_ONLY, a host's superuser-only
        // operation or a run's limits: those are decided before any approval).
        invocation.status === 'denied' &&
        approvalCanLift(invocation.error?.code ?? '') &&
        options.requestApprovals !== false
          ? await askForApproval(host, descriptor, input, actor)
          : undefined;
      return { result: mcpCallResult(invocation, ask), traced: invocation, ask };
    } catch (error) {
      return { result: mcpErrorResult(error), traced: failedOutcome(error) };
    }
  }
  return server;
}

/** MCP log levels in increasing severity (RFC 5424, as the MCP logging utility names them). */
const MCP_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];
const MCP_LEVEL_OF: Record<CallerLogLevel, LoggingLevel> = {
  debug: 'debug',
  info: 'info',
  warn: 'warning',
  error: 'error',
};

/**
 * What one `tools/call` hears from its handler, sent on that request's own stream (related to the request, so a
 * stateless HTTP response carries it): progress when the client sent a progress token, log messages at or above
 * the level the client set.
 */
function callListener(
  capabilityId: string,
  progressToken: string | number | undefined,
  minLevel: LoggingLevel | undefined,
  send: (notification: ServerNotification) => Promise<void>,
): InvocationListener {
  const quiet = () => undefined; // a client gone away is no failure of the call
  return {
    progress(update) {
      if (progressToken === undefined) return;
      send({ method: 'notifications/progress', params: { progressToken, ...update } }).catch(quiet);
    },
    log(level, message, data) {
      const mcpLevel = MCP_LEVEL_OF[level] ?? 'info';
      if (minLevel && MCP_LEVELS.indexOf(mcpLevel) < MCP_LEVELS.indexOf(minLevel)) return;
      send({
        method: 'notifications/message',
        params: { level: mcpLevel, logger: capabilityId, data: data === undefined ? message : { message, ...data } },
      }).catch(quiet);
    },
  };
}

/** The span outcome of a call that threw before anything ran. */
function failedOutcome(error: unknown): ToolSpanOutcome {
  return { status: 'failed', error: { code: error instanceof MediaAgentError ? error.code : 'INVOCATION_FAILED' } };
}

function checkServerOptions(options: McpServerOptions): void {
  if (typeof options?.authenticate !== 'function')
    throw new MediaAgentError(
      'MCP_OPTIONS_INVALID',
      'an MCP server needs options.authenticate: the function that says who a request acts as',
      { option: 'authenticate' },
    );
}
