import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSqliteStorage, type SqliteStorage } from '../../src/sqlite';
import { applySqliteMigrations } from '../../src/storage/sqlite/migrations';
import { scheduleTickFloor } from '../../src/storage/retention-rules';
import { toStorageError } from '../../src/storage/sqlite/sqlite-errors';
import { expectCode } from './expect-code';
import { runRecord } from './run-record';

const dirs: string[] = [];
const open: SqliteStorage[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function file(): string {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-retention-'));
  dirs.push(dir);
  return join(dir, 'agent.sqlite');
}
function storage(path: string): SqliteStorage {
  const s = createSqliteStorage({ path });
  open.push(s);
  return s;
}
const NOW = 1_800_000_000_000;
const PAYLOAD = 'x'.repeat(2_000);

/** `runs` finished runs with `events` events of about 2 kB each. */
async function fill(s: SqliteStorage, runs: number, events: number): Promise<void> {
  for (let r = 0; r < runs; r++) {
    await s.transaction(async (tx) => {
      await tx.runs.insert(runRecord(`r${r}`, { status: 'succeeded', endedAt: NOW - 1_000, updatedAt: NOW - 1_000 }));
      for (let e = 0; e < events; e++)
        await tx.events.append({
          runId: `r${r}`,
          type: 'tool_result',
          at: NOW - 1_000,
          data: { text: PAYLOAD },
        } as never);
    });
  }
}

describe('SQLite retention: file space', () => {
  it('anomalyco/opencode#31526: a new file uses incremental auto-vacuum, so prune + compact gives the freed pages back to the file system', async () => {
    const path = file();
    const s = storage(path);
    await s.migrate();
    await fill(s, 20, 50);
    const before = await s.fileUsage();
    let batch = await s.maintenance.prune('runs', { now: NOW }, 5);
    while (!batch.done) batch = await s.maintenance.prune('runs', { now: NOW }, 5);
    const freedPages = await s.fileUsage();
    expect(freedPages.freelistBytes).toBeGreaterThan(1_000_000);
    const { freedBytes } = await s.compact();
    const after = await s.fileUsage();
    expect(after.freelistBytes).toBe(0);
    expect(after.walBytes).toBe(0);
    expect(freedBytes).toBeGreaterThan(0);
    expect(after.databaseBytes + after.walBytes).toBeLessThan((before.databaseBytes + before.walBytes) * 0.2);
    expect((await s.runs.get('r0'))?.status).toBe('succeeded');
  }, 60_000);

  it('halos-org/halos#176: an existing file made without auto_vacuum is switched to incremental once, at migrate, keeping its rows', async () => {
    const path = file();
    const raw = new Database(path);
    raw.pragma('journal_mode = WAL');
    applySqliteMigrations(raw);
    raw.prepare(`INSERT INTO settings (key, value) VALUES ('k', '"v"')`).run();
    expect(Number(raw.pragma('auto_vacuum', { simple: true }))).toBe(0);
    raw.close();
    const s = storage(path);
    await s.migrate();
    expect(await s.settings.get('k')).toBe('v');
    await s.close();
    const check = new Database(path, { readonly: true });
    expect(Number(check.pragma('auto_vacuum', { simple: true }))).toBe(2);
    check.close();
  });

  it('BYK/loreai#1221: compact truncates a WAL that grew past its high-water mark back to zero bytes', async () => {
    const s = storage(file());
    await s.migrate();
    await fill(s, 5, 100);
    expect((await s.fileUsage()).walBytes).toBeGreaterThan(0);
    await s.compact();
    expect((await s.fileUsage()).walBytes).toBe(0);
  }, 60_000);

  it('a full disk surfaces as STORAGE_FULL and the failed batch leaves nothing half-deleted', async () => {
    const path = file();
    const s = storage(path);
    await s.migrate();
    await fill(s, 2, 20);
    await s.close();
    // The next connection may not grow the file past its current size plus a few pages: a disk that is full.
    const pragma = Database.prototype.pragma;
    const spy = vi.spyOn(Database.prototype, 'pragma').mockImplementation(function (
      this: Database.Database,
      source,
      options,
    ) {
      const out = pragma.call(this, source, options);
      if (source === 'synchronous = NORMAL')
        pragma.call(this, `max_page_count = ${Number(pragma.call(this, 'page_count', { simple: true })) + 2}`);
      return out;
    });
    try {
      const full = storage(path);
      await full.migrate();
      await expectCode(
        full.transaction(async (tx) => {
          await tx.maintenance.prune('runs', { now: NOW }, 1);
          for (let i = 0; i < 50; i++)
            await tx.audit.append({
              id: `a${i}`,
              seq: 0,
              at: NOW,
              action: 'capability.invoke',
              actor: 'u',
              capabilityId: 'c',
              invocationId: 'i',
              runId: null,
              taskId: null,
              outcome: 'succeeded',
              approvalId: null,
              grantId: null,
              idempotencyKey: null,
              inputSummary: PAYLOAD,
              reason: null,
            });
        }),
        'STORAGE_FULL',
      );
      expect((await full.events.listByRun('r0')).length).toBe(20);
      expect((await full.runs.get('r0'))?.status).toBe('succeeded');
    } finally {
      spy.mockRestore();
    }
  }, 60_000);

  it('a read-only database surfaces as STORAGE_READ_ONLY', async () => {
    const path = file();
    const s = storage(path);
    await s.migrate();
    await s.close();
    const ro = new Database(path, { readonly: true });
    let thrown: unknown;
    try {
      ro.prepare(`DELETE FROM run_events`).run();
    } catch (error) {
      thrown = error;
    } finally {
      ro.close();
    }
    await expectCode(Promise.reject(toStorageError(thrown, path)), 'STORAGE_READ_ONLY');
  });
});

describe('SQLite retention: schedule tick records', () => {
  it('100 000 tick records of 40 schedules: every statement seeks the primary key (no table scan, no sort), batches of 500 remove exactly the records older than the cut-off', async () => {
    const path = file();
    const s = storage(path);
    await s.migrate();
    const HOUR = 3_600_000;
    const DAY = 24 * HOUR;
    const schedules = 40;
    const perSchedule = 2_500;
    const insert = new Database(path);
    const row = insert.prepare(
      `INSERT INTO schedule_ticks (schedule_id, tick_at, outcome, run_id, reason, first_tick_at, ticks, handled_at, handled_by) VALUES (?, ?, 'fired', ?, NULL, ?, 1, ?, 'host:a')`,
    );
    insert.transaction(() => {
      for (let i = 0; i < schedules; i++)
        for (let k = 0; k < perSchedule; k++) {
          const tickAt = NOW - (k + 1) * HOUR;
          row.run(`sch_${i}`, tickAt, `run_${i}_${k}`, tickAt, tickAt + 2_000);
        }
    })();
    insert.close();
    const criteria = { now: NOW, before: NOW - 90 * DAY };
    // Per schedule: the records handled before the cut-off (tick + 2 s < before), the newest and the floor keep none.
    const expected =
      schedules * [...Array(perSchedule).keys()].filter((k) => NOW - (k + 1) * HOUR + 2_000 < criteria.before).length;
    expect(criteria.before).toBeLessThan(scheduleTickFloor(NOW));

    const prepared = new Set<string>();
    const prepare = Database.prototype.prepare;
    const spy = vi.spyOn(Database.prototype, 'prepare').mockImplementation(function (this: Database.Database, sql) {
      prepared.add(sql);
      return prepare.call(this, sql);
    });
    let removed = 0;
    let batches = 0;
    let elapsedMs = 0;
    try {
      expect((await s.maintenance.estimate('scheduleTicks', criteria)).rows).toBe(expected);
      const started = performance.now();
      for (let done = false; !done; batches++) {
        const batch = await s.maintenance.prune('scheduleTicks', criteria, 500);
        removed += batch.rows;
        done = batch.done;
      }
      elapsedMs = performance.now() - started;
      while (!(await s.maintenance.prune('scheduleTicks', { now: NOW, keepNewest: 3 }, 500)).done);
    } finally {
      spy.mockRestore();
    }
    expect(removed).toBe(expected);
    expect(batches).toBe(Math.ceil(expected / 500));
    // keepNewest 3 then leaves each schedule its ticks since the floor (the current and previous UTC day; more than 3).
    const sinceFloor = [...Array(perSchedule).keys()].filter((k) => NOW - (k + 1) * HOUR >= scheduleTickFloor(NOW));
    expect(sinceFloor.length).toBeGreaterThan(3);
    expect((await s.maintenance.usage()).scheduleTicks.rows).toBe(schedules * sinceFloor.length);
    console.log(
      `schedule tick prune: ${removed} of ${schedules * perSchedule} records in ${batches} batches, ${Math.round(elapsedMs)} ms`,
    );

    const check = new Database(path, { readonly: true });
    try {
      const statements = [...prepared].filter((sql) => /schedule_ticks/.test(sql) && /^\s*(SELECT|DELETE)/.test(sql));
      expect(statements.length).toBeGreaterThanOrEqual(6);
      for (const sql of statements) {
        const params = Object.fromEntries(
          [...sql.matchAll(/@(\w+)/g)].map((m) => [m[1], /^(id|after)$/.test(m[1]!) ? 'sch_1' : 1]),
        );
        const plan = (check.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map(
          (r) => r.detail,
        );
        expect(plan.join(' | '), sql).toMatch(/INDEX sqlite_autoindex_schedule_ticks_1/);
        for (const step of plan) expect(step, sql).not.toMatch(/TEMP B-TREE|^SCAN \w+$/);
      }
    } finally {
      check.close();
    }
  }, 60_000);
});
