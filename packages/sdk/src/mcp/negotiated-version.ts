// The MCP revision a connection negotiated at `initialize`, for the server spans' `mcp.protocol.version`: read
// from the server's own answer, never worked out again here.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

type Id = string | number;

/** The id of an `initialize` request, else undefined. */
function initializeId(message: JSONRPCMessage): Id | undefined {
  return 'method' in message && message.method === 'initialize' && 'id' in message ? message.id : undefined;
}

/** The `protocolVersion` of a result answering one of `ids`, else undefined. */
function answeredVersion(message: JSONRPCMessage, ids: Set<Id>): string | undefined {
  if (!('result' in message) || !ids.has(message.id)) return undefined;
  const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
  return typeof version === 'string' ? version : undefined;
}

/**
 * Remembers the revision the server answered to `initialize` on its connection: on each transport it connects to,
 * the ids of `initialize` requests are noted as they arrive and the `protocolVersion` of the result sent back for
 * one of them is kept.
 * @returns a holder whose `version` is the last negotiated revision (undefined before any `initialize` answer)
 */
export function negotiatedVersionRecorder(server: Server): { readonly version: string | undefined } {
  const state: { version: string | undefined } = { version: undefined };
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    await connect(transport);
    const asked = new Set<Id>();
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const id = initializeId(message);
      if (id !== undefined) asked.add(id);
      deliver?.(message, extra);
    };
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      const version = answeredVersion(message, asked);
      if (version !== undefined) {
        state.version = version;
        asked.clear();
      }
      return send(message, options);
    };
  };
  return state;
}
