// Progress and caller log notifications over stdio, through a real child process: the level a client sets with
// logging/setLevel holds for the connection (a stateless HTTP request has none to keep).
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  LoggingMessageNotificationSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

describe('MCP over stdio: progress and caller logs from a child process', () => {
  let client: Client;
  const logs: Array<{ level: string; data: unknown }> = [];
  beforeAll(async () => {
    const loader = pathToFileURL(`${root}node_modules/tsx/dist/loader.mjs`).href;
    client = new Client({ name: 'stdio-notifications', version: '1.0.0' });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push({ level: n.params.level, data: n.params.data });
    });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', loader, fileURLToPath(new URL('./fixtures/progress-stdio-server.ts', import.meta.url))],
        cwd: root,
        env: { PATH: process.env.PATH ?? '', TSX_TSCONFIG_PATH: `${root}tsconfig.json` },
        stderr: 'pipe',
      }),
    );
  }, 30_000);
  afterAll(async () => {
    await client?.close();
  });

  it('announces logging, and sends every level until the client sets one', async () => {
    expect(client.getServerCapabilities()?.logging).toEqual({});
    logs.length = 0;
    await client.callTool({ name: 'library.scan', arguments: { folders: 2 } });
    // The SDK client handles a notification a tick after it reads it, so the log written just before the result
    // can be handled after the call settled: wait for it, then check nothing else came.
    await vi.waitFor(() => expect(logs.length).toBeGreaterThanOrEqual(2), { timeout: 30_000 });
    expect(logs).toEqual([
      { level: 'info', data: 'scanned folder 1' },
      { level: 'warning', data: 'scanned folder 2' },
    ]);
  });

  it('keeps the level set for later calls on the connection, and streams progress for a token', async () => {
    await client.setLoggingLevel('warning');
    logs.length = 0;
    const progress: Progress[] = [];
    const result = await client.request(
      {
        method: 'tools/call',
        params: { name: 'library.scan', arguments: { folders: 3 }, _meta: { progressToken: 'scan' } },
      },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p) },
    );
    expect(progress.map((p) => [p.progress, p.total, p.message])).toEqual([
      [0, 3, 'folder 1'],
      [1, 3, 'folder 2'],
      [2, 3, 'folder 3'],
    ]);
    await vi.waitFor(() => expect(logs.length).toBeGreaterThanOrEqual(1), { timeout: 30_000 });
    expect(logs).toEqual([{ level: 'warning', data: 'scanned folder 3' }]);
    expect(result.structuredContent).toMatchObject({ status: 'succeeded', output: { scanned: 3 } });
  });
});
