// An MCP server's tools as capabilities: a test-only MCP server (a real stdio child process) consumed
// by the official SDK's Client, registered with registerMcpServer, and called by scripted runs.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost } from '../../src/index';
import { MCP_DEFAULT_MAX_OUTPUT_BYTES, McpToolSchemaError, registerMcpServer } from '../../src/mcp';
import { MemoryStorage } from '../../src/storage';
import { ScriptedProvider, type FakeScript } from '../../src/testing';
import { runEvents, waitForStatus } from '../runtime/harness';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/test-mcp-server.ts', import.meta.url));
const TERMINAL = ['succeeded', 'failed', 'cancelled', 'budget_exceeded', 'waiting'] as const;

const hosts: AgentHost[] = [];
const clients: Client[] = [];
const transports: StdioClientTransport[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  for (const t of transports.splice(0)) await t.close().catch(() => undefined);
});

/** The stdio transport to a new test MCP server child process (not started). */
function stdioTransport(env: Record<string, string> = {}): StdioClientTransport {
  const loader = pathToFileURL(`${root}node_modules/tsx/dist/loader.mjs`).href;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', loader, fixture],
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  transports.push(transport);
  return transport;
}

/** A client connected to a new test MCP server child process. */
async function testServer(env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'consume-test', version: '1.0.0' });
  await client.connect(stdioTransport(env));
  clients.push(client);
  return client;
}

async function makeHost(scripts: FakeScript[] = []) {
  const storage = new MemoryStorage();
  const host = createAgentHost({
    storage,
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts }) },
    // The host's facts: the grabbed film arrived in the library (what an execute run is verified against).
    goalFacts: {
      forRun: async () => ({
        plans: [],
        downloads: [],
        organizes: [],
        library: [{ mediaEntityId: 'tmdb:438631', title: 'Dune', present: true }],
      }),
    },
    runs: { pollMs: 5, goalPollSec: 1 },
  });
  hosts.push(host);
  return { host, storage };
}

const grabs = async (host: AgentHost) =>
  (
    (await host.invoke('mcp.test.count', {}, { actor: 'user:admin' })).output as {
      structuredContent: { grabs: number };
    }
  ).structuredContent.grabs;

describe('consuming an MCP server (registerMcpServer)', () => {
  it('registers tools as mcp.<server>.<tool>: side-effecting unless the host declares them read-only; the server’s own hint recorded, not trusted', async () => {
    const { host } = await makeHost();
    const registered = await registerMcpServer(host, {
      name: 'test',
      client: await testServer(),
      readOnlyTools: ['search', 'count', 'big'],
    });
    expect(registered.map((r) => [r.capabilityId, r.kind])).toEqual([
      ['mcp.test.search', 'read'],
      ['mcp.test.grab', 'execute'],
      ['mcp.test.count', 'read'],
      ['mcp.test.broken', 'execute'],
      ['mcp.test.big', 'read'],
      ['mcp.test.die', 'execute'],
      ['mcp.test.slow', 'execute'],
    ]);
    expect(registered[1]!.serverAnnotations).toEqual({ readOnlyHint: true, destructiveHint: false });
    expect(host.capabilities.get('mcp.test.grab')).toMatchObject({ kind: 'execute', replay: 'never' });
    expect(host.capabilities.get('mcp.test.search')).toMatchObject({ kind: 'read', replay: 'safe' });
    await expect(
      registerMcpServer(host, { name: 'other', client: clients[0]!, readOnlyTools: ['nope'] }),
    ).rejects.toMatchObject({
      code: 'MCP_OPTIONS_INVALID',
    });
    await expect(registerMcpServer(host, { name: 'bad name', client: clients[0]! })).rejects.toMatchObject({
      code: 'MCP_OPTIONS_INVALID',
    });
  });

  it('a scenario run calls the MCP tools through the invocation path; a read-only subagent cannot call the tool the server calls read-only', async () => {
    const scripts: FakeScript[] = [
      {
        match: 'Grab Dune',
        steps: [
          { toolCalls: [{ capability: 'mcp.test.search', input: { query: 'dune' } }] },
          { toolCalls: [{ capability: 'mcp.test.grab', input: { id: 'dune-2160p' } }] },
        ],
        finalText: 'Grabbed dune-2160p.',
      },
      {
        match: 'look around',
        steps: [{ toolCalls: [{ capability: 'delegate', input: { goal: 'investigate the indexer' } }] }],
        finalText: 'The subagent looked.',
      },
      {
        match: 'investigate',
        steps: [{ toolCalls: [{ capability: 'mcp.test.grab', input: { id: 'sneaky' } }] }],
        finalText: 'Could not grab.',
      },
    ];
    const { host } = await makeHost(scripts);
    await registerMcpServer(host, { name: 'test', client: await testServer(), readOnlyTools: ['search', 'count'] });
    await host.start();
    await host.grants.create({ action: 'mcp.test.*', actor: 'user:admin' });

    const run = await host.startRun({ goal: 'Grab Dune from the indexer', actor: 'user:admin' });
    expect((await waitForStatus(host, run.id, TERMINAL)).status).toBe('succeeded');
    const calls = (await runEvents(host, run.id))
      .filter((e) => e.type === 'tool_call' && (e.data as { phase: string }).phase !== 'started')
      .map((e) => e.data as { capabilityId: string; phase: string; idempotencyKey?: string });
    expect(calls.map((c) => [c.capabilityId, c.phase])).toEqual([
      ['mcp.test.search', 'succeeded'],
      ['mcp.test.grab', 'succeeded'],
    ]);
    expect(calls[1]!.idempotencyKey).toMatch(new RegExp(`^mcp\\.test\\.grab:v1:${run.id}:`));
    expect(await grabs(host)).toBe(1);

    const look = await host.startRun({ goal: 'look around the indexer', actor: 'user:admin', mode: 'plan_only' });
    expect((await waitForStatus(host, look.id, TERMINAL)).status).toBe('succeeded');
    const child = (await host.listRuns({})).find((r) => r.parentRunId === look.id)!;
    const childCalls = (await runEvents(host, child.id))
      .filter((e) => e.type === 'tool_call' && (e.data as { phase: string }).phase !== 'started')
      .map((e) => e.data as { capabilityId: string; phase: string });
    expect(childCalls).toEqual([expect.objectContaining({ capabilityId: 'mcp.test.grab', phase: 'denied' })]);
    expect(child.capabilityAllowlist).not.toContain('mcp.test.grab');
    expect(await grabs(host)).toBe(1);
  });

  it('isError is a failed call; 5 MB of output is capped, and paged in a run with read_tool_result', async () => {
    const scripts: FakeScript[] = [
      { match: 'big', steps: [{ toolCalls: [{ capability: 'mcp.test.big', input: {} }] }], finalText: 'Read it.' },
    ];
    const { host, storage } = await makeHost(scripts);
    await registerMcpServer(host, { name: 'test', client: await testServer(), readOnlyTools: ['big', 'count'] });
    await host.start();
    const broken = await host.invoke('mcp.test.broken', {}, { actor: 'user:admin' });
    expect(broken).toMatchObject({ status: 'failed', error: { code: 'MCP_TOOL_ERROR' } });
    expect(broken.error!.message).toContain('disk full');

    const big = await host.invoke('mcp.test.big', {}, { actor: 'user:admin' });
    const output = big.output as {
      content: Array<{ text: string }>;
      truncated: { originalBytes: number; keptBytes: number };
    };
    expect(big.status).toBe('succeeded');
    expect(output.truncated).toEqual({ originalBytes: 5 * 1024 * 1024, keptBytes: MCP_DEFAULT_MAX_OUTPUT_BYTES });
    expect(output.content[0]!.text).toHaveLength(MCP_DEFAULT_MAX_OUTPUT_BYTES);

    const run = await host.startRun({ goal: 'read the big listing', actor: 'user:admin', mode: 'plan_only' });
    expect((await waitForStatus(host, run.id, TERMINAL)).status).toBe('succeeded');
    const result = (await storage.messages.list(run.id))
      .map((m) => m.message as { role: string; name?: string; content: unknown })
      .find((m) => m.role === 'tool' && m.name === 'mcp.test.big')!;
    const text = String(result.content);
    expect(text.length).toBeLessThan(100_000);
    expect(text).toContain('result_id');
    expect(text).toContain('next_offset');
  });

  it('a server that times out or dies mid-call: a side-effecting call is unknown, not retried, settled only by the host’s verifier', async () => {
    const { host } = await makeHost();
    const client = await testServer();
    await registerMcpServer(host, { name: 'doomed', client, readOnlyTools: ['search'], callTimeoutMs: 300 });
    await host.start();
    // No answer in time: the write may have happened.
    const slow = await host.invoke('mcp.doomed.slow', {}, { actor: 'user:admin' });
    expect(slow).toMatchObject({ status: 'unknown', error: { code: 'OUTCOME_UNKNOWN' } });
    const first = await host.invoke('mcp.doomed.die', {}, { actor: 'user:admin', taskId: 'task-die' });
    expect(first).toMatchObject({ status: 'unknown', error: { code: 'OUTCOME_UNKNOWN' } });
    const entry = (await host.ledger.get(first.idempotencyKey!))!;
    expect(entry.state).toBe('unknown');
    // The same intent again: the handler is not run again (the connection is gone anyway); still unknown.
    const again = await host.invoke('mcp.doomed.die', {}, { actor: 'user:admin', taskId: 'task-die' });
    expect(again.status).toBe('unknown');
    // A read on the dead connection fails: nothing can have happened.
    const read = await host.invoke('mcp.doomed.search', { query: 'x' }, { actor: 'user:admin' });
    expect(read).toMatchObject({ status: 'failed', error: { code: 'MCP_TRANSPORT_LOST' } });
    // Only a verifier the host registers settles it.
    host.capabilities.registerVerifier('mcp.doomed.die', async () => ({
      status: 'succeeded',
      output: { content: [{ type: 'text', text: 'the host checked: it happened' }] },
    }));
    const settled = await host.invoke('mcp.doomed.die', {}, { actor: 'user:admin', taskId: 'task-die' });
    expect(settled.status).toBe('succeeded');
    expect((await host.ledger.get(first.idempotencyKey!))!.state).toBe('succeeded');
  });

  it('a server advertising a schema providers reject is refused at registration with a typed error; nothing of it is registered', async () => {
    const { host } = await makeHost();
    const error = await registerMcpServer(host, {
      name: 'bad',
      transport: stdioTransport({ MCP_BAD_SCHEMA: '1' }),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpToolSchemaError);
    expect(error).toMatchObject({ code: 'MCP_TOOL_SCHEMA_UNSUPPORTED', details: { server: 'bad', tool: 'tree' } });
    expect((error as McpToolSchemaError).problems.map((p) => p.rule)).toContain('ref-recursive');
    expect(host.capabilities.list().filter((d) => d.id.startsWith('mcp.bad.'))).toEqual([]);
  });
});
