// The capability of one tool of a registered MCP server: it calls the server's current binding.
import type { TSchema } from 'typebox';
import { defineCapability } from '../capabilities/define-capability';
import { CapabilitySchemaUnsupportedError } from '../capabilities/errors';
import type { Capability, Verifier } from '../capabilities/types';
import { MediaAgentError } from '../core/errors';
import { McpToolNameError, McpToolSchemaError } from './consume-errors';
import type { McpCallInFlight } from './elicitation';
import type { RegisteredServer } from './server-binding';
import { callMcpTool } from './tool-call';
import type { ListedTool } from './tool-drift';
import { McpToolOutput, type McpToolResultOutput } from './tool-output';

const TOOL_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** The capability of one tool (defined, not registered). */
export function toolCapability(
  server: string,
  tool: ListedTool,
  how: {
    /** The capability version: 1, increased by each accepted change. */
    version: number;
    server: RegisteredServer;
    readOnly: boolean;
    verify: Verifier<unknown, McpToolResultOutput> | undefined;
    /** The registration's `callTimeoutMs`: the capability's deadline backs it. */
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
      version: how.version,
      title: tool.title ?? (typeof tool.annotations?.title === 'string' ? tool.annotations.title : tool.name),
      description: `${tool.description ?? ''}${tool.description ? '\n\n' : ''}(MCP tool ${tool.name} of server ${server})`,
      kind: how.readOnly ? 'read' : 'execute',
      replay: how.readOnly ? 'safe' : 'never',
      input: schema as unknown as TSchema,
      output: McpToolOutput,
      tags: ['mcp', server, tool.name],
      // The call's own callTimeoutMs answers first, with its typed MCP codes: the capability's deadline only
      // backs it (a renewed session's initialize and the resend may each wait callTimeoutMs).
      timeoutMs: 3 * how.callTimeoutMs + 5_000,
      ...(how.verify ? { verify: how.verify as Verifier<unknown, McpToolResultOutput> } : {}),
      handler: async (input, ctx) => {
        // The server's binding now (a re-registration replaces it), read when the call runs.
        const bound = how.server.current;
        const ended = new AbortController();
        const forward = () => ended.abort(ctx.signal.reason);
        if (ctx.signal.aborted) forward();
        else ctx.signal.addEventListener('abort', forward, { once: true });
        const call: McpCallInFlight = {
          capabilityId: id,
          tool: tool.name,
          actor: ctx.actor,
          runId: ctx.runId,
          signal: ended.signal,
        };
        bound.calls.add(call);
        try {
          return await callMcpTool(
            {
              server,
              tool: tool.name,
              readOnly: how.readOnly,
              maxOutputBytes: bound.maxOutputBytes,
              callTimeoutMs: bound.callTimeoutMs,
              session: bound.session,
              // Before each send: the tool list is checked when stale, and a disabled tool is refused.
              beforeSend: () => bound.watch.guard(tool.name),
            },
            input,
            ctx,
          );
        } finally {
          bound.calls.delete(call);
          ctx.signal.removeEventListener('abort', forward);
          ended.abort(new Error('the tool call ended'));
        }
      },
    });
  } catch (error) {
    if (error instanceof CapabilitySchemaUnsupportedError)
      throw new McpToolSchemaError(server, tool.name, 'model providers reject the input schema', error.problems);
    if (error instanceof MediaAgentError && error.code === 'CAPABILITY_DEFINITION_INVALID')
      throw new McpToolSchemaError(server, tool.name, error.message);
    throw error;
  }
}
