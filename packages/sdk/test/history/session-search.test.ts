import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { HistoryMessageInput, SessionSearchResult } from '../../src/history/history-store';
import { SqliteHistoryStore, type SqliteHistoryStoreOptions } from '../../src/history/sqlite-history-store';
import { ManualClock } from '../../src/ports/clock';

const DAY = 86_400_000;
const dirs: string[] = [];
const stores: SqliteHistoryStore[] = [];

function store(options: Partial<SqliteHistoryStoreOptions> = {}): SqliteHistoryStore {
  const directory = mkdtempSync(join(tmpdir(), 'history-'));
  dirs.push(directory);
  // The search deadline is tested on its own (deadlineMs: 0.001 below); elsewhere a loaded machine must not reach it.
  const s = new SqliteHistoryStore({ directory, deadlineMs: 60_000, ...options });
  stores.push(s);
  return s;
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

let uid = 0;
const msg = (role: HistoryMessageInput['role'], content: string, extra: Partial<HistoryMessageInput> = {}) => ({
  uid: `m${++uid}`,
  role,
  content,
  ...extra,
});

async function say(
  s: SqliteHistoryStore,
  session: string,
  texts: string[],
  meta: { source?: string; title?: string; startedAt?: number; parentSessionId?: string; user?: string } = {},
) {
  await s.append(meta.user ?? 'alice', {
    session: {
      id: session,
      source: meta.source,
      title: meta.title,
      startedAt: meta.startedAt,
      parentSessionId: meta.parentSessionId,
    },
    messages: texts.map((t, i) =>
      msg(i % 2 === 0 ? 'user' : 'assistant', t, meta.startedAt ? { timestamp: meta.startedAt + i } : {}),
    ),
  });
}

const sessionsOf = (r: SessionSearchResult) => (r.results as { session_id: string }[]).map((x) => x.session_id);

describe('session_search on SQLite', () => {
  it('finds a two-letter CJK query through the bigram index, and through LIKE without it', async () => {
    const s = store();
    await say(s, 'A', ['沙丘2 下载完成']);
    const r = await s.search('alice', { query: '沙丘' });
    expect(r).toMatchObject({ success: true, count: 1, search_path: 'cjk' });
    const hit = (r.results as { match_message_id: number; snippet: string }[])[0];
    expect(hit?.snippet).toContain('沙丘');
    expect(hit?.match_message_id).toBe(1);
    const without = store({ cjk: false });
    await say(without, 'A', ['沙丘2 下载完成']);
    expect(await without.search('alice', { query: '沙丘' })).toMatchObject({ count: 1, search_path: 'like' });
  });

  it('routes a four-letter CJK query to the trigram index and a two-letter one to LIKE without the bigram index', async () => {
    const s = store({ cjk: false });
    await say(s, 'A', ['昨天修复了下载订阅失败的问题']);
    expect(await s.search('alice', { query: '下载订阅' })).toMatchObject({ count: 1, search_path: 'trigram' });
    expect(await s.search('alice', { query: '订阅' })).toMatchObject({ count: 1, search_path: 'like' });
  });

  it('sends a lone CJK letter to LIKE even with the bigram index ready, finding it inside longer runs', async () => {
    const s = store();
    await say(s, 'A', ['沙丘2 下载完成']);
    await say(s, 'B', ['丘比特']);
    const r = await s.search('alice', { query: '丘' });
    expect(r).toMatchObject({ search_path: 'like', count: 2, index_status: { messages_fts_cjk: true } });
    expect(sessionsOf(r).sort()).toEqual(['A', 'B']);
  });

  it('ORs short CJK terms on LIKE instead of returning nothing', async () => {
    const s = store({ cjk: false });
    await say(s, 'A', ['桂林山水甲天下']);
    expect(await s.search('alice', { query: '广西 OR 桂林' })).toMatchObject({ search_path: 'like', count: 1 });
  });

  it('finds Latin glued to CJK after the word index misses', async () => {
    const s = store();
    await say(s, 'A', ['修改youer服务端']);
    const r = await s.search('alice', { query: 'youer' });
    expect(r.count).toBe(1);
    expect(['cjk', 'trigram']).toContain(r.search_path);
  });

  it('supports NOT, phrases, prefixes, OR and relaxes an unmatched AND to OR', async () => {
    const s = store();
    await say(s, 'a', ['docker networking fixed']);
    await say(s, 'b', ['docker broken tls']);
    await say(s, 'c', ['resolved networking']);
    const q = (query: string) => s.search('alice', { query, limit: 10 });
    expect(sessionsOf(await q('docker NOT broken'))).toEqual(['a']);
    expect((await q('"docker networking"')).count).toBe(1);
    expect((await q('networ*')).count).toBe(2);
    expect((await q('docker OR resolved')).count).toBe(3);
    expect(await q('docker absentword')).toMatchObject({ search_path: 'fts5_or', count: 2 });
  });

  it('never throws on FTS5-hostile input and searches joined identifiers as phrases', async () => {
    const s = store();
    await say(s, 'a', ['run chat-send then TODO fix x y docker']);
    for (const query of ['TODO: fix', '"docker', 'x:y', 'docker AND', 'chat-send'])
      expect((await s.search('alice', { query })).success).toBe(true);
    expect(await s.search('alice', { query: 'chat-send' })).toMatchObject({ query: '"chat-send"', count: 1 });
  });

  it('searches full tool text only with role_filter tool, stores it redacted and keeps the indexes consistent', async () => {
    const s = store();
    const content = `${'ordinary '.repeat(3000)} deepneedle password=verysecret`;
    await s.append('alice', {
      session: { id: 'A' },
      messages: [
        msg('user', 'check it'),
        msg('tool', content, { toolCallId: 'c1', toolName: 'fetch', toolStatus: 'ok' }),
      ],
    });
    expect((await s.search('alice', { query: 'deepneedle' })).count).toBe(0);
    expect(await s.search('alice', { query: 'deepneedle', role_filter: 'tool' })).toMatchObject({
      count: 1,
      search_path: 'like',
    });
    const db = new Database(s.pathOf('alice'), { readonly: true });
    const stored = (db.prepare(`SELECT content FROM messages WHERE role = 'tool'`).get() as { content: string })
      .content;
    db.close();
    expect(stored).toContain('deepneedle');
    expect(stored).not.toContain('verysecret');
    expect(s.integrityCheck('alice')).toBe(true);
  });

  it('reports a LIKE scan that hits its deadline as incomplete, never as no match', async () => {
    const s = store({ deadlineMs: 0.001 });
    const big = '找'.repeat(10) + 'x'.repeat(20_000);
    for (let i = 0; i < 101; i++) await say(s, `s${i}`, [big]);
    const r = await s.search('alice', { query: '找', role_filter: 'tool,user' });
    expect(r).toMatchObject({ success: false, error: 'query_timeout', complete: false });
    expect(r.count).toBeUndefined();
  });

  it('expands the first hit with a window and bookends, keeps the others compact, and reads and scrolls with caps', async () => {
    const s = store();
    for (const id of ['one', 'two']) {
      const texts = Array.from({ length: 40 }, (_, i) => `${i === 25 ? 'needle ' : ''}${'w'.repeat(8000)}`);
      await say(s, id, texts);
    }
    const r = await s.search('alice', { query: 'needle' });
    const [first, second] = r.results as Record<string, unknown[] & Record<string, unknown>>[];
    expect(first?.detail).toBe('full');
    expect(first?.messages).toHaveLength(11);
    expect(first?.bookend_start).toHaveLength(3);
    expect(first?.bookend_end).toHaveLength(3);
    for (const m of (first?.messages ?? []) as { content: string; content_truncated: boolean }[]) {
      expect([...m.content].length).toBeLessThanOrEqual(4000);
      expect(m.content_truncated).toBe(true);
    }
    expect(second?.detail).toBe('compact');
    expect(second?.messages).toHaveLength(1);
    const read = await s.search('alice', { session_id: 'one' });
    expect(read).toMatchObject({ mode: 'read', message_count: 40, truncated: true });
    expect(read.messages).toHaveLength(30);
    const anchor = (first as unknown as { match_message_id: number }).match_message_id;
    const scroll = await s.search('alice', {
      session_id: first?.session_id as unknown as string,
      around_message_id: anchor,
    });
    expect(scroll).toMatchObject({ mode: 'scroll', messages_before: 25, messages_after: 14 });
    expect(scroll.messages).toHaveLength(11);
  });

  it('de-duplicates lineages, skips the live part of the current lineage and hides rewound rows', async () => {
    const s = store();
    await say(s, 'root', ['needle root']);
    await say(s, 'child', ['needle child'], { parentSessionId: 'root' });
    expect((await s.search('alice', { query: 'needle' })).count).toBe(1);
    expect((await s.search('alice', { query: 'needle' }, { currentSessionId: 'child' })).count).toBe(0);
    const rootUid = `m${uid - 1}`;
    expect(await s.markCompacted('alice', 'root', [rootUid])).toBe(1);
    const after = await s.search('alice', { query: 'needle' }, { currentSessionId: 'child' });
    expect(after).toMatchObject({ count: 1 });
    expect(sessionsOf(after)).toEqual(['root']);
    await s.markRewound('alice', 'child', [`m${uid}`]);
    expect(await s.search('alice', { session_id: 'child' })).toMatchObject({ message_count: 0 });
  });

  it('hides subagent sessions, ranks cron sessions last and filters on the session start time', async () => {
    const s = store();
    const t0 = Date.UTC(2026, 0, 1);
    await say(s, 'cron', ['needle'], { source: 'cron', startedAt: t0 + 100 * DAY });
    await say(s, 'chat', ['needle'], { source: 'chat', startedAt: t0 + 200 * DAY });
    await say(s, 'sub', ['needle'], { source: 'subagent', startedAt: t0 + 150 * DAY });
    expect(sessionsOf(await s.search('alice', { query: 'needle', limit: 10 }))).toEqual(['chat', 'cron']);
    const iso = (d: number) => new Date(t0 + d * DAY).toISOString();
    expect(sessionsOf(await s.search('alice', { query: 'needle', after: iso(100), before: iso(200) }))).toEqual([
      'cron',
    ]);
    expect(await s.search('alice', { session_id: 'sub' })).toMatchObject({
      success: false,
      error: 'session_not_found',
    });
  });

  it('excludes the whole lineage of a session already inspected', async () => {
    const s = store();
    await say(s, 'root', ['needle root']);
    await say(s, 'child', ['needle child'], { parentSessionId: 'root' });
    expect((await s.search('alice', { query: 'needle', exclude_session_ids: ['child'] })).count).toBe(0);
  });

  it('tombstones a deleted session so a late append cannot bring it back', async () => {
    const s = store();
    await say(s, 'old', ['needle old']);
    expect(await s.deleteSession('alice', 'old')).toBe(true);
    expect(await s.append('alice', { session: { id: 'old' }, messages: [msg('user', 'needle late')] })).toEqual({
      appended: 0,
      dropped: true,
    });
    expect((await s.search('alice', { query: 'needle' })).count).toBe(0);
    const db = new Database(s.pathOf('alice'), { readonly: true });
    expect((db.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n).toBe(0);
    db.close();
    expect(s.integrityCheck('alice')).toBe(true);
  });

  it('backfills a new CJK index in steps while writes and deletions go on, then detaches and rebuilds it', async () => {
    const s = store({ cjk: false });
    for (let i = 1; i <= 12; i++) await say(s, `s${i}`, ['昨天修复了下载订阅失败问题']);
    s.setCjk(true);
    const step = await s.maintain('alice', { batchSize: 3, maxSteps: 1 });
    expect(step).toMatchObject({ pending: true, index_status: { messages_fts_cjk: false } });
    expect((await s.search('alice', { query: '订阅' })).index_rebuild).toMatchObject({ percent: 25 });
    await s.deleteSession('alice', 's10');
    await say(s, 's13', ['中文订阅索引新消息']);
    expect(await s.maintain('alice', { batchSize: 3 })).toMatchObject({
      pending: false,
      index_status: { messages_fts_cjk: true },
    });
    expect(await s.search('alice', { query: '订阅', limit: 10 })).toMatchObject({ search_path: 'cjk', count: 10 });
    expect(s.integrityCheck('alice')).toBe(true);
    s.setCjk(false);
    await say(s, 's14', ['订阅又来了']);
    expect(await s.search('alice', { query: '订阅' })).toMatchObject({ search_path: 'like' });
    s.setCjk(true);
    await s.maintain('alice');
    expect(await s.search('alice', { query: '订阅' })).toMatchObject({ search_path: 'cjk' });
    expect(s.integrityCheck('alice')).toBe(true);
  });

  it('answers a title query with the latest continuation of that title, within the time bounds', async () => {
    const s = store();
    const t0 = Date.UTC(2026, 0, 1);
    await say(s, 'first', ['hello there'], { title: 'TLS repair', startedAt: t0 + 100 * DAY });
    await say(s, 'second', ['hello again'], { title: 'TLS repair #2', startedAt: t0 + 200 * DAY });
    const r = await s.search('alice', { query: 'TLS repair' });
    expect((r.results as { session_id: string; matched_role: string }[])[0]).toMatchObject({
      session_id: 'second',
      matched_role: 'session_title',
    });
    const before = new Date(t0 + 150 * DAY).toISOString();
    expect((await s.search('alice', { query: 'TLS repair', before })).count).toBe(0);
  });

  it('keeps every user in their own store', async () => {
    const s = store();
    await say(s, 'same', ['mine only'], { user: 'alice' });
    await say(s, 'same', ['secret plan'], { user: 'bob' });
    expect((await s.search('alice', { query: 'secret' })).count).toBe(0);
    const bob = await s.search('bob', { session_id: 'same' });
    expect((bob.messages as { content: string }[]).map((m) => m.content)).toEqual(['secret plan']);
    expect(await s.search('carol', { session_id: 'same' })).toMatchObject({
      success: false,
      error: 'session_not_found',
    });
  });

  it('deletes and tombstones sessions idle past the retention period, and keeps everything with retention 0', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const keep = store({ clock });
    const expire = store({ clock, retentionDays: 30 });
    for (const s of [keep, expire]) {
      await say(s, 'old', ['needle old'], { startedAt: clock.now() });
      clock.advance(40 * DAY);
      await say(s, 'new', ['needle new'], { startedAt: clock.now() });
      clock.set(Date.UTC(2026, 0, 1));
    }
    clock.advance(40 * DAY);
    expect(await keep.maintain('alice')).toMatchObject({ expired_sessions: 0 });
    expect((await keep.search('alice', { query: 'needle', limit: 10 })).count).toBe(2);
    expect(await expire.maintain('alice')).toMatchObject({ expired_sessions: 1 });
    expect(sessionsOf(await expire.search('alice', { query: 'needle', limit: 10 }))).toEqual(['new']);
    expect(
      await expire.append('alice', { session: { id: 'old' }, messages: [msg('user', 'needle again')] }),
    ).toMatchObject({
      dropped: true,
    });
    expect(expire.integrityCheck('alice')).toBe(true);
  });

  it('refuses a history file with a newer schema version and leaves it untouched', async () => {
    const s = store();
    await say(s, 'a', ['hello']);
    await s.close();
    const db = new Database(s.pathOf('alice'));
    db.pragma('user_version = 99');
    db.close();
    const again = store({ directory: join(s.pathOf('alice'), '..', '..', '..') });
    await expect(again.search('alice', {})).rejects.toMatchObject({ code: 'HISTORY_STORE_UNAVAILABLE' });
    const check = new Database(s.pathOf('alice'), { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(99);
    check.close();
  });

  it('reports every search in index state and route', async () => {
    const s = store();
    await say(s, 'a', ['docker']);
    for (const input of [{}, { query: 'docker' }, { session_id: 'a' }, { session_id: 'a', around_message_id: 1 }]) {
      const r = await s.search('alice', input);
      expect(r.index_status).toEqual({ messages_fts: true, messages_fts_trigram: true, messages_fts_cjk: true });
    }
    expect(await s.search('alice', { query: 'docker' })).toMatchObject({ search_path: 'fts5', ranking: 'bm25' });
  });
});

describe('session_search input errors', () => {
  const bad: [string, Record<string, unknown>, string][] = [
    ['inverted time bounds', { query: 'x', after: '2026-02-01', before: '2026-01-01' }, 'after'],
    ['unknown roles', { query: 'x', role_filter: 'user,system' }, 'role_filter'],
    ['a window above 20', { session_id: 'a', around_message_id: 1, window: 21 }, 'window'],
    ['an anchor without a session', { around_message_id: 3 }, 'around_message_id'],
    ['a limit above 10', { query: 'x', limit: 11 }, 'limit'],
    ['an unknown field', { query: 'x', profile: 'other' }, 'profile'],
  ];
  for (const [what, input, field] of bad)
    it(`rejects ${what} with HISTORY_INPUT_INVALID before touching storage`, async () => {
      const s = store();
      await expect(s.search('alice', input)).rejects.toMatchObject({
        code: 'HISTORY_INPUT_INVALID',
        details: { field },
      });
      expect(existsSync(s.pathOf('alice'))).toBe(false);
    });

  it("answers another user's session id as not found and writes nothing", async () => {
    const s = store();
    await say(s, 'bobs', ['private'], { user: 'bob' });
    await say(s, 'mine', ['hello'], { user: 'alice' });
    const r = await s.search('alice', { session_id: 'bobs' });
    expect(r).toMatchObject({ success: false, error: 'session_not_found' });
    const db = new Database(s.pathOf('alice'), { readonly: true });
    expect((db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n).toBe(1);
    db.close();
  });

  it('rejects a malformed append batch and writes nothing', async () => {
    const s = store();
    const messages = Array.from({ length: 101 }, (_, i) => msg('user', `m ${i}`));
    await expect(s.append('alice', { session: { id: 'a' }, messages })).rejects.toMatchObject({
      code: 'HISTORY_INPUT_INVALID',
    });
    await expect(
      s.append('alice', { session: { id: 'a' }, messages: [msg('system' as 'user', 'x')] }),
    ).rejects.toMatchObject({ code: 'HISTORY_INPUT_INVALID' });
    expect((await s.search('alice', {})).count).toBe(0);
  });

  it('refuses options of the wrong type when the store is made', () => {
    const directory = mkdtempSync(join(tmpdir(), 'history-'));
    dirs.push(directory);
    const bad: [string, Record<string, unknown>][] = [
      ['directory', { directory: 5 }],
      ['directory', { directory: '' }],
      ['deadlineMs', { directory, deadlineMs: '3000' }],
      ['deadlineMs', { directory, deadlineMs: 0 }],
      ['retentionDays', { directory, retentionDays: -1 }],
      ['retentionDays', { directory, retentionDays: Number.NaN }],
      ['workers', { directory, workers: 0 }],
      ['maxOpenUsers', { directory, maxOpenUsers: 1.5 }],
      ['synchronous', { directory, synchronous: 'off' }],
      ['redact', { directory, redact: 'none' }],
    ];
    for (const [field, options] of bad)
      expect(() => new SqliteHistoryStore(options as never), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: 'HISTORY_INPUT_INVALID', details: { field } }),
      );
  });

  it('rejects session fields of the wrong type, so a bad start time never poisons later browsing', async () => {
    const s = store();
    await say(s, 'good', ['hello']);
    const bad: [string, Record<string, unknown>][] = [
      ['session.startedAt', { startedAt: 'yesterday' }],
      ['session.startedAt', { startedAt: Number.POSITIVE_INFINITY }],
      ['session.title', { title: 42 }],
      ['session.source', { source: {} }],
      ['session.parentSessionId', { parentSessionId: 7 }],
    ];
    for (const [field, extra] of bad)
      await expect(
        s.append('alice', { session: { id: 'bad', ...extra } as never, messages: [msg('user', 'x')] }),
      ).rejects.toMatchObject({ code: 'HISTORY_INPUT_INVALID', details: { field } });
    expect(await s.search('alice', {})).toMatchObject({ success: true, mode: 'browse', count: 1 });
    expect(await s.search('alice', { session_id: 'bad' })).toMatchObject({ error: 'session_not_found' });
  });
});
