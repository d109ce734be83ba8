// An everyMs that puts the next tick past the Date range (Number.MAX_SAFE_INTEGER: an integer above the minimum) was
// accepted and stored (create and update), with a nextTickAt no Date can hold; POST /api/schedules then answered 500
// INTERNAL after storing it, and GET /api/schedules answered 500 for the owner and every administrator. Now refused
// (everyMs at most 366 days) with SCHEDULE_INVALID and nothing stored.
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { MediaAgentError } from '@media-agent/sdk';
import { ADMIN, ALICE, cleanup, errorOf, makeHost, serve } from './helpers';

afterEach(cleanup);
const HUGE = Number.MAX_SAFE_INTEGER; // an integer, far above minIntervalMs

describe('everyMs beyond the Date range', () => {
  it('host.schedules.create refuses it with SCHEDULE_INVALID naming everyMs and stores nothing', async () => {
    const { host } = await makeHost();
    const error = await errorOf(host.schedules.create({ actor: ALICE, everyMs: HUGE, goal: 'g' }));
    expect(error).toBeInstanceOf(MediaAgentError);
    expect(error.code).toBe('SCHEDULE_INVALID');
    expect(error.details?.field).toBe('everyMs');
    expect(await host.schedules.list()).toEqual([]);
    expect(await host.audit({ action: 'schedule.changed' })).toEqual([]);
  });

  it('update to it is refused and leaves the schedule as it was', async () => {
    const { host } = await makeHost();
    const s = await host.schedules.create({ actor: ALICE, everyMs: 60_000, goal: 'g' });
    const error = await errorOf(host.schedules.update(s.id, { everyMs: HUGE }, ALICE));
    expect(error.code).toBe('SCHEDULE_INVALID');
    expect((await host.schedules.get(s.id)).everyMs).toBe(60_000);
  });

  it('over HTTP: POST answers 422, and the schedule list keeps working for an administrator', async () => {
    const { host } = await makeHost();
    const base = await serve(host);
    const post = await request(`${base}/api/schedules`, {
      method: 'POST',
      headers: { 'x-actor': ALICE, 'content-type': 'application/json' },
      body: JSON.stringify({ everyMs: HUGE, goal: 'g' }),
    });
    const body = (await post.body.json()) as { code: string };
    expect([post.statusCode, body.code]).toEqual([422, 'SCHEDULE_INVALID']);
    const list = await request(`${base}/api/schedules`, { headers: { 'x-actor': ADMIN } });
    await list.body.text();
    expect(list.statusCode).toBe(200);
  });
});
