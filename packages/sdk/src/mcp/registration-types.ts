// What registerMcpServer takes and gives back.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Verifier } from '../capabilities/types';
import type { ConsoleLogger, Logger } from '../ports/logger';
import type { McpElicitationHandler } from './elicitation';
import type { McpToolChange } from './tool-drift';
import type { MCP_DEFAULT_MAX_OUTPUT_BYTES, McpToolResultOutput } from './tool-output';

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
  /**
   * Shows a form a server asks for during a tool call (`elicitation/create`, form mode) to the person the call acts
   * for, and returns their answer (see {@link McpElicitationHandler}): the client made over `transport` declares the
   * `elicitation` capability (form mode). Omitted fields of an accepted answer are filled from the schema's defaults
   * and the answer is checked against the requested schema (one that does not fit is sent as `decline`). Without a
   * handler, or when the form cannot be tied to exactly one call in flight, every form is declined. The answer goes
   * to the server only: it is never an approval or a grant. Not with a host-owned `client` (it answers with its own
   * handlers: `MCP_OPTIONS_INVALID`).
   * @defaultValue none: every form is declined
   */
  onElicitation?: McpElicitationHandler;
  /**
   * Told of every change of the server's tool list against what was registered (once per change): a `changed` or
   * `removed` tool is disabled (calls fail `MCP_TOOL_CHANGED` / `MCP_TOOL_REMOVED`, nothing sent), an `added` one is
   * not registered. With an `AgentHost` as `host`, each change also raises a decision for an administrator. Errors
   * it throws are ignored. A change is accepted by registering the server again (see {@link registerMcpServer}: a
   * changed tool's capability gets the new definition under a higher version).
   */
  onToolChange?: (change: McpToolChange) => void;
  /**
   * Where the registration logs what it handled but the host should know of: a decision about a tool change that
   * could not be raised (`warn`; the change is reported again at the next check of the tool list).
   * @defaultValue a {@link ConsoleLogger} at `warn` (JSON lines on stderr)
   */
  logger?: Logger;
}

/**
 * The tools of a registered MCP server, as registered (an array of {@link McpRegisteredTool}), and a way to check
 * the server's tools again.
 * @public
 */
export interface McpRegisteredTools extends Array<McpRegisteredTool> {
  /**
   * Lists the server's tools now (every page, over the current session) and applies the drift rules, as a
   * `notifications/tools/list_changed` would: a changed or removed tool is disabled and each new change is reported
   * (`onToolChange`, a decision). Accepts nothing: only registering the server again does. Use it when the server
   * sends no notifications, or on a schedule.
   * @returns every change against what the current registration accepted, as listed now: the disabled tools
   *   (`changed`, `removed`) and the tools it lists that are not registered (`added`); empty when nothing changed
   * @throws `MCP_TOOL_LIST_INVALID` (more than 100 pages or 1000 tools), whatever `tools/list` throws; nothing is
   *   disabled then, and the next call of any of the server's tools lists again first
   * @example
   * ```ts
   * const tools = await registerMcpServer(host, { name: 'indexer', transport });
   * const changes = await tools.recheck();
   * if (changes.length > 0) console.warn('indexer tools differ from what was accepted', changes);
   * ```
   */
  recheck(): Promise<McpToolChange[]>;
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
