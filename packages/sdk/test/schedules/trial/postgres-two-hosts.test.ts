// PASSES (works): two hosts on one PostgreSQL schema, a ManualClock each: one run per tick, the missed ticks of a
// jump recorded as one skipped record. Also: everyMs past the Date range is refused on PostgreSQL as on SQLite.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@media-agent/sdk';
import { createPostgresStorage } from '@media-agent/sdk/postgres';
import { ALICE, T0, cleanup, makeHost, until } from './helpers';

afterEach(cleanup);
const MIN = 60_000;
const URL = 'postgres://postgres@127.0.0.1:5432/test';
const schema = () => `trial_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;

describe('schedules on PostgreSQL', () => {
  it('two hosts on one schema start exactly one run per tick', async () => {
    const s = schema();
    const c1 = new ManualClock(T0);
    const c2 = new ManualClock(T0);
    const a = await makeHost({
      storage: createPostgresStorage({ connectionString: URL, schema: s }),
      clock: c1,
      workers: true,
    });
    const b = await makeHost({
      storage: createPostgresStorage({ connectionString: URL, schema: s }),
      clock: c2,
      workers: true,
    });
    const sch = await a.host.schedules.create({ actor: ALICE, everyMs: MIN, goal: 'pg' });
    for (let i = 0; i < 5; i++) {
      c1.advance(MIN);
      c2.advance(MIN);
      await until(async () => (await a.host.schedules.ticks(sch.id)).length === i + 1, 20_000);
    }
    c1.advance(30 * MIN);
    c2.advance(30 * MIN);
    await until(async () => (await a.host.schedules.ticks(sch.id)).length === 7, 20_000);
    const runs = (await a.host.listRuns({ limit: 1000 })).filter((r) => r.origin === 'schedule');
    const ticks = await b.host.schedules.ticks(sch.id);
    expect(runs.length).toBe(6);
    expect(ticks.filter((t) => t.outcome === 'fired').length).toBe(6);
    expect(ticks.find((t) => t.reason === 'missed')?.ticks).toBe(29);
  });

  it('everyMs past the Date range is refused with SCHEDULE_INVALID', async () => {
    const { host } = await makeHost({ storage: createPostgresStorage({ connectionString: URL, schema: schema() }) });
    const result = await host.schedules.create({ actor: ALICE, everyMs: Number.MAX_SAFE_INTEGER, goal: 'g' }).then(
      () => 'stored',
      (e: { code?: string }) => e.code,
    );
    expect(result).toBe('SCHEDULE_INVALID');
  });
});
