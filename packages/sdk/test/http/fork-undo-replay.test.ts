// The fork, undo and replay routes against a real local port: the router on Node's http, a host on a SQLite file with the sandbox world
// and the scripted model driving real runs; every request made with undici. Each route answers as the caller (another
// person's run is 404 like a missing one), every refusal is a problem response with its stable code and writes
// nothing, an undo of the last turn leaves a fork that waits for the person while the original stays readable, and a
// replay reports on a stored run without a model call, a handler call or a write.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { seedPruneStore } from '../../../../bench/_prune-fixture';
import { createAgentRouter, toNodeListener, type AgentRouterOptions } from '../../src/http';
import { ConsoleLogger, createAgentHost, ManualClock, type AgentHost, type RunEvent } from '../../src/index';
import { createSqliteStorage, SqliteStorage } from '../../src/sqlite';
import { registerSandboxCapabilities, SandboxWorld, type FakeScript } from '../../src/testing';

const ALICE = 'user:alice';
const BOB = 'user:bob';
const ADMIN = 'user:admin';
const TOKENS: Record<string, string> = { alice: ALICE, bob: BOB, admin: ADMIN };
const authenticate: AgentRouterOptions['authenticate'] = (req) =>
  TOKENS[req.headers.get('authorization')?.replace(/^Bearer /, '') ?? ''];
/** Only `user:admin` administers; Alice and Bob are ordinary users who see only their own runs. */
const identity = { roleOf: (actor: string) => (actor === ADMIN ? ('admin' as const) : ('user' as const)) };

/** A delegating run (its subagent is a run of depth 1), and a conversation: each message gets one answer in words. */
const SCRIPTS: FakeScript[] = [
  {
    name: 'parent',
    match: 'find out',
    steps: [{ toolCalls: [{ capability: 'delegate', input: { goal: 'investigate whether Dune is downloadable' } }] }],
    finalText: 'The subagent reported back.',
  },
  {
    name: 'child',
    match: 'investigate',
    steps: [{ toolCalls: [{ capability: 'inventory.query', input: { query: 'Dune' } }] }],
    finalText: 'Dune is not in the library.',
  },
  { name: 'chat', match: { regex: '\\S' }, finalText: (ctx) => `You said: ${ctx.lastUserMessage}` },
];
const SETTLED = ['succeeded', 'waiting', 'failed', 'cancelled', 'budget_exceeded'];

type Json = Record<string, any>;
interface Served {
  host: AgentHost;
  dir: string;
  call(
    as: string | null,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<{ status: number; type: string; body: Json }>;
  close(): Promise<void>;
}

const open: Served[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of open.splice(0).reverse()) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Serves a host over HTTP on a SQLite file in `dir` (a new temp folder unless given); `workers: false` drives nothing. */
async function serve(options: { dir?: string; workers?: boolean; host?: AgentHost } = {}): Promise<Served> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'media-agent-http-forks-'));
  if (!options.dir) dirs.push(dir);
  let host = options.host;
  if (!host) {
    const world = new SandboxWorld({ durations: { queuedMs: 50, downloadMs: 100, importMs: 50 } });
    host = createAgentHost({
      storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
      logger: new ConsoleLogger('silent'),
      model: { provider: { provider: 'scripted', scripts: SCRIPTS }, model: 'scripted' },
      goalFacts: world,
      identity,
      runs: { goalPollSec: 1, pollMs: 20, budgets: { maxToolCalls: 30 } },
    });
    registerSandboxCapabilities(host, world);
    await host.start({ workers: options.workers ?? true });
  }
  const router = createAgentRouter(host, { authenticate, consoleDir: false });
  const server: Server = createServer(toNodeListener(router));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const token = Object.fromEntries(Object.entries(TOKENS).map(([t, a]) => [a, t]));
  const served: Served = {
    host,
    dir,
    async call(as, method, path, body, contentType = 'application/json') {
      const res = await request(`${base}${path}`, {
        method,
        headers: {
          ...(as ? { authorization: `Bearer ${token[as] ?? as}` } : {}),
          ...(body !== undefined ? { 'content-type': contentType } : {}),
        },
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      const text = await res.body.text();
      return { status: res.statusCode, type: String(res.headers['content-type']), body: text ? JSON.parse(text) : {} };
    },
    async close() {
      router.closeStreams();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await host.stop().catch(() => undefined);
    },
  };
  open.push(served);
  return served;
}

function expectProblem(r: { status: number; type: string; body: Json }, status: number, code: string) {
  expect(r.type).toContain('application/problem+json');
  expect(r.body).toMatchObject({ status, code, type: `urn:media-agent:error:${code}` });
  expect(r.status).toBe(status);
}

/** Every stored event of a run, oldest first. */
async function eventsOf(host: AgentHost, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for (;;) {
    const page = await host.getRun(runId, { afterSeq: events.at(-1)?.seq ?? 0, limit: 1000 });
    events.push(...page.events);
    if (page.events.length < 1000) return events;
  }
}

/** Waits (polling storage) until `check` holds for the run's record and events. */
async function until(
  host: AgentHost,
  runId: string,
  check: (run: Json, events: RunEvent[]) => boolean,
  what: string,
): Promise<RunEvent[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { run } = await host.getRun(runId, { limit: 1 });
    const events = await eventsOf(host, runId);
    if (check(run, events)) return events;
    if (Date.now() > deadline) throw new Error(`run ${runId} (${run.status}): timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The run's model text (its text deltas joined). */
const textOf = (events: RunEvent[]) =>
  events
    .filter((e) => e.type === 'text_delta')
    .map((e) => (e.data as { text: string }).text)
    .join('');

/** A settled run: not driven, its last event a status it rests in. */
const rests = (run: Json, events: RunEvent[]) =>
  SETTLED.includes(run.status) &&
  events.at(-1)?.type === 'run_status' &&
  SETTLED.includes((events.at(-1)!.data as { status: string }).status);

/** Alice's conversation through the API: a goal answered, then (unless `message` is null) one message answered. */
async function conversation(s: Served, message: string | null = 'please answer in French') {
  const started = await s.call(ALICE, 'POST', '/api/runs', { goal: 'hello there' });
  expect(started.status).toBe(201);
  const runId = started.body.run.id as string;
  await until(s.host, runId, (run, events) => rests(run, events) && textOf(events).includes('hello there'), 'answer');
  if (message !== null) {
    expect((await s.call(ALICE, 'POST', `/api/runs/${runId}/messages`, { text: message })).status).toBe(202);
    await until(
      s.host,
      runId,
      (run, events) => rests(run, events) && textOf(events).includes(`You said: ${message}`),
      'the answer to the message',
    );
  }
  return runId;
}

/** What storage holds, to show that a refused request wrote nothing. */
async function snapshot(host: AgentHost) {
  const runs = await host.listRuns({ limit: 1000 });
  return {
    runs: runs.map((r) => `${r.id}:${r.status}:${r.updatedAt}`),
    events: await eventCount(host),
  };
}

/** How many events the store holds (paging through the global stream). */
async function eventCount(host: AgentHost): Promise<number> {
  let after = 0;
  let count = 0;
  for (;;) {
    const page = await host.listEvents({ after, limit: 1000 });
    count += page.length;
    if (page.length < 1000) return count;
    after = page.at(-1)!.globalSeq;
  }
}

describe('GET /api/runs/:id/fork-points and POST /api/runs/:id/fork', () => {
  it('lists a run’s fork points and forks it from one, as the caller; another person’s run is 404 like a missing one', async () => {
    const s = await serve();
    const runId = await conversation(s);
    const listed = await s.call(ALICE, 'GET', `/api/runs/${runId}/fork-points`);
    expect(listed.status).toBe(200);
    const points = listed.body.forkPoints as Array<{ seq: number; at: number; messageCount: number; label: string }>;
    // Two model turns (the goal's answer, the message's answer): at least one boundary each, oldest first.
    expect(points.length).toBeGreaterThanOrEqual(2);
    for (const p of points) {
      expect(p).toMatchObject({ seq: expect.any(Number), at: expect.any(Number), messageCount: expect.any(Number) });
      expect(p.label).toEqual(expect.any(String));
    }
    expect(points.map((p) => p.seq)).toEqual([...points.map((p) => p.seq)].sort((a, b) => a - b));
    // The administrator reads the same list; Bob and a stranger's guess get the same 404; no session gets 401.
    expect((await s.call(ADMIN, 'GET', `/api/runs/${runId}/fork-points`)).body).toEqual(listed.body);
    const hidden = await s.call(BOB, 'GET', `/api/runs/${runId}/fork-points`);
    expectProblem(hidden, 404, 'RUN_NOT_FOUND');
    expectProblem(await s.call(ALICE, 'GET', '/api/runs/run_nope/fork-points'), 404, 'RUN_NOT_FOUND');
    expectProblem(await s.call(null, 'GET', `/api/runs/${runId}/fork-points`), 401, 'HTTP_UNAUTHENTICATED');

    // Bob may not fork Alice's run: 404, nothing written.
    const before = await snapshot(s.host);
    expectProblem(
      await s.call(BOB, 'POST', `/api/runs/${runId}/fork`, { atSeq: points[0]!.seq }),
      404,
      'RUN_NOT_FOUND',
    );
    expect(await snapshot(s.host)).toEqual(before);

    // Alice forks from her first boundary with another model id: 201, a new run of hers that records its lineage.
    const at = points[0]!.seq;
    const forked = await s.call(ALICE, 'POST', `/api/runs/${runId}/fork`, { atSeq: at, model: 'scripted-b' });
    expect(forked.status).toBe(201);
    const fork = forked.body.run;
    expect(fork).toMatchObject({ startedBy: ALICE, goal: 'hello there', forkedFrom: { runId, atSeq: at } });
    expect(fork.id).not.toBe(runId);
    const read = await s.call(ALICE, 'GET', `/api/runs/${fork.id}?limit=1`);
    expect(read.body.events[0]).toMatchObject({
      seq: 1,
      type: 'forked',
      data: { fromRunId: runId, atSeq: at, model: 'scripted-b' },
    });
    // The original is untouched and still Alice's to read; Bob cannot read the fork either.
    expect((await s.call(ALICE, 'GET', `/api/runs/${runId}?limit=1`)).body.run.forkedFrom).toBeUndefined();
    expectProblem(await s.call(BOB, 'GET', `/api/runs/${fork.id}/fork-points`), 404, 'RUN_NOT_FOUND');
  });

  it('refuses a point that is not a step boundary (422 naming the nearest ones), bad options and bodies, writing nothing', async () => {
    const s = await serve();
    const runId = await conversation(s);
    const points = (await s.call(ALICE, 'GET', `/api/runs/${runId}/fork-points`)).body.forkPoints as Array<{
      seq: number;
    }>;
    const seqs = points.map((p) => p.seq);
    const last = (await eventsOf(s.host, runId)).at(-1)!.seq;
    const before = await snapshot(s.host);

    // A sequence number inside a step: the nearest boundaries before and after it are named.
    const inside = [...Array(last).keys()].map((i) => i + 1).find((q) => !seqs.includes(q) && q > seqs[0]!)!;
    expect(inside).toBeDefined();
    const mid = await s.call(ALICE, 'POST', `/api/runs/${runId}/fork`, { atSeq: inside });
    expectProblem(mid, 422, 'FORK_POINT_INVALID');
    expect(mid.body.details).toMatchObject({
      runId,
      atSeq: inside,
      before: Math.max(...seqs.filter((q) => q < inside)),
      after: seqs.find((q) => q > inside) ?? null,
    });
    // Beyond the end, and below 1.
    const beyond = await s.call(ALICE, 'POST', `/api/runs/${runId}/fork`, { atSeq: last + 100 });
    expectProblem(beyond, 422, 'FORK_POINT_INVALID');
    expect(beyond.body.details).toMatchObject({ before: seqs.at(-1), after: null });
    const zero = await s.call(ALICE, 'POST', `/api/runs/${runId}/fork`, { atSeq: 0 });
    expectProblem(zero, 422, 'FORK_POINT_INVALID');
    expect(zero.body.details).toMatchObject({ before: null, after: seqs[0] });

    // Options the host refuses: an empty or over-long model id, an empty goal.
    for (const body of [
      { atSeq: seqs[0], model: '' },
      { atSeq: seqs[0], model: 'm'.repeat(201) },
      { atSeq: seqs[0], goal: '' },
    ])
      expectProblem(await s.call(ALICE, 'POST', `/api/runs/${runId}/fork`, body), 422, 'RUN_REQUEST_INVALID');

    // Bodies of another shape never reach the host.
    for (const body of [
      {},
      { atSeq: String(seqs[0]) },
      { atSeq: 1.5 },
      { atSeq: seqs[0], model: 7 },
      { atSeq: seqs[0], goal: null },
      { atSeq: seqs[0], actor: BOB },
      [seqs[0]],
    ]) {
      const bad = await s.call(ALICE, 'POST', `/api/runs/${runId}/fork`, body);
      expectProblem(bad, 400, 'HTTP_BODY_INVALID');
    }
    expectProblem(await s.call(ALICE, 'POST', `/api/runs/${runId}/fork`, '{"atSeq":'), 400, 'HTTP_BODY_INVALID');
    expectProblem(
      await s.call(ALICE, 'POST', `/api/runs/${runId}/fork`, JSON.stringify({ atSeq: seqs[0] }), 'text/plain'),
      415,
      'HTTP_CONTENT_TYPE_UNSUPPORTED',
    );
    expect(await snapshot(s.host)).toEqual(before);
  });
});

describe('POST /api/runs/:id/undo', () => {
  it('undoes the last turn: the fork waits with the message back, the original stays readable, the fork continues', async () => {
    const s = await serve();
    const message = 'please answer in French';
    const runId = await conversation(s, message);
    const original = (await s.host.getRun(runId, { limit: 1 })).run;

    expectProblem(await s.call(BOB, 'POST', `/api/runs/${runId}/undo`, {}), 404, 'RUN_NOT_FOUND');
    expectProblem(await s.call(ALICE, 'POST', `/api/runs/${runId}/undo`, { actor: BOB }), 400, 'HTTP_BODY_INVALID');
    expectProblem(
      await s.call(ALICE, 'POST', `/api/runs/${runId}/undo`, '{}', 'text/plain'),
      415,
      'HTTP_CONTENT_TYPE_UNSUPPORTED',
    );

    // An empty JSON body is enough (like abort).
    const undone = await s.call(ALICE, 'POST', `/api/runs/${runId}/undo`, '');
    expect(undone.status).toBe(201);
    const { run: fork, forkedAt, undoneMessage, originalCancelled } = undone.body;
    expect(undoneMessage).toMatchObject({ text: message, inboxId: expect.any(String) });
    expect(fork).toMatchObject({ status: 'waiting', startedBy: ALICE, forkedFrom: { runId, atSeq: forkedAt } });
    // The original had ended: nothing to cancel; it is exactly as it was, and readable.
    expect(originalCancelled).toBe(false);
    const kept = await s.call(ALICE, 'GET', `/api/runs/${runId}?limit=1000`);
    expect(kept.status).toBe(200);
    expect(kept.body.run).toMatchObject({ status: original.status, updatedAt: original.updatedAt });
    expect(textOf(kept.body.events as RunEvent[])).toContain(`You said: ${message}`);
    // The fork point is a boundary of the original, before the message was answered.
    const points = (await s.call(ALICE, 'GET', `/api/runs/${runId}/fork-points`)).body.forkPoints as Array<{
      seq: number;
    }>;
    expect(points.map((p) => p.seq)).toContain(forkedAt);
    const forkEvents = await eventsOf(s.host, fork.id);
    expect(forkEvents[0]).toMatchObject({ type: 'forked', data: { fromRunId: runId, atSeq: forkedAt, undo: true } });

    // The fork holds the goal and its answer only: there is no turn of the person left to undo.
    expectProblem(await s.call(ALICE, 'POST', `/api/runs/${fork.id}/undo`, {}), 409, 'UNDO_NO_TURN');

    // The person sends the message again (edited) in the fork: the conversation continues there.
    expect(
      (await s.call(ALICE, 'POST', `/api/runs/${fork.id}/messages`, { text: 'please answer in German' })).status,
    ).toBe(202);
    const continued = await until(
      s.host,
      fork.id,
      (run, events) => rests(run, events) && textOf(events).includes('You said: please answer in German'),
      'the fork’s answer',
    );
    expect(textOf(continued)).not.toContain(message);
  });

  it('refuses a run with no turn to undo, a run that is not a conversation and a subagent’s run (409), writing nothing', async () => {
    const s = await serve();
    const quiet = await conversation(s, null);
    const background = await s.host.startRun({ goal: 'hello in the background', actor: ALICE, origin: 'background' });
    await until(s.host, background.id, rests, 'the background run to end');
    const parent = await s.host.startRun({ goal: 'find out about Dune', actor: ADMIN });
    await until(s.host, parent.id, rests, 'the delegating run to end');
    const child = (await s.host.listRuns({ limit: 1000 })).find((r) => r.parentRunId === parent.id)!;
    expect(child.depth).toBe(1);
    await until(s.host, child.id, rests, 'the subagent to end');
    // Its fork points are refused like a fork of it; the fork below names its first event (a boundary or not, the
    // subagent rule comes first).
    expectProblem(await s.call(ADMIN, 'GET', `/api/runs/${child.id}/fork-points`), 409, 'FORK_SUBAGENT_RUN');

    const before = await snapshot(s.host);
    expectProblem(await s.call(ALICE, 'POST', `/api/runs/${quiet}/undo`, {}), 409, 'UNDO_NO_TURN');
    expectProblem(await s.call(ALICE, 'POST', `/api/runs/${background.id}/undo`, {}), 409, 'UNDO_NOT_INTERACTIVE');
    expectProblem(await s.call(ADMIN, 'POST', `/api/runs/${child.id}/undo`, {}), 409, 'FORK_SUBAGENT_RUN');
    expectProblem(await s.call(ADMIN, 'POST', `/api/runs/${child.id}/fork`, { atSeq: 1 }), 409, 'FORK_SUBAGENT_RUN');
    expect(await snapshot(s.host)).toEqual(before);
  });

  it('refuses while the person’s latest message is still queued (409 UNDO_MESSAGE_PENDING), writing nothing', async () => {
    const first = await serve();
    const runId = await conversation(first);
    await first.close();
    open.splice(open.indexOf(first), 1);
    // The same store, served by a host whose workers drive nothing: a new message stays queued.
    const s = await serve({ dir: first.dir, workers: false });
    expect((await s.call(ALICE, 'POST', `/api/runs/${runId}/messages`, { text: 'and in Italian' })).status).toBe(202);
    const before = await snapshot(s.host);
    const pending = await s.call(ALICE, 'POST', `/api/runs/${runId}/undo`, {});
    expectProblem(pending, 409, 'UNDO_MESSAGE_PENDING');
    expect(await snapshot(s.host)).toEqual(before);
  });

  it('refuses a fork or an undo of a run retention pruned (409 RUN_PRUNED)', async () => {
    const now = Date.UTC(2026, 5, 1, 12);
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-http-forks-pruned-'));
    dirs.push(dir);
    const storage = createSqliteStorage({ path: join(dir, 'store.db') });
    await storage.migrate();
    const seeded = await seedPruneStore(storage, {
      oldRuns: 1,
      recentRuns: 1,
      liveRuns: 0,
      eventsPerRun: 3,
      messagesPerRun: 2,
      now,
    });
    const host = createAgentHost({
      storage,
      clock: new ManualClock(now),
      logger: new ConsoleLogger('silent'),
      model: { provider: { provider: 'scripted', scripts: SCRIPTS }, model: 'scripted' },
      identity,
      maintenance: { schedule: false },
    });
    await host.start({ workers: false });
    await host.maintenance.prune({ kinds: ['runs'] });
    const s = await serve({ host, dir });
    const old = seeded.oldRunIds[0]!;
    expect((await host.getRun(old, { limit: 1 })).run.prunedAt).toBe(now);
    const before = await snapshot(host);
    expectProblem(await s.call(ADMIN, 'POST', `/api/runs/${old}/fork`, { atSeq: 3 }), 409, 'RUN_PRUNED');
    expectProblem(await s.call(ADMIN, 'POST', `/api/runs/${old}/undo`, {}), 409, 'RUN_PRUNED');
    expectProblem(await s.call(ADMIN, 'GET', `/api/runs/${old}/fork-points`), 409, 'RUN_PRUNED');
    expectProblem(await s.call(ADMIN, 'POST', `/api/runs/${old}/replay`, {}), 409, 'RUN_PRUNED');
    expect(await snapshot(host)).toEqual(before);
  });
});

describe('POST /api/runs/:id/replay', () => {
  it('replays a stored run as the caller: the report, no model call, no handler call, nothing written', async () => {
    const s = await serve();
    const chat = await conversation(s);
    // A run with tool calls: a delegation whose subagent queried the inventory (handlers that must not run again).
    const parent = await s.host.startRun({ goal: 'find out about Dune', actor: ALICE });
    await until(s.host, parent.id, rests, 'the delegating run to end');
    const before = await snapshot(s.host);

    for (const runId of [chat, parent.id]) {
      const replayed = await s.call(ALICE, 'POST', `/api/runs/${runId}/replay`, '');
      expect(replayed.status).toBe(200);
      expect(replayed.body).toMatchObject({
        runId,
        status: 'same',
        modelCalls: 0,
        handlerCalls: 0,
        ledgerWrites: 0,
        divergences: [],
        storedReport: { status: expect.any(String) },
      });
      // Stored model turns (the final reply not counted): the conversation's answer to its goal, the delegation.
      expect(replayed.body.turns).toBeGreaterThanOrEqual(1);
      expect(replayed.body.replayedReport).toEqual(replayed.body.storedReport);
    }
    expect((await s.call(ALICE, 'POST', `/api/runs/${parent.id}/replay`, {})).body.toolCalls).toBeGreaterThanOrEqual(1);
    // The administrator may replay Alice's run, with a time limit.
    expect((await s.call(ADMIN, 'POST', `/api/runs/${chat}/replay`, { timeoutMs: 20_000 })).status).toBe(200);
    expect(await snapshot(s.host)).toEqual(before);

    // Refusals: another person's run and a missing one are 404; bad bodies 400/415; a limit out of range 422.
    expectProblem(await s.call(BOB, 'POST', `/api/runs/${chat}/replay`, {}), 404, 'RUN_NOT_FOUND');
    expectProblem(await s.call(ALICE, 'POST', '/api/runs/run_nope/replay', {}), 404, 'RUN_NOT_FOUND');
    for (const body of [{ timeoutMs: '100' }, { timeoutMs: 1.5 }, { actor: BOB }])
      expectProblem(await s.call(ALICE, 'POST', `/api/runs/${chat}/replay`, body), 400, 'HTTP_BODY_INVALID');
    expectProblem(
      await s.call(ALICE, 'POST', `/api/runs/${chat}/replay`, '{}', 'text/plain'),
      415,
      'HTTP_CONTENT_TYPE_UNSUPPORTED',
    );
    for (const timeoutMs of [0, 600_001])
      expectProblem(await s.call(ALICE, 'POST', `/api/runs/${chat}/replay`, { timeoutMs }), 422, 'RUN_REQUEST_INVALID');
    expectProblem(await s.call(null, 'POST', `/api/runs/${chat}/replay`, {}), 401, 'HTTP_UNAUTHENTICATED');
    expect(await snapshot(s.host)).toEqual(before);
  });
});
