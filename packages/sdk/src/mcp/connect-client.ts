// Connecting the client the SDK makes over a host's transport.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { McpProtocolUnsupportedError } from './consume-errors';

/**
 * How the MCP SDK's `Client.connect` words a server's unsupported protocol version (the SDK gives no typed error);
 * the version is its group 1. A test pins it against the installed SDK, so an SDK that words it otherwise fails loudly.
 */
export const SDK_UNSUPPORTED_VERSION = /protocol version is not supported: (.*)$/;

/**
 * A client connected over the transport (a new session: `initialize` waits at most `timeoutMs`, or the MCP SDK's
 * default), declaring the `elicitation` capability (form mode), its handlers set by `wire` before it connects.
 * @throws {@link McpProtocolUnsupportedError} when the server answers a protocol version the MCP SDK does not support
 */
export async function connected(
  server: string,
  transport: Transport,
  wire: (client: Client, owned: boolean) => void,
  timeoutMs?: number,
): Promise<Client> {
  const client = new Client({ name: 'media-agent', version: '0.1.0' }, { capabilities: { elicitation: { form: {} } } });
  wire(client, true);
  try {
    await client.connect(transport, timeoutMs === undefined ? undefined : { timeout: timeoutMs });
  } catch (error) {
    const version = SDK_UNSUPPORTED_VERSION.exec(error instanceof Error ? error.message : '')?.[1];
    if (version !== undefined)
      throw new McpProtocolUnsupportedError(server, version, SUPPORTED_PROTOCOL_VERSIONS, { cause: error });
    throw error;
  }
  return client;
}
