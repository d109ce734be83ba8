// The schedule routes against a real local port: the router mounted on Node's http, a host on the memory store and on
// a SQLite file, every request made with undici. Alice and Bob are ordinary users, `user:admin` the administrator.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Type from 'typebox';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, defineCapability, type AgentHost, type StorageAdapter } from '../../src/index';
import { createAgentRouter, toNodeListener, type ScheduleView } from '../../src/http';
import { SqliteStorage } from '../../src/sqlite';
import { MemoryStorage } from '../../src/storage';
import { addToLibraryScript, registerSandboxCapabilities, SandboxWorld } from '../../src/testing';

const ADMIN = 'user:admin';
const ALICE = 'user:alice';
const BOB = 'user:bob';
const TOKENS: Record<string, string> = { admin: ADMIN, alice: ALICE, bob: BOB };

interface Served {
  host: AgentHost;
  base: string;
  close(): Promise<void>;
}

const STORES: Array<[string, (dir: string) => StorageAdapter]> = [
  ['the memory store', () => new MemoryStorage()],
  ['a SQLite file', (dir) => new SqliteStorage({ path: join(dir, 'agent.sqlite') })],
];

const served: Served[] = [];
afterEach(async () => {
  for (const s of served.splice(0)) await s.close();
});

/** A host on `store` with the sandbox capabilities and one administrators-only capability, behind the router. */
async function serve(store: (dir: string) => StorageAdapter): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-http-schedules-'));
  const world = new SandboxWorld({ durations: { queuedMs: 50, downloadMs: 100, importMs: 50 } });
  const host = createAgentHost({
    storage: store(dir),
    logger: new ConsoleLogger('silent'),
    model: { provider: { provider: 'scripted', scripts: [addToLibraryScript('Arrival')] }, model: 'scripted' },
    goalFacts: world,
    identity: { roleOf: (actor) => (actor === ADMIN ? 'admin' : 'user') },
    // Nothing fires here: these tests are about the routes (the runner's own tests fire ticks).
    schedules: { enabled: false },
  });
  registerSandboxCapabilities(host, world);
  host.capabilities.register(
    defineCapability({
      id: 'server.logs',
      version: 1,
      title: 'Read the server logs',
      description: 'The last lines of the server log (administrators only).',
      kind: 'read',
      replay: 'safe',
      adminOnly: true,
      input: Type.Object({}),
      output: Type.Object({ lines: Type.Array(Type.String()) }),
      handler: async () => ({ lines: [] }),
    }),
  );
  await host.start({ workers: false });
  const router = createAgentRouter(host, {
    authenticate: (req) => TOKENS[req.headers.get('authorization')?.replace(/^Bearer /, '') ?? ''],
    consoleDir: false,
  });
  const server: Server = createServer(toNodeListener(router));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const s: Served = {
    host,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await host.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  served.push(s);
  return s;
}

type Json = Record<string, any>;
interface Answer {
  status: number;
  type: string;
  body: Json;
}

async function call(
  s: Served,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  options: { as?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const as = options.as === undefined ? 'alice' : options.as;
  const hasBody = options.body !== undefined || options.raw !== undefined;
  const res = await request(`${s.base}${path}`, {
    method,
    headers: {
      ...(as ? { authorization: `Bearer ${as}` } : {}),
      ...(hasBody ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    ...(hasBody ? { body: options.raw ?? JSON.stringify(options.body) } : {}),
  });
  const text = await res.body.text();
  return { status: res.statusCode, type: String(res.headers['content-type']), body: text ? JSON.parse(text) : {} };
}

function expectProblem(r: Answer, status: number, code: string): void {
  expect(r.type).toContain('application/problem+json');
  expect(r.body).toMatchObject({ status, code, type: `urn:media-agent:error:${code}` });
  expect(r.status).toBe(status);
}

/** Every schedule in the store, as the host itself reads them (no actor: no filter). */
const stored = (s: Served) => s.host.schedules.list({ limit: 1000 });

const nightly = {
  cron: '0 3 * * *',
  timezone: 'Europe/Berlin',
  goal: 'Check for stalled downloads and tell me what you found',
  capabilityAllowlist: ['inventory.query'],
  missed: 'catch_up_one',
};

describe.each(STORES)('the schedule routes on %s', (_name, store) => {
  it('creates, shows and lists a schedule with its next fire time', async () => {
    const s = await serve(store);
    const created = await call(s, 'POST', '/api/schedules', { body: nightly });
    expect(created.status).toBe(201);
    const schedule = created.body.schedule as ScheduleView;
    const record = await s.host.schedules.get(schedule.id);
    // The view is the stored record plus the next fire time as ISO 8601 and the last run's status.
    expect(schedule).toEqual({
      ...record,
      nextFireAt: new Date(record.nextTickAt!).toISOString(),
      lastRunStatus: null,
    });
    expect(schedule).toMatchObject({ owner: ALICE, createdBy: ALICE, clientKey: null, status: 'active', ...nightly });
    // 03:00 in Berlin: 02:00 UTC in winter, 01:00 UTC in summer.
    expect(schedule.nextFireAt).toMatch(/T0[12]:00:00\.000Z$/);
    expect(Date.parse(schedule.nextFireAt!)).toBeGreaterThan(Date.now());

    const shown = await call(s, 'GET', `/api/schedules/${schedule.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.schedule).toEqual(schedule);
    const listed = await call(s, 'GET', '/api/schedules');
    expect(listed.body.schedules).toEqual([schedule]);
    const ticks = await call(s, 'GET', `/api/schedules/${schedule.id}/ticks?limit=10`);
    expect(ticks).toMatchObject({ status: 200, body: { ticks: [] } });
  });

  it('an ordinary user sees and manages only their own; an administrator sees and manages every one', async () => {
    const s = await serve(store);
    const mine = (await call(s, 'POST', '/api/schedules', { body: nightly })).body.schedule as ScheduleView;
    const bobs = (await call(s, 'POST', '/api/schedules', { as: 'bob', body: { everyMs: 3_600_000, goal: 'Tidy' } }))
      .body.schedule as ScheduleView;
    expect(bobs.owner).toBe(BOB);

    const ids = (r: Answer) => (r.body.schedules as ScheduleView[]).map((v) => v.id);
    expect(ids(await call(s, 'GET', '/api/schedules'))).toEqual([mine.id]);
    expect(ids(await call(s, 'GET', '/api/schedules', { as: 'bob' }))).toEqual([bobs.id]);
    expect(ids(await call(s, 'GET', '/api/schedules', { as: 'admin' }))).toEqual([mine.id, bobs.id]);
    expect(ids(await call(s, 'GET', `/api/schedules?owner=${encodeURIComponent(BOB)}`, { as: 'admin' }))).toEqual([
      bobs.id,
    ]);
    // Asking for another's schedules gives nothing, not theirs.
    expect(ids(await call(s, 'GET', `/api/schedules?owner=${encodeURIComponent(BOB)}`))).toEqual([]);

    // Another's schedule answers exactly like a missing one, whatever the route, and nothing changes.
    const before = await stored(s);
    const missing = await call(s, 'GET', '/api/schedules/sch_missing');
    expectProblem(missing, 404, 'SCHEDULE_NOT_FOUND');
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['PATCH', '', { goal: 'mine now' }],
      ['DELETE', '', undefined],
      ['POST', '/pause', {}],
      ['POST', '/resume', {}],
      ['GET', '/ticks', undefined],
    ] as const) {
      const r = await call(s, method, `/api/schedules/${bobs.id}${path}`, body ? { body } : {});
      expectProblem(r, 404, 'SCHEDULE_NOT_FOUND');
      expect(Object.keys(r.body).sort()).toEqual(Object.keys(missing.body).sort());
      expect(r.body.title).toBe(missing.body.title);
    }
    expect(await stored(s)).toEqual(before);

    // An administrator reads and pauses Bob's schedule.
    expect((await call(s, 'GET', `/api/schedules/${bobs.id}`, { as: 'admin' })).body.schedule.id).toBe(bobs.id);
    const paused = await call(s, 'POST', `/api/schedules/${bobs.id}/pause`, { as: 'admin', body: {} });
    expect(paused.body.schedule).toMatchObject({ id: bobs.id, status: 'paused', nextFireAt: null, nextTickAt: null });
  });

  it('only an administrator creates a schedule for someone else', async () => {
    const s = await serve(store);
    const refused = await call(s, 'POST', '/api/schedules', { body: { ...nightly, owner: BOB } });
    expectProblem(refused, 403, 'ADMIN_FORBIDDEN');
    expect(await stored(s)).toEqual([]);
    const made = await call(s, 'POST', '/api/schedules', { as: 'admin', body: { ...nightly, owner: BOB } });
    expect(made.status).toBe(201);
    expect(made.body.schedule).toMatchObject({ owner: BOB, createdBy: ADMIN });
    expect((await call(s, 'GET', `/api/schedules/${made.body.schedule.id}`, { as: 'bob' })).status).toBe(200);
  });

  it('refuses bad input with a typed problem and stores nothing', async () => {
    const s = await serve(store);
    const cases: Array<[string, { body?: unknown; raw?: string; headers?: Record<string, string> }, number, string]> = [
      ['an unknown field', { body: { ...nightly, priority: 'high' } }, 422, 'SCHEDULE_INVALID'],
      ['a client key in the body', { body: { ...nightly, clientKey: 'k' } }, 422, 'SCHEDULE_INVALID'],
      ['no goal', { body: { cron: '0 3 * * *' } }, 422, 'SCHEDULE_INVALID'],
      ['both timings', { body: { ...nightly, everyMs: 3_600_000 } }, 422, 'SCHEDULE_INVALID'],
      ['an invalid cron expression', { body: { ...nightly, cron: '61 3 * * *' } }, 422, 'SCHEDULE_INVALID'],
      ['an unknown time zone', { body: { ...nightly, timezone: 'Mars/Olympus' } }, 422, 'SCHEDULE_INVALID'],
      ['an interval below the minimum', { body: { everyMs: 1_000, goal: 'too often' } }, 422, 'SCHEDULE_INVALID'],
      ['an empty Idempotency-Key', { body: nightly, headers: { 'idempotency-key': ' ' } }, 422, 'SCHEDULE_INVALID'],
      [
        'a capability the owner may not call',
        { body: { ...nightly, capabilityAllowlist: ['server.logs'] } },
        403,
        'SCHEDULE_CAPABILITY_FORBIDDEN',
      ],
      ['a body that is not JSON', { raw: '{"cron":' }, 400, 'HTTP_BODY_INVALID'],
      [
        'a body not declared JSON',
        { raw: JSON.stringify(nightly), headers: { 'content-type': 'text/plain' } },
        415,
        'HTTP_CONTENT_TYPE_UNSUPPORTED',
      ],
    ];
    for (const [name, options, status, code] of cases) {
      const r = await call(s, 'POST', '/api/schedules', options);
      expect([name, r.status, r.body.code]).toEqual([name, status, code]);
      expectProblem(r, status, code);
      expect(await stored(s), name).toEqual([]);
    }
    const unknown = await call(s, 'POST', '/api/schedules', { body: { ...nightly, priority: 'high' } });
    expect(unknown.body.details.unknownFields).toEqual(['priority']);

    expectProblem(await call(s, 'GET', '/api/schedules', { as: null }), 401, 'HTTP_UNAUTHENTICATED');
    expectProblem(await call(s, 'GET', '/api/schedules?status=sleeping'), 400, 'HTTP_QUERY_INVALID');
    expectProblem(await call(s, 'GET', '/api/schedules?limit=0'), 400, 'HTTP_QUERY_INVALID');
    expect(await stored(s)).toEqual([]);
  });

  it('replays a create with the same Idempotency-Key and refuses the key for another definition', async () => {
    const s = await serve(store);
    const key = { 'idempotency-key': 'nightly-stalled-8e03978e' };
    const first = await call(s, 'POST', '/api/schedules', { body: nightly, headers: key });
    expect(first.status).toBe(201);
    expect(first.body.schedule.clientKey).toBe('nightly-stalled-8e03978e');
    const again = await call(s, 'POST', '/api/schedules', { body: nightly, headers: key });
    expect(again.status).toBe(201);
    expect(again.body.schedule).toEqual(first.body.schedule);
    expect((await stored(s)).map((r) => r.id)).toEqual([first.body.schedule.id]);

    const other = await call(s, 'POST', '/api/schedules', { body: { ...nightly, cron: '0 4 * * *' }, headers: key });
    expectProblem(other, 409, 'SCHEDULE_KEY_REUSED');
    expect(await stored(s)).toEqual([await s.host.schedules.get(first.body.schedule.id)]);
    expect((await stored(s))[0]).toMatchObject({ cron: '0 3 * * *', revision: first.body.schedule.revision });

    // The key is the owner's: Bob's same key is another schedule.
    const bobs = await call(s, 'POST', '/api/schedules', { as: 'bob', body: nightly, headers: key });
    expect(bobs.status).toBe(201);
    expect(bobs.body.schedule.id).not.toBe(first.body.schedule.id);
    expect(await stored(s)).toHaveLength(2);
  });

  it('changes, pauses, resumes and deletes a schedule', async () => {
    const s = await serve(store);
    const created = (await call(s, 'POST', '/api/schedules', { body: nightly })).body.schedule as ScheduleView;
    const path = `/api/schedules/${created.id}`;

    const changed = await call(s, 'PATCH', path, {
      body: { goal: 'Check stalled downloads twice', everyMs: 7_200_000 },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.schedule).toMatchObject({
      goal: 'Check stalled downloads twice',
      cron: null,
      everyMs: 7_200_000,
      revision: created.revision + 1,
    });
    expect(changed.body.schedule.nextFireAt).toBe(new Date(changed.body.schedule.nextTickAt).toISOString());
    for (const [body, code] of [
      [{}, 'SCHEDULE_INVALID'],
      [{ owner: BOB }, 'SCHEDULE_INVALID'],
      [{ timezone: 'Nowhere/Never' }, 'SCHEDULE_INVALID'],
      [{ capabilityAllowlist: ['server.logs'] }, 'SCHEDULE_CAPABILITY_FORBIDDEN'],
    ] as const) {
      const r = await call(s, 'PATCH', path, { body });
      expect(r.body.code).toBe(code);
    }
    expect(await s.host.schedules.get(created.id)).toMatchObject({ revision: created.revision + 1 });

    // Pause and resume: a body declared JSON (empty or {}), idempotent.
    expectProblem(
      await call(s, 'POST', `${path}/pause`, { raw: '', headers: { 'content-type': 'text/plain' } }),
      415,
      'HTTP_CONTENT_TYPE_UNSUPPORTED',
    );
    expectProblem(await call(s, 'POST', `${path}/pause`, { body: { reason: 'x' } }), 400, 'HTTP_BODY_INVALID');
    const paused = await call(s, 'POST', `${path}/pause`, { raw: '' });
    expect(paused.body.schedule).toMatchObject({ status: 'paused', nextTickAt: null, nextFireAt: null });
    expect((await call(s, 'POST', `${path}/pause`, { body: {} })).body.schedule.status).toBe('paused');
    expect((await call(s, 'GET', '/api/schedules?status=paused')).body.schedules).toHaveLength(1);
    expect((await call(s, 'GET', '/api/schedules?status=active')).body.schedules).toHaveLength(0);
    const resumed = await call(s, 'POST', `${path}/resume`, { body: {} });
    expect(resumed.body.schedule.status).toBe('active');
    expect(Date.parse(resumed.body.schedule.nextFireAt)).toBe(resumed.body.schedule.nextTickAt);

    const deleted = await call(s, 'DELETE', path);
    expect(deleted).toMatchObject({ status: 200, body: { deleted: created.id } });
    expectProblem(await call(s, 'GET', path), 404, 'SCHEDULE_NOT_FOUND');
    expectProblem(await call(s, 'DELETE', path), 404, 'SCHEDULE_NOT_FOUND');
    expect(await stored(s)).toEqual([]);
  });
});
