// The schedule routes (docs/http.md#schedules): host.schedules over HTTP, as the authenticated caller.
import type { Hono } from 'hono';
import Type from 'typebox';
import { isMediaAgentError } from '../core/errors';
import type { RunStatus } from '../core/run-records';
import type { ScheduleRecord } from '../core/schedule-records';
import type { RunDetail } from '../runtime/run-service';
import type { HostSchedules } from '../runtime/schedules/schedule-types';
import { readBody, readJson } from './body';
import type { RouterVars } from './context';
import { parseChoice, parseLimit, parseSequence } from './query';
import { parseIdempotencyKey, parseScheduleCreate, parseScheduleUpdate } from './schedule-request';

/**
 * A schedule as the HTTP API and the console show it: the stored {@link ScheduleRecord} (times in ms since the
 * epoch) with its next fire time as an ISO 8601 string and the status of the run its newest fired tick started.
 *
 * @example
 * ```json
 * { "id": "sch_1", "owner": "user:alice", "cron": "0 3 * * *", "timezone": "Europe/Berlin", "status": "active",
 *   "nextTickAt": 1764986400000, "nextFireAt": "2025-12-06T02:00:00.000Z",
 *   "lastRunId": "run_9", "lastRunStatus": "succeeded", "revision": 4, "…": "…" }
 * ```
 * @public
 */
export interface ScheduleView extends ScheduleRecord {
  /** `nextTickAt` as an ISO 8601 UTC time (`2025-12-06T02:00:00.000Z`); null while the schedule is paused. */
  nextFireAt: string | null;
  /**
   * The status of the run its newest fired tick started (`lastRunId`): `queued`, `running`, `waiting`, `succeeded`,
   * `failed`, `cancelled` or `budget_exceeded`; null when no tick has fired yet or that run no longer exists.
   */
  lastRunStatus: RunStatus | null;
}

/**
 * What the schedule routes need of the host: its schedules, and its runs to read a schedule's last run status.
 * @internal
 */
export interface ScheduleRouteHost {
  /** The host's schedules (access, validation and audit are theirs). */
  readonly schedules: HostSchedules;
  /** A run (read without an actor: the schedule it belongs to was checked first). */
  getRun(id: string, options?: { limit?: number }): Promise<RunDetail>;
}

const SCHEDULE_STATUSES = ['active', 'paused'] as const;
/** Pause and resume take no fields; the body must still be declared JSON (`{}` or empty). */
const NoFields = Type.Object({}, { additionalProperties: false });

/**
 * A schedule as the API shows it ({@link ScheduleView}).
 * @param schedule - the stored schedule
 * @param runStatus - the status of its last run, when known
 * @internal
 */
export function toScheduleView(schedule: ScheduleRecord, runStatus: RunStatus | null): ScheduleView {
  return {
    ...schedule,
    nextFireAt: schedule.nextTickAt === null ? null : new Date(schedule.nextTickAt).toISOString(),
    lastRunStatus: schedule.lastRunId === null ? null : runStatus,
  };
}

/**
 * Adds the schedule routes to the router's app (after its authentication step, so every request has an actor):
 * `GET|POST /api/schedules`, `GET|PATCH|DELETE /api/schedules/:id`, `POST /api/schedules/:id/pause|resume`,
 * `GET /api/schedules/:id/ticks?before&limit`. Every call is made as the caller: an ordinary user sees and manages
 * only their own schedules (another's answers 404 `SCHEDULE_NOT_FOUND`, like a missing one), an administrator every
 * one. Bodies are checked ({@link parseScheduleCreate}, {@link parseScheduleUpdate}) before the host sees them.
 * @internal
 */
export function addScheduleRoutes(app: Hono<RouterVars>, host: ScheduleRouteHost): void {
  const runStatus = async (runId: string | null): Promise<RunStatus | null> => {
    if (runId === null) return null;
    try {
      return (await host.getRun(runId, { limit: 1 })).run.status;
    } catch (error) {
      if (isMediaAgentError(error, 'RUN_NOT_FOUND')) return null;
      throw error;
    }
  };
  const view = async (schedule: ScheduleRecord) => toScheduleView(schedule, await runStatus(schedule.lastRunId));

  app.get('/api/schedules', async (c) => {
    const status = parseChoice('status', c.req.query('status'), SCHEDULE_STATUSES);
    const limit = parseLimit(c.req.query('limit'), 1000);
    const owner = c.req.query('owner');
    const schedules = await host.schedules.list({
      actor: c.var.actor,
      ...(status ? { status } : {}),
      ...(owner !== undefined ? { owner } : {}),
      ...(limit !== undefined ? { limit } : {}),
    });
    // Schedules whose last run is the same run ask for it once.
    const statuses = new Map<string, Promise<RunStatus | null>>();
    for (const s of schedules)
      if (s.lastRunId !== null && !statuses.has(s.lastRunId)) statuses.set(s.lastRunId, runStatus(s.lastRunId));
    const views: ScheduleView[] = [];
    for (const s of schedules)
      views.push(toScheduleView(s, s.lastRunId === null ? null : await statuses.get(s.lastRunId)!));
    return c.json({ schedules: views });
  });
  app.post('/api/schedules', async (c) => {
    const body = parseScheduleCreate(await readJson(c));
    const clientKey = parseIdempotencyKey(c.req.header('idempotency-key'));
    const schedule = await host.schedules.create({
      ...body,
      actor: c.var.actor,
      ...(clientKey !== undefined ? { clientKey } : {}),
    });
    // A repeated key answers the first schedule, as the first request did.
    return c.json({ schedule: await view(schedule) }, 201);
  });
  app.get('/api/schedules/:id', async (c) =>
    c.json({ schedule: await view(await host.schedules.get(c.req.param('id'), c.var.actor)) }),
  );
  app.patch('/api/schedules/:id', async (c) => {
    const change = parseScheduleUpdate(await readJson(c));
    const schedule = await host.schedules.update(c.req.param('id'), change, c.var.actor);
    return c.json({ schedule: await view(schedule) });
  });
  app.delete('/api/schedules/:id', async (c) => {
    await host.schedules.delete(c.req.param('id'), c.var.actor);
    return c.json({ deleted: c.req.param('id') });
  });
  app.post('/api/schedules/:id/pause', async (c) => {
    await readBody(c, NoFields, true);
    return c.json({ schedule: await view(await host.schedules.pause(c.req.param('id'), c.var.actor)) });
  });
  app.post('/api/schedules/:id/resume', async (c) => {
    await readBody(c, NoFields, true);
    return c.json({ schedule: await view(await host.schedules.resume(c.req.param('id'), c.var.actor)) });
  });
  app.get('/api/schedules/:id/ticks', async (c) => {
    const before = parseSequence('before', c.req.query('before'));
    const limit = parseLimit(c.req.query('limit'), 1000);
    const ticks = await host.schedules.ticks(c.req.param('id'), {
      actor: c.var.actor,
      ...(before !== undefined ? { before } : {}),
      ...(limit !== undefined ? { limit } : {}),
    });
    return c.json({ ticks });
  });
}
