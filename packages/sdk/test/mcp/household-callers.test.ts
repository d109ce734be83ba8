// A household's callers over real connections: MCP over Streamable HTTP (the official SDK's client, a real local
// port) and the HTTP router (undici, another real port), one host on a SQLite file. Tool lists follow the
// caller's role; idempotency keys of two callers never meet, whatever `:` their ids and keys hold.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Type from 'typebox';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, defineCapability, type AgentHost } from '../../src/index';
import { createAgentRouter, toNodeListener, type AgentRouter } from '../../src/http';
import { createMcpHttpHandler, type McpHttpHandler } from '../../src/mcp';
import { SqliteStorage } from '../../src/sqlite';

/** Bearer token → actor: the host's own session table. */
const TOKENS: Record<string, string> = {
  admin: 'user:admin',
  kid: 'user:kid',
  // An API key the resolver answers "admin" for: only a person can be an administrator.
  root: 'apikey:root',
  home: 'apikey:home',
  'home-kids': 'apikey:home:kids',
  long: `apikey:${'l'.repeat(190)}`,
};
const actorOf = (authorization: string | undefined) => TOKENS[authorization?.replace(/^Bearer /, '') ?? ''];

type Structured = {
  status: string;
  output?: Record<string, unknown>;
  error?: { code: string };
  approval?: unknown;
  idempotencyKey?: string;
  invocationId: string;
  replayed?: boolean;
};

describe('a household over MCP and HTTP', () => {
  let dir: string;
  let host: AgentHost;
  let mcp: McpHttpHandler;
  let router: AgentRouter;
  let mcpServer: HttpServer;
  let httpServer: HttpServer;
  let mcpUrl: URL;
  let base: string;
  const admins = new Set(['user:admin', 'apikey:root']);
  const clients: Client[] = [];
  const exported: string[] = [];
  /** Each handler invocation of the side-effecting capability: who, with which task. */
  const sent: Array<{ actor: string; taskId: string | undefined }> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'media-agent-household-'));
    host = createAgentHost({
      storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
      logger: new ConsoleLogger('silent'),
      identity: { roleOf: (actor: string) => (admins.has(actor) ? 'admin' : 'user') },
    });
    host.capabilities.register(
      defineCapability({
        id: 'users.export',
        version: 1,
        title: 'Export users',
        description: "Exports every household member's account.",
        kind: 'read',
        replay: 'safe',
        adminOnly: true,
        input: Type.Object({}),
        output: Type.Object({ users: Type.Array(Type.String()) }),
        handler: async (_input, ctx) => {
          exported.push(ctx.actor);
          return { users: ['admin', 'kid'] };
        },
      }),
    );
    host.capabilities.register(
      defineCapability({
        id: 'users.reset',
        version: 1,
        title: 'Reset a password',
        description: "Resets a member's password.",
        kind: 'execute',
        replay: 'never',
        adminOnly: true,
        input: Type.Object({ user: Type.String() }),
        output: Type.Object({}),
        handler: async () => ({}),
      }),
    );
    host.capabilities.register(
      defineCapability({
        id: 'probe.echo',
        version: 1,
        title: 'Echo',
        description: 'Returns its text.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({ text: Type.String() }),
        output: Type.Object({ text: Type.String() }),
        handler: async (input) => ({ text: input.text }),
      }),
    );
    // A side effect: every handler invocation is one message sent, and its output names who sent it.
    host.capabilities.register(
      defineCapability({
        id: 'notify.send',
        version: 1,
        title: 'Send a notification',
        description: 'Sends a notification to the household.',
        kind: 'execute',
        replay: 'never',
        input: Type.Object({ text: Type.String() }),
        output: Type.Object({ sentBy: Type.String(), n: Type.Integer() }),
        handler: async (_input, ctx) => {
          sent.push({ actor: ctx.actor, taskId: ctx.taskId });
          return { sentBy: ctx.actor, n: sent.length };
        },
      }),
    );
    await host.start({ workers: false });
    await host.grants.create({ action: 'notify.send', actor: 'user:admin' });

    mcp = createMcpHttpHandler(host, {
      authenticate: ({ headers }) => actorOf(headers?.authorization as string) as never,
    });
    mcpServer = createServer((req, res) => {
      if (req.url === '/mcp') void mcp.handle(req, res);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => mcpServer.listen(0, '127.0.0.1', resolve));
    mcpUrl = new URL(`http://127.0.0.1:${(mcpServer.address() as AddressInfo).port}/mcp`);

    router = createAgentRouter(host, {
      authenticate: (req) => actorOf(req.headers.get('authorization') ?? undefined),
      consoleDir: false,
    });
    httpServer = createServer(toNodeListener(router));
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await mcp?.close();
    router?.closeStreams();
    for (const s of [mcpServer, httpServer]) {
      s?.closeAllConnections();
      await new Promise((resolve) => s?.close(resolve));
    }
    await host?.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  async function connect(token: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(mcpUrl, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: `household-${token}`, version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  async function call(client: Client, name: string, args: Record<string, unknown>, key?: string) {
    const result = await client.callTool({
      name,
      arguments: args,
      ...(key ? { _meta: { 'media-agent/idempotency-key': key } } : {}),
    });
    return { isError: result.isError === true, s: result.structuredContent as Structured };
  }
  const toolNames = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();
  async function consoleList(token: string): Promise<{ status: number; ids: string[]; body: any }> {
    const res = await request(`${base}/api/capabilities`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.body.json()) as any;
    return { status: res.statusCode, ids: (body.capabilities ?? []).map((c: { id: string }) => c.id).sort(), body };
  }
  function ledgerRows(capabilityId: string): Array<{ actor: string; scope_id: string; call_id: string }> {
    const db = new Database(join(dir, 'agent.sqlite'), { readonly: true });
    try {
      return db
        .prepare('SELECT actor, scope_id, call_id FROM ledger WHERE capability_id = ? ORDER BY claimed_at, key')
        .all(capabilityId) as Array<{ actor: string; scope_id: string; call_id: string }>;
    } finally {
      db.close();
    }
  }

  // masumi-network/Citadel#33: an MCP gateway advertised admin-only tools to writer seats and refused them with
  // 403 at call time. Before: every caller listed users.export and users.reset. After: only the administrator.
  it('tools/list shows each caller only what their role may call (masumi-network/Citadel#33)', async () => {
    const everything = ['notify.send', 'probe.echo', 'users.export', 'users.reset'];
    const ordinary = ['notify.send', 'probe.echo'];
    expect(await toolNames(await connect('admin'))).toEqual(everything);
    expect(await toolNames(await connect('kid'))).toEqual(ordinary);
    // An API key is never an administrator, whatever the resolver answers for it.
    expect(await toolNames(await connect('root'))).toEqual(ordinary);
  });

  // speakeasy-api/gram#2464: tools/list was not filtered while tools/call enforced the role. Here both read one
  // role: an unlisted tool called anyway is a typed, audited denial; nothing runs and no approval is asked.
  it('an unlisted admin-only tool called anyway is denied AUTH_ADMIN_ONLY, audited, nothing run (speakeasy-api/gram#2464)', async () => {
    const kid = await connect('kid');
    exported.length = 0;
    const denied = await call(kid, 'users.export', {});
    expect(denied.isError).toBe(true);
    expect(denied.s).toMatchObject({ status: 'denied', error: { code: 'AUTH_ADMIN_ONLY' } });
    const reset = await call(kid, 'users.reset', { user: 'admin' });
    expect(reset.s).toMatchObject({ status: 'denied', error: { code: 'AUTH_ADMIN_ONLY' } });
    expect(reset.s.approval).toBeUndefined();
    expect(exported).toEqual([]);
    const audit = await host.audit({ invocationId: denied.s.invocationId });
    expect(audit.map((a) => [a.actor, a.capabilityId])).toEqual([['user:kid', 'users.export']]);
    expect(await host.approvals.list()).toEqual([]);
    const admin = await call(await connect('admin'), 'users.export', {});
    expect(admin.s).toMatchObject({ status: 'succeeded', output: { users: ['admin', 'kid'] } });
    expect(exported).toEqual(['user:admin']);
  });

  it('the role is asked at every listing: a demoted administrator no longer lists admin-only tools', async () => {
    const client = await connect('admin');
    expect(await toolNames(client)).toContain('users.export');
    admins.delete('user:admin');
    try {
      expect(await toolNames(client)).toEqual(['notify.send', 'probe.echo']);
      expect((await consoleList('admin')).ids).toEqual(['notify.send', 'probe.echo']);
    } finally {
      admins.add('user:admin');
    }
    expect(await toolNames(client)).toContain('users.export');
  });

  it("the console's capability list (GET /api/capabilities) follows the caller's role the same way", async () => {
    const admin = await consoleList('admin');
    expect(admin.status).toBe(200);
    expect(admin.ids).toEqual(['notify.send', 'probe.echo', 'users.export', 'users.reset']);
    expect(admin.body.capabilities.find((c: { id: string }) => c.id === 'users.export')).toEqual({
      id: 'users.export',
      version: 1,
      title: 'Export users',
      description: "Exports every household member's account.",
      kind: 'read',
      adminOnly: true,
    });
    for (const token of ['kid', 'root', 'home'])
      expect((await consoleList(token)).ids).toEqual(['notify.send', 'probe.echo']);
    const anonymous = await request(`${base}/api/capabilities`);
    expect(anonymous.statusCode).toBe(401);
    expect((await anonymous.body.json()) as object).toMatchObject({ code: 'HTTP_UNAUTHENTICATED' });
  });

  // supermemoryai/supermemory#1679: `${tag}:${thread}` gave (user:123, 456) and (user, 123:456) one cache key.
  // Before: the scope `mcp:${actor}:${key}` was `mcp:apikey:home:kids:1` for both callers below, so the second
  // got the first one's recorded result (replayed) and its own notification was never sent.
  it('two callers whose actor and key join to the same text both execute; neither gets the other’s result (supermemoryai/supermemory#1679)', async () => {
    sent.length = 0;
    const home = await connect('home');
    const kids = await connect('home-kids');
    const a = await call(home, 'notify.send', { text: 'dinner' }, 'kids:1');
    const b = await call(kids, 'notify.send', { text: 'dinner' }, '1');
    expect(a.s).toMatchObject({ status: 'succeeded', output: { sentBy: 'apikey:home', n: 1 } });
    expect(b.s).toMatchObject({ status: 'succeeded', output: { sentBy: 'apikey:home:kids', n: 2 } });
    expect(a.s.replayed).toBeUndefined();
    expect(b.s.replayed).toBeUndefined();
    expect(a.s.idempotencyKey).not.toBe(b.s.idempotencyKey);
    expect(sent.map((s) => s.actor)).toEqual(['apikey:home', 'apikey:home:kids']); // two handler invocations
    expect(sent.map((s) => s.taskId)).toEqual(['3:mcp,11:apikey:home,6:kids:1,', '3:mcp,16:apikey:home:kids,1:1,']);
    const rows = ledgerRows('notify.send');
    expect(rows).toEqual([
      { actor: 'apikey:home', scope_id: '3:mcp,11:apikey:home,6:kids:1,', call_id: 'kids:1' },
      { actor: 'apikey:home:kids', scope_id: '3:mcp,16:apikey:home:kids,1:1,', call_id: '1' },
    ]); // two ledger records
    // Each caller's retry still finds its own recorded result, and only its own.
    const againA = await call(home, 'notify.send', { text: 'dinner' }, 'kids:1');
    const againB = await call(kids, 'notify.send', { text: 'dinner' }, '1');
    expect(againA.s).toMatchObject({ replayed: true, output: { sentBy: 'apikey:home', n: 1 } });
    expect(againB.s).toMatchObject({ replayed: true, output: { sentBy: 'apikey:home:kids', n: 2 } });
    expect(sent).toHaveLength(2);
  });

  it('a long actor with a long key still gets its own retry scope (hashed past the 200-character task id)', async () => {
    sent.length = 0;
    const client = await connect('long');
    const key = `k:${'1'.repeat(126)}`;
    const first = await call(client, 'notify.send', { text: 'long' }, key);
    const retry = await call(client, 'notify.send', { text: 'long' }, key);
    expect(first.s).toMatchObject({ status: 'succeeded', output: { n: 1 } });
    expect(retry.s).toMatchObject({ status: 'succeeded', replayed: true, output: { n: 1 } });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.taskId).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('a call recorded before the upgrade under the old scope is found by the same caller’s retry, never by another caller', async () => {
    sent.length = 0;
    // What the server did before: task `mcp:<actor>:<key>`, call id `<key>`.
    const before = await host.invoke(
      'notify.send',
      { text: 'old' },
      { actor: 'apikey:home', taskId: 'mcp:apikey:home:kids:7', callId: 'kids:7' },
    );
    expect(before.status).toBe('succeeded');
    expect(sent).toHaveLength(1);
    // The caller whose old scope text is the same, with its own key: a new intent, executed.
    const other = await call(await connect('home-kids'), 'notify.send', { text: 'old' }, '7');
    expect(other.s).toMatchObject({ status: 'succeeded', output: { sentBy: 'apikey:home:kids', n: 2 } });
    expect(other.s.replayed).toBeUndefined();
    // The caller that made it retries after the upgrade: the recorded result, no second notification.
    const retry = await call(await connect('home'), 'notify.send', { text: 'old' }, 'kids:7');
    expect(retry.s).toMatchObject({ status: 'succeeded', replayed: true, output: { sentBy: 'apikey:home', n: 1 } });
    expect(retry.s.idempotencyKey).toBe(before.idempotencyKey);
    expect(sent.map((s) => s.actor)).toEqual(['apikey:home', 'apikey:home:kids']);
  });
});
