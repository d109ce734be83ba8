import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  canReplaceCapabilities,
  replaceCapability,
  setCapabilityAvailability,
  type CapabilityRegistry,
} from '../capabilities/capability-registry';
import { canonicalJson } from '../core/canonical-json';
import { MediaAgentError } from '../core/errors';
import { ConsoleLogger } from '../ports/logger';
import { callOwner } from './call-owner';
import { McpClientSession } from './client-session';
import { connected } from './connect-client';
import type { McpProtocolUnsupportedError, McpToolNameError, McpToolSchemaError } from './consume-errors';
import { toolChangeReporters } from './drift-decisions';
import { answerElicitations, type McpCallInFlight } from './elicitation';
import { listAllTools } from './list-tools';
import type { McpRegisteredTools, McpServerRegistration } from './registration-types';
import { closeWhenIdle, REGISTERED, type RegisteredServer, type ServerBinding } from './server-binding';
import { toolCapability } from './tool-capability';
import { mcpToolFingerprint, McpToolWatch } from './tool-drift';
import { MCP_DEFAULT_MAX_OUTPUT_BYTES } from './tool-output';
import { streamableHttpSuccessor } from './transport-successor';

const SERVER_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

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
 * one bad tool registers nothing.
 *
 * Tool drift: the registration records what the host accepted of each tool — name, input and output schema,
 * description, title, annotations (SHA-256 of their canonical JSON). The tools are listed again after the server
 * sends `notifications/tools/list_changed` (at once, and before the next call of any of its tools if that listing
 * failed or is still running) and after a new session was opened (before the call that renewed it is sent again).
 * A tool whose definition changed, or that is no longer listed, is disabled: its capability refuses every call
 * before anything is sent (`MCP_TOOL_CHANGED` naming the fields that changed, `MCP_TOOL_REMOVED`), also when the
 * server lists the accepted definition again; it is no longer offered either (runs do not offer it to the model,
 * the host's MCP server does not publish it, `search_tools` does not find it; with the SDK's own registry). A new tool
 * is never added silently. A listing is at most 100 pages and 1000 tools, each name once (`MCP_TOOL_LIST_INVALID`; after
 * registration, calls are refused unverified until a listing succeeds). {@link McpRegisteredTools.recheck} lists
 * again on demand. Each change is reported once: to `onToolChange`, and, when `host` is an `AgentHost`, as a
 * decision for an administrator (kind `mcp_tool_changed`, `mcp_tool_removed` or `mcp_tool_added`; subject
 * `{ type: 'mcp_tool', id: 'mcp.<server>.<tool>' }`; raised by `system:mcp-client`; evidence: server, tool, fields,
 * the accepted and listed hashes; a host whose `decisions.subjects` does not know the type `mcp_tool` gets no
 * decision). The new tools of one listing are one decision (subject: the first; `evidence.count` of them, the first
 * 20 names in `evidence.tools`). A decision that cannot be raised is logged to `logger` (`warn`) and raised at the
 * next check. To accept the change, register the
 * server again with the same name on the same host: its tools are listed and accepted anew over a new connection
 * (the old one is closed, when the SDK made it, once its calls in flight have ended), disabled tools work again, new tools
 * are registered. The capability of a tool whose definition changed is replaced by the new one: the new input schema
 * (what calls are validated against and the model is shown), title, description and annotations, under a version one
 * higher — idempotency keys (`<id>:v<version>:…`) of calls made under the old definition never match a call of the
 * new one, so a call recorded before is never replayed for it. Its kind and replay policy stay (the host's
 * `readOnlyTools` decide them, and cannot change on a re-registration). Calls already running finish on the old
 * definition. An unchanged tool keeps its capability and version. The decisions raised for the change stay open (a
 * registration carries no administrator's identity): resolve them with the host's decision API. The replacement is
 * logged (`info`); audit rows are not written for these changes (the audit log holds invocations); the decisions and
 * their events are the record. A registry that is not the SDK's own (a `CapabilityRegistry` the host implemented)
 * cannot replace a capability: there a tool whose input schema changed fails the re-registration with
 * `MCP_TOOL_CHANGED` and nothing changes, and other changes are accepted without a new title or description.
 * With a host-owned `client`, the SDK sets that client's handler of `notifications/tools/list_changed` (replacing one
 * the host set).
 *
 * Elicitation: the client made over `transport` declares the `elicitation` capability (form mode). A form a server
 * sends while one of its tools runs goes to `onElicitation` with the person the call acts for (the `user:` who started
 * the run, or the invoking `user:`); the answer is completed with the schema's defaults and checked against it. It is
 * input for the server, never authority: the call was authorized before it was sent and nothing of the answer reaches
 * approvals, grants or the ledger. Without a handler, when no call or several calls of that server are in flight,
 * or for an answer that does not fit, the server gets `decline`.
 *
 * Protocol versions: the client made over `transport` offers the newest protocol revision of the installed
 * `@modelcontextprotocol/sdk` and accepts the revisions it supports; a server answering another fails
 * `MCP_PROTOCOL_UNSUPPORTED`.
 *
 * @param host - where to register (`host` from `createAgentHost`, or its `capabilities`)
 * @param options - the server name, a connected client (or a transport, or a transport factory, to connect one
 *   over), the host's read-only tools, verifiers, the output cap, the call timeout
 * @returns the tools the server lists now, as registered (on a re-registration: accepted anew), with
 *   {@link McpRegisteredTools.recheck} to list them again and apply the drift rules
 * @throws `MCP_OPTIONS_INVALID` ({@link MediaAgentError}: a bad server name, a read-only tool or verifier naming a tool
 *   the server does not list, `onElicitation` with a host-owned client, a re-registration that changes which tools
 *   are read-only); {@link McpToolNameError} `MCP_TOOL_NAME_INVALID`; {@link McpToolSchemaError}
 *   `MCP_TOOL_SCHEMA_UNSUPPORTED`; `MCP_TOOL_LIST_INVALID` when `tools/list` does not end within 100 pages, lists
 *   more than 1000 tools, or names one tool twice; `CAPABILITY_DUPLICATE` when an id is taken (not by an earlier registration of
 *   the same server); {@link McpProtocolUnsupportedError} `MCP_PROTOCOL_UNSUPPORTED`; `MCP_TOOL_CHANGED` for a
 *   re-registration whose tool changed its input schema, on a registry that cannot replace capabilities (not the
 *   SDK's own); whatever connecting or `tools/list` throws
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
 *
 * @example
 * Forms for the person behind the call, and accepting a tool change an administrator reviewed:
 * ```ts
 * const register = () =>
 *   registerMcpServer(host, {
 *     name: 'indexer',
 *     transport: () => new StreamableHTTPClientTransport(new URL('http://indexer:8808/mcp')),
 *     onElicitation: async (request, { owner }) =>
 *       owner ? { action: 'accept', content: {} } : { action: 'decline' }, // the host's UI asks `owner` here
 *     onToolChange: (change) => console.warn(change.change, change.capabilityId, change.fields),
 *   });
 * await register();
 * // later, a decision of kind mcp_tool_changed was reviewed: accept the server's tools as they are now
 * await register(); // a changed tool's capability now has the new schema and words, under version + 1
 * ```
 * @public
 */
export async function registerMcpServer(
  host: { capabilities: CapabilityRegistry } | CapabilityRegistry,
  options: McpServerRegistration,
): Promise<McpRegisteredTools> {
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
  if (options.onElicitation !== undefined && typeof options.onElicitation !== 'function')
    throw invalidOption('onElicitation', 'onElicitation must be a function');
  if (options.onElicitation && options.client)
    throw invalidOption('onElicitation', 'a host-owned client answers elicitations with its own handlers');
  if (options.onToolChange !== undefined && typeof options.onToolChange !== 'function')
    throw invalidOption('onToolChange', 'onToolChange must be a function');
  if (options.logger !== undefined && typeof options.logger?.warn !== 'function')
    throw invalidOption('logger', 'logger must be a Logger');
  // What each client of this registration answers and reports (bound once the binding exists).
  const calls = new Set<McpCallInFlight>();
  const hooks = { toolsChanged: () => {}, renewed: () => {} };
  const wire = (client: Client, owned: boolean) => {
    // A host-owned client that is not an MCP SDK Client (no notification handlers) is only checked on new listings.
    if (typeof client.setNotificationHandler === 'function')
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => hooks.toolsChanged());
    if (owned)
      answerElicitations(client, {
        server: name,
        handler: options.onElicitation,
        inFlight: () => [...calls],
        owner: (call) => callOwner(host, call),
      });
  };
  const { transport } = options;
  if (!transport) {
    wire(options.client as Client, false);
    return registerTools(registry, host, options, new McpClientSession(options.client!), false, {
      maxOutputBytes,
      callTimeoutMs,
      calls,
      hooks,
    });
  }
  // A transport factory, or a transport object that has a successor, makes the session renewable: each renewal
  // connects a new client over a new transport, its `initialize` waiting at most callTimeoutMs (the first
  // connection waits as long as the MCP SDK's default). The successor is derived before the object is started.
  const make = typeof transport === 'function' ? transport : streamableHttpSuccessor(transport);
  const open = make
    ? async () => {
        const next = await connected(name, make(), wire, callTimeoutMs);
        // A new session: the tools are listed again before the call is sent once more.
        hooks.renewed();
        return next;
      }
    : undefined;
  const client = await connected(name, typeof transport === 'function' ? transport() : transport, wire);
  const session = new McpClientSession(client, open);
  // The host disconnects a transport object with its close(): that closes the transports the SDK makes too.
  if (typeof transport !== 'function' && open) session.closeWith(transport, client);
  try {
    return await registerTools(registry, host, options, session, true, { maxOutputBytes, callTimeoutMs, calls, hooks });
  } catch (error) {
    // A client made here is closed again when registration fails, so no server process is left running.
    await session.close();
    throw error;
  }
}

type Host = { capabilities: CapabilityRegistry } | CapabilityRegistry;

/** Lists the server's tools and registers them (all or none), or accepts them anew for a registered server. */
async function registerTools(
  registry: CapabilityRegistry,
  host: Host,
  options: McpServerRegistration,
  session: McpClientSession,
  owned: boolean,
  how: {
    maxOutputBytes: number;
    callTimeoutMs: number;
    calls: Set<McpCallInFlight>;
    hooks: { toolsChanged: () => void; renewed: () => void };
  },
): Promise<McpRegisteredTools> {
  const { name } = options;

  const tools = await listAllTools(name, session.client);
  const listed = new Set(tools.map((t) => t.name));
  for (const [option, names] of [
    ['readOnlyTools', options.readOnlyTools ?? []],
    ['verifiers', Object.keys(options.verifiers ?? {})],
  ] as const)
    for (const tool of names)
      if (!listed.has(tool)) throw invalidOption(option, `${option} names ${tool}, which server ${name} does not list`);

  let servers = REGISTERED.get(registry);
  const earlier = servers?.get(name);
  const readOnly = new Set(options.readOnlyTools ?? []);
  // The capabilities call the server's current binding: a re-registration replaces it under the same ids.
  const server: RegisteredServer = earlier ?? { current: undefined as unknown as ServerBinding, tools: new Map() };
  const replaceable = canReplaceCapabilities(registry);
  const made = tools.map((tool) => {
    const before = earlier?.tools.get(tool.name);
    const hash = mcpToolFingerprint(tool).hash;
    // A changed definition, accepted by this re-registration, replaces the capability under a higher version.
    const changed = before !== undefined && before.hash !== hash && replaceable;
    const version = before ? before.version + (changed ? 1 : 0) : 1;
    const capability = toolCapability(name, tool, {
      version,
      server,
      readOnly: readOnly.has(tool.name),
      verify: options.verifiers?.[tool.name],
      callTimeoutMs: how.callTimeoutMs,
    });
    return {
      tool,
      capability,
      hash,
      changed,
      registered: {
        tool: tool.name,
        capabilityId: capability.id,
        kind: capability.kind as 'read' | 'execute',
        serverAnnotations: Object.freeze({ ...(tool.annotations ?? {}) }),
      },
    };
  });
  for (const { tool, capability } of made) {
    const before = earlier?.tools.get(tool.name);
    if (before) {
      if (before.readOnly !== readOnly.has(tool.name))
        throw invalidOption(
          'readOnlyTools',
          `${tool.name} was registered ${before.readOnly ? 'read-only' : 'side-effecting'}; a re-registration cannot change that (register the server under another name)`,
        );
      if (!replaceable && before.inputSchema !== canonicalJson(tool.inputSchema))
        throw new MediaAgentError(
          'MCP_TOOL_CHANGED',
          `MCP server ${name} changed the input schema of ${tool.name}: ${capability.id} validates calls against the schema registered first and this capability registry cannot replace it, so the change cannot be accepted in this host; register the server under another name, or restart the host`,
          {
            server: name,
            tool: tool.name,
            capabilityId: capability.id,
            reason: 'input-schema',
            fields: ['inputSchema'],
          },
        );
    } else if (registry.has(capability.id))
      throw new MediaAgentError('CAPABILITY_DUPLICATE', `capability ${capability.id} is already registered`, {
        capabilityId: capability.id,
      });
  }

  const watch = new McpToolWatch(
    {
      server: name,
      list: () => session.use((client) => listAllTools(name, client)),
      ...toolChangeReporters(host, name, options.onToolChange, options.logger ?? new ConsoleLogger()),
    },
    tools,
  );
  // Tools registered earlier that the server no longer lists stay registered, disabled.
  for (const [tool] of earlier?.tools ?? [])
    if (!listed.has(tool))
      watch.disable({ change: 'removed', server: name, tool, capabilityId: `mcp.${name}.${tool}`, fields: [] });

  for (const { tool, capability, hash, changed } of made) {
    const accepted = {
      readOnly: readOnly.has(tool.name),
      inputSchema: canonicalJson(tool.inputSchema),
      hash,
      version: capability.version,
    };
    if (!earlier?.tools.has(tool.name)) {
      registry.register(capability);
      // A tool disabled by drift is not offered (runs, MCP publication, search) until a registration accepts it.
      setCapabilityAvailability(registry, capability.id, () => !server.current.watch.disabled.has(tool.name));
      server.tools.set(tool.name, accepted);
    } else if (changed) {
      // The new definition (schema, title, description) under a higher version; calls in flight keep the old one.
      replaceCapability(registry, capability);
      server.tools.set(tool.name, accepted);
    } else if (options.verifiers?.[tool.name]) registry.registerVerifier(capability.id, options.verifiers[tool.name]!);
  }

  const previous = earlier?.current;
  server.current = {
    session,
    owned,
    watch,
    calls: how.calls,
    maxOutputBytes: how.maxOutputBytes,
    callTimeoutMs: how.callTimeoutMs,
  };
  how.hooks.toolsChanged = () => watch.markStale(true);
  how.hooks.renewed = () => watch.markStale(false);
  if (!servers) REGISTERED.set(registry, (servers = new Map()));
  servers.set(name, server);
  if (previous) {
    previous.watch.retire();
    // Calls in flight on the old connection keep it until they end (at most their timeout).
    if (previous.owned) void closeWhenIdle(previous);
  }
  const registered = made.map((m) => m.registered) as McpRegisteredTools;
  // The current registration's watch: a later re-registration's, once one replaced this.
  Object.defineProperty(registered, 'recheck', { value: () => server.current.watch.recheck(), enumerable: false });
  return registered;
}

function invalidOption(option: string, message: string): MediaAgentError {
  return new MediaAgentError('MCP_OPTIONS_INVALID', message, { option });
}
