import { createServer, type AddressInfo, type Socket } from 'node:net';
import pg from 'pg';
import { expect, it } from 'vitest';
import type { HistoryMessageInput } from '../../src/history/history-store';
import { PostgresHistoryStore } from '../../src/history/postgres-history-store';
import { ConsoleLogger, createAgentHost } from '../../src/index';
import { ManualClock } from '../../src/ports/clock';
import { listRunEvents, ScriptedProvider, waitForRunStatus } from '../../src/testing';
import { describePostgres, PG_URL } from '../storage/postgres-available';
import { postgresHistoryStores } from './postgres-stores';

const DAY = 86_400_000;
let uid = 0;
const msg = (role: HistoryMessageInput['role'], content: string, extra: Partial<HistoryMessageInput> = {}) => ({
  uid: `m${++uid}`,
  role,
  content,
  ...extra,
});

describePostgres('session_search on PostgreSQL', () => {
  const { admin, schema, store } = postgresHistoryStores('ma_hist');
  const say = (s: PostgresHistoryStore, session: string, texts: string[], user = 'alice', startedAt?: number) =>
    s.append(user, {
      session: { id: session, ...(startedAt ? { startedAt } : {}) },
      messages: texts.map((t, i) => msg(i % 2 === 0 ? 'user' : 'assistant', t)),
    });

  it('finds CJK substrings through the bigram tsvector and labels the ranking ts_rank_cd', async () => {
    const s = store();
    await say(s, 'A', ['沙丘2 下载完成']);
    await say(s, 'B', ['修改youer服务端']);
    expect(await s.search('alice', { query: '沙丘' })).toMatchObject({
      count: 1,
      search_path: 'cjk',
      ranking: 'ts_rank_cd',
    });
    const glued = await s.search('alice', { query: 'youer' });
    expect(glued.count).toBe(1);
    expect(['cjk', 'trigram']).toContain(glued.search_path);
    expect(await s.search('alice', { query: '丘' })).toMatchObject({ count: 1, search_path: 'like' });
  });

  it('builds the pg_trgm index when the server offers the extension, and finds substrings inside words through it', async () => {
    const offered =
      (await admin().query("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'")).rowCount === 1;
    const s = store();
    expect(await s.migrate()).toMatchObject({ messages_fts_trigram: offered });
    if (!offered) return;
    await say(s, 'A', ['dockerworker restarted']);
    expect(await s.search('alice', { query: 'ockerwor' })).toMatchObject({
      count: 1,
      search_path: 'trigram',
      index_status: { messages_fts_trigram: true },
    });
  });

  it('archives text holding U+0000 (stored as U+FFFD) instead of failing the whole batch', async () => {
    const s = store();
    expect(
      await s.append('alice', {
        session: { id: 'A', title: 'nul\u0000title' },
        messages: [msg('user', 'check'), msg('tool', 'binary\u0000output nulneedle', { toolName: 'x\u0000y' })],
      }),
    ).toEqual({ appended: 2, dropped: false });
    const read = await s.search('alice', { session_id: 'A' });
    expect(read).toMatchObject({ title: 'nul\uFFFDtitle', message_count: 2 });
    expect(JSON.stringify(read)).toContain('binary\uFFFDoutput');
    expect((await s.search('alice', { query: 'nulneedle', role_filter: 'tool' })).count).toBe(1);
    await expect(s.append('alice', { session: { id: 'B\u0000' }, messages: [msg('user', 'x')] })).rejects.toMatchObject(
      { code: 'HISTORY_INPUT_INVALID', details: { field: 'session.id' } },
    );
    // A NUL in a query separates words (the server refuses it in a statement).
    expect(await s.search('alice', { query: 'nulneedle\u0000', role_filter: 'tool' })).toMatchObject({ count: 1 });
    expect(await s.search('alice', { query: '\u0000' })).toMatchObject({ success: true, mode: 'browse' });
  });

  it('fails every call after close() with HISTORY_STORE_UNAVAILABLE, and a second close() is a no-op', async () => {
    const own = store();
    const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
    const shared = new PostgresHistoryStore({ pool, schema: schema() });
    for (const s of [own, shared]) {
      await say(s, 'A', ['hello']);
      await s.close();
      await s.close();
      const closed = { code: 'HISTORY_STORE_UNAVAILABLE' };
      await expect(say(s, 'A', ['again'])).rejects.toMatchObject(closed);
      await expect(s.search('alice', { query: 'hello' })).rejects.toMatchObject(closed);
      await expect(s.deleteSession('alice', 'A')).rejects.toMatchObject(closed);
      await expect(s.markCompacted('alice', 'A', ['m1'])).rejects.toMatchObject(closed);
      await expect(s.maintain('alice')).rejects.toMatchObject(closed);
      await expect(s.migrate()).rejects.toMatchObject(closed);
    }
    expect((await pool.query('SELECT 1 AS one')).rows[0].one).toBe(1); // the host's pool stays open
    await pool.end();
  });

  it('refuses options of the wrong type when the store is made', () => {
    const bad: [string, Record<string, unknown>][] = [
      ['connectionString', { connectionString: 5 }],
      ['deadlineMs', { connectionString: PG_URL, deadlineMs: -5 }],
      ['deadlineMs', { connectionString: PG_URL, deadlineMs: 'x' }],
      ['retentionDays', { connectionString: PG_URL, retentionDays: 'x' }],
      ['poolSize', { connectionString: PG_URL, poolSize: 0 }],
      ['redact', { connectionString: PG_URL, redact: null }],
    ];
    for (const [field, options] of bad)
      expect(() => new PostgresHistoryStore(options as never), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: 'HISTORY_INPUT_INVALID', details: { field } }),
      );
  });

  it('a server that accepts and never answers fails captures after connectionTimeoutMs: the run goes on with warnings', async () => {
    const held: Socket[] = [];
    const silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `postgres://postgres@127.0.0.1:${(silent.address() as AddressInfo).port}/test`;
    const history = new PostgresHistoryStore({ connectionString: url, connectionTimeoutMs: 100 });
    const host = createAgentHost({
      logger: new ConsoleLogger('silent'),
      model: { provider: new ScriptedProvider({ scripts: [{ finalText: 'hello' }] }) },
      history: { store: history },
    });
    try {
      await expect(
        history.append('alice', { session: { id: 'A' }, messages: [msg('user', 'x')] }),
      ).rejects.toMatchObject({ code: 'HISTORY_STORE_UNAVAILABLE' });
      await host.start();
      const run = await host.startRun({ goal: 'say hello', actor: 'user:alice', mode: 'plan_only' });
      await waitForRunStatus(host, run.id, ['succeeded', 'failed', 'waiting'], { timeoutMs: 30_000 });
      const warnings = (await listRunEvents(host, run.id)).filter((e) => e.type === 'warning');
      expect(warnings.map((e) => (e.data as { code: string }).code)).toContain('HISTORY_CAPTURE_FAILED');
    } finally {
      await host.stop();
      await history.close();
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 60_000);

  it('supports NOT, phrases, prefixes, OR and relaxes an unmatched AND to OR', async () => {
    const s = store();
    await say(s, 'a', ['docker networking fixed']);
    await say(s, 'b', ['docker broken tls']);
    await say(s, 'c', ['resolved networking']);
    const q = (query: string) => s.search('alice', { query, limit: 10 });
    expect(((await q('docker NOT broken')).results as { session_id: string }[]).map((r) => r.session_id)).toEqual([
      'a',
    ]);
    expect((await q('"docker networking"')).count).toBe(1);
    expect((await q('networ*')).count).toBe(2);
    expect((await q('docker OR resolved')).count).toBe(3);
    expect(await q('docker absentword')).toMatchObject({ search_path: 'fts5_or', count: 2 });
    for (const query of ['TODO: fix', '"docker', 'x:y', 'docker AND', "it's"])
      expect((await s.search('alice', { query })).success).toBe(true);
  });

  it('searches full tool text with role_filter tool and stores it redacted', async () => {
    const s = store();
    await s.append('alice', {
      session: { id: 'A' },
      messages: [msg('user', 'check'), msg('tool', `${'ordinary '.repeat(3000)} deepneedle password=verysecret`)],
    });
    expect((await s.search('alice', { query: 'deepneedle' })).count).toBe(0);
    const r = await s.search('alice', { query: 'deepneedle', role_filter: 'tool' });
    expect(r).toMatchObject({ count: 1, search_path: 'like' });
    expect(JSON.stringify(r)).not.toContain('verysecret');
  });

  it('reports a search that hits statement_timeout as incomplete, never as no match', async () => {
    const s = store({ deadlineMs: 1 });
    const big = `${'x'.repeat(20_000)}找`;
    for (let i = 0; i < 4; i++)
      await say(
        s,
        `s${i}`,
        Array.from({ length: 50 }, () => big),
      );
    const r = await s.search('alice', { query: '找', role_filter: 'tool,user' });
    expect(r).toMatchObject({ success: false, error: 'query_timeout', complete: false });
  }, 60_000);

  it('tombstones deleted and expired sessions, keeps users apart, and reads with windows', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const s = store({ clock, retentionDays: 30 });
    await say(s, 'old', ['needle old'], 'alice', clock.now());
    clock.advance(40 * DAY);
    await say(s, 'gone', ['needle gone'], 'alice', clock.now());
    await say(
      s,
      'same',
      Array.from({ length: 40 }, (_, i) => `line ${i}`),
      'alice',
      clock.now(),
    );
    await say(s, 'same', ['secret plan'], 'bob', clock.now());
    expect(await s.maintain('alice')).toMatchObject({ expired_sessions: 1 });
    expect(await s.deleteSession('alice', 'gone')).toBe(true);
    for (const id of ['old', 'gone'])
      expect(await s.append('alice', { session: { id }, messages: [msg('user', 'needle late')] })).toMatchObject({
        dropped: true,
      });
    expect((await s.search('alice', { query: 'needle' })).count).toBe(0);
    expect((await s.search('alice', { query: 'secret' })).count).toBe(0);
    expect(await s.search('alice', { session_id: 'same' })).toMatchObject({
      message_count: 40,
      truncated: true,
      count: 30,
    });
    expect(await s.search('carol', { session_id: 'same' })).toMatchObject({
      success: false,
      error: 'session_not_found',
    });
    await expect(s.search('alice', { query: 'x', after: '2026-02-01', before: '2026-01-01' })).rejects.toMatchObject({
      code: 'HISTORY_INPUT_INVALID',
    });
  });
});
