// One identity form for a person in the history stores: `user:alice` and `alice` are the same archive;
// every public method refuses wrong-typed arguments with a stable code before touching storage.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MediaAgentError } from '../../src/core/errors';
import type { HistoryStore } from '../../src/history/history-store';
import { SqliteHistoryStore } from '../../src/history/sqlite-history-store';
import { historyUserKey } from '../../src/history/user-key';
import { describePostgres } from '../storage/postgres-available';
import { postgresHistoryStores } from './postgres-stores';

const batch = (session: string, text: string) => ({
  session: { id: session, title: text },
  messages: [{ uid: `${session}-1`, role: 'user' as const, content: text, timestamp: 1_700_000_000_000 }],
});

/** The code a call is refused with (a MediaAgentError), or 'resolved'; any other throw fails the test. */
async function codeOf(call: () => unknown): Promise<string> {
  try {
    await call();
    return 'resolved';
  } catch (error) {
    if (error instanceof MediaAgentError) return error.code;
    throw error;
  }
}

/** The same person through both forms, on any store. */
function identityCases(store: () => HistoryStore) {
  // langchain-ai/memory-template#15: memories saved under one namespace form ("memories", user_id, …) and read
  // under another (user_id,) were silently invisible. Here the person's two forms must reach one archive.
  it('user:alice and alice read and write one archive', async () => {
    const s = store();
    await s.append('alice', batch('bare', 'the NAS is at 10.0.0.5'));
    await s.append('user:alice', batch('actor', 'prefers 1080p releases'));
    for (const who of ['alice', 'user:alice']) {
      const found = await s.search(who, { query: 'NAS' });
      expect(found.count, who).toBe(1);
      expect((await s.search(who, { query: '1080p' })).count, who).toBe(1);
    }
    // Another person sees none of it.
    expect((await s.search('user:bob', { query: 'NAS' })).count).toBe(0);
  });

  // mastra-ai/mastra#11949: a thread asked for under another resource id form was refused or missed; here
  // deleting through the actor form deletes what the bare form stored (before: false, nothing deleted).
  it('deleteSession through user:alice deletes what alice stored, and the tombstone holds for both forms', async () => {
    const s = store();
    await s.append('alice', batch('s1', 'remember the subtitles'));
    expect(await s.deleteSession('user:alice', 's1')).toBe(true);
    expect((await s.search('alice', { query: 'subtitles' })).count).toBe(0);
    expect(await s.append('alice', batch('s1', 'late write'))).toEqual({ appended: 0, dropped: true });
    expect(await s.deleteSession('alice', 's1')).toBe(false);
  });

  it('markCompacted through either form marks the same rows', async () => {
    const s = store();
    await s.append('user:alice', batch('c1', 'compact me'));
    expect(await s.markCompacted('alice', 'c1', ['c1-1'])).toBe(1);
    expect(await s.markRewound('user:alice', 'c1', ['c1-1'])).toBe(1);
  });

  // langchain-ai/langgraph#7427: an integer user id reached the store's namespace check deep inside a run
  // and failed there. Here a wrong-typed or non-person id is refused at the entry with a stable code.
  it('refuses other actor kinds, empty, malformed and wrong-typed ids with PERSON_ID_INVALID', async () => {
    const s = store();
    for (const who of ['agent:run-1', 'apikey:ci', 'system:cron', '', 'user:', ' alice', 42, null, {}]) {
      const label = JSON.stringify(who);
      expect(await codeOf(() => s.append(who as never, batch('x', 'y'))), label).toBe('PERSON_ID_INVALID');
      expect(await codeOf(() => s.search(who as never, { query: 'y' })), label).toBe('PERSON_ID_INVALID');
      expect(await codeOf(() => s.deleteSession(who as never, 'x')), label).toBe('PERSON_ID_INVALID');
      expect(await codeOf(() => s.markCompacted(who as never, 'x', ['u'])), label).toBe('PERSON_ID_INVALID');
      expect(await codeOf(() => s.maintain(who as never)), label).toBe('PERSON_ID_INVALID');
    }
  });

  it('refuses wrong-typed arguments of every method with HISTORY_INPUT_INVALID, never a TypeError', async () => {
    const s = store();
    const refused = async (call: () => unknown) => expect(await codeOf(call)).toBe('HISTORY_INPUT_INVALID');
    await refused(() => s.append('alice', null as never));
    await refused(() => s.append('alice', { session: { id: 's' }, messages: 'hi' } as never));
    await refused(() => s.append('alice', { session: { id: 's' }, messages: [null] } as never));
    await refused(() =>
      s.append('alice', {
        session: { id: 's' },
        messages: [{ uid: 'u', role: 'tool', content: 'x', toolName: { name: 'x' } }],
      } as never),
    );
    await refused(() => s.markCompacted('alice', 's', 'u1' as never));
    await refused(() => s.markRewound('alice', 's', [1] as never));
    await refused(() => s.markCompacted('alice', 42 as never, ['u']));
    await refused(() => s.deleteSession('alice', undefined as never));
    await refused(() => s.search('alice', { query: 'x' }, null as never));
    await refused(() => s.search('alice', { query: 'x' }, { currentSessionId: 7 } as never));
    await refused(() => s.maintain('alice', null as never));
    await refused(() => s.maintain('alice', { batchSize: '10' } as never));
    await refused(() => s.maintain('alice', { maxSteps: -1 }));
    // Nothing was stored by any refused call.
    expect((await s.search('alice', { query: 'x' })).count ?? 0).toBe(0);
  });
}

describe('history identity: SqliteHistoryStore on SQLite files', () => {
  const dirs: string[] = [];
  const stores: SqliteHistoryStore[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const store = () => {
    const directory = mkdtempSync(join(tmpdir(), 'history-id-'));
    dirs.push(directory);
    const s = new SqliteHistoryStore({ directory });
    stores.push(s);
    return s;
  };
  identityCases(store);

  it('keeps the file of a bare id: user:alice opens the file alice wrote before', async () => {
    const s = store();
    await s.append('alice', batch('old', 'archived before the identity rule'));
    expect(s.pathOf('user:alice')).toBe(s.pathOf('alice'));
    expect(historyUserKey('user:alice')).toBe(historyUserKey('alice'));
    expect(existsSync(s.pathOf('alice'))).toBe(true);
    expect((await s.search('user:alice', { query: 'archived' })).count).toBe(1);
  });

  it('a refused person id creates no folder', async () => {
    const s = store();
    const root = dirs.at(-1)!;
    await codeOf(() => s.append('agent:r1', batch('x', 'y')));
    await codeOf(() => s.maintain(7 as never));
    expect(existsSync(join(root, 'users')) ? readdirSync(join(root, 'users')) : []).toEqual([]);
    expect(await codeOf(() => s.integrityCheck(undefined as never))).toBe('PERSON_ID_INVALID');
    expect(await codeOf(() => s.rebuildIndex('alice', 'nope' as never))).toBe('HISTORY_INPUT_INVALID');
  });
});

describePostgres('history identity: PostgresHistoryStore', () => {
  const { store } = postgresHistoryStores('ma_hid');
  identityCases(() => store());
});
