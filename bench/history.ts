/**
 * Benchmark `history`: the history archive and `session_search` on SQLite at scale.
 *
 * Setup: a seeded generator writes `--messages=N` messages (default 1,000,000) into one
 * `SqliteHistoryStore`: `--users=U` users (default 2,000) × 50 sessions each, the messages spread
 * evenly over the sessions and appended one session per batch (one transaction each, with the word,
 * trigram and CJK bigram indexes maintained in the same transaction). About 40% of the messages are
 * Chinese, 45% English and 15% mixed; one message in ten is a tool result of 1–3 KB.
 *
 * Rows:
 * - `append + index`: messages per second through `append` (the indexes are built as rows arrive).
 * - `backfill <index>`: rows per second of an incremental rebuild of each index (`rebuildIndex`,
 *   then `maintain` in batches of 500) on a sample of 20 users.
 * - latency (p50 / p95 / p99 / max, in ms) of each call shape — discover (English words, BM25),
 *   discover with OR, discover on full tool text (`role_filter: "tool"`, the LIKE route on a worker
 *   under the 3 s deadline), read, scroll and browse — and of Chinese queries of 2, 3 and 4+
 *   characters, each over random users; the `route` column is what the results reported.
 *
 * Every user's file stays open during the query rows (as for the active users of a host); the last row
 * is the first search of users whose file is not open yet.
 *
 * Targets: p95 < 20 ms on the index routes; the LIKE route always returns within its deadline
 * (a timeout is counted, never reported as "no match").
 *
 * Run with `npm run bench -- history` (add `--messages=100000` for a shorter run; `--dir=<path>` to
 * choose where the files go and keep them, default a temporary folder removed afterwards;
 * `--query-only` with the same `--dir` and flags measures the queries again without writing). The files are written
 * with `synchronous=normal` (WAL: synced at checkpoints) unless `--sync=full`, the store's default,
 * which syncs every commit and measures the disk more than the indexes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SqliteHistoryStore } from '../packages/sdk/src/history/sqlite-history-store';
import type { HistoryMessageInput, SessionSearchResult } from '../packages/sdk/src/history/history-store';
import { printMachine, printTable } from './_report';

const flag = (name: string, fallback: number) => {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.slice(name.length + 3)) : fallback;
};
const SESSIONS_PER_USER = 50;
const QUERIES_PER_ROW = 300;

/** mulberry32: a small seeded PRNG, so every run writes the same history. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EN =
  'download subscribe library season episode torrent tracker seed peer ratio quality remux bluray webdl subtitle audio codec hdr dolby vision atmos folder rename organize import scrape metadata poster fanart release group indexer search failed succeeded stalled paused resumed queue priority bandwidth limit schedule rss filter rule plugin server client transfer disk space path mount permission docker network proxy certificate token refresh retry timeout error warning notice user request movie series anime documentary'.split(
    ' ',
  );
const ZH =
  '沙丘 下载 完成 订阅 失败 字幕 丢失 流浪地球 剧集 电影 动漫 纪录片 整理 入库 刮削 海报 种子 做种 分享率 画质 蓝光 原盘 音轨 杜比 视界 目录 重命名 媒体库 站点 索引器 搜索 暂停 恢复 队列 优先级 带宽 限速 计划 规则 插件 服务器 客户端 传输 磁盘 空间 路径 挂载 权限 网络 代理 证书 令牌 刷新 重试 超时 错误 警告 通知 用户 请求 桂林 山水 修复 问题 昨天 今天 明天'.split(
    ' ',
  );

function text(rand: () => number, words: number): string {
  const kind = rand();
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const zh = kind < 0.4 || (kind >= 0.85 && rand() < 0.5);
    const list = zh ? ZH : EN;
    out.push(list[Math.floor(rand() * list.length)] as string);
  }
  return kind < 0.4 ? `${out.join('')}。` : out.join(' ');
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const ms = (n: number) => n.toFixed(2);

export async function run(): Promise<void> {
  const total = flag('messages', 1_000_000);
  const users = Math.max(1, Math.min(flag('users', 2000), Math.floor(total / SESSIONS_PER_USER)));
  const perSession = Math.max(1, Math.round(total / (users * SESSIONS_PER_USER)));
  const dirArg = process.argv.find((a) => a.startsWith('--dir='));
  const directory = dirArg ? dirArg.slice(6) : mkdtempSync(join(tmpdir(), 'bench-history-'));
  const syncArg = process.argv.find((a) => a.startsWith('--sync='))?.slice(7);
  const synchronous = syncArg === 'full' ? 'full' : 'normal';
  const store = new SqliteHistoryStore({ directory, maxOpenUsers: Math.max(64, users), synchronous });
  printMachine();
  console.log(
    `${users} users × ${SESSIONS_PER_USER} sessions × ${perSession} messages = ${(users * SESSIONS_PER_USER * perSession).toLocaleString('en')} messages in ${directory} (synchronous=${synchronous})`,
  );
  // --query-only: the files in --dir were written by an earlier run with the same flags.
  const queryOnly = process.argv.includes('--query-only');
  const rand = prng(15);
  const t0 = Date.UTC(2026, 0, 1);
  let written = 0;
  const start = performance.now();
  for (let u = 0; u < (queryOnly ? 0 : users); u++) {
    for (let s = 0; s < SESSIONS_PER_USER; s++) {
      const startedAt = t0 + (s * 3 + Math.floor(rand() * 3)) * 86_400_000;
      const messages: HistoryMessageInput[] = [];
      for (let m = 0; m < perSession; m++) {
        const tool = rand() < 0.1;
        messages.push({
          uid: `m${m}`,
          role: tool ? 'tool' : m % 2 === 0 ? 'user' : 'assistant',
          content: tool ? text(rand, 150 + Math.floor(rand() * 300)) : text(rand, 5 + Math.floor(rand() * 35)),
          timestamp: startedAt + m * 1000,
          ...(tool ? { toolName: 'downloader.status', toolCallId: `c${m}`, toolStatus: 'ok' } : {}),
        });
      }
      await store.append(`user-${u}`, {
        session: { id: `s${s}`, title: text(rand, 3), startedAt, source: s % 10 === 9 ? 'cron' : 'chat' },
        messages,
      });
      written += messages.length;
    }
    if ((u + 1) % 200 === 0)
      console.log(
        `  … ${(u + 1).toLocaleString('en')} users, ${written.toLocaleString('en')} messages, ${Math.round(written / ((performance.now() - start) / 1000)).toLocaleString('en')} msg/s`,
      );
  }
  const writeSec = (performance.now() - start) / 1000;

  // Incremental rebuild of each index on a sample of users (maintain, batches of 500).
  const sample = Array.from(
    { length: Math.min(20, users) },
    (_, i) => `user-${Math.floor((i * users) / Math.min(20, users))}`,
  );
  const rebuilt: string[][] = [];
  for (const index of queryOnly ? [] : (['messages_fts', 'messages_fts_trigram', 'messages_fts_cjk'] as const)) {
    for (const u of sample) store.rebuildIndex(u, index);
    const b0 = performance.now();
    for (const u of sample) await store.maintain(u, { batchSize: 500 });
    const sec = (performance.now() - b0) / 1000;
    const rows = sample.length * SESSIONS_PER_USER * perSession;
    rebuilt.push([
      `backfill ${index} (${sample.length} users)`,
      rows.toLocaleString('en'),
      sec.toFixed(2),
      Math.round(rows / sec).toLocaleString('en'),
    ]);
  }
  console.log('');
  printTable(
    ['phase', 'rows', 'seconds', 'rows/s'],
    [
      [
        'append + index (3 indexes)',
        written.toLocaleString('en'),
        writeSec.toFixed(1),
        Math.round(written / writeSec).toLocaleString('en'),
      ],
      ...rebuilt,
    ],
    new Set([1, 2, 3]),
  );

  const q = prng(2026);
  const pick = <T>(list: readonly T[]) => list[Math.floor(q() * list.length)] as T;
  const user = () => `user-${Math.floor(q() * users)}`;
  const zhOf = (len: number) => {
    for (;;) {
      const w = pick(ZH.filter((z) => (len >= 4 ? [...z].length >= 4 : [...z].length === len)));
      if (w) return w;
    }
  };
  const shapes: [string, () => [string, unknown]][] = [
    ['discover (English, BM25)', () => [user(), { query: pick(EN) }]],
    ['discover (two words, OR)', () => [user(), { query: `${pick(EN)} OR ${pick(EN)}` }]],
    ['discover (phrase, newest)', () => [user(), { query: `"${pick(EN)} ${pick(EN)}"`, sort: 'newest' }]],
    ['discover (tool text, LIKE)', () => [user(), { query: pick(EN), role_filter: 'tool' }]],
    ['read', () => [user(), { session_id: `s${Math.floor(q() * SESSIONS_PER_USER)}` }]],
    [
      'scroll',
      () => {
        const u = user();
        const s = Math.floor(q() * SESSIONS_PER_USER);
        return [u, { session_id: `s${s}`, around_message_id: s * perSession + 1 + Math.floor(q() * perSession) }];
      },
    ],
    ['browse', () => [user(), {}]],
    ['Chinese, 2 characters', () => [user(), { query: zhOf(2) }]],
    ['Chinese, 3 characters', () => [user(), { query: zhOf(3) }]],
    ['Chinese, 4+ characters', () => [user(), { query: zhOf(4) }]],
  ];
  const rows: string[][] = [];
  for (const [name, make] of shapes) {
    const times: number[] = [];
    const routes = new Map<string, number>();
    let timeouts = 0;
    let hits = 0;
    for (let i = 0; i < QUERIES_PER_ROW + 20; i++) {
      const [u, input] = make();
      const a = performance.now();
      const r: SessionSearchResult = await store.search(u, input);
      const t = performance.now() - a;
      if (i < 20) continue; // warm-up
      times.push(t);
      if (r.error === 'query_timeout') timeouts++;
      if (r.success && (r.count as number) > 0) hits++;
      const route = String(r.search_path ?? r.mode ?? r.error);
      routes.set(route, (routes.get(route) ?? 0) + 1);
    }
    times.sort((x, y) => x - y);
    rows.push([
      name,
      [...routes.entries()].map(([k, v]) => (routes.size > 1 ? `${k} ${v}` : k)).join(', '),
      ms(percentile(times, 50)),
      ms(percentile(times, 95)),
      ms(percentile(times, 99)),
      ms(times[times.length - 1] ?? 0),
      `${Math.round((100 * hits) / times.length)}%`,
      String(timeouts),
    ]);
  }
  // A user whose file is not open yet: the first search opens it (a store keeps `maxOpenUsers` open).
  const cold = new SqliteHistoryStore({ directory, synchronous });
  const coldTimes: number[] = [];
  for (let i = 0; i < Math.min(200, users); i++) {
    const a = performance.now();
    await cold.search(`user-${Math.floor((i * users) / Math.min(200, users))}`, { query: pick(EN) });
    coldTimes.push(performance.now() - a);
  }
  await cold.close();
  coldTimes.sort((x, y) => x - y);
  rows.push([
    'discover, file not open yet',
    'fts5',
    ms(percentile(coldTimes, 50)),
    ms(percentile(coldTimes, 95)),
    ms(percentile(coldTimes, 99)),
    ms(coldTimes[coldTimes.length - 1] ?? 0),
    '',
    '0',
  ]);
  console.log('');
  printTable(
    ['call', 'route', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'with hits', 'timeouts'],
    rows,
    new Set([2, 3, 4, 5, 6, 7]),
  );
  await store.close();
  if (!dirArg) rmSync(directory, { recursive: true, force: true });
}
