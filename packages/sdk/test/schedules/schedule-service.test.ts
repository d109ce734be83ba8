// host.schedules on the memory store: every method, every bad input refused with nothing stored and no audit row,
// client-key replay, access (an ordinary user manages only their own schedules, an administrator every one).
import { afterEach, describe, expect, it } from 'vitest';
import type { CreateScheduleInput, ScheduleRecord } from '../../src/index';
import { ADMIN, ALICE, BOB, makeScheduleHost, T0, type ScheduleHost } from './fixtures';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const hosts: ScheduleHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.host.stop();
});
async function setup(options: Parameters<typeof makeScheduleHost>[0] = {}): Promise<ScheduleHost> {
  const h = await makeScheduleHost(options);
  hosts.push(h);
  return h;
}

const nightly: CreateScheduleInput = {
  actor: ALICE,
  cron: '0 3 * * *',
  timezone: 'Europe/Berlin',
  goal: 'Check for stalled downloads',
  capabilityAllowlist: ['inventory.query'],
  missed: 'catch_up_one',
};

/** Asserts the call rejects with `code` and that the store holds no schedule and no schedule audit row. */
async function refusedCleanly(h: ScheduleHost, call: Promise<unknown>, code: string): Promise<void> {
  await expect(call).rejects.toMatchObject({ code });
  expect(await h.host.schedules.list()).toEqual([]);
  expect(await h.auditRows()).toEqual([]);
}

describe('host.schedules.create', () => {
  it('stores a cron schedule with defaults applied and its next tick in its time zone, audited once', async () => {
    const h = await setup();
    const s = await h.host.schedules.create(nightly);
    expect(s).toMatchObject({
      id: 'sch_1',
      owner: ALICE,
      createdBy: ALICE,
      clientKey: null,
      cron: '0 3 * * *',
      everyMs: null,
      anchorAt: T0,
      timezone: 'Europe/Berlin',
      mode: 'execute',
      capabilityAllowlist: ['inventory.query'],
      budgets: {},
      missed: 'catch_up_one',
      status: 'active',
      lastTickAt: null,
      lastRunId: null,
      revision: 1,
      createdAt: T0,
      updatedAt: T0,
    });
    // 2026-12-01 03:00 in Berlin (CET, UTC+1) is 02:00 UTC.
    expect(s.nextTickAt).toBe(Date.UTC(2026, 11, 1, 2));
    expect(await h.host.schedules.get(s.id)).toEqual(s);
    const rows = await h.auditRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      action: 'schedule.changed',
      actor: ALICE,
      capabilityId: 'host.schedules.create',
      outcome: 'succeeded',
    });
    expect(JSON.parse(rows[0]!.inputSummary)).toMatchObject({ schedule: s.id, owner: ALICE, revision: 1 });
  });

  it('stores an interval schedule ticking at anchor + k·everyMs, and a paused one with no next tick', async () => {
    const h = await setup();
    const every = await h.host.schedules.create({ actor: ALICE, everyMs: 15 * MINUTE, goal: 'poll' });
    expect(every).toMatchObject({ cron: null, everyMs: 15 * MINUTE, timezone: 'UTC', nextTickAt: T0 + 15 * MINUTE });
    const paused = await h.host.schedules.create({ actor: ALICE, everyMs: HOUR, goal: 'later', paused: true });
    expect(paused).toMatchObject({ status: 'paused', nextTickAt: null });
    expect((await h.host.schedules.list()).map((s) => s.id)).toEqual([every.id, paused.id]);
  });

  it('lets an administrator create a schedule for another owner (createdBy the administrator)', async () => {
    const h = await setup();
    const s = await h.host.schedules.create({ ...nightly, actor: ADMIN, owner: BOB });
    expect(s).toMatchObject({ owner: BOB, createdBy: ADMIN });
    expect((await h.auditRows())[0]).toMatchObject({ actor: ADMIN });
  });

  it.each<[string, Partial<CreateScheduleInput> & Record<string, unknown>, string]>([
    ['an invalid cron expression', { cron: '61 * * * *' }, 'cron'],
    ['a cron expression with 3 fields', { cron: '* * *' }, 'cron'],
    ['a cron expression that never ticks (Feb 30)', { cron: '0 0 30 2 *' }, 'cron'],
    ['a cron expression ticking every 10 seconds', { cron: '*/10 * * * * *' }, 'cron'],
    ['an unknown time zone', { timezone: 'Mars/Olympus_Mons' }, 'timezone'],
    ['both cron and everyMs', { everyMs: HOUR }, 'cron'],
    ['neither cron nor everyMs', { cron: undefined }, 'cron'],
    ['everyMs below the minimum', { cron: undefined, everyMs: 59_999 }, 'everyMs'],
    ['a fractional everyMs', { cron: undefined, everyMs: 60_000.5 }, 'everyMs'],
    ['an empty goal', { goal: '   ' }, 'goal'],
    ['a goal of 10 001 characters', { goal: 'x'.repeat(10_001) }, 'goal'],
    ['an unknown mode', { mode: 'auto' as never }, 'mode'],
    ['an unknown missed policy', { missed: 'catch_up_all' as never }, 'missed'],
    [
      'an allowlist with a duplicate',
      { capabilityAllowlist: ['inventory.query', 'inventory.query'] },
      'capabilityAllowlist[1]',
    ],
    ['an allowlist that is not an array', { capabilityAllowlist: 'inventory.query' as never }, 'capabilityAllowlist'],
    ['a negative budget', { budgets: { maxRunsPerDay: -1 } }, 'budgets.maxRunsPerDay'],
    ['a fractional maxRunsPerDay', { budgets: { maxRunsPerDay: 1.5 } }, 'budgets.maxRunsPerDay'],
    ['an infinite cost cap', { budgets: { maxCostUsdPerDay: Number.POSITIVE_INFINITY } }, 'budgets.maxCostUsdPerDay'],
    ['a null maxToolCalls', { budgets: { maxToolCalls: null as never } }, 'budgets.maxToolCalls'],
    ['an unknown budget', { budgets: { maxRunsPerWeek: 3 } as never }, 'budgets.maxRunsPerWeek'],
    ['an empty client key', { clientKey: '' }, 'clientKey'],
    ['a client key of 201 characters', { clientKey: 'k'.repeat(201) }, 'clientKey'],
    ['an unknown field', { priority: 'high' }, 'priority'],
    ['a run as owner', { owner: 'agent:run_1' }, 'owner'],
  ])('refuses %s with SCHEDULE_INVALID naming the field, storing nothing', async (_, patch, field) => {
    const h = await setup();
    const call = h.host.schedules.create({ ...nightly, ...patch } as CreateScheduleInput);
    await expect(call).rejects.toMatchObject({ code: 'SCHEDULE_INVALID', details: { field } });
    await refusedCleanly(h, call, 'SCHEDULE_INVALID');
  });

  it('gives croner its reason for an invalid cron expression', async () => {
    const h = await setup();
    await expect(h.host.schedules.create({ ...nightly, cron: '61 * * * *' })).rejects.toThrow(
      /Invalid value for minute: 61/,
    );
  });

  it('honours the host minimum interval (schedules.minIntervalMs)', async () => {
    const h = await setup({ minIntervalMs: 1_000 });
    const s = await h.host.schedules.create({ actor: ALICE, cron: '*/10 * * * * *', goal: 'fast' });
    expect(s.nextTickAt).toBe(T0 + 10_000);
    await expect(h.host.schedules.create({ actor: ALICE, everyMs: 999, goal: 'too fast' })).rejects.toMatchObject({
      code: 'SCHEDULE_INVALID',
      details: { field: 'everyMs' },
    });
  });

  it('refuses a malformed actor with ACTOR_INVALID, storing nothing', async () => {
    const h = await setup();
    await refusedCleanly(h, h.host.schedules.create({ ...nightly, actor: 'alice' }), 'ACTOR_INVALID');
  });

  it('refuses an ordinary user creating a schedule for someone else with ADMIN_FORBIDDEN, storing nothing', async () => {
    const h = await setup();
    await refusedCleanly(h, h.host.schedules.create({ ...nightly, owner: BOB }), 'ADMIN_FORBIDDEN');
  });

  it.each<[string, CreateScheduleInput, string]>([
    ['an unknown capability', { ...nightly, capabilityAllowlist: ['inventory.query', 'nope.nothing'] }, 'unknown'],
    [
      'an admin-only capability for an ordinary user',
      { ...nightly, capabilityAllowlist: ['system.inspect'] },
      'admin_only',
    ],
    [
      'an admin-only capability for an ordinary owner, created by an administrator',
      { ...nightly, actor: ADMIN, owner: BOB, capabilityAllowlist: ['system.inspect'] },
      'admin_only',
    ],
    [
      'an execute capability in a plan_only schedule',
      { ...nightly, mode: 'plan_only', capabilityAllowlist: ['download.submit'] },
      'mode',
    ],
  ])('refuses %s with SCHEDULE_CAPABILITY_FORBIDDEN, storing nothing', async (_, input, reason) => {
    const h = await setup();
    const call = h.host.schedules.create(input);
    await expect(call).rejects.toMatchObject({
      code: 'SCHEDULE_CAPABILITY_FORBIDDEN',
      details: { capabilities: [{ id: input.capabilityAllowlist!.at(-1), reason }] },
    });
    await refusedCleanly(h, call, 'SCHEDULE_CAPABILITY_FORBIDDEN');
  });

  it('lets an administrator schedule an admin-only capability for themselves', async () => {
    const h = await setup();
    const s = await h.host.schedules.create({ ...nightly, actor: ADMIN, capabilityAllowlist: ['system.inspect'] });
    expect(s.capabilityAllowlist).toEqual(['system.inspect']);
  });
});

describe('client keys', () => {
  it('returns the first schedule for the same definition (one row, one audit row)', async () => {
    const h = await setup();
    const first = await h.host.schedules.create({ ...nightly, clientKey: 'nightly-check' });
    h.clock.advance(HOUR);
    const again = await h.host.schedules.create({
      ...nightly,
      clientKey: 'nightly-check',
      capabilityAllowlist: ['inventory.query'],
    });
    expect(again).toEqual(first);
    expect(await h.host.schedules.list()).toHaveLength(1);
    expect(await h.auditRows()).toHaveLength(1);
    expect((await h.auditRows())[0]!.idempotencyKey).toBe('nightly-check');
  });

  it('refuses the same key with another definition (SCHEDULE_KEY_REUSED naming the first), leaving it unchanged', async () => {
    const h = await setup();
    const first = await h.host.schedules.create({ ...nightly, clientKey: 'nightly-check' });
    await expect(
      h.host.schedules.create({ ...nightly, clientKey: 'nightly-check', goal: 'Something else' }),
    ).rejects.toMatchObject({ code: 'SCHEDULE_KEY_REUSED', details: { scheduleId: first.id, owner: ALICE } });
    expect(await h.host.schedules.list()).toEqual([first]);
    expect(await h.auditRows()).toHaveLength(1);
  });

  it('keys per owner: bob may use the key alice used', async () => {
    const h = await setup();
    const a = await h.host.schedules.create({ ...nightly, clientKey: 'k' });
    const b = await h.host.schedules.create({ ...nightly, actor: BOB, clientKey: 'k' });
    expect(b.id).not.toBe(a.id);
    expect(b.owner).toBe(BOB);
  });

  it('answers concurrent creates with the same key with one schedule', async () => {
    const h = await setup();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => h.host.schedules.create({ ...nightly, clientKey: 'race' })),
    );
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(await h.host.schedules.list()).toHaveLength(1);
    expect(await h.auditRows()).toHaveLength(1);
  });
});

describe('get, list and ticks', () => {
  it('shows a schedule to its owner and administrators; to another user it does not exist', async () => {
    const h = await setup();
    const s = await h.host.schedules.create(nightly);
    expect(await h.host.schedules.get(s.id, ALICE)).toEqual(s);
    expect(await h.host.schedules.get(s.id, ADMIN)).toEqual(s);
    await expect(h.host.schedules.get(s.id, BOB)).rejects.toMatchObject({ code: 'SCHEDULE_NOT_FOUND' });
    await expect(h.host.schedules.get('sch_missing')).rejects.toMatchObject({ code: 'SCHEDULE_NOT_FOUND' });
    await expect(h.host.schedules.ticks(s.id, { actor: BOB })).rejects.toMatchObject({ code: 'SCHEDULE_NOT_FOUND' });
  });

  it('lists an ordinary user their own, an administrator and the host every one, by owner and status', async () => {
    const h = await setup();
    const a = await h.host.schedules.create(nightly);
    const b = await h.host.schedules.create({ ...nightly, actor: BOB });
    const p = await h.host.schedules.create({ ...nightly, actor: BOB, paused: true });
    const ids = (list: ScheduleRecord[]) => list.map((s) => s.id);
    expect(ids(await h.host.schedules.list({ actor: ALICE }))).toEqual([a.id]);
    expect(ids(await h.host.schedules.list({ actor: BOB }))).toEqual([b.id, p.id]);
    expect(ids(await h.host.schedules.list({ actor: ALICE, owner: BOB }))).toEqual([]);
    expect(ids(await h.host.schedules.list({ actor: ADMIN }))).toEqual([a.id, b.id, p.id]);
    expect(ids(await h.host.schedules.list({ actor: ADMIN, owner: BOB, status: 'paused' }))).toEqual([p.id]);
    expect(ids(await h.host.schedules.list({ limit: 2 }))).toEqual([a.id, b.id]);
  });

  it.each([[{ limit: 0 }], [{ limit: 1001 }], [{ status: 'stopped' }], [{ colour: 'red' }]])(
    'refuses a bad list filter %j with REQUEST_INVALID',
    async (filter) => {
      const h = await setup();
      await expect(h.host.schedules.list(filter as never)).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
    },
  );

  it('reads tick records newest first, paged by before and limit', async () => {
    const h = await setup();
    const s = await h.host.schedules.create({ actor: ALICE, everyMs: HOUR, goal: 'poll' });
    for (let k = 1; k <= 3; k++)
      await h.storage.schedules.claimTick({
        scheduleId: s.id,
        tickAt: T0 + k * HOUR,
        outcome: 'skipped',
        runId: null,
        reason: 'missed',
        firstTickAt: T0 + k * HOUR,
        ticks: 1,
        handledAt: T0 + k * HOUR,
        handledBy: 'host:test',
      });
    expect((await h.host.schedules.ticks(s.id, { actor: ALICE })).map((t) => t.tickAt)).toEqual([
      T0 + 3 * HOUR,
      T0 + 2 * HOUR,
      T0 + HOUR,
    ]);
    expect((await h.host.schedules.ticks(s.id, { before: T0 + 3 * HOUR, limit: 1 })).map((t) => t.tickAt)).toEqual([
      T0 + 2 * HOUR,
    ]);
    await expect(h.host.schedules.ticks(s.id, { limit: 0 })).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
  });
});

describe('update, pause, resume, delete', () => {
  it('updates the goal without touching the timing; a new timing starts from the next tick after now', async () => {
    const h = await setup();
    const s = await h.host.schedules.create(nightly);
    h.clock.advance(HOUR);
    const goal = await h.host.schedules.update(s.id, { goal: 'New goal' }, ALICE);
    expect(goal).toMatchObject({ goal: 'New goal', nextTickAt: s.nextTickAt, anchorAt: s.anchorAt, revision: 2 });
    expect(goal.updatedAt).toBe(T0 + HOUR);
    const every = await h.host.schedules.update(s.id, { everyMs: 30 * MINUTE }, ALICE);
    expect(every).toMatchObject({
      cron: null,
      everyMs: 30 * MINUTE,
      anchorAt: T0 + HOUR,
      nextTickAt: T0 + 90 * MINUTE,
    });
    const cron = await h.host.schedules.update(s.id, { cron: '0 * * * *', timezone: 'UTC' }, ALICE);
    expect(cron).toMatchObject({
      cron: '0 * * * *',
      everyMs: null,
      nextTickAt: Date.UTC(2026, 10, 30, 14),
      revision: 4,
    });
    const rows = await h.auditRows();
    expect(rows.map((r) => r.capabilityId)).toEqual([
      'host.schedules.create',
      'host.schedules.update',
      'host.schedules.update',
      'host.schedules.update',
    ]);
    expect(JSON.parse(rows[1]!.inputSummary)).toMatchObject({
      schedule: s.id,
      revision: 2,
      change: { goal: 'New goal' },
    });
  });

  it('writes nothing for an update that changes nothing', async () => {
    const h = await setup();
    const s = await h.host.schedules.create(nightly);
    expect(await h.host.schedules.update(s.id, { goal: nightly.goal }, ALICE)).toEqual(s);
    expect(await h.auditRows()).toHaveLength(1);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an invalid cron', { cron: '0 25 * * *' }, 'SCHEDULE_INVALID'],
    ['an unknown time zone', { timezone: 'Europe/Atlantis' }, 'SCHEDULE_INVALID'],
    ['cron and everyMs together', { cron: '0 * * * *', everyMs: HOUR }, 'SCHEDULE_INVALID'],
    ['a change of owner', { owner: BOB }, 'SCHEDULE_INVALID'],
    ['a change of client key', { clientKey: 'x' }, 'SCHEDULE_INVALID'],
    ['an admin-only capability', { capabilityAllowlist: ['system.inspect'] }, 'SCHEDULE_CAPABILITY_FORBIDDEN'],
    [
      'plan_only with an execute capability allowed',
      { mode: 'plan_only', capabilityAllowlist: ['download.submit'] },
      'SCHEDULE_CAPABILITY_FORBIDDEN',
    ],
  ])('refuses an update with %s, changing nothing and auditing nothing', async (_, change, code) => {
    const h = await setup();
    const s = await h.host.schedules.create(nightly);
    await expect(h.host.schedules.update(s.id, change as never, ALICE)).rejects.toMatchObject({ code });
    expect(await h.host.schedules.get(s.id)).toEqual(s);
    expect(await h.auditRows()).toHaveLength(1);
  });

  it('pauses (no next tick) and resumes from the next tick after now, each idempotent and audited once', async () => {
    const h = await setup();
    const s = await h.host.schedules.create({ actor: ALICE, everyMs: HOUR, goal: 'poll' });
    const paused = await h.host.schedules.pause(s.id, ALICE);
    expect(paused).toMatchObject({ status: 'paused', nextTickAt: null, revision: 2 });
    expect(await h.host.schedules.pause(s.id, ALICE)).toEqual(paused);
    h.clock.advance(5 * HOUR + 10 * MINUTE);
    const resumed = await h.host.schedules.resume(s.id, ALICE);
    // The interval keeps its phase: ticks at T0 + k h; the next after now (T0 + 5 h 10 min) is T0 + 6 h.
    expect(resumed).toMatchObject({ status: 'active', nextTickAt: T0 + 6 * HOUR, revision: 3 });
    expect(await h.host.schedules.resume(s.id, ALICE)).toEqual(resumed);
    expect((await h.auditRows()).map((r) => r.capabilityId)).toEqual([
      'host.schedules.create',
      'host.schedules.pause',
      'host.schedules.resume',
    ]);
    const cron = await h.host.schedules.create({ ...nightly, paused: true });
    h.clock.set(Date.UTC(2026, 11, 10, 12));
    expect((await h.host.schedules.resume(cron.id, ALICE)).nextTickAt).toBe(Date.UTC(2026, 11, 11, 2));
  });

  it('deletes a schedule and its tick records, audited; a second delete finds nothing', async () => {
    const h = await setup();
    const s = await h.host.schedules.create({ actor: ALICE, everyMs: HOUR, goal: 'poll' });
    await h.storage.schedules.claimTick({
      scheduleId: s.id,
      tickAt: T0 + HOUR,
      outcome: 'skipped',
      runId: null,
      reason: 'missed',
      firstTickAt: T0 + HOUR,
      ticks: 1,
      handledAt: T0 + HOUR,
      handledBy: 'host:test',
    });
    await h.host.schedules.delete(s.id, ALICE);
    await expect(h.host.schedules.get(s.id)).rejects.toMatchObject({ code: 'SCHEDULE_NOT_FOUND' });
    expect(await h.storage.schedules.ticks(s.id)).toEqual([]);
    expect((await h.auditRows()).map((r) => r.capabilityId)).toEqual([
      'host.schedules.create',
      'host.schedules.delete',
    ]);
    await expect(h.host.schedules.delete(s.id, ALICE)).rejects.toMatchObject({ code: 'SCHEDULE_NOT_FOUND' });
  });

  it("refuses another ordinary user every change to alice's schedule (SCHEDULE_NOT_FOUND); an administrator may", async () => {
    const h = await setup();
    const s = await h.host.schedules.create(nightly);
    for (const call of [
      () => h.host.schedules.update(s.id, { goal: 'mine now' }, BOB),
      () => h.host.schedules.pause(s.id, BOB),
      () => h.host.schedules.resume(s.id, BOB),
      () => h.host.schedules.delete(s.id, BOB),
      () => h.host.schedules.pause(s.id, 'apikey:ci'),
    ])
      await expect(call()).rejects.toMatchObject({ code: 'SCHEDULE_NOT_FOUND' });
    expect(await h.host.schedules.get(s.id)).toEqual(s);
    expect(await h.auditRows()).toHaveLength(1);
    expect((await h.host.schedules.update(s.id, { goal: 'admin edit' }, ADMIN)).goal).toBe('admin edit');
    expect((await h.host.schedules.pause(s.id, ADMIN)).status).toBe('paused');
    await h.host.schedules.delete(s.id, ADMIN);
    expect((await h.auditRows()).map((r) => r.actor)).toEqual([ALICE, ADMIN, ADMIN, ADMIN]);
  });

  it('retries a change over a concurrent one (compare-and-set) and fails SCHEDULE_CONFLICT when it never settles', async () => {
    const h = await setup();
    const s = await h.host.schedules.create(nightly);
    // Every read is followed by a write of someone else (a firing tick): no attempt can win.
    const get = h.storage.schedules.get.bind(h.storage.schedules);
    let interfere = true;
    h.storage.schedules.get = async (id) => {
      const current = await get(id);
      if (interfere && current)
        await h.storage.schedules.compareAndSet(id, current.revision, { ...current, revision: current.revision + 1 });
      return current;
    };
    await expect(h.host.schedules.pause(s.id, ALICE)).rejects.toMatchObject({
      code: 'SCHEDULE_CONFLICT',
      details: { id: s.id, attempts: 5 },
    });
    expect(await h.auditRows()).toHaveLength(1);
    // One interfering write, then quiet: the second attempt wins.
    let once = true;
    h.storage.schedules.get = async (id) => {
      const current = await get(id);
      if (once && current) {
        once = false;
        await h.storage.schedules.compareAndSet(id, current.revision, { ...current, revision: current.revision + 1 });
      }
      return current;
    };
    interfere = false;
    const before = (await get(s.id))!.revision;
    const paused = await h.host.schedules.pause(s.id, ALICE);
    expect(paused).toMatchObject({ status: 'paused', revision: before + 2 });
  });

  it('is refused before start and after stop (HOST_NOT_STARTED / HOST_STOPPED)', async () => {
    const h = await setup();
    await h.host.stop();
    hosts.splice(hosts.indexOf(h), 1);
    await expect(h.host.schedules.list()).rejects.toMatchObject({ code: 'HOST_STOPPED' });
  });
});
