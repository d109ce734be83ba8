import { describe, expect, it } from 'vitest';
import { bigramText, cjkRuns, hasCjk } from '../../src/history/cjk';
import { capText, markSnippet } from '../../src/history/message-view';
import { cjkMatch, fts5Match, fts5OrMatch, likeGroups, normalizeQuery } from '../../src/history/search-query';
import { routePlan } from '../../src/history/search-route';
import { parseSearchInput } from '../../src/history/search-request';
import { parseTimeBound } from '../../src/history/time-bounds';
import { isCorruptIndexError } from '../../src/history/sqlite-history-schema';

const ALL = { messages_fts: true, messages_fts_trigram: true, messages_fts_cjk: true };
const NOW = Date.UTC(2026, 10, 30, 12);

describe('CJK token stream', () => {
  it('emits overlapping bigrams for CJK runs, a unigram for a lone letter, and keeps Latin segments whole', () => {
    expect(bigramText('沙丘2 下载完成')).toBe('沙丘 2 下载 载完 完成');
    expect(bigramText('修改youer服务端')).toBe('修改 youer 服务 务端');
    expect(bigramText('丘')).toBe('丘');
    expect(bigramText('沙丘：第二部')).toBe('沙丘 第二 二部');
  });

  it('detects CJK by code point ranges, not CJK punctuation', () => {
    expect(hasCjk('docker')).toBe(false);
    expect(hasCjk('「」。')).toBe(false);
    expect(hasCjk('한국어')).toBe(true);
    expect(cjkRuns('a沙丘b下')).toEqual(['沙丘', '下']);
  });
});

describe('query normalisation', () => {
  it('drops column filters, stray quotes and dangling operators and turns joined identifiers into phrases', () => {
    expect(normalizeQuery('TODO: fix').text).toBe('TODO fix');
    expect(normalizeQuery('"docker').text).toBe('docker');
    expect(normalizeQuery('docker AND').text).toBe('docker');
    expect(normalizeQuery('OR docker OR OR tls').text).toBe('docker OR tls');
    expect(normalizeQuery('chat-send my-app.config.ts').text).toBe('"chat-send" "my-app.config.ts"');
    expect(normalizeQuery('**net** *x').text).toBe('net* x');
    expect(normalizeQuery('"  " ()').terms).toEqual([]);
  });

  it('keeps % as a literal only in CJK queries', () => {
    expect(normalizeQuery('100% done').text).toBe('100 done');
    expect(normalizeQuery('进度100%').text).toBe('进度100%');
  });

  it('quotes every term for MATCH and expands CJK terms into bigram phrases', () => {
    expect(fts5Match(normalizeQuery('docker NOT broken networ*'))).toBe('"docker" NOT "broken" "networ"*');
    expect(fts5OrMatch(normalizeQuery('"docker networking" tls'))).toBe('"docker networking" OR "tls"');
    expect(cjkMatch(normalizeQuery('下载完成 OR 沙丘2'))).toBe('"下载 载完 完成" OR "沙丘 2"');
  });

  it('compiles the LIKE subset into OR groups of ANDed terms with negations', () => {
    expect(likeGroups(normalizeQuery('a b OR c NOT d OR NOT e'))).toEqual([
      { include: ['a', 'b'], exclude: [] },
      { include: ['c'], exclude: ['d'] },
      { include: ['e'], exclude: [] },
    ]);
    expect(likeGroups(normalizeQuery('广西 桂林'), true)).toEqual([
      { include: ['广西'], exclude: [] },
      { include: ['桂林'], exclude: [] },
    ]);
  });
});

describe('route plan', () => {
  const plan = (query: string, status = ALL, roles: ('user' | 'assistant' | 'tool')[] = ['user', 'assistant']) =>
    routePlan(normalizeQuery(query), roles, status).steps;

  it('uses LIKE for tool text and when no index can serve the query', () => {
    expect(plan('docker', ALL, ['tool'])).toEqual(['like']);
    expect(plan('docker', { ...ALL, messages_fts: false })).toEqual(['like']);
  });

  it('sends CJK to the bigram index for runs of two or more, to trigram for three or more, else to LIKE with terms ORed', () => {
    expect(plan('沙丘')).toEqual(['cjk', 'like_or']);
    expect(plan('下载订阅')).toEqual(['cjk', 'trigram', 'like_or']);
    expect(plan('丘')).toEqual(['like_or']);
    expect(plan('订阅', { ...ALL, messages_fts_cjk: false })).toEqual(['like_or']);
    expect(plan('广西 OR 桂林', { ...ALL, messages_fts_cjk: false })).toEqual(['like_or']);
  });

  it('falls back from the word index to the substring indexes and relaxes to OR only without explicit OR or NOT', () => {
    expect(plan('docker absentword')).toEqual(['fts5', 'cjk', 'trigram', 'fts5_or']);
    expect(plan('docker OR ab')).toEqual(['fts5', 'cjk']);
    expect(plan('youer', { ...ALL, messages_fts_cjk: false })).toEqual(['fts5', 'trigram']);
  });
});

describe('time bounds and input', () => {
  it('parses ISO dates, datetimes and relative hours, days and weeks', () => {
    expect(parseTimeBound('2026-11-30', NOW)).toBe(Date.UTC(2026, 10, 30));
    expect(parseTimeBound('2026-11-30T08:00:00Z', NOW)).toBe(Date.UTC(2026, 10, 30, 8));
    expect(parseTimeBound('12h', NOW)).toBe(NOW - 12 * 3_600_000);
    expect(parseTimeBound('2w', NOW)).toBe(NOW - 14 * 86_400_000);
    expect(parseTimeBound('yesterday', NOW)).toBeUndefined();
  });

  it('picks the call shape: scroll, read, browse, discover', () => {
    expect(parseSearchInput({ session_id: 's', around_message_id: 4 }, NOW)).toMatchObject({
      mode: 'scroll',
      window: 5,
    });
    expect(parseSearchInput({ session_id: 's' }, NOW).mode).toBe('read');
    expect(parseSearchInput({ query: '   ' }, NOW).mode).toBe('browse');
    expect(parseSearchInput({ query: 'x', role_filter: 'tool, user' }, NOW)).toMatchObject({
      mode: 'discover',
      roles: ['tool', 'user'],
      limit: 3,
    });
  });
});

describe('display caps', () => {
  it('cuts by code points, strips ANSI escapes and marks the first hit', () => {
    expect(capText('😀😀😀', 2)).toEqual({ text: '😀😀', cut: true, chars: 3 });
    expect(capText('\u001b[31mred\u001b[0m', 10).text).toBe('red');
    expect(markSnippet('Docker networking', 'docker')).toBe('>>>Docker<<< networking');
  });
});

describe('index errors', () => {
  it('treats a corrupt FTS5 table as an index to rebuild, and a syntax error as not', () => {
    const err = (code: string, message: string) => Object.assign(new Error(message), { code });
    expect(isCorruptIndexError(err('SQLITE_CORRUPT_VTAB', 'database disk image is malformed'))).toBe(true);
    expect(isCorruptIndexError(err('SQLITE_CORRUPT', 'fts5: corrupt structure'))).toBe(true);
    expect(isCorruptIndexError(err('SQLITE_ERROR', 'fts5: syntax error near "AND"'))).toBe(false);
    expect(isCorruptIndexError(new Error('boom'))).toBe(false);
  });
});
