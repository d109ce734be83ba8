// The host's capabilities served over MCP, spoken to by the official SDK's Client: over stdio (a real
// child process running examples/mcp-server) and over Streamable HTTP (a real local port).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, LATEST_PROTOCOL_VERSION, McpError } from '@modelcontextprotocol/sdk/types.js';
import { SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import Type from 'typebox';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, defineCapability, OutcomeUnknownError, type AgentHost } from '../../src/index';
import { STANDARD_CAPABILITY_IDS } from '../../src/media';
import { createMcpHttpHandler, type McpHttpHandler } from '../../src/mcp';
import { SqliteStorage } from '../../src/sqlite';
import { MemoryStorage } from '../../src/storage';
import { registerSandboxCapabilities, SANDBOX_UNDO_CAPABILITY_IDS, SandboxWorld } from '../../src/testing';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

type Structured = {
  status: string;
  output?: Record<string, unknown>;
  error?: { code: string; message: string; details?: Record<string, unknown> };
  approval?: { approvalId: string; status: string; planType: string; planId: string };
  idempotencyKey?: string;
  invocationId: string;
  next: string;
};
async function call(client: Client, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) });
  return { isError: result.isError === true, s: result.structuredContent as Structured, text: result.content };
}

/** lookup → search → plan for Dune: Part Two, as the MCP client; returns the plan id. */
async function planDune(client: Client): Promise<string> {
  const found = await call(client, 'catalog.lookup', { query: '沙丘2' });
  const item = (found.s.output!.items as Array<Record<string, string>>)[0]!;
  const search = await call(client, 'release.search', { mediaSource: item.mediaSource, mediaId: item.mediaId });
  const release = (search.s.output!.releases as Array<{ releaseId: string }>)[0]!;
  const planned = await call(client, 'download.plan', {
    mediaSource: 'tmdb',
    mediaId: '693134',
    kind: 'movie',
    releaseId: release.releaseId,
  });
  expect(planned.s.status).toBe('succeeded');
  return (planned.s.output!.plan as { id: string }).id;
}

/** A client of examples/mcp-server, spawned as a child process. */
async function exampleServer(env: Record<string, string> = {}): Promise<Client> {
  const loader = pathToFileURL(`${root}node_modules/tsx/dist/loader.mjs`).href;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', loader, `${root}examples/mcp-server/main.ts`],
    cwd: root,
    env: { PATH: process.env.PATH ?? '', TSX_TSCONFIG_PATH: `${root}tsconfig.json`, ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('MCP over stdio: the example server as a child process', () => {
  let client: Client;
  beforeAll(async () => {
    client = await exampleServer({ MCP_ACTOR: 'apikey:stdio-test' });
  }, 30_000);
  afterAll(async () => {
    await client?.close();
  });

  it('lists the 15 standard capabilities (and the sandbox inverses) with annotations from kind and replay, and no runtime tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [...STANDARD_CAPABILITY_IDS, ...SANDBOX_UNDO_CAPABILITY_IDS].sort(),
    );
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('catalog.lookup')!.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(byName.get('download.submit')!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    expect(byName.get('download.plan')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.get('catalog.lookup')!.inputSchema.type).toBe('object');
  });

  it('a read succeeds; an execute without authorization is denied; a plan execution asks a person for an approval', async () => {
    const read = await call(client, 'catalog.lookup', { query: '沙丘2' });
    expect(read.isError).toBe(false);
    expect(read.s.status).toBe('succeeded');
    expect((read.s.output!.items as Array<{ mediaEntityId: string }>)[0]!.mediaEntityId).toBe('tmdb:693134');

    const denied = await call(client, 'task.retry', { taskId: 'task-1' });
    expect(denied.isError).toBe(true);
    expect(denied.s).toMatchObject({ status: 'denied', error: { code: 'AUTH_NO_AUTHORIZATION' } });
    expect(denied.s.approval).toBeUndefined();

    const planId = await planDune(client);
    const submit = await call(client, 'download.submit', { planId });
    expect(submit.isError).toBe(true);
    expect(submit.s).toMatchObject({
      status: 'denied',
      approval: { status: 'requested', planType: 'download', planId },
    });
    expect(submit.s.next).toContain(submit.s.approval!.approvalId);
    // Asking again finds the open request; no second approval is made.
    const again = await call(client, 'download.submit', { planId });
    expect(again.s.approval!.approvalId).toBe(submit.s.approval!.approvalId);
  });

  it('invalid arguments are a tool error with the paths; an unknown or runtime tool is an InvalidParams error', async () => {
    const invalid = await call(client, 'catalog.lookup', { query: 42 });
    expect(invalid.isError).toBe(true);
    expect(invalid.s.error).toMatchObject({ code: 'INPUT_INVALID' });
    for (const name of ['no.such.tool', 'update_plan', 'delegate', 'read_tool_result']) {
      const error = await client.callTool({ name, arguments: {} }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    }
  });
});

describe('MCP over Streamable HTTP (a real local port)', () => {
  let host: AgentHost;
  let http: HttpServer;
  let mcp: McpHttpHandler;
  let url: URL;
  const clients: Client[] = [];
  const probeCalls: unknown[] = [];
  const counted: number[] = [];
  const spans = new InMemorySpanExporter();

  beforeAll(async () => {
    host = createAgentHost({ storage: new MemoryStorage(), logger: new ConsoleLogger('silent') });
    registerSandboxCapabilities(host, new SandboxWorld());
    host.capabilities.register(
      defineCapability({
        id: 'probe.echo',
        version: 1,
        title: 'Echo',
        description: 'Returns its text.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({ text: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
        output: Type.Object({ text: Type.String() }),
        handler: async (input) => {
          probeCalls.push(input);
          return { text: input.text };
        },
      }),
    );
    // A write whose transport breaks after the request was sent: the outcome is unknown.
    host.capabilities.register(
      defineCapability({
        id: 'probe.send',
        version: 1,
        title: 'Send',
        description: 'Sends a message to the downloader.',
        kind: 'execute',
        replay: 'never',
        input: Type.Object({ text: Type.String() }),
        output: Type.Object({}),
        handler: async () => {
          throw new OutcomeUnknownError('the downloader hung up after the request was sent');
        },
      }),
    );
    // A write that succeeds: counted, so a second effect shows.
    host.capabilities.register(
      defineCapability({
        id: 'probe.count',
        version: 1,
        title: 'Count',
        description: 'Adds one to a counter on the downloader.',
        kind: 'execute',
        replay: 'never',
        input: Type.Object({ by: Type.Integer() }),
        output: Type.Object({ total: Type.Integer() }),
        handler: async (input) => {
          counted.push(input.by);
          return { total: counted.length };
        },
      }),
    );
    // A capability of the runtime's memory family: never published, whatever the host registers.
    host.capabilities.register(
      defineCapability({
        id: 'memory.note',
        version: 1,
        title: 'Note',
        description: 'Writes a memory note.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({}),
        output: Type.Object({}),
        handler: async () => ({}),
      }),
    );
    await host.start({ workers: false });
    await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
    await host.grants.create({ action: 'probe.send', actor: 'user:admin' });
    await host.grants.create({ action: 'probe.count', actor: 'user:admin' });
    mcp = createMcpHttpHandler(host, {
      tracing: {
        tracer: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }).getTracer('test'),
      },
      authenticate: ({ headers }) =>
        headers?.authorization === 'Bearer token-a'
          ? 'apikey:client-a'
          : headers?.authorization === 'Bearer token-b'
            ? 'apikey:client-b'
            : undefined,
    });
    http = createServer((req, res) => {
      if (req.url === '/mcp') void mcp.handle(req, res);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await mcp.close();
    await new Promise((resolve) => http.close(resolve));
    await host.stop();
  });

  async function connect(token?: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
    });
    const client = new Client({ name: 'http-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  it('lists the published capabilities only (no memory family), and calls a read', async () => {
    const client = await connect('token-a');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('probe.echo');
    expect(names).toContain('download.submit');
    expect(names).not.toContain('memory.note');
    expect(names).toHaveLength(18 + SANDBOX_UNDO_CAPABILITY_IDS.length);
    const echo = await call(client, 'probe.echo', { text: 'hi' });
    expect(echo).toMatchObject({ isError: false, s: { status: 'succeeded', output: { text: 'hi' } } });
    await expect(client.callTool({ name: 'memory.note', arguments: {} })).rejects.toThrow(/unknown tool/);
  });

  it('each tools/call is a SERVER span `tools/call <tool>` (MCP conventions) with the capability, the status and the error code', async () => {
    const client = await connect('token-a');
    spans.reset();
    await call(client, 'probe.echo', { text: 'traced' });
    await call(client, 'task.retry', { taskId: 'task-9' });
    const tools = spans.getFinishedSpans().filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tools.map((s) => [s.name, s.attributes['media_agent.invocation.status']])).toEqual([
      ['tools/call probe.echo', 'succeeded'],
      ['tools/call task.retry', 'denied'],
    ]);
    expect(tools.map((s) => s.kind)).toEqual([SpanKind.SERVER, SpanKind.SERVER]);
    expect(tools[0]!.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'mcp.protocol.version': LATEST_PROTOCOL_VERSION,
    });
    expect(tools[1]!.attributes).toMatchObject({
      'gen_ai.tool.name': 'task.retry',
      'media_agent.capability.kind': 'execute',
      'error.type': 'AUTH_NO_AUTHORIZATION',
    });
    expect(JSON.stringify(tools.map((s) => s.attributes))).not.toContain('traced'); // no content by default
  });

  it('invalid arguments are refused before the handler runs', async () => {
    const client = await connect('token-a');
    probeCalls.length = 0;
    for (const args of [{}, { text: '' }, { text: 'x', extra: true }, { text: 5 }]) {
      const r = await call(client, 'probe.echo', args);
      expect(r.isError).toBe(true);
      expect(r.s.error!.code).toBe('INPUT_INVALID');
    }
    expect(probeCalls).toEqual([]);
  });

  it('an identity in _meta is ignored: the call acts as the authenticated actor (audit shows it) and is denied', async () => {
    const client = await connect('token-a');
    const spoof = { actor: 'user:admin', 'io.media-agent/actor': 'user:admin', user: 'admin' };
    const r = await call(client, 'task.retry', { taskId: 'task-1' }, spoof);
    expect(r.s).toMatchObject({ status: 'denied', error: { code: 'AUTH_NO_AUTHORIZATION' } });
    const audit = await host.audit({ invocationId: r.s.invocationId });
    expect(audit.map((a) => a.actor)).toEqual(['apikey:client-a']);
  });

  it('an unknown outcome is a tool error the client can act on: status unknown, the key, verify before retrying', async () => {
    const client = await connect('token-a');
    const r = await call(client, 'probe.send', { text: 'hello' });
    expect(r.isError).toBe(true);
    expect(r.s).toMatchObject({ status: 'unknown', error: { code: 'OUTCOME_UNKNOWN' } });
    expect(r.s.idempotencyKey).toMatch(/^probe\.send:v1:request:/);
    expect(r.s.next).toMatch(/Do not call this tool again/);
    expect((await host.ledger.get(r.s.idempotencyKey!))!.state).toBe('unknown');
  });

  it("a client's idempotency key in _meta: a retried call returns the recorded result instead of running twice", async () => {
    const client = await connect('token-a');
    counted.length = 0;
    const key = { 'media-agent/idempotency-key': 'retry-7' };
    const first = await call(client, 'probe.count', { by: 1 }, key);
    const retry = await call(client, 'probe.count', { by: 1 }, key);
    expect(first.s).toMatchObject({ status: 'succeeded', output: { total: 1 } });
    expect(retry.s).toMatchObject({ status: 'succeeded', output: { total: 1 }, replayed: true });
    expect(retry.s.idempotencyKey).toBe(first.s.idempotencyKey);
    expect(first.s.idempotencyKey).toMatch(/^probe\.count:v1:3:mcp,15:apikey:client-a,7:retry-7,:[0-9a-f]{64}$/);
    expect(counted).toEqual([1]);
    // The same key with other arguments is refused; another client's key is its own.
    const conflict = await call(client, 'probe.count', { by: 2 }, key);
    expect(conflict.s).toMatchObject({ status: 'failed', error: { code: 'LEDGER_CALL_ID_CONFLICT' } });
    const other = await call(await connect('token-b'), 'probe.count', { by: 1 }, key);
    expect(other.s).toMatchObject({ status: 'succeeded', output: { total: 2 } });
    // Without a key each call is its own intent.
    await call(client, 'probe.count', { by: 1 });
    await call(client, 'probe.count', { by: 1 });
    expect(counted).toEqual([1, 1, 1, 1]);
    for (const bad of ['', 'a b', 'x'.repeat(129), 42]) {
      const r = await call(client, 'probe.count', { by: 1 }, { 'media-agent/idempotency-key': bad });
      expect(r.s.error!.code).toBe('MCP_IDEMPOTENCY_KEY_INVALID');
    }
    expect(counted).toHaveLength(4);
  });

  it('without authentication nothing is listed or run: 401 with a challenge before any MCP handling', async () => {
    await expect(connect()).rejects.toThrow(/401|not authenticated/);
    for (const method of ['initialize', 'tools/list', 'tools/call']) {
      const response = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { name: 'probe.echo', arguments: {} } }),
      });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(await response.body.json()).toMatchObject({ error: { data: { code: 'MCP_UNAUTHENTICATED' } } });
    }
  });

  it('approval needed: the denial asks a person; once approved the same call runs (for that client only)', async () => {
    const client = await connect('token-a');
    const planId = await planDune(client);
    const denied = await call(client, 'download.submit', { planId });
    expect(denied.s).toMatchObject({ status: 'denied', approval: { status: 'requested', planId } });
    const { approvalId } = denied.s.approval!;
    const approval = (await host.approvals.list({ planId })).find((a) => a.id === approvalId)!;
    expect(approval.requestedBy).toBe('apikey:client-a');
    await host.approvals.decide(approvalId, {
      status: 'approved',
      actor: 'user:admin',
      payloadHash: (await host.plans.get(planId)).payloadHash,
    });
    // Another client cannot use client A's approval.
    const other = await call(await connect('token-b'), 'download.submit', { planId });
    expect(other.s.status).toBe('denied');
    const submitted = await call(client, 'download.submit', { planId });
    expect(submitted.isError).toBe(false);
    expect(submitted.s.status).toBe('pending');
    expect(submitted.s.idempotencyKey).toMatch(/^download\.submit:v1:request:/);
    expect((await host.approvals.list({ planId })).find((a) => a.id === approvalId)!.status).toBe('consumed');
  });
});

describe('the example server on a SQLite file: a person approves from another host process', () => {
  it('submit denied with an approval asked; approved by a console host on the same file; the same call then runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-mcp-'));
    const client = await exampleServer({ MEDIA_AGENT_DATA_DIR: dir });
    const admin = createAgentHost({
      storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
      logger: new ConsoleLogger('silent'),
    });
    try {
      const planId = await planDune(client);
      const denied = await call(client, 'download.submit', { planId });
      expect(denied.s.approval).toMatchObject({ status: 'requested', planId });
      await admin.start({ workers: false });
      await admin.approvals.decide(denied.s.approval!.approvalId, {
        status: 'approved',
        actor: 'user:admin',
        payloadHash: (await admin.plans.get(planId)).payloadHash,
      });
      const submitted = await call(client, 'download.submit', { planId });
      expect(submitted).toMatchObject({ isError: false, s: { status: 'pending' } });
    } finally {
      await client.close();
      await admin.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
