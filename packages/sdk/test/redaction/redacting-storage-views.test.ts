// The storage view hands out the same bound methods, write wrappers and repository views again (made once
// per value of the store's property), and they redact on every use: direct, and in every transaction.
import { describe, expect, it } from 'vitest';
import { REDACTED_MARKER, SecretRedactor } from '../../src/core/secret-redactor';
import { MemoryStorage } from '../../src/storage';
import { redactingStorage, unredactedStorage } from '../../src/storage/redacting-storage';
import { createSqliteStorage } from '../../src/sqlite';
import type { StorageSession } from '../../src/ports/storage-adapter';
import { runRecord } from '../storage/run-record';

const S = 'nas-pass-27182818';

describe('redactingStorage views', () => {
  it('reuses what a property reads as, and redacts through it each time, in transactions too', async () => {
    const raw = new MemoryStorage();
    await raw.migrate();
    const view = redactingStorage(raw, new SecretRedactor({ secrets: [S] }));
    expect(view.runs).toBe(view.runs);
    expect(view.runs.insert).toBe(view.runs.insert);
    expect(view.runs.get).toBe(view.runs.get);
    expect(view.transaction).toBe(view.transaction);
    await view.runs.insert(runRecord('r1', { goal: `first ${S}` }));
    await view.runs.insert(runRecord('r2', { goal: `second ${S}` }));
    const sessions = new Set<unknown>();
    for (const id of ['r3', 'r4']) {
      await view.transaction(async (s) => {
        sessions.add(s);
        expect(s.runs).toBe(s.runs);
        await s.runs.insert(runRecord(id, { goal: `in a transaction ${S}` }));
        await s.runs.patch(id, { finalText: `patched ${S}` });
      });
    }
    // The memory store hands out one session: so does the view of it.
    expect(sessions.size).toBe(1);
    for (const id of ['r1', 'r2', 'r3', 'r4']) {
      const stored = await raw.runs.get(id);
      expect(stored?.goal).toContain(REDACTED_MARKER);
      expect(JSON.stringify(stored)).not.toContain(S);
    }
    expect((await raw.runs.get('r4'))?.finalText).toBe(`patched ${REDACTED_MARKER}`);
  });

  it('follows a repository the store replaces', async () => {
    const raw = new MemoryStorage();
    await raw.migrate();
    const view = redactingStorage(raw, new SecretRedactor({ secrets: [S] }));
    const before = view.runs;
    const seen: unknown[] = [];
    const original = raw.runs;
    Object.defineProperty(raw, 'runs', {
      value: { ...original, insert: (run: unknown) => (seen.push(run), original.insert(run as never)) },
    });
    expect(view.runs).not.toBe(before);
    await view.runs.insert(runRecord('r5', { goal: `replaced ${S}` }));
    expect(seen).toHaveLength(1);
    expect((await raw.runs.get('r5'))?.goal).toBe(`replaced ${REDACTED_MARKER}`);
  });

  it('redacts through the view of each SQLite transaction (a new session each time), which ends with it', async () => {
    const raw = createSqliteStorage({ path: ':memory:' });
    await raw.migrate();
    const view = redactingStorage(raw, new SecretRedactor({ secrets: [S] }));
    expect(unredactedStorage(view)).toBe(raw);
    expect(redactingStorage(view, new SecretRedactor({ secrets: [S] }))).toBe(view);
    const sessions: StorageSession[] = [];
    const repos: Array<StorageSession['runs']> = [];
    for (const id of ['t1', 't2', 't3']) {
      await view.transaction(async (s) => {
        sessions.push(s);
        repos.push(s.runs);
        expect(s.runs).toBe(s.runs);
        expect(s.runs.insert).toBe(s.runs.insert);
        await s.runs.insert(runRecord(id, { goal: `in a transaction ${S}` }));
        await s.runs.patch(id, { finalText: `patched ${S}` });
        expect((await s.runs.get(id))?.finalText).toBe(`patched ${REDACTED_MARKER}`);
      });
    }
    expect(new Set(sessions).size).toBe(3);
    expect(new Set(repos).size).toBe(3);
    for (const id of ['t1', 't2', 't3']) {
      const stored = await raw.runs.get(id);
      expect(stored?.goal).toBe(`in a transaction ${REDACTED_MARKER}`);
      expect(stored?.finalText).toBe(`patched ${REDACTED_MARKER}`);
    }
    // A session, or a repository taken from it, fails once its transaction has ended; nothing is written.
    await expect(sessions[0]!.runs.insert(runRecord('late', { goal: S }))).rejects.toThrow(
      /after its transaction ended/,
    );
    await expect(repos[1]!.get('t1')).rejects.toThrow(/after its transaction ended/);
    await expect(raw.runs.get('late')).resolves.toBeUndefined();
    await raw.close();
  });
});
