// Schedules that fire, seen over real HTTP (undici): a host on a SQLite file whose runner fires an interval schedule
// every second. The schedule shows its last run and that run's status; its owner reads `schedule.fired` on the run's
// stream and `schedule.skipped` (a daily cap) on the schedule's stream, and the decision the cap raised — on JSON
// pages, with `?runId=<schedule id>` and as server-sent events; another user reads none of it; an administrator all.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost, type RunEvent } from '../../src/index';
import { createAgentRouter, toNodeListener, type AgentRouter, type ScheduleView } from '../../src/http';
import { SqliteStorage } from '../../src/sqlite';

const ADMIN = 'user:admin';
const ALICE = 'user:alice';
const TOKENS: Record<string, string> = { admin: ADMIN, alice: ALICE, bob: 'user:bob' };
const TERMINAL = ['succeeded', 'failed', 'cancelled', 'budget_exceeded'];

let host: AgentHost;
let router: AgentRouter;
let server: Server;
let base: string;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'media-agent-http-schedule-events-'));
  host = createAgentHost({
    storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
    logger: new ConsoleLogger('silent'),
    model: {
      provider: { provider: 'scripted', scripts: [{ match: 'stalled', finalText: 'Nothing is stalled.' }] },
      model: 'scripted',
    },
    identity: { roleOf: (actor) => (actor === ADMIN ? 'admin' : 'user') },
    runs: { pollMs: 20, goalPollSec: 1 },
    schedules: { minIntervalMs: 1_000, pollMs: 50 },
  });
  await host.start();
  router = createAgentRouter(host, {
    authenticate: (req) => TOKENS[req.headers.get('authorization')?.replace(/^Bearer /, '') ?? ''],
    consoleDir: false,
    heartbeatMs: 200,
  });
  server = createServer(toNodeListener(router));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  router?.closeStreams();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await host?.stop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

type Json = Record<string, any>;
async function call(
  method: 'GET' | 'POST',
  path: string,
  as: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const res = await request(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${as}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : {} };
}

/** Polls `read` every 50 ms until `done` holds (or fails after `ms`). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`not reached in ${ms} ms: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every event `as` may read on the JSON pages (optionally of one stream), paging with `next`. */
async function pagedEvents(as: string, runId?: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  let after = 0;
  for (;;) {
    const query = `after=${after}&limit=200${runId ? `&runId=${encodeURIComponent(runId)}` : ''}`;
    const page = await call('GET', `/api/events?${query}`, as);
    expect(page.status).toBe(200);
    events.push(...(page.body.events as RunEvent[]));
    if (!page.body.more) return events;
    after = page.body.next;
  }
}

/** The server-sent events of `as`'s stream (optionally of one stream) until `enough` says stop. */
async function streamed(as: string, runId: string | undefined, enough: (events: RunEvent[]) => boolean) {
  const controller = new AbortController();
  const res = await request(`${base}/api/events${runId ? `?runId=${encodeURIComponent(runId)}` : ''}`, {
    headers: { accept: 'text/event-stream', authorization: `Bearer ${as}` },
    signal: controller.signal,
  });
  expect(res.statusCode).toBe(200);
  const events: RunEvent[] = [];
  let buffer = '';
  // Read until `enough` holds (the test's own timeout bounds a stream that never gets there).
  try {
    for await (const chunk of res.body) {
      buffer += chunk.toString();
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
          .join('\n');
        if (data && frame.split('\n').some((l) => l.startsWith('id: '))) events.push(JSON.parse(data) as RunEvent);
        end = buffer.indexOf('\n\n');
      }
      if (enough(events)) break;
    }
  } finally {
    controller.abort();
  }
  return events;
}

describe('a schedule that fires, over HTTP', () => {
  it('shows its last run and status; its owner and administrators read its events and decisions, no one else', async () => {
    // Every second, at most one run a day: the first tick fires, the next are skipped (daily_budget).
    const created = await call('POST', '/api/schedules', 'alice', {
      everyMs: 1_000,
      goal: 'Check for stalled downloads',
      budgets: { maxRunsPerDay: 1 },
    });
    expect(created.status).toBe(201);
    const id = (created.body.schedule as ScheduleView).id;

    // The first tick's run, until it ended; the schedule view shows it and its status as the run has it.
    const fired = await until(
      async () => (await call('GET', `/api/schedules/${id}`, 'alice')).body.schedule as ScheduleView,
      (s) => s.lastRunId !== null && TERMINAL.includes(s.lastRunStatus ?? ''),
    );
    const run = (await host.getRun(fired.lastRunId!)).run;
    expect(fired.lastRunStatus).toBe(run.status);
    expect(run).toMatchObject({ origin: 'schedule' });
    const listed = (await call('GET', '/api/schedules', 'alice')).body.schedules as ScheduleView[];
    expect(listed.find((s) => s.id === id)).toMatchObject({ lastRunId: run.id, lastRunStatus: run.status });

    // Its ticks: one fired (that run), then skipped over the daily cap.
    const ticks = await until(
      async () => (await call('GET', `/api/schedules/${id}/ticks`, 'alice')).body.ticks as Json[],
      (t) => t.some((tick) => tick.outcome === 'skipped'),
    );
    expect(ticks.filter((t) => t.outcome === 'fired')).toEqual([
      expect.objectContaining({ scheduleId: id, runId: run.id, reason: null }),
    ]);
    expect(ticks.find((t) => t.outcome === 'skipped')).toMatchObject({ reason: 'daily_budget', runId: null });
    expectProblemCode(await call('GET', `/api/schedules/${id}/ticks`, 'bob'), 404, 'SCHEDULE_NOT_FOUND');

    // The JSON pages: the owner reads schedule.fired (on the run's stream) and schedule.skipped (on the schedule's).
    const mine = await pagedEvents('alice');
    const firedEvent = mine.find((e) => e.type === 'schedule.fired');
    expect(firedEvent).toMatchObject({ runId: run.id, data: { scheduleId: id, runId: run.id } });
    const skipped = mine.filter((e) => e.type === 'schedule.skipped');
    expect(skipped.length).toBeGreaterThan(0);
    for (const e of skipped) expect(e).toMatchObject({ runId: id, data: { scheduleId: id, reason: 'daily_budget' } });
    // The decision the cap raised is about the schedule, on its stream, and shown to its owner.
    const raised = mine.find((e) => e.type === 'decision.created' && e.runId === id);
    expect(raised).toMatchObject({ data: { kind: 'schedule_budget', subjectType: 'schedule', subjectId: id } });
    const decisionId = (raised as Extract<RunEvent, { type: 'decision.created' }>).data.decisionId;
    expect((await call('GET', `/api/decisions/${decisionId}`, 'alice')).body.decision).toMatchObject({
      subjectType: 'schedule',
      subjectId: id,
    });
    expect(((await call('GET', '/api/decisions', 'alice')).body.decisions as Json[]).map((d) => d.id)).toContain(
      decisionId,
    );

    // Only the schedule's stream, by its id.
    const own = await pagedEvents('alice', id);
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((e) => e.runId === id)).toBe(true);
    expect(own.map((e) => e.type)).toEqual(expect.arrayContaining(['schedule.skipped', 'decision.created']));

    // Another user reads none of it: not on the pages, not by id, not the decision.
    const bobs = await pagedEvents('bob');
    expect(bobs.filter((e) => e.runId === id || e.runId === run.id)).toEqual([]);
    expectProblemCode(await call('GET', `/api/events?runId=${id}`, 'bob'), 404, 'RUN_NOT_FOUND');
    expectProblemCode(await call('GET', `/api/events?runId=sch_missing`, 'alice'), 404, 'RUN_NOT_FOUND');
    expectProblemCode(await call('GET', `/api/decisions/${decisionId}`, 'bob'), 404, 'DECISION_NOT_FOUND');
    // An administrator reads all of it.
    // (The schedule keeps ticking every second: the administrator's later read may hold newer skips as well.)
    const admins = await pagedEvents('admin', id);
    expect(admins.slice(0, own.length).map((e) => e.globalSeq)).toEqual(own.map((e) => e.globalSeq));

    // Server-sent events: the schedule's stream for its owner (replayed from the start), and the owner's own
    // stream carries both the run's schedule.fired and the schedule's schedule.skipped.
    const sse = await streamed('alice', id, (events) => events.some((e) => e.type === 'schedule.skipped'));
    expect(sse.some((e) => e.type === 'schedule.skipped' && e.runId === id)).toBe(true);
    expect(sse.every((e) => e.runId === id)).toBe(true);
    const all = await streamed(
      'alice',
      undefined,
      (events) => events.some((e) => e.type === 'schedule.fired') && events.some((e) => e.type === 'schedule.skipped'),
    );
    expect(all.find((e) => e.type === 'schedule.fired')?.runId).toBe(run.id);
    expect(all.some((e) => e.type === 'schedule.skipped' && e.runId === id)).toBe(true);
    const refused = await request(`${base}/api/events?runId=${id}`, {
      headers: { accept: 'text/event-stream', authorization: 'Bearer bob' },
    });
    expect(refused.statusCode).toBe(404);
    expect(JSON.parse(await refused.body.text())).toMatchObject({ code: 'RUN_NOT_FOUND' });

    // Paused from HTTP, it fires no more.
    const paused = await call('POST', `/api/schedules/${id}/pause`, 'alice', {});
    expect(paused.body.schedule).toMatchObject({ status: 'paused', nextFireAt: null, lastRunId: run.id });
  }, 60_000);
});

function expectProblemCode(r: { status: number; body: Json }, status: number, code: string): void {
  expect([r.status, r.body.code]).toEqual([status, code]);
}
