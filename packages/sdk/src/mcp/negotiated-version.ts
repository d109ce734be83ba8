// The MCP revision a connection negotiated at `initialize`, for the server spans' `mcp.protocol.version`.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

/** The revision a server answers to an `initialize` asking for `requested`: it, when supported, else the latest. */
export function negotiatedVersion(requested: unknown): string {
  return typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;
}

/**
 * Remembers the revision the server negotiates on its connection: each transport it connects to has its
 * `initialize` message read (by the rule the SDK's server answers with) before the server handles it.
 * @returns a holder whose `version` is the last negotiated revision (undefined before any `initialize`)
 */
export function negotiatedVersionRecorder(server: Server): { readonly version: string | undefined } {
  const state: { version: string | undefined } = { version: undefined };
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    await connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if ('method' in message && message.method === 'initialize' && 'id' in message)
        state.version = negotiatedVersion(
          (message.params as { protocolVersion?: unknown } | undefined)?.protocolVersion,
        );
      deliver?.(message, extra);
    };
  };
  return state;
}
