import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { TSchema } from 'typebox';
import type { CapabilityRegistry } from '../capabilities/capability-registry';
import { defineCapability } from '../capabilities/define-capability';
import { CapabilitySchemaUnsupportedError } from '../capabilities/errors';
import type { Capability, Verifier } from '../capabilities/types';
import { MediaAgentError } from '../core/errors';
import { McpClientSession } from './client-session';
import { McpToolNameError, McpToolSchemaError } from './consume-errors';
import { callMcpTool } from './tool-call';
import { streamableHttpSuccessor } from './transport-successor';
import { MCP_DEFAULT_MAX_OUTPUT_BYTES, McpToolOutput, type McpToolResultOutput } from './tool-output';

/**
 * How {@link registerMcpServer} registers an MCP server's tools.
 * @public
 */
export interface McpServerRegistration {
  /** The server's name in capability ids `mcp.<name>.<tool>`: one word of letters, digits, `_` and `-` (≤ 64 chars). */
  name: string;
  /**
   * A connected client of the official MCP SDK. The host owns it (connects it, closes it), so its session is never
   * renewed, whatever its transport: a new session would be opened by a client the SDK makes, without the host
   * client's name, capabilities and handlers (sampling, elicitation, roots), while the host's client stayed on the
   * ended session. A call the server refuses for an ended session (HTTP 404) fails `MCP_CALL_NOT_DELIVERED`; give
   * `transport` instead to have sessions renewed. When the connection breaks after a call was sent, the call ends
   * `unknown` (side-effecting) or `failed` (read-only). Give this or `transport`.
   */
  client?: Pick<Client, 'listTools' | 'callTool' | 'transport'>;
  /**
   * A transport of the official MCP SDK (e.g. `StdioClientTransport`, `StreamableHTTPClientTransport`), not yet
   * started, or a function that makes a new one each time it is called (a transport factory). A client named
   * `media-agent` is made and connected over it. Give this or `client`.
   *
   * Sessions are renewed with a transport factory, and with a transport object that is a
   * `StreamableHTTPClientTransport` of `@modelcontextprotocol/sdk` (the class itself, not a subclass): when a request
   * that carried an `Mcp-Session-Id` is answered HTTP 404 (the server restarted or ended the session), or otherwise
   * provably never reached the server (another 4xx, a connection refused), a new transport is made — by the
   * factory, or for the object a new `StreamableHTTPClientTransport` to the same URL with the same `requestInit`,
   * `authProvider`, `fetch`, `redirectPolicy` and `reconnectionOptions`, without the session id — and connected
   * (`initialize` again, per the MCP specification, Streamable HTTP transport, "Session Management": "When a client
   * receives HTTP 404 in response to a request containing an Mcp-Session-Id, it MUST start a new session by sending
   * a new InitializeRequest without a session ID attached."), and the request is sent once more, once; the old client
   * is closed. Any other transport object (stdio, where a 404 cannot happen; a subclass; a
   * `StreamableHTTPClientTransport` of an MCP SDK version that keeps its options otherwise) is never renewed: such a
   * call fails `MCP_CALL_NOT_DELIVERED`.
   *
   * To disconnect a transport object, close it with `transport.close()`: that also closes the transport the SDK
   * made for the current session after a renewal (the host never sees it), and no session is opened afterwards (a
   * later call fails `MCP_TRANSPORT_LOST`, nothing sent). The SDK closing the host's object itself, when it retires
   * the ended session, closes nothing else. Like `close()` on any `StreamableHTTPClientTransport`, this sends no
   * HTTP DELETE for the session. With a factory, close the last transport it made.
   */
  transport?: Transport | (() => Transport);
  /**
   * Tools the host declares read-only, in code: registered as kind `read` (replay `safe`), so runs and
   * read-only subagents may call them freely. Every other tool is kind `execute` with replay `never`,
   * whatever the server's own `readOnlyHint` says (recorded in {@link McpRegisteredTool.serverAnnotations}, never trusted).
   * @defaultValue none
   */
  readOnlyTools?: readonly string[];
  /**
   * Read-only verifiers by tool name (a settled `succeeded` gives the output as {@link McpToolResultOutput}): the only way a side-effecting call whose outcome is `unknown` (the
   * connection broke after the call was sent) is settled. Also registrable later with
   * `host.capabilities.registerVerifier('mcp.<name>.<tool>', verifier)`.
   */
  verifiers?: Readonly<Record<string, Verifier<unknown, McpToolResultOutput>>>;
  /** Cap of a tool's text output in UTF-8 bytes. @defaultValue {@link MCP_DEFAULT_MAX_OUTPUT_BYTES} (768 KiB) */
  maxOutputBytes?: number;
  /**
   * How long one tool call may wait for its answer, in ms (and a new session's `initialize`); past it a read fails
   * `MCP_CALL_TIMEOUT`, and a side-effecting call, which was sent and may have run, is `unknown` (its message names
   * `MCP_CALL_TIMEOUT`).
   * @defaultValue 60 000 (the MCP SDK's request timeout)
   */
  callTimeoutMs?: number;
}

/** One MCP tool as registered. @public */
export interface McpRegisteredTool {
  /** The tool's name on the server. */
  tool: string;
  /** Its capability id, `mcp.<server>.<tool>`. */
  capabilityId: string;
  /** `read` when the host declared it read-only, else `execute`. */
  kind: 'read' | 'execute';
  /** The server's own annotations (`readOnlyHint`, `destructiveHint` …), as listed: recorded, never trusted. */
  serverAnnotations: Readonly<Record<string, unknown>>;
}

const SERVER_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const TOOL_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** An MCP tool as `tools/list` gives it. */
interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/**
 * Registers every tool of an MCP server as a capability `mcp.<server>.<tool>` of the host's registry, with the
 * tool's JSON Schema as input schema (checked by the provider-schema rules, and validating every call before
 * the server sees it).
 *
 * @remarks
 * A tool is side-effecting — kind `execute`, replay `never`, so an `unknown` outcome is never re-run — unless
 * the host lists it in `readOnlyTools`. A server's `readOnlyHint` is recorded but not trusted: read-only
 * subagents cannot call a tool the host did not declare read-only. A result with `isError` makes the call
 * `failed` (`MCP_TOOL_ERROR`). A call that provably never reached the server (HTTP 404 for an ended session,
 * another 4xx, a connection refused) is never `unknown`: with a transport factory, or a
 * `StreamableHTTPClientTransport` object, it is sent once more in a new session (a new `initialize`); if it still
 * does not get through, or the session cannot be renewed (a host-owned `client`, another transport object), it fails
 * `MCP_CALL_NOT_DELIVERED`. No answer within `callTimeoutMs` fails a read with `MCP_CALL_TIMEOUT`. When the call was
 * sent and its answer is lost (a timeout, the connection broke, an unreadable answer), a side-effecting call is
 * `unknown` (`OUTCOME_UNKNOWN`), never sent again and settled only by a verifier the host registers; a read fails
 * (`MCP_TRANSPORT_LOST`). Outputs are capped at `maxOutputBytes`; in a run, a large output is paged with
 * `read_tool_result` like any large result. Everything is checked before anything is registered: a server with
 * one bad tool registers nothing. The registration is a snapshot of `tools/list`: tools the server adds later
 * (`notifications/tools/list_changed`) are not registered until the host registers the server again under
 * another name.
 *
 * @param host - where to register (`host` from `createAgentHost`, or its `capabilities`)
 * @param options - the server name, a connected client (or a transport, or a transport factory, to connect one
 *   over), the host's read-only tools, verifiers, the output cap, the call timeout
 * @returns the registered tools
 * @throws {@link MediaAgentError} `MCP_OPTIONS_INVALID` (a bad server name, a read-only tool or verifier naming a tool
 *   the server does not list); {@link McpToolNameError} `MCP_TOOL_NAME_INVALID`; {@link McpToolSchemaError}
 *   `MCP_TOOL_SCHEMA_UNSUPPORTED`; `CAPABILITY_DUPLICATE` when an id is taken; whatever connecting or `tools/list`
 *   throws
 *
 * @example
 * ```ts
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
 * import { registerMcpServer } from '@media-agent/sdk/mcp';
 *
 * const client = new Client({ name: 'my-media-app', version: '1.0.0' });
 * await client.connect(new StdioClientTransport({ command: 'indexer-mcp' }));
 * await registerMcpServer(host, { name: 'indexer', client, readOnlyTools: ['search'] });
 * // capabilities mcp.indexer.search (read) and mcp.indexer.grab (execute)
 * ```
 *
 * @example
 * A Streamable HTTP server whose sessions are renewed when it restarts (a new `initialize`, the call sent once more):
 * ```ts
 * import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
 *
 * const transport = new StreamableHTTPClientTransport(new URL('http://indexer:8808/mcp'));
 * await registerMcpServer(host, { name: 'indexer', transport, readOnlyTools: ['search'] });
 * // at shutdown (also closes the transport of a renewed session):
 * await transport.close();
 * ```
 * @public
 */
export async function registerMcpServer(
  host: { capabilities: CapabilityRegistry } | CapabilityRegistry,
  options: McpServerRegistration,
): Promise<McpRegisteredTool[]> {
  if (typeof host !== 'object' || host === null)
    throw invalidOption('host', 'pass the agent host or its capability registry');
  if (typeof options !== 'object' || options === null) throw invalidOption('options', 'options must be an object');
  const registry = 'capabilities' in host ? host.capabilities : host;
  const { name } = options;
  if (typeof name !== 'string' || !SERVER_NAME.test(name))
    throw invalidOption(
      'name',
      `server name must be one word of letters, digits, _ and - (≤ 64 chars); got ${String(name)}`,
    );
  if (!options.client === !options.transport) throw invalidOption('client', 'give either client or transport');
  if (options.transport && typeof options.transport !== 'function' && typeof options.transport.start !== 'function')
    throw invalidOption('transport', 'transport must be an MCP transport, not yet started, or a function making one');
  if (
    options.client &&
    (typeof options.client.callTool !== 'function' || typeof options.client.listTools !== 'function')
  )
    throw invalidOption('client', 'client must be a connected MCP Client');
  const maxOutputBytes = options.maxOutputBytes ?? MCP_DEFAULT_MAX_OUTPUT_BYTES;
  if (!Number.isInteger(maxOutputBytes) || maxOutputBytes < 1)
    throw invalidOption('maxOutputBytes', 'maxOutputBytes must be a positive integer');
  const callTimeoutMs = options.callTimeoutMs ?? 60_000;
  if (!Number.isInteger(callTimeoutMs) || callTimeoutMs < 1)
    throw invalidOption('callTimeoutMs', 'callTimeoutMs must be a positive integer (ms)');
  for (const option of ['readOnlyTools'] as const)
    if (options[option] !== undefined && !Array.isArray(options[option]))
      throw invalidOption(option, `${option} must be an array of tool names`);
  const { transport } = options;
  if (!transport)
    return registerTools(registry, options, new McpClientSession(options.client!), maxOutputBytes, callTimeoutMs);
  // A transport factory, or a transport object that has a successor, makes the session renewable: each renewal
  // connects a new client over a new transport, its `initialize` waiting at most callTimeoutMs (the first
  // connection waits as long as the MCP SDK's default). The successor is derived before the object is started.
  const make = typeof transport === 'function' ? transport : streamableHttpSuccessor(transport);
  const open = make ? () => connected(make(), callTimeoutMs) : undefined;
  const client = await connected(typeof transport === 'function' ? transport() : transport);
  const session = new McpClientSession(client, open);
  // The host disconnects a transport object with its close(): that closes the transports the SDK makes too.
  if (typeof transport !== 'function' && open) session.closeWith(transport, client);
  try {
    return await registerTools(registry, options, session, maxOutputBytes, callTimeoutMs);
  } catch (error) {
    // A client made here is closed again when registration fails, so no server process is left running.
    await session.close();
    throw error;
  }
}

/** Lists the server's tools and registers them (all or none). */
async function registerTools(
  registry: CapabilityRegistry,
  options: McpServerRegistration,
  session: McpClientSession,
  maxOutputBytes: number,
  callTimeoutMs: number,
): Promise<McpRegisteredTool[]> {
  const { name } = options;

  const tools = await listAllTools(session.client);
  const listed = new Set(tools.map((t) => t.name));
  for (const [option, names] of [
    ['readOnlyTools', options.readOnlyTools ?? []],
    ['verifiers', Object.keys(options.verifiers ?? {})],
  ] as const)
    for (const tool of names)
      if (!listed.has(tool)) throw invalidOption(option, `${option} names ${tool}, which server ${name} does not list`);

  const readOnly = new Set(options.readOnlyTools ?? []);
  const made = tools.map((tool) => {
    const capability = toolCapability(name, tool, {
      session,
      readOnly: readOnly.has(tool.name),
      verify: options.verifiers?.[tool.name],
      maxOutputBytes,
      callTimeoutMs,
    });
    return {
      capability,
      registered: {
        tool: tool.name,
        capabilityId: capability.id,
        kind: capability.kind as 'read' | 'execute',
        serverAnnotations: Object.freeze({ ...(tool.annotations ?? {}) }),
      },
    };
  });
  for (const { capability } of made)
    if (registry.has(capability.id))
      throw new MediaAgentError('CAPABILITY_DUPLICATE', `capability ${capability.id} is already registered`, {
        capabilityId: capability.id,
      });
  for (const { capability } of made) registry.register(capability);
  return made.map((m) => m.registered);
}

/** A client connected over the transport (a new session: `initialize` waits at most `timeoutMs`, or the MCP SDK's default). */
async function connected(transport: Transport, timeoutMs?: number): Promise<Client> {
  const client = new Client({ name: 'media-agent', version: '0.1.0' });
  await client.connect(transport, timeoutMs === undefined ? undefined : { timeout: timeoutMs });
  return client;
}

function invalidOption(option: string, message: string): MediaAgentError {
  return new MediaAgentError('MCP_OPTIONS_INVALID', message, { option });
}

async function listAllTools(client: NonNullable<McpServerRegistration['client']>): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...(page.tools as ListedTool[]));
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/** The capability of one tool (defined, not registered). */
function toolCapability(
  server: string,
  tool: ListedTool,
  how: {
    session: McpClientSession;
    readOnly: boolean;
    verify: Verifier<unknown, McpToolResultOutput> | undefined;
    maxOutputBytes: number;
    callTimeoutMs: number;
  },
): Capability {
  const id = `mcp.${server}.${tool.name}`;
  if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name) || id.length > 128)
    throw new McpToolNameError(server, String(tool.name));
  const schema = tool.inputSchema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || schema.type !== 'object')
    throw new McpToolSchemaError(server, tool.name, 'the input schema is not a JSON Schema object');
  try {
    return defineCapability({
      id,
      version: 1,
      title: tool.title ?? (typeof tool.annotations?.title === 'string' ? tool.annotations.title : tool.name),
      description: `${tool.description ?? ''}${tool.description ? '\n\n' : ''}(MCP tool ${tool.name} of server ${server})`,
      kind: how.readOnly ? 'read' : 'execute',
      replay: how.readOnly ? 'safe' : 'never',
      input: schema as unknown as TSchema,
      output: McpToolOutput,
      tags: ['mcp', server, tool.name],
      ...(how.verify ? { verify: how.verify as Verifier<unknown, McpToolResultOutput> } : {}),
      handler: (input, ctx) =>
        callMcpTool(
          {
            server,
            tool: tool.name,
            readOnly: how.readOnly,
            maxOutputBytes: how.maxOutputBytes,
            callTimeoutMs: how.callTimeoutMs,
            session: how.session,
          },
          input,
          ctx,
        ),
    });
  } catch (error) {
    if (error instanceof CapabilitySchemaUnsupportedError)
      throw new McpToolSchemaError(server, tool.name, 'model providers reject the input schema', error.problems);
    if (error instanceof MediaAgentError && error.code === 'CAPABILITY_DEFINITION_INVALID')
      throw new McpToolSchemaError(server, tool.name, error.message);
    throw error;
  }
}
