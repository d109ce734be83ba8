// Writes a SQLite store a NAS would hold after months of use (not a checked-in file): finished runs, most older than
// the default retention, each with events and messages; audit rows, settled ledger entries, decided approvals and
// their plans; a few recent finished runs and a few live ones. Runs, audit, ledger, approvals and plans go through
// the store's own repositories (the audit chain stays sealed); the bulk — events and messages — through raw
// better-sqlite3 inserts into the migrated file, in one transaction.
import Database from 'better-sqlite3';
import type { StorageAdapter } from '../packages/sdk/src/ports/storage-adapter';
import { createSqliteStorage } from '../packages/sdk/src/sqlite';
import {
  approval,
  auditRow,
  ledgerEntry,
  plan,
  runRecord,
} from '../packages/sdk/src/testing/storage-conformance/fixtures';

const DAY = 86_400_000;

/** What to write. */
export interface PruneFixtureOptions extends SeedOptions {
  /** The database file (created). */
  file: string;
}

/** How many records of each age. */
export interface SeedOptions {
  /** Finished runs older than the default retention (200 days). */
  oldRuns: number;
  /** Finished runs of yesterday (kept). */
  recentRuns: number;
  /** Running runs (live: never touched). */
  liveRuns: number;
  /** Events per run. */
  eventsPerRun: number;
  /** Messages per run. */
  messagesPerRun: number;
  /** The time the store is written at (ms); prune runs at this time too. */
  now: number;
}

/** The ids written, by age. */
export interface PruneFixture {
  oldRunIds: string[];
  recentRunIds: string[];
  liveRunIds: string[];
  /** Events written in total. */
  events: number;
}

/** A tool result's worth of text: what a media search returns (titles, years, paths). */
const payload = (i: number) =>
  JSON.stringify({
    tool: 'library.search',
    text: `Result ${i}: The Film (${1950 + (i % 70)}) — /volume1/media/films/The Film ${i}/The Film ${i}.mkv, 1080p, 8.4 GB`,
    items: [i, i + 1, i + 2],
  });

/** Writes the fixture into a new SQLite file; see the file comment. */
export async function writePruneFixture(o: PruneFixtureOptions): Promise<PruneFixture> {
  const storage = createSqliteStorage({ path: o.file });
  await storage.migrate();
  const ids = await seedRecords(storage, o);
  await storage.close();
  return { ...ids, events: writeBulk(o.file, o) };
}

/**
 * Writes the same store through any adapter (migrated), events and messages through its repositories too (for
 * small stores: PostgreSQL, memory).
 */
export async function seedPruneStore(storage: StorageAdapter, o: SeedOptions): Promise<PruneFixture> {
  const ids = await seedRecords(storage, o);
  let events = 0;
  for (const runId of [...ids.oldRunIds, ...ids.recentRunIds, ...ids.liveRunIds]) {
    const run = await storage.runs.get(runId);
    const at = run?.endedAt ?? run?.updatedAt ?? o.now;
    await storage.transaction(async (s) => {
      for (let seq = 1; seq <= o.eventsPerRun; seq++, events++)
        await s.events.append({
          runId,
          type: seq === 1 ? 'run_started' : 'tool_result',
          at: at - o.eventsPerRun + seq,
          data: JSON.parse(payload(events)),
        });
      for (let seq = 1; seq <= o.messagesPerRun; seq++)
        await s.messages.append(runId, { role: seq % 2 ? 'user' : 'assistant', content: payload(seq) }, at);
    });
  }
  return { ...ids, events };
}

/** Runs (old, recent, live), one audit row each, settled ledger entries, decided approvals and their plans. */
async function seedRecords(storage: StorageAdapter, o: SeedOptions): Promise<Omit<PruneFixture, 'events'>> {
  const oldRunIds: string[] = [];
  const recentRunIds: string[] = [];
  const liveRunIds: string[] = [];
  const total = o.oldRuns + o.recentRuns + o.liveRuns;
  const CHUNK = 500;
  for (let start = 0; start < total; start += CHUNK) {
    await storage.transaction(async (s) => {
      for (let i = start; i < Math.min(total, start + CHUNK); i++) {
        const kind = i < o.oldRuns ? 'old' : i < o.oldRuns + o.recentRuns ? 'recent' : 'live';
        const id = `run-${String(i).padStart(7, '0')}`;
        const endedAt = kind === 'old' ? o.now - 200 * DAY + i * 1000 : kind === 'recent' ? o.now - DAY + i : null;
        const at = endedAt ?? o.now - 60_000;
        (kind === 'old' ? oldRunIds : kind === 'recent' ? recentRunIds : liveRunIds).push(id);
        await s.runs.insert(
          runRecord({
            id,
            goal: `add film ${i} to the library`,
            status: kind === 'live' ? 'running' : 'succeeded',
            startedBy: `user:u${i % 7}`,
            createdAt: at - 30_000,
            updatedAt: at,
            startedAt: at - 30_000,
            endedAt,
            report: kind === 'live' ? null : { summary: `added film ${i}` },
            finalText: kind === 'live' ? null : `Film ${i} is in the library.`,
            ...(kind === 'live' ? { leaseOwner: 'worker-fixture', leaseExpiresAt: o.now + 3_600_000 } : {}),
          }),
        );
        await s.audit.append(
          auditRow({ id: `aud-${i}`, at, runId: id, invocationId: `inv-${i}`, actor: `agent:${id}` }),
        );
        if (kind !== 'live')
          await s.ledger.insert(
            ledgerEntry({
              key: `cap.test:v1:run:${id}:h`,
              scopeId: `run:${id}`,
              state: 'succeeded',
              runId: id,
              invocationId: `inv-${i}`,
              output: { ok: true, film: i },
              claimedAt: at - 1000,
              updatedAt: at,
              settledAt: at,
            }),
          );
        if (i % 10 === 0 && kind !== 'live') {
          await s.plans.insert(plan({ id: `plan-${i}`, createdAt: at - 2000, updatedAt: at - 2000 }));
          await s.approvals.insert(
            approval({
              id: `appr-${i}`,
              planId: `plan-${i}`,
              status: 'approved',
              requestedAt: at - 2000,
              expiresAt: at + DAY,
              decidedBy: 'user:u0',
              decidedAt: at - 1000,
            }),
          );
        }
      }
    });
  }
  return { oldRunIds, recentRunIds, liveRunIds };
}

/** Events and messages of every run, raw, in one transaction; returns the events written. */
function writeBulk(file: string, o: SeedOptions): number {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  const event = db.prepare('INSERT INTO run_events (run_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)');
  const message = db.prepare('INSERT INTO run_messages (run_id, seq, message, at) VALUES (?, ?, ?, ?)');
  const ends = db.prepare('SELECT id, COALESCE(ended_at, updated_at) AS at FROM runs').all() as {
    id: string;
    at: number;
  }[];
  let events = 0;
  db.transaction(() => {
    let n = 0;
    for (const run of ends) {
      for (let seq = 1; seq <= o.eventsPerRun; seq++, n++)
        event.run(run.id, seq, seq === 1 ? 'run_started' : 'tool_result', run.at - o.eventsPerRun + seq, payload(n));
      for (let seq = 1; seq <= o.messagesPerRun; seq++)
        message.run(
          run.id,
          seq,
          JSON.stringify({ role: seq % 2 ? 'user' : 'assistant', content: payload(n + seq) }),
          run.at,
        );
      events += o.eventsPerRun;
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return events;
}
