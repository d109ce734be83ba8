// Four host processes on one PostgreSQL database race one person's daily cost budget: each model call reserves
// its worst case in one transaction that locks the person's and the household's counter rows, so the cap is not
// passed by more than what one call in flight per process could add (in fact: not at all, while the reservation
// is a true worst case). Real child processes (tsx, the SDK from source), real PostgreSQL (docs/budgets.md).
import { afterAll, expect, it } from 'vitest';
import { priceFor } from '../../src/models/cost';
import { worstCaseOf } from '../../src/runtime/budgets/worst-case';
import {
  closeAdmin,
  describePostgres,
  dropSchema,
  freshSchemaName,
  PG_URL,
  pgStorage,
} from '../storage/postgres-available';
import { spawnFixture } from '../storage/child';

const PROCESSES = 4;
const CAP_USD = 0.02;

afterAll(closeAdmin);

describePostgres('spending budgets: 4 host processes on one PostgreSQL database', () => {
  it("4 processes racing one person's daily cost cap never overspend it by more than one call in flight per process (BerriAI/litellm#34732, BerriAI/litellm#40095)", async () => {
    const schema = freshSchemaName('ma_budget_race');
    const setup = pgStorage(schema);
    await setup.migrate();
    const began = Date.now();
    const children = Array.from({ length: PROCESSES }, (_, i) =>
      spawnFixture('../../budgets/fixtures/budget-race-host.ts', [PG_URL, schema, String(i), String(CAP_USD)]),
    );
    try {
      for (const c of children) expect(await c.nextLine()).toBe('ready');
      const startupMs = Date.now() - began;
      const go = Date.now();
      for (const c of children) c.send('go');
      const figures = (await Promise.all(children.map((c) => c.nextLine()))).map(
        (l) => JSON.parse(l) as { index: number; calls: number; released: number; refused: unknown; ms: number },
      );
      const raceWallMs = Date.now() - go;
      for (const c of children) c.send('stop');
      expect(await Promise.all(children.map((c) => c.exited))).toEqual([0, 0, 0, 0]);

      const day = Date.UTC(2026, 10, 30);
      const counters = await setup.budgetUsage.get('user:alice', 'day', day);
      const reservations = await setup.budgetUsage.reservations();
      const settled = reservations.filter((r) => r.state === 'settled');
      const settledUsd = settled.reduce((sum, r) => sum + r.costUsd, 0);
      const worstUsd = worstCaseOf(3_000, 500, priceFor('gpt-4o-mini')).costUsd;
      const report = {
        capUsd: CAP_USD,
        settledUsd: Number(settledUsd.toFixed(6)),
        counterUsd: Number(counters.costUsd.toFixed(6)),
        overspendUsd: Number(Math.max(0, counters.costUsd - CAP_USD).toFixed(6)),
        allowedOverspendUsd: Number((PROCESSES * worstUsd).toFixed(6)),
        settledCalls: counters.modelCalls,
        callsPerProcess: figures.sort((a, b) => a.index - b.index).map((f) => f.calls),
        releasedPerProcess: figures.map((f) => f.released),
        worstCallUsd: Number(worstUsd.toFixed(6)),
        startupMs,
        raceWallMs,
        totalWallMs: Date.now() - began,
      };
      console.log(`budget race: ${JSON.stringify(report)}`);
      // Every call made was reserved first and is settled or released now: nothing left in flight.
      expect(reservations.filter((r) => r.state === 'reserved')).toEqual([]);
      expect(figures.reduce((n, f) => n + f.calls, 0)).toBe(counters.modelCalls);
      expect(settled).toHaveLength(counters.modelCalls);
      expect(counters.costUsd).toBeCloseTo(settledUsd, 9);
      // The race was real: several processes spent, each stopped at the cap.
      expect(figures.filter((f) => f.calls > 0).length).toBeGreaterThan(1);
      for (const f of figures) expect(f.refused).toMatchObject({ scope: 'person', budget: 'costUsd', limit: CAP_USD });
      // No overspend beyond one call in flight per process (and, the reservation being a true worst case, none).
      expect(counters.costUsd).toBeLessThanOrEqual(CAP_USD + PROCESSES * worstUsd);
      expect(counters.costUsd).toBeLessThanOrEqual(CAP_USD + 1e-9);
      // The cap was used, not left idle: what is left is less than one call's worst case per process.
      expect(CAP_USD - counters.costUsd).toBeLessThan(PROCESSES * worstUsd);
    } finally {
      for (const c of children) if (c.process.exitCode === null) c.process.kill('SIGKILL');
      await setup.close();
      await dropSchema(schema);
    }
    // Four processes loading the SDK's PostgreSQL store from source take most of it.
  }, 60_000);

  it("4 whole host processes (workers, run loop) racing one person's daily model calls: runs wait at the cap, none overspends it", async () => {
    const CAP_CALLS = 24;
    const RUNS = 4;
    const schema = freshSchemaName('ma_budget_hosts');
    const setup = pgStorage(schema);
    await setup.migrate();
    const began = Date.now();
    const children = Array.from({ length: PROCESSES }, (_, i) =>
      spawnFixture('../../budgets/fixtures/budget-race-full-host.ts', [
        PG_URL,
        schema,
        String(i),
        String(CAP_CALLS),
        String(RUNS),
      ]),
    );
    try {
      for (const c of children) expect(await c.nextLine()).toBe('ready');
      const go = Date.now();
      for (const c of children) c.send('go');
      const figures = (await Promise.all(children.map((c) => c.nextLine()))).map(
        (l) => JSON.parse(l) as { index: number; statuses: string[]; modelCalls: number[]; ms: number },
      );
      const raceWallMs = Date.now() - go;
      for (const c of children) c.send('stop');
      expect(await Promise.all(children.map((c) => c.exited))).toEqual([0, 0, 0, 0]);

      const day = Math.floor(Date.now() / 86_400_000) * 86_400_000;
      const counters = await setup.budgetUsage.get('user:alice', 'day', day);
      const reservations = await setup.budgetUsage.reservations();
      const statuses = figures.flatMap((f) => f.statuses);
      const callsMade = figures.flatMap((f) => f.modelCalls).reduce((a, b) => a + b, 0);
      console.log(
        `budget race, whole hosts: ${JSON.stringify({
          capCalls: CAP_CALLS,
          demandCalls: PROCESSES * RUNS * 4,
          counterCalls: counters.modelCalls,
          callsMade,
          succeeded: statuses.filter((x) => x === 'succeeded').length,
          waiting: statuses.filter((x) => x === 'waiting').length,
          raceWallMs,
          totalWallMs: Date.now() - began,
        })}`,
      );
      // Every run ended or waits at the cap; none failed or stayed running.
      expect(statuses.every((x) => x === 'succeeded' || x === 'waiting')).toBe(true);
      expect(statuses.filter((x) => x === 'waiting').length).toBeGreaterThan(0);
      // Nothing left in flight; the counter is what the runs made; the cap is never passed.
      expect(reservations.filter((r) => r.state === 'reserved')).toEqual([]);
      expect(counters.modelCalls).toBe(callsMade);
      expect(callsMade).toBeLessThanOrEqual(CAP_CALLS);
      // The cap was used: the calls left are fewer than one per process.
      expect(CAP_CALLS - callsMade).toBeLessThan(PROCESSES);
      // The held runs say why, in storage (any process's subscriber sees it).
      const held = (await setup.events.listAfter(0, 10_000)).filter((e) => e.type === 'budget_reached');
      expect(held.length).toBe(statuses.filter((x) => x === 'waiting').length);
    } finally {
      for (const c of children) if (c.process.exitCode === null) c.process.kill('SIGKILL');
      await setup.close();
      await dropSchema(schema);
    }
  }, 90_000);
});
