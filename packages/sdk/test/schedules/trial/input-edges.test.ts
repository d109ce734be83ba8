// Input edges of host.schedules.create / update and the HTTP routes (a new user's trial of schedules).
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ALICE, cleanup, errorOf, makeHost, serve } from './helpers';

afterEach(cleanup);

describe('input edges', () => {
  it('a goal of 10 000 characters is accepted when they are emoji (docs: 1–10 000 characters)', async () => {
    const { host } = await makeHost();
    const goal = '😀'.repeat(10_000); // 10 000 characters, 20 000 UTF-16 code units
    const s = await host.schedules
      .create({ actor: ALICE, cron: '0 3 * * *', goal })
      .catch((e: { message: string }) => e.message);
    expect(typeof s === 'string' ? s : 'stored').toBe('stored');
  });

  it('everyMs given as the string "60000" is refused with a message that says it is a string', async () => {
    const { host } = await makeHost();
    const error = await errorOf(host.schedules.create({ actor: ALICE, everyMs: '60000' as never, goal: 'g' }));
    expect(error.code).toBe('SCHEDULE_INVALID');
    // today: "schedule everyMs must be an integer of at least 60000 ms ...; got 60000" (reads as if 60000 were refused)
    expect(error.message).toMatch(/"60000"|string/);
  });

  it('HTTP everyMs 1e400 is reported as what was sent, not as "got null"', async () => {
    const { host } = await makeHost();
    const base = await serve(host);
    const r = await request(`${base}/api/schedules`, {
      method: 'POST',
      headers: { 'x-actor': ALICE, 'content-type': 'application/json' },
      body: '{"everyMs": 1e400, "goal": "g"}',
    });
    const body = (await r.body.json()) as { code: string; detail: string };
    expect(r.statusCode).toBe(422);
    expect(body.detail).not.toMatch(/got null/);
  });

  it('HTTP PATCH removes an allowlist (capabilityAllowlist: null) as host.schedules.update does', async () => {
    const { host } = await makeHost();
    const base = await serve(host);
    const s = await host.schedules.create({
      actor: ALICE,
      cron: '0 3 * * *',
      goal: 'g',
      capabilityAllowlist: ['inventory.query'],
    });
    const api = await host.schedules.update(s.id, { capabilityAllowlist: null }, ALICE);
    expect(api.capabilityAllowlist).toBeNull(); // the host API removes it
    await host.schedules.update(s.id, { capabilityAllowlist: ['inventory.query'] }, ALICE);
    const r = await request(`${base}/api/schedules/${s.id}`, {
      method: 'PATCH',
      headers: { 'x-actor': ALICE, 'content-type': 'application/json' },
      body: JSON.stringify({ capabilityAllowlist: null }),
    });
    const body = (await r.body.json()) as { code?: string; schedule?: { capabilityAllowlist: unknown } };
    expect([r.statusCode, body.code, body.schedule?.capabilityAllowlist]).toEqual([200, undefined, null]);
    expect((await host.schedules.get(s.id)).capabilityAllowlist).toBeNull();
  });

  it('the refusals the brief lists are typed and name the field', async () => {
    const { host } = await makeHost();
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ cron: '61 * * * *' }, 'SCHEDULE_INVALID', 'cron'],
      [{ cron: '0 0 30 2 *' }, 'SCHEDULE_INVALID', 'cron'],
      [{ cron: '*/30 * * * * *' }, 'SCHEDULE_INVALID', 'cron'],
      [{ cron: '' }, 'SCHEDULE_INVALID', 'cron'],
      [{ cron: '0 3 * * *', timezone: 'Mars/Olympus' }, 'SCHEDULE_INVALID', 'timezone'],
      [{ cron: '0 3 * * *', timezone: 'UTC+2' }, 'SCHEDULE_INVALID', 'timezone'],
      [{ cron: '0 3 * * *', timezone: '' }, 'SCHEDULE_INVALID', 'timezone'],
      [{ everyMs: Number.NaN }, 'SCHEDULE_INVALID', 'everyMs'],
      [{ everyMs: Number.POSITIVE_INFINITY }, 'SCHEDULE_INVALID', 'everyMs'],
      [{ everyMs: -60_000 }, 'SCHEDULE_INVALID', 'everyMs'],
      [{ everyMs: 60_000.5 }, 'SCHEDULE_INVALID', 'everyMs'],
      [{ everyMs: 59_999 }, 'SCHEDULE_INVALID', 'everyMs'],
      [{ cron: '0 3 * * *', goal: '' }, 'SCHEDULE_INVALID', 'goal'],
      [{ cron: '0 3 * * *', goal: 'x'.repeat(10_001) }, 'SCHEDULE_INVALID', 'goal'],
      [{ cron: '0 3 * * *', foo: 1 }, 'SCHEDULE_INVALID', 'foo'],
      [{ cron: '0 3 * * *', budgets: { maxRunsPerDay: 1.5 } }, 'SCHEDULE_INVALID', 'budgets.maxRunsPerDay'],
      [{ cron: '0 3 * * *', capabilityAllowlist: ['system.inspect'] }, 'SCHEDULE_CAPABILITY_FORBIDDEN', ''],
      [
        { cron: '0 3 * * *', mode: 'plan_only', capabilityAllowlist: ['download.submit'] },
        'SCHEDULE_CAPABILITY_FORBIDDEN',
        '',
      ],
    ];
    for (const [input, code, field] of cases) {
      const e = await errorOf(host.schedules.create({ actor: ALICE, goal: 'g', ...input } as never));
      expect([JSON.stringify(input).slice(0, 60), e.code, e.details?.field ?? '']).toEqual([
        JSON.stringify(input).slice(0, 60),
        code,
        field,
      ]);
    }
    expect(await host.schedules.list()).toEqual([]);
    expect(await host.audit({ action: 'schedule.changed' })).toEqual([]);
  });
});
