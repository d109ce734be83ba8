// Progress and caller log notifications over stdio, through a real child process: the level a client sets with
// logging/setLevel holds for the connection (a stateless HTTP request has none to keep).
//
// What the server sent is read off the wire, in order, as the transport received it: the SDK client hands a
// notification to its handler a microtask after it read it but settles a response at once, and it forgets a
// request's progress handler when the response arrives, so when a loaded machine delivers the last progress, the
// last log and the result in one chunk, the client's own handlers can miss the last notification that was sent
// before the result.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

type Notification = { method: string; params: Record<string, unknown> };

describe('MCP over stdio: progress and caller logs from a child process', () => {
  let client: Client;
  /** Every message the client's transport received, in wire order. */
  const wire: JSONRPCMessage[] = [];
  beforeAll(async () => {
    const loader = pathToFileURL(`${root}node_modules/tsx/dist/loader.mjs`).href;
    client = new Client({ name: 'stdio-notifications', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', loader, fileURLToPath(new URL('./fixtures/progress-stdio-server.ts', import.meta.url))],
      cwd: root,
      env: { PATH: process.env.PATH ?? '', TSX_TSCONFIG_PATH: `${root}tsconfig.json` },
      stderr: 'pipe',
    });
    await client.connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage) => {
      wire.push(message);
      deliver?.(message);
    };
  }, 30_000);
  afterAll(async () => {
    await client?.close();
  });

  /** The notifications the server sent between the request with id `id` going out and its response. */
  const sentBefore = (from: number, method: string) => {
    const end = wire.findIndex((m, i) => i >= from && 'id' in m && ('result' in m || 'error' in m));
    expect(end, 'the response was received').toBeGreaterThanOrEqual(from);
    return wire
      .slice(from, end)
      .filter((m): m is Notification & JSONRPCMessage => 'method' in m && m.method === method);
  };

  it('announces logging, and sends every level until the client sets one', async () => {
    expect(client.getServerCapabilities()?.logging).toEqual({});
    const from = wire.length;
    await client.callTool({ name: 'library.scan', arguments: { folders: 2 } });
    expect(sentBefore(from, 'notifications/message').map((n) => n.params)).toEqual([
      { level: 'info', logger: 'library.scan', data: 'scanned folder 1' },
      { level: 'warning', logger: 'library.scan', data: 'scanned folder 2' },
    ]);
  });

  it('keeps the level set for later calls on the connection, and streams progress for a token', async () => {
    await client.setLoggingLevel('warning');
    const from = wire.length;
    const result = await client.request(
      {
        method: 'tools/call',
        params: { name: 'library.scan', arguments: { folders: 3 }, _meta: { progressToken: 'scan' } },
      },
      CallToolResultSchema,
      { onprogress: () => undefined },
    );
    // The SDK client sends its own progress token (the request id) when given `onprogress`: one token for all.
    const progress = sentBefore(from, 'notifications/progress').map(({ params: p }) => p);
    expect(new Set(progress.map((p) => p.progressToken)).size).toBe(1);
    expect(progress.map((p) => [p.progress, p.total, p.message])).toEqual([
      [0, 3, 'folder 1'],
      [1, 3, 'folder 2'],
      [2, 3, 'folder 3'],
    ]);
    expect(sentBefore(from, 'notifications/message').map((n) => n.params)).toEqual([
      { level: 'warning', logger: 'library.scan', data: 'scanned folder 3' },
    ]);
    expect(result.structuredContent).toMatchObject({ status: 'succeeded', output: { scanned: 3 } });
  });
});
