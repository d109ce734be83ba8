// The conformance run's stdio bridge (server.ts bridge): a real HTTP server whose sessions each run a real child
// process serving `serveMcpStdio`, every JSON-RPC message forwarded unchanged over real pipes. Spoken to by the
// official SDK's Client over Streamable HTTP, as the suite does.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

describe('the stdio bridge of the conformance run', () => {
  let bridge: ChildProcess;
  let url: URL;
  const dir = mkdtempSync(join(tmpdir(), 'conformance-bridge-'));

  beforeAll(async () => {
    bridge = spawn(
      process.execPath,
      ['--import', tsx, join(root, 'examples/mcp-conformance/server.ts'), 'bridge', dir],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const line = await new Promise<string>((resolve) =>
      createInterface({ input: bridge.stdout! }).once('line', resolve),
    );
    url = new URL((JSON.parse(line) as { url: string }).url);
  }, 60_000);
  afterAll(() => {
    bridge.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  async function connect(): Promise<Client> {
    const client = new Client({ name: 'bridge-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    return client;
  }

  it('lists the suite tools and carries a call’s progress and log messages back on its own stream', async () => {
    const client = await connect();
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['test_simple_text', 'json_schema_2020_12_tool']),
      );
      const progress: number[] = [];
      const result = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
        onprogress: (p) => progress.push(p.progress),
      });
      expect(result.isError).not.toBe(true);
      expect(progress).toEqual([0, 50, 100]);

      const logs: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
      await client.setLoggingLevel('info');
      await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
      expect(logs).toHaveLength(3);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('gives each session its own child: two clients at once each get their own answers', async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    try {
      const [ra, rb] = await Promise.all([
        a.callTool({ name: 'test_simple_text', arguments: {} }),
        b.callTool({ name: 'test_error_handling', arguments: {} }),
      ]);
      expect(ra.isError).not.toBe(true);
      expect(JSON.stringify(ra.content)).toContain('This is a simple text response for testing.');
      expect(rb.isError).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);
});
