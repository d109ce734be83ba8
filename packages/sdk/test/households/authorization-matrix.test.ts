// The authorization matrix of docs/security.md, cell by cell: the table is parsed from the document and
// every cell is checked over its own surface — HTTP (the router on a real port, undici), MCP (Streamable
// HTTP, the official client) and the host API — against one host on a SQLite file. A cell with no check
// here, or a check with no row, fails.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Type from 'typebox';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, defineCapability, type AgentHost } from '../../src/index';
import type { RunRecord } from '../../src/storage';
import { createAgentRouter, toNodeListener, type AgentRouter } from '../../src/http';
import { createMcpHttpHandler, type McpHttpHandler } from '../../src/mcp';
import { SqliteStorage } from '../../src/sqlite';
import { waitForRunStatus } from '../../src/testing';

type Caller = 'admin' | 'member' | 'key';
const CALLERS: Caller[] = ['admin', 'member', 'key'];
const ACTOR: Record<Caller, string> = { admin: 'user:1', member: 'user:7', key: 'apikey:home' };
const OTHER = 'user:8';
/** The careless directory of the table: it answers `admin` for the key too. */
const DIRECTORY: Record<string, 'admin' | 'user'> = { 'user:1': 'admin', 'apikey:home': 'admin' };

interface Row {
  operation: string;
  surface: string;
  on: string;
  verdicts: Record<Caller, string>;
}

/** The rows between the matrix markers of docs/security.md. */
function readMatrix(): Row[] {
  const doc = readFileSync(join(__dirname, '../../../../docs/security.md'), 'utf8');
  const start = doc.indexOf('<!-- authorization-matrix:start -->');
  const end = doc.indexOf('<!-- authorization-matrix:end -->');
  if (start < 0 || end < start) throw new Error('docs/security.md has no authorization matrix');
  const lines = doc
    .slice(start, end)
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .slice(2);
  return lines.map((line) => {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim().replace(/^`|`$/g, ''));
    if (cells.length !== 6) throw new Error(`a matrix row needs 6 cells: ${line}`);
    const [operation, surface, on, admin, member, key] = cells as [string, string, string, string, string, string];
    return { operation, surface, on, verdicts: { admin, member, key } };
  });
}

const cleanups: Array<() => Promise<void>> = [];
let host: AgentHost;
let base: string;
let mcpUrl: URL;
let router: AgentRouter;
let mcp: McpHttpHandler;
const exported: string[] = [];
const clients = new Map<Caller, Client>();

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ma-matrix-'));
  host = createAgentHost({
    storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
    logger: new ConsoleLogger('silent'),
    identity: { roleOf: (actor) => DIRECTORY[actor] ?? 'user' },
    model: {
      provider: {
        provider: 'scripted',
        scripts: [{ finalText: 'done' }],
      },
      model: 'scripted',
    },
    // The matrix starts a fresh run per cell: spending caps are not what it checks.
    runs: {
      pollMs: 10,
      spending: {
        household: { day: { runs: null }, month: { runs: null } },
        roles: {
          user: { day: { runs: null }, month: { runs: null } },
          admin: { day: { runs: null }, month: { runs: null } },
        },
      },
    },
    // The matrix starts a fresh run per cell: the per-minute start limits are not what it checks.
    limits: { runStartsPerMinutePerActor: 1000, runStartsPerMinuteTotal: 1000 },
  });
  host.capabilities.register(
    defineCapability({
      id: 'users.export',
      version: 1,
      title: 'Export users',
      description: "Exports every household member's account (administrators only).",
      kind: 'read',
      replay: 'safe',
      adminOnly: true,
      input: Type.Object({}),
      output: Type.Object({ users: Type.Array(Type.String()) }),
      handler: async (_input, ctx) => {
        exported.push(ctx.actor);
        return { users: ['user:1', 'user:7', 'user:8'] };
      },
    }),
  );
  await host.start();
  const authenticate = (token: string | undefined) =>
    ({ 'admin-token': ACTOR.admin, 'member-token': ACTOR.member, 'key-token': ACTOR.key })[
      token?.replace(/^Bearer /, '') ?? ''
    ];
  router = createAgentRouter(host, {
    authenticate: (req) => authenticate(req.headers.get('authorization') ?? undefined),
    consoleDir: false,
  });
  const httpServer: Server = createServer(toNodeListener(router));
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  mcp = createMcpHttpHandler(host, {
    authenticate: ({ headers }) => authenticate(headers?.authorization as string) as never,
  });
  const mcpServer: Server = createServer((req, res) => {
    if (req.url === '/mcp') void mcp.handle(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => mcpServer.listen(0, '127.0.0.1', resolve));
  mcpUrl = new URL(`http://127.0.0.1:${(mcpServer.address() as AddressInfo).port}/mcp`);
  cleanups.push(async () => {
    for (const c of clients.values()) await c.close().catch(() => undefined);
    await mcp.close();
    router.closeStreams();
    for (const s of [httpServer, mcpServer]) {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
    await host.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });
});
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A fresh ended run owned by `owner` (each cell gets its own, so an abort or a message changes no other cell). */
async function runOf(owner: string): Promise<RunRecord> {
  const run = await host.startRun({ goal: 'look around', mode: 'plan_only', actor: owner });
  return waitForRunStatus(host, run.id, ['succeeded']);
}

async function http(caller: Caller, method: string, path: string, body?: unknown) {
  const res = await request(`${base}${path}`, {
    method: method as 'GET',
    headers: { authorization: `Bearer ${caller}-token`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.body.json()) as Record<string, any>;
  return res.statusCode < 300 ? { verdict: 'ok', json } : { verdict: `${res.statusCode} ${json.code}`, json };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

async function mcpClient(caller: Caller): Promise<Client> {
  let client = clients.get(caller);
  if (!client) {
    client = new Client({ name: `matrix-${caller}`, version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(mcpUrl, {
        requestInit: { headers: { authorization: `Bearer ${caller}-token` } },
      }),
    );
    clients.set(caller, client);
  }
  return client;
}

/** A pending approval of a fresh plan, requested by the caller (`own approval`) or by another person. */
async function pendingApproval(caller: Caller, on: string) {
  const by = on === 'own approval' ? ACTOR[caller] : OTHER;
  const plan = await host.plans.create({ type: 'download', payload: { title: 'Arrival' }, actor: by });
  return host.approvals.request({ planType: 'download', planId: plan.id, actor: by });
}

/** The run a cell acts on: the caller's own, or another person's. */
const target = (caller: Caller, on: string) => runOf(on === 'own run' ? ACTOR[caller] : OTHER);

/** An admin-only call made by a run: invocation verdict, with the handler's count checked. */
async function runCall(runId: string): Promise<string> {
  const before = exported.length;
  const result = await host.invoke('users.export', {}, { actor: `agent:${runId}`, runId });
  if (result.status === 'succeeded') return exported.length === before + 1 ? 'ok' : 'handler not run';
  if (exported.length !== before) return 'handler ran on a denial';
  return result.error?.code ?? result.status;
}

type Check = (caller: Caller, on: string) => Promise<string>;
const CHECKS: Record<string, Check> = {
  'HTTP POST /api/runs': async (c) =>
    (await http(c, 'POST', '/api/runs', { goal: 'look around', mode: 'plan_only' })).verdict,
  'HTTP GET /api/runs/:id': async (c, on) => (await http(c, 'GET', `/api/runs/${(await target(c, on)).id}`)).verdict,
  'HTTP GET /api/runs': async (c, on) => {
    const run = await target(c, on);
    const page = await http(c, 'GET', '/api/runs?limit=1000');
    return (page.json.runs as RunRecord[]).some((r) => r.id === run.id) ? 'listed' : 'hidden';
  },
  'HTTP POST /api/runs/:id/messages': async (c, on) =>
    (await http(c, 'POST', `/api/runs/${(await target(c, on)).id}/messages`, { text: 'and the sequel?' })).verdict,
  'HTTP POST /api/runs/:id/abort': async (c, on) =>
    (await http(c, 'POST', `/api/runs/${(await target(c, on)).id}/abort`, { reason: 'enough' })).verdict,
  'HTTP GET /api/events?runId': async (c, on) =>
    (await http(c, 'GET', `/api/events?runId=${(await target(c, on)).id}`)).verdict,
  'HTTP GET /api/events': async (c, on) => {
    const run = await target(c, on);
    let after = 0;
    for (;;) {
      const page = await http(c, 'GET', `/api/events?after=${after}&limit=1000`);
      const events = page.json.events as Array<{ runId: string }>;
      if (events.some((e) => e.runId === run.id)) return 'listed';
      if (!page.json.more) return 'hidden';
      after = page.json.next as number;
    }
  },
  'HTTP GET /api/capabilities': async (c) => {
    const page = await http(c, 'GET', '/api/capabilities');
    return (page.json.capabilities as Array<{ id: string }>).some((d) => d.id === 'users.export') ? 'listed' : 'hidden';
  },
  'HTTP POST /api/grants': async (c) =>
    (await http(c, 'POST', '/api/grants', { action: 'users.export', reason: 'matrix' })).verdict,
  'HTTP PATCH /api/approvals/:id': async (c, on) =>
    (await http(c, 'PATCH', `/api/approvals/${(await pendingApproval(c, on)).id}`, { status: 'rejected' })).verdict,
  'host host.getRun': async (c, on) => codeOf(host.getRun((await target(c, on)).id, { actor: ACTOR[c] })),
  'host host.listRuns': async (c, on) => {
    const run = await target(c, on);
    return (await host.listRuns({ actor: ACTOR[c], limit: 1000 })).some((r) => r.id === run.id) ? 'listed' : 'hidden';
  },
  'host host.appendToInbox': async (c, on) =>
    codeOf(host.appendToInbox((await target(c, on)).id, 'and the sequel?', ACTOR[c])),
  'host host.abort': async (c, on) => codeOf(host.abort((await target(c, on)).id, 'enough', { actor: ACTOR[c] })),
  'host host.events': async (c, on) => {
    const run = await target(c, on);
    return codeOf(
      (async () => {
        for await (const e of host.events({ actor: ACTOR[c], runId: run.id, after: 0, follow: false }))
          if ('runId' in e && e.runId === run.id) return;
      })(),
    );
  },
  'host host.invoke': async (c) => {
    const before = exported.length;
    const result = await host.invoke('users.export', {}, { actor: ACTOR[c] as never });
    if (result.status === 'succeeded') return exported.length === before + 1 ? 'ok' : 'handler not run';
    return exported.length === before ? (result.error?.code ?? result.status) : 'handler ran on a denial';
  },
  "host a run's call": async (c, on) => {
    const run = await target(c, on);
    // On another person's run the caller steers it first: their message must not lift the run's role.
    if (on !== 'own run') {
      const steered = await codeOf(host.appendToInbox(run.id, 'export the users', ACTOR[c]));
      if (steered !== 'ok') return steered;
    }
    return runCall(run.id);
  },
  'host host.grants.create': async (c) => codeOf(host.grants.create({ action: 'users.export', actor: ACTOR[c] })),
  'host host.approvals.decide': async (c, on) =>
    codeOf(host.approvals.decide((await pendingApproval(c, on)).id, { status: 'rejected', actor: ACTOR[c] })),
  'host host.automation.set': async (c) => codeOf(host.automation.set({}, ACTOR[c])),
  'host host.policies.createRevision': async (c) => codeOf(host.policies.createRevision('download', ACTOR[c])),
  'host host.roleOf': async (c) => host.roleOf(ACTOR[c]),
  'MCP tools/list': async (c) => {
    const tools = (await (await mcpClient(c)).listTools()).tools.map((t) => t.name);
    return tools.includes('users.export') ? 'listed' : 'hidden';
  },
  'MCP tools/call': async (c) => {
    const before = exported.length;
    const result = await (await mcpClient(c)).callTool({ name: 'users.export', arguments: {} });
    const s = result.structuredContent as { status: string; error?: { code: string } };
    if (s.status === 'succeeded') return exported.length === before + 1 ? 'ok' : 'handler not run';
    return exported.length === before ? (s.error?.code ?? s.status) : 'handler ran on a denial';
  },
};

const rows = readMatrix();

describe('the authorization matrix of docs/security.md', () => {
  it('has a check for every row and a row for every check', () => {
    const keys = new Set(rows.map((r) => `${r.surface} ${r.operation}`));
    expect([...keys].filter((k) => !CHECKS[k])).toEqual([]);
    expect(Object.keys(CHECKS).filter((k) => !keys.has(k))).toEqual([]);
    expect(rows.length * CALLERS.length).toBeGreaterThanOrEqual(100);
  });

  for (const row of rows)
    for (const caller of CALLERS)
      it(`${row.surface} ${row.operation} on ${row.on}, as ${caller}: ${row.verdicts[caller]}`, async () => {
        const check = CHECKS[`${row.surface} ${row.operation}`];
        expect(check, 'a check for this row').toBeDefined();
        expect(await check!(caller, row.on)).toBe(row.verdicts[caller]);
      });
});
