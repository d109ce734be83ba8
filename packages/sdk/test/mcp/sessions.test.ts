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
// the server never ran it; a tool hanging past callTimeoutMs was reported as a broken connection.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
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

async function setup(options: { renewable?: boolean; callTimeoutMs?: number } = {}) {
  const server = await startHttpMcpServer();
  servers.push(server);
  const host = createAgentHost({
    storage: new MemoryStorage(),
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: [] }) },
  });
  hosts.push(host);
  const make = () => {
    const transport = new StreamableHTTPClientTransport(server.url);
    transports.push(transport);
    return transport;
  };
  await registerMcpServer(host, {
    name: 'idx',
    transport: options.renewable === false ? make() : make,
    readOnlyTools: ['search'],
    ...(options.callTimeoutMs ? { callTimeoutMs: options.callTimeoutMs } : {}),
  });
  await host.start();
  const invoke = (tool: string, input: Record<string, unknown>) =>
    host.invoke(`mcp.idx.${tool}`, input, { actor: 'user:admin' });
  return { server, host, invoke };
}

describe('MCP client sessions over Streamable HTTP', () => {
  it('a server restart between two calls: a new session is opened (initialize again) and the call sent once more; the write runs exactly once and is recorded succeeded', async () => {
    const { server, host, invoke } = await setup();
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
  });

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

  it('a transport object (not renewable): a 404 for the ended session is a typed error naming the fix, never unknown', async () => {
    const { server, host, invoke } = await setup({ renewable: false });
    await server.restart();
    const write = await invoke('grab', { id: 'dune-2160p' });
    expect(write).toMatchObject({ status: 'failed', error: { code: 'MCP_CALL_NOT_DELIVERED' } });
    expect(write.error!.message).toContain('transport factory');
    expect((await host.ledger.get(write.idempotencyKey!))!.state).toBe('failed');
    expect(server.stats.sessionCalls.grab).toBe(1);
    expect(server.stats.initialize).toBe(1);
    expect(server.stats.runs.grab).toBeUndefined();
  });

  it('a tool that hangs past callTimeoutMs: a read fails MCP_CALL_TIMEOUT; a write, which was sent, is unknown and names the timeout', async () => {
    const { server, host, invoke } = await setup({ callTimeoutMs: 300 });
    // hang is registered read-only in a second registration of the same server.
    await registerMcpServer(host, {
      name: 'ro',
      transport: () => {
        const transport = new StreamableHTTPClientTransport(server.url);
        transports.push(transport);
        return transport;
      },
      readOnlyTools: ['hang'],
      callTimeoutMs: 300,
    });
    const read = await host.invoke('mcp.ro.hang', {}, { actor: 'user:admin' });
    expect(read).toMatchObject({ status: 'failed', error: { code: 'MCP_CALL_TIMEOUT' } });
    expect(read.error!.message).toContain('300 ms');

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
