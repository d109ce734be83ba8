// The runner on a real SQLite file, client keys, access (a new user's trial of schedules).
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@media-agent/sdk';
import { ADMIN, ALICE, BOB, T0, cleanup, errorOf, makeHost, until } from './helpers';

afterEach(cleanup);
const MIN = 60_000;

describe('runner and client keys (SQLite file)', () => {
  it('a host started with start({ workers: false }) fires no tick (its scheduler runs with its workers, as docs/schedules.md says); start() fires', async () => {
    const { host, clock, path } = await makeHost({ workers: false });
    const s = await host.schedules.create({ actor: ALICE, everyMs: MIN, goal: 'g' });
    clock.advance(MIN);
    // A process with workers on the same file fires the tick the management-only one does not.
    const worker = await makeHost({ path, clock, workers: true });
    await until(async () => (await host.schedules.ticks(s.id)).length === 1, 20_000);
    expect((await worker.host.schedules.ticks(s.id))[0]).toMatchObject({ outcome: 'fired' });
  });

  it('retrying the original create with its client key after the schedule was updated is refused, saying it changed since', async () => {
    const { host } = await makeHost();
    const input = { actor: ALICE, cron: '0 3 * * *', goal: 'k', clientKey: 'kk' };
    const first = await host.schedules.create(input);
    expect((await host.schedules.create(input)).id).toBe(first.id);
    await host.schedules.update(first.id, { goal: 'k2' }, ALICE);
    const e = await errorOf(host.schedules.create(input));
    expect([e.code, e.details?.scheduleId, e.details?.changedSince]).toEqual(['SCHEDULE_KEY_REUSED', first.id, true]);
    expect(e.message).toContain('changed since');
  });

  it('ten concurrent creates with one key store one schedule; another owner may reuse the key', async () => {
    const { host } = await makeHost();
    const ids = await Promise.all(
      Array.from({ length: 10 }, () =>
        host.schedules.create({ actor: ALICE, everyMs: MIN, goal: 'c', clientKey: 'k' }),
      ),
    );
    expect(new Set(ids.map((s) => s.id)).size).toBe(1);
    const bob = await host.schedules.create({ actor: BOB, everyMs: MIN, goal: 'c', clientKey: 'k' });
    expect(bob.id).not.toBe(ids[0]!.id);
    const e = await errorOf(host.schedules.create({ actor: ALICE, everyMs: 2 * MIN, goal: 'c', clientKey: 'k' }));
    expect([e.code, e.details?.scheduleId]).toEqual(['SCHEDULE_KEY_REUSED', ids[0]!.id]);
  });

  it('another user is told the schedule does not exist; an admin sees it', async () => {
    const { host } = await makeHost();
    const s = await host.schedules.create({ actor: ALICE, everyMs: MIN, goal: 'g' });
    for (const p of [host.schedules.get(s.id, BOB), host.schedules.pause(s.id, BOB), host.schedules.delete(s.id, BOB)])
      expect((await errorOf(p)).code).toBe('SCHEDULE_NOT_FOUND');
    expect(await host.schedules.list({ actor: BOB })).toEqual([]);
    expect((await host.schedules.get(s.id, ADMIN)).id).toBe(s.id);
    expect((await errorOf(host.schedules.create({ actor: BOB, owner: ALICE, everyMs: MIN, goal: 'g' }))).code).toBe(
      'ADMIN_FORBIDDEN',
    );
  });

  it('two hosts on one file, clock backwards, pause/resume, a jump: one run per tick, missed ticks recorded', async () => {
    const c1 = new ManualClock(T0);
    const a = await makeHost({ clock: c1, workers: true });
    const c2 = new ManualClock(T0);
    const b = await makeHost({ path: a.path, clock: c2, workers: true });
    const both = (f: (c: ManualClock) => void) => [c1, c2].forEach(f);
    const s = await a.host.schedules.create({
      actor: ALICE,
      everyMs: MIN,
      goal: 'g',
      budgets: { maxRunsPerDay: null },
    });
    const ticksNow = async () => b.host.schedules.ticks(s.id);
    both((c) => c.advance(MIN));
    await until(async () => (await ticksNow()).length === 1, 20_000);
    both((c) => c.set(T0 + 30_000)); // backwards: nothing is due again
    both((c) => c.set(T0 + 2 * MIN));
    await until(async () => (await ticksNow()).length === 2, 20_000);
    await b.host.schedules.pause(s.id, ALICE);
    both((c) => c.advance(5 * MIN)); // paused: nothing fires
    await a.host.schedules.resume(s.id, ALICE);
    both((c) => c.advance(60 * MIN));
    await until(async () => (await ticksNow()).some((t) => t.reason === 'missed'), 20_000);
    const runs = (await a.host.listRuns({ limit: 1000 })).filter((r) => r.origin === 'schedule');
    const ticks = await b.host.schedules.ticks(s.id);
    expect(runs.length).toBe(ticks.filter((t) => t.outcome === 'fired').length);
    expect(new Set(ticks.map((t) => t.tickAt)).size).toBe(ticks.length);
    expect(ticks.some((t) => t.reason === 'missed')).toBe(true);
  });

  it('daily cap 1 skips the next ticks (daily_budget) and raises one schedule_budget decision; a failed run raises schedule_run_failed', async () => {
    const { host, clock } = await makeHost({ workers: true }); // no model: the run fails
    const s = await host.schedules.create({ actor: ALICE, everyMs: MIN, goal: 'g', budgets: { maxRunsPerDay: 1 } });
    for (let i = 0; i < 3; i++) {
      clock.advance(MIN);
      await until(async () => (await host.schedules.ticks(s.id)).length === i + 1, 20_000);
    }
    await until(async () => (await host.decisions({})).length === 2, 20_000);
    const ticks = await host.schedules.ticks(s.id);
    expect(ticks.map((t) => t.reason)).toEqual(['daily_budget', 'daily_budget', null]);
    const kinds = (await host.decisions({})).map((d) => d.kind).sort();
    expect(kinds).toEqual(['schedule_budget', 'schedule_run_failed']);
  });
});
