import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { CapabilityDescriptor } from '../core/capability-descriptor';
import type { AgentHost } from '../runtime/agent-host';
import { MediaAgentError } from '../core/errors';
import { approvedFor, askForApproval } from './approval-ask';
import { mcpCallResult, mcpErrorResult } from './call-result';
import { resolveActor, type McpAuthenticate, type McpCaller } from './caller';
import { mcpTool, publishable } from './published-tools';

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
   * result names it; the client calls again once approved).
   * @defaultValue true
   */
  requestApprovals?: boolean;
}

/** The caller facts of one request, from what its transport established (never from the message). */
type CallerOf = (extra: {
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
 * - `tools/list`: each published capability as a tool named by its id, with its input schema and annotations
 *   from kind and replay ({@link mcpToolAnnotations}); `update_plan`, `search_tools`, `read_tool_result`,
 *   `delegate` and the memory, history and skills families are never listed or callable.
 * - `tools/call`: the actor is what `options.authenticate` resolves from the transport; `_meta` and the
 *   arguments never name an actor. Invalid arguments are refused by the invocation path before any handler
 *   (a tool error with `INPUT_INVALID` and the paths); an unknown or unpublished tool is a JSON-RPC
 *   `InvalidParams` error. Results carry `status`, output or error code, and what to do next; `denied`,
 *   `failed` and `unknown` set `isError`.
 *
 * @param host - a started host (its capabilities are read at each `tools/list`)
 * @param options - the authentication hook (required), name, version, publish filter
 * @param callerOf - how the transport's facts become an {@link McpCaller} (set by the transports)
 * @returns the server, not yet connected
 * @throws {@link MediaAgentError} `MCP_OPTIONS_INVALID` without an `authenticate` function
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
export function createMcpServer(
  host: AgentHost,
  options: McpServerOptions,
  callerOf: CallerOf = (extra) => ({
    transport: 'http',
    ...(extra.authInfo ? { authInfo: extra.authInfo } : {}),
    ...(extra.requestInfo ? { headers: extra.requestInfo.headers } : {}),
    ...(extra.sessionId ? { sessionId: extra.sessionId } : {}),
  }),
): Server {
  checkServerOptions(options);
  const server = new Server(
    { name: options.name ?? 'media-agent', version: options.version ?? '0.1.0' },
    { capabilities: { tools: { listChanged: false } } },
  );
  const published = (descriptor: CapabilityDescriptor) =>
    publishable(descriptor) && (options.publish?.(descriptor) ?? true);
  const lookup = (name: string): CapabilityDescriptor => {
    const descriptor = host.capabilities.has(name) ? host.capabilities.get(name) : undefined;
    if (!descriptor || !published(descriptor)) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name}`);
    return descriptor;
  };

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    await resolveActor(options.authenticate, callerOf(extra)).catch((error: Error) => {
      throw new McpError(ErrorCode.InvalidRequest, error.message);
    });
    return { tools: host.capabilities.list().filter(published).map(mcpTool) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const descriptor = lookup(request.params.name);
    const input: unknown = request.params.arguments ?? {};
    let actor: Awaited<ReturnType<typeof resolveActor>>;
    try {
      actor = await resolveActor(options.authenticate, callerOf(extra));
    } catch (error) {
      return mcpErrorResult(error);
    }
    try {
      const approvalId = await approvedFor(host, descriptor, input, actor);
      const invocation = await host.invoke(descriptor.id, input, {
        actor,
        signal: extra.signal,
        ...(approvalId ? { approvalId } : {}),
      });
      const ask =
        invocation.status === 'denied' && options.requestApprovals !== false
          ? await askForApproval(host, descriptor, input, actor)
          : undefined;
      return mcpCallResult(invocation, ask);
    } catch (error) {
      return mcpErrorResult(error);
    }
  });
  return server;
}

function checkServerOptions(options: McpServerOptions): void {
  if (typeof options?.authenticate !== 'function')
    throw new MediaAgentError(
      'MCP_OPTIONS_INVALID',
      'an MCP server needs options.authenticate: the function that says who a request acts as',
      { option: 'authenticate' },
    );
}
