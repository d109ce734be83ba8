// MCP client sessions over Streamable HTTP: a consumed server that restarts, ends its sessions, hangs or is down.
// A real stateful MCP server (the official SDK's server transport, one per session, in memory) on node:http at
// 127.0.0.1, consumed through registerMcpServer with the official StreamableHTTPClientTransport.
//
// Public reports reproduced here:
// - modelcontextprotocol/typescript-sdk#1708 "StreamableHTTPClientTransport doesn't handle 404 per spec (no session
//   clear + re-init)": after the server ends a session every later request is sent with the stale session id and
//   404s; the client is stuck until it is recreated.
// - modelcontextprotocol/typescript-sdk#1476 "Client received 'no session ID or not initialization request' when
//   server restart" (and mastra-ai/mastra#7675, its client "fails to reconnect after MCP server restart"): a
//   restarted server forgets its sessions, the client never initializes again.
// Before the fix, here: after a restart a read failed MCP_RESULT_INVALID and a write was recorded `unknown` although
// the server never ran it; a tool hanging past callTimeoutMs was reported as a broken connection. A connection that
// broke while a call's answer streamed (server restart, proxy) left the call waiting its whole callTimeoutMs: the MCP
// SDK's client only reports an answer stream's disconnect to `onerror` (then a read failed MCP_CALL_TIMEOUT).
import { spawn } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost } from '../../src/index';
import { registerMcpServer } from '../../src/mcp';
import { MemoryStorage } from '../../src/storage';
import { ScriptedProvider } from '../../src/testing';
import { startHttpMcpServer, type HttpMcpServer } from './fixtures/http-mcp-server';

const hosts: AgentHost[] = [];
const servers: HttpMcpServer[] = [];
const transports: StreamableHTTPClientTransport[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const t of transports.splice(0)) await t.close().catch(() => undefined);
  for (const s of servers.splice(0)) await s.stop().catch(() => undefined);
});

/** A subclass: its constructor may take other arguments, so the SDK cannot make a successor of it. */
class TracedTransport extends StreamableHTTPClientTransport {}

/**
 * A host with the test server registered as `idx` (search read-only), the transport given as a factory (the
 * default), a transport object, a subclass's object, or a host-owned connected client.
 */
async function setup(
  options: {
    form?: 'factory' | 'object' | 'subclass' | 'client';
    callTimeoutMs?: number;
    requestInit?: RequestInit;
    before?: (server: HttpMcpServer) => void;
  } = {},
) {
  const server = await startHttpMcpServer();
  servers.push(server);
  options.before?.(server);
  const host = createAgentHost({
    storage: new MemoryStorage(),
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: [] }) },
  });
  hosts.push(host);
  const make = () => {
    const transport =
      options.form === 'subclass'
        ? new TracedTransport(server.url)
        : new StreamableHTTPClientTransport(
            server.url,
            options.requestInit ? { requestInit: options.requestInit } : {},
          );
    transports.push(transport);
    return transport;
  };
  const form = options.form ?? 'factory';
  const original = form === 'factory' ? undefined : make();
  let client: Client | undefined;
  if (form === 'client') {
    client = new Client({ name: 'host-app', version: '1.0.0' });
    await client.connect(original!);
  }
  await registerMcpServer(host, {
    name: 'idx',
    ...(client ? { client } : { transport: original ?? make }),
    readOnlyTools: ['search'],
    ...(options.callTimeoutMs ? { callTimeoutMs: options.callTimeoutMs } : {}),
  });
  await host.start();
  const invoke = (tool: string, input: Record<string, unknown>) =>
    host.invoke(`mcp.idx.${tool}`, input, { actor: 'user:admin' });
  return { server, host, invoke, original };
}

describe('MCP client sessions over Streamable HTTP', () => {
  it.each(['factory', 'object'] as const)(
    'a server restart between two calls (transport %s): a new session is opened (initialize again) and the call sent once more; the write runs exactly once and is recorded succeeded',
    async (form) => {
      const { server, host, invoke } = await setup({ form });
      expect(await invoke('search', { query: 'dune' })).toMatchObject({ status: 'succeeded' });
      expect(server.stats.initialize).toBe(1);

      await server.restart();
      const read = await invoke('search', { query: 'dune' });
      expect(read).toMatchObject({ status: 'succeeded', output: { content: [{ type: 'text', text: 'found dune' }] } });
      expect(server.stats.initialize).toBe(2);
      // The first attempt carried the old session id and was answered 404; the retry carried the new one.
      expect(server.stats.sessionCalls.search).toBe(3);
      expect(server.stats.runs.search).toBe(2);

      await server.restart();
      const write = await invoke('grab', { id: 'dune-2160p' });
      expect(write).toMatchObject({ status: 'succeeded', output: { content: [{ text: 'grabbed dune-2160p' }] } });
      expect(server.stats.initialize).toBe(3);
      expect(server.stats.runs.grab).toBe(1);
      expect((await host.ledger.get(write.idempotencyKey!))!.state).toBe('succeeded');

      // The new session keeps working: no further initialize.
      expect(await invoke('search', { query: 'x' })).toMatchObject({ status: 'succeeded' });
      expect(server.stats.initialize).toBe(3);
    },
  );

  it('concurrent calls that meet one ended session share one new session', async () => {
    const { server, invoke } = await setup();
    await server.restart();
    const results = await Promise.all([
      invoke('search', { query: 'a' }),
      invoke('search', { query: 'b' }),
      invoke('grab', { id: 'c' }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(server.stats.initialize).toBe(2);
    expect(server.stats.runs).toEqual({ search: 2, grab: 1 });
  });

  it('a server that answers 404 for the session forever, also after a new initialize: a typed error, never unknown, sent at most twice', async () => {
    const { server, host, invoke } = await setup();
    server.expireSessions = true;

    const read = await invoke('search', { query: 'dune' });
    expect(read).toMatchObject({
      status: 'failed',
      error: { code: 'MCP_CALL_NOT_DELIVERED' },
    });
    expect(read.error!.message).toContain('HTTP 404');
    expect(server.stats.sessionCalls.search).toBe(2);
    expect(server.stats.initialize).toBe(2);

    const write = await invoke('grab', { id: 'dune-2160p' });
    expect(write).toMatchObject({ status: 'failed', error: { code: 'MCP_CALL_NOT_DELIVERED' } });
    expect((await host.ledger.get(write.idempotencyKey!))!.state).toBe('failed');
    expect(server.stats.sessionCalls.grab).toBe(2);
    expect(server.stats.initialize).toBe(3);
    expect(server.stats.runs.grab).toBeUndefined();
  });

  it('a transport object the SDK cannot make again (a subclass): a 404 for the ended session is a typed error naming the fix, never unknown', async () => {
    const { server, host, invoke } = await setup({ form: 'subclass' });
    await server.restart();
    const write = await invoke('grab', { id: 'dune-2160p' });
    expect(write).toMatchObject({ status: 'failed', error: { code: 'MCP_CALL_NOT_DELIVERED' } });
    expect(write.error!.message).toContain('transport factory');
    expect((await host.ledger.get(write.idempotencyKey!))!.state).toBe('failed');
    expect(server.stats.sessionCalls.grab).toBe(1);
    expect(server.stats.initialize).toBe(1);
    expect(server.stats.runs.grab).toBeUndefined();
  });

  it('a host-owned client over Streamable HTTP is not renewed: a 404 is MCP_CALL_NOT_DELIVERED, the host client left as it was', async () => {
    const { server, host, invoke, original } = await setup({ form: 'client' });
    await server.restart();
    const write = await invoke('grab', { id: 'dune-2160p' });
    expect(write).toMatchObject({ status: 'failed', error: { code: 'MCP_CALL_NOT_DELIVERED' } });
    expect(write.error!.message).toContain('StreamableHTTPClientTransport object');
    expect((await host.ledger.get(write.idempotencyKey!))!.state).toBe('failed');
    expect(server.stats.initialize).toBe(1);
    expect(server.stats.runs.grab).toBeUndefined();
    // The SDK did not close the host's client: its transport still holds the (ended) session.
    expect(original!.sessionId).toBeDefined();
  });

  it('a transport object with requestInit: the new session is opened with the same options (a server requiring a header)', async () => {
    const { server, invoke } = await setup({
      form: 'object',
      requestInit: { headers: { 'x-indexer-key': 'k1' } },
      before: (s) => {
        s.requireHeader = { name: 'x-indexer-key', value: 'k1' };
      },
    });
    await server.restart();
    const read = await invoke('search', { query: 'dune' });
    expect(read).toMatchObject({ status: 'succeeded', output: { content: [{ text: 'found dune' }] } });
    expect(server.stats.initialize).toBe(2);
    expect(server.stats.runs.search).toBe(1);
  });

  it("closing the host's transport object after a renewal closes the transport the SDK made: its event stream ends, no connection is left, no session is opened again", async () => {
    const { server, invoke, original } = await setup({ form: 'object' });
    await server.restart();
    expect(await invoke('search', { query: 'dune' })).toMatchObject({ status: 'succeeded' });
    expect(server.stats.initialize).toBe(2);
    // Retiring the host's object in the renewal closed nothing else: the new session's event stream (GET) is open.
    await vi.waitFor(() => expect(server.openStreams).toBe(1), { timeout: 10_000 });
    expect(await invoke('search', { query: 'x' })).toMatchObject({ status: 'succeeded' });

    await original!.close();
    // The successor's event stream is closed by the client: the server sees it end.
    await vi.waitFor(() => expect(server.openStreams).toBe(0), { timeout: 10_000 });
    const requests = server.stats.requests;
    const read = await invoke('search', { query: 'y' });
    expect(read).toMatchObject({ status: 'failed', error: { code: 'MCP_TRANSPORT_LOST' } });
    const write = await invoke('grab', { id: 'dune-2160p' });
    expect(write).toMatchObject({ status: 'failed', error: { code: 'MCP_TRANSPORT_LOST' } });
    // Nothing reached the server after the close: no request, no new session.
    expect(server.stats.requests).toBe(requests);
    expect(server.stats.initialize).toBe(2);
    expect(server.openStreams).toBe(0);
  });

  it("closing the host's transport object before any renewal: no session is opened afterwards", async () => {
    const { server, invoke, original } = await setup({ form: 'object' });
    expect(await invoke('search', { query: 'dune' })).toMatchObject({ status: 'succeeded' });
    await original!.close();
    await vi.waitFor(() => expect(server.openStreams).toBe(0), { timeout: 10_000 });
    const write = await invoke('grab', { id: 'dune-2160p' });
    expect(write).toMatchObject({ status: 'failed', error: { code: 'MCP_TRANSPORT_LOST' } });
    expect(server.stats.initialize).toBe(1);
    expect(server.stats.runs.grab).toBeUndefined();
  });

  it('a tool that hangs past callTimeoutMs: a read fails MCP_CALL_TIMEOUT; a write, which was sent, is unknown and names the timeout', async () => {
    // 1.5 s (hang answers after 10 s): long enough that each call reaches the server on a loaded 2-CPU machine,
    // which the assertions below count (300 ms once left one call timed out before it was sent).
    const { server, host, invoke } = await setup({ callTimeoutMs: 1_500 });
    // hang is registered read-only in a second registration of the same server.
    await registerMcpServer(host, {
      name: 'ro',
      transport: () => {
        const transport = new StreamableHTTPClientTransport(server.url);
        transports.push(transport);
        return transport;
      },
      readOnlyTools: ['hang'],
      callTimeoutMs: 1_500,
    });
    const read = await host.invoke('mcp.ro.hang', {}, { actor: 'user:admin' });
    expect(read).toMatchObject({ status: 'failed', error: { code: 'MCP_CALL_TIMEOUT' } });
    expect(read.error!.message).toContain('1500 ms');

    const write = await invoke('hang', {});
    expect(write).toMatchObject({ status: 'unknown', error: { code: 'OUTCOME_UNKNOWN' } });
    expect(write.error!.message).toContain('MCP_CALL_TIMEOUT');
    expect((await host.ledger.get(write.idempotencyKey!))!.state).toBe('unknown');
    // Sent once each, never again: a timed-out call may have run.
    expect(server.stats.sessionCalls.hang).toBe(2);
    expect(server.stats.runs.hang).toBe(2);
    // The connection is fine: the next call succeeds without a new session.
    expect(await invoke('search', { query: 'x' })).toMatchObject({ status: 'succeeded' });
    expect(server.stats.initialize).toBe(2);
  });

  /** `hang` registered read-only as `mcp.ro.hang`, in a second registration of the same server. */
  async function readOnlyHang(host: AgentHost, server: HttpMcpServer, callTimeoutMs: number) {
    await registerMcpServer(host, {
      name: 'ro',
      transport: () => {
        const transport = new StreamableHTTPClientTransport(server.url);
        transports.push(transport);
        return transport;
      },
      readOnlyTools: ['hang'],
      callTimeoutMs,
    });
  }

  it('the server restarts (connections destroyed) while a read runs: its answer stream broke, the read fails MCP_TRANSPORT_LOST at once, not after callTimeoutMs', async () => {
    const { server, host } = await setup({ callTimeoutMs: 10_000 });
    await readOnlyHang(host, server, 10_000);
    const started = performance.now();
    const pending = host.invoke('mcp.ro.hang', {}, { actor: 'user:admin' });
    await vi.waitFor(() => expect(server.stats.runs.hang).toBe(1), { timeout: 10_000 });
    await server.restart({ abrupt: true });
    const read = await pending;
    // MCP_TRANSPORT_LOST, not MCP_CALL_TIMEOUT: the call ended before its 10 s timeout (and before the tool's 10 s).
    expect(read).toMatchObject({ status: 'failed', error: { code: 'MCP_TRANSPORT_LOST' } });
    expect(read.error!.message).toContain('the connection broke during hang');
    expect(performance.now() - started).toBeLessThan(10_000); // before the 10 s call timeout
    expect(server.stats.sessionCalls.hang).toBe(1);
  });

  it('the server restarts (connections destroyed) while a write runs: unknown at once, naming the broken connection, never sent again', async () => {
    const { server, host, invoke } = await setup({ callTimeoutMs: 10_000 });
    const started = performance.now();
    const pending = invoke('hang', {});
    await vi.waitFor(() => expect(server.stats.runs.hang).toBe(1), { timeout: 10_000 });
    await server.restart({ abrupt: true });
    const write = await pending;
    expect(write).toMatchObject({ status: 'unknown', error: { code: 'OUTCOME_UNKNOWN' } });
    expect(write.error!.message).toContain('the connection broke after hang was sent');
    expect(write.error!.message).not.toContain('MCP_CALL_TIMEOUT');
    expect((await host.ledger.get(write.idempotencyKey!))!.state).toBe('unknown');
    expect(performance.now() - started).toBeLessThan(10_000); // before the 10 s call timeout
    // Sent once, run once: a call that may have run is never sent again, also not in the new session.
    expect(server.stats.sessionCalls.hang).toBe(1);
    expect(server.stats.runs.hang).toBe(1);
    // The next call opens a new session and succeeds.
    expect(await invoke('search', { query: 'x' })).toMatchObject({ status: 'succeeded' });
    expect(server.stats.runs.hang).toBe(1);
  });

  it("only the server's event stream (GET) is cut while a tool hangs: the call's own answer stream is alive, it still ends MCP_CALL_TIMEOUT", async () => {
    const { server, host } = await setup();
    await readOnlyHang(host, server, 1_500);
    await vi.waitFor(() => expect(server.openStreams).toBe(2), { timeout: 10_000 });
    const pending = host.invoke('mcp.ro.hang', {}, { actor: 'user:admin' });
    await vi.waitFor(() => expect(server.stats.runs.hang).toBe(1), { timeout: 10_000 });
    server.cutEventStreams();
    const read = await pending;
    expect(read).toMatchObject({ status: 'failed', error: { code: 'MCP_CALL_TIMEOUT' } });
    expect(read.error!.message).toContain('1500 ms');
    expect(server.stats.sessionCalls.hang).toBe(1);
  });

  it('a server that is down (connection refused): a write is a typed error, not unknown; it runs once the server is back', async () => {
    const { server, host, invoke } = await setup();
    await server.stop();
    const write = await invoke('grab', { id: 'dune-2160p' });
    expect(write).toMatchObject({ status: 'failed', error: { code: 'MCP_CALL_NOT_DELIVERED' } });
    expect(write.error!.message).toContain('ECONNREFUSED');
    expect((await host.ledger.get(write.idempotencyKey!))!.state).toBe('failed');
    const read = await invoke('search', { query: 'dune' });
    expect(read).toMatchObject({ status: 'failed', error: { code: 'MCP_CALL_NOT_DELIVERED' } });

    await server.restart();
    const again = await invoke('grab', { id: 'dune-1080p' });
    expect(again).toMatchObject({ status: 'succeeded' });
    expect(server.stats.runs.grab).toBe(1);
  });
});

describe('closing a transport object after a renewal, in a host process of its own', () => {
  it('after transport.close() the process exits by itself: no socket or timer of the renewed session is left', async () => {
    const server = await startHttpMcpServer();
    servers.push(server);
    const script = fileURLToPath(new URL('./fixtures/close-exit-host.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script, server.url.href], {
      cwd: fileURLToPath(new URL('../../../../', import.meta.url)),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // The child's stdout lines, in order, each read once.
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const next = async () => {
      const line = await lines.next();
      if (line.done) throw new Error(`the host process ended early: ${stderr}`);
      return JSON.parse(line.value) as Record<string, unknown>;
    };
    try {
      expect(await next()).toEqual({ status: 'succeeded' });
      await server.restart();
      child.stdin.end('restarted\n');
      expect(await next()).toEqual({ status: 'succeeded' });
      expect(server.stats.initialize).toBe(2);
      expect(await next()).toEqual({ closed: true });
      // Left open, the new session's event stream would keep the process alive for as long as the server runs.
      const code = await Promise.race([exited, new Promise<'alive'>((r) => setTimeout(() => r('alive'), 15_000))]);
      expect(code, stderr).toBe(0);
      // The server saw the renewed session's event stream end, and no session was opened after the close.
      expect(server.openStreams).toBe(0);
      expect(server.stats.initialize).toBe(2);
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});

describe('MCP calls and the caller’s abort signal', () => {
  it('many calls with one signal leave no abort listener on it (the MCP SDK never removes the one it adds per request)', async () => {
    const { host } = await setup();
    const caller = new AbortController();
    for (let i = 0; i < 15; i++)
      expect(
        await host.invoke('mcp.idx.search', { query: `q${i}` }, { actor: 'user:admin', signal: caller.signal }),
      ).toMatchObject({ status: 'succeeded' });
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });
});
