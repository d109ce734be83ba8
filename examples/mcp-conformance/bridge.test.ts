// The conformance run's stdio bridge (server.ts bridge): a real HTTP server whose sessions each run a real child
// process serving `serveMcpStdio`, every JSON-RPC message forwarded unchanged over real pipes. Spoken to by the
// official SDK's Client over Streamable HTTP, as the suite does.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
  afterAll(async () => {
    // The bridge may still write its files while it exits: remove the folder once it has.
    const exited = bridge.exitCode !== null || bridge.signalCode !== null;
    const gone = exited ? Promise.resolve() : new Promise<void>((resolve) => bridge.once('exit', () => resolve()));
    bridge.kill('SIGTERM');
    await gone;
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  /** The bridge's live stdio children (from /proc: `server.ts stdio` processes whose parent is the bridge). */
  function liveChildren(): number {
    let count = 0;
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      try {
        // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so read after the last ')'.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        // only the stdio servers (tsx has an esbuild child of its own)
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        if (Number(ppid) === bridge.pid && state !== 'Z' && args.includes('stdio')) count++;
      } catch {
        // gone meanwhile
      }
    }
    return count;
  }

  async function connect(): Promise<Client> {
    const client = new Client({ name: 'bridge-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    return client;
  }

  // A first POST that is not an accepted initialize opened a child that never joined a session: it lived until the
  // bridge exited (as in NousResearch/hermes-agent#59349, stdio children leaked when initialize never completed).
  it('closes the child of a POST that opened no session (not an initialize)', async () => {
    const settled = async (want: number) => {
      for (let i = 0; i < 100 && liveChildren() !== want; i++) await new Promise((r) => setTimeout(r, 100));
      return liveChildren();
    };
    const before = await settled(1); // the spare child kept ready
    expect(before).toBe(1);
    for (let i = 0; i < 3; i++) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }),
      });
      expect(response.status).toBe(400); // no session: the SDK transport refuses it
      await response.body?.cancel();
    }
    expect(await settled(before)).toBe(before);
  }, 60_000);

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
