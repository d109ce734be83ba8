// Many host processes open a person's new history file at the same instant: every one of them archives
// its messages, none fails. The SQLite schema is created under one write lock with the version read
// inside it, and WAL is switched on with a busy timeout already set (rtk-ai/icm#401: ten processes opening a
// new SQLite file failed with "table memories_fts already exists" and "database is locked"; tobi/qmd#903:
// FTS5's CREATE VIRTUAL TABLE IF NOT EXISTS is not atomic across WAL connections on a cold open).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { raceFirstOpens } from '../storage/first-open-race';

const root = mkdtempSync(join(tmpdir(), 'history-first-open-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Messages in the one user file under a round's directory (the file a store made for `alice`). */
function storedMessages(directory: string): number {
  const users = join(directory, 'users');
  const [key] = readdirSync(users);
  const db = new Database(join(users, key!, 'state.db'), { readonly: true });
  try {
    const messages = (db.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n;
    const counted = (db.prepare('SELECT coalesce(sum(message_count), 0) AS n FROM sessions').get() as { n: number }).n;
    const indexed = (
      db.prepare("SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH 'hello'").get() as {
        n: number;
      }
    ).n;
    // Every archived message is counted on its session and found by the word index.
    return messages === counted && messages === indexed ? messages : -1;
  } finally {
    db.close();
  }
}

describe('SqliteHistoryStore: concurrent first opens of one new file', () => {
  it('8 processes open the same new history file at once, 20 rounds: none fails, no message is lost (rtk-ai/icm#401, tobi/qmd#903)', async () => {
    const report = await raceFirstOpens({
      kind: 'history',
      processes: 8,
      rounds: 20,
      perChild: 5,
      target: (round) => join(root, `round-${round}`),
      stored: storedMessages,
    });
    expect(report.failures).toEqual([]);
    expect(report.shortRounds).toEqual([]);
    expect(report.outcomes.flat().every((o) => o.appended === 5)).toBe(true);
  }, 240_000);
});
