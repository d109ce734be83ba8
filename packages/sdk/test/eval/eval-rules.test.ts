import { describe, expect, it } from 'vitest';
import {
  buildEvalReport,
  formatEvalTable,
  parseFinalReport,
  parseTrajectory,
  providerConfigFromEnv,
  renderEvalHtml,
  TRAJECTORY_MAX_BYTES,
  wilsonInterval,
  type EvalRunResult,
} from '../../src/testing';

describe('parseFinalReport', () => {
  it('reads the last fenced JSON block, else the last balanced object, with a known outcome and string ids', () => {
    expect(parseFinalReport('Done.\n```json\n{"outcome":"submitted","ids":["dl-1"]}\n```')).toEqual({
      outcome: 'submitted',
      ids: ['dl-1'],
    });
    expect(
      parseFinalReport(
        'first {"outcome":"done","ids":[]} then {"outcome":"unresolved","ids":["dl-2"],"summary":"a } b"}',
      ),
    ).toEqual({ outcome: 'unresolved', ids: ['dl-2'], summary: 'a } b' });
  });

  it('returns null for no text, no object, an unknown outcome or ids that are not strings', () => {
    expect(parseFinalReport(null)).toBeNull();
    expect(parseFinalReport('All done!')).toBeNull();
    expect(parseFinalReport('{"outcome":"finished","ids":[]}')).toBeNull();
    expect(parseFinalReport('{"outcome":"done","ids":[1]}')).toBeNull();
  });
});

describe('wilsonInterval', () => {
  it('matches the published Wilson bounds and stays inside [0, 1]', () => {
    const { low, high } = wilsonInterval(8, 10);
    expect(low).toBeCloseTo(0.4902, 3);
    expect(high).toBeCloseTo(0.9433, 3);
    expect(wilsonInterval(0, 5).low).toBe(0);
    expect(wilsonInterval(5, 5).high).toBe(1);
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
    expect(() => wilsonInterval(3, 2)).toThrow(RangeError);
  });
});

describe('parseTrajectory (bad input is refused with a reason)', () => {
  const ok = { scenario: 'dedup_existing', turns: [{ calls: [{ capability: 'inventory.query', input: {} }] }] };

  it('accepts a well-formed trajectory', () => {
    expect(parseTrajectory(JSON.stringify(ok)).scenario).toBe('dedup_existing');
  });

  it.each([
    ['not JSON', '{"scenario": ', /is not JSON/],
    ['not an object', '[1,2]', /not a JSON object/],
    ['no scenario', JSON.stringify({ turns: [] }), /"scenario"/],
    [
      'a turn with neither calls nor text',
      JSON.stringify({ scenario: 's', turns: [{ calls: [] }] }),
      /neither calls nor text/,
    ],
    [
      'more than 32 calls',
      JSON.stringify({
        scenario: 's',
        turns: Array.from({ length: 33 }, () => ({ calls: [{ capability: 'inventory.query' }] })),
      }),
      /33 tool calls, more than the 32/,
    ],
    ['too large', JSON.stringify({ ...ok, description: 'x'.repeat(TRAJECTORY_MAX_BYTES) }), /more than the 262144/],
  ])('%s', (_name, text, reason) => {
    expect(() => parseTrajectory(text)).toThrow(reason);
    try {
      parseTrajectory(text);
    } catch (e) {
      expect((e as { code: string }).code).toBe('EVAL_TRAJECTORY_INVALID');
    }
  });
});

describe('providerConfigFromEnv', () => {
  it('prefers Anthropic, honours EVAL_PROVIDER and EVAL_MODEL, and refuses an environment without a key', () => {
    expect(providerConfigFromEnv({ ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'o' })).toMatchObject({
      config: { provider: 'anthropic', apiKey: 'k' },
      model: 'claude-sonnet-4-5',
    });
    expect(
      providerConfigFromEnv({
        ANTHROPIC_API_KEY: 'k',
        OPENAI_API_KEY: 'o',
        EVAL_PROVIDER: 'openai-compatible',
        EVAL_MODEL: 'm',
      }),
    ).toMatchObject({
      config: { provider: 'openai-compatible', apiKey: 'o', baseUrl: 'https://api.openai.com/v1' },
      model: 'm',
    });
    expect(() => providerConfigFromEnv({})).toThrow(/set ANTHROPIC_API_KEY or OPENAI_API_KEY/);
  });
});

function result(scenario: string, seed: number, label: string, pass: boolean): EvalRunResult {
  return {
    scenario,
    seed,
    label,
    verdict: pass ? 'pass' : 'fail',
    code: pass ? null : 'resubmitted',
    reason: pass ? null : 'twice',
    runId: `run_${seed}`,
    runStatus: 'succeeded',
    runError: null,
    toolCalls: 3,
    inputTokens: 100,
    outputTokens: 20,
    costUsd: 0.01,
    durationMs: 50,
    finalReport: null,
    events: [],
  };
}

describe('reports', () => {
  it('summarizes pass rates with Wilson intervals and pairs two agents seed by seed', () => {
    const results = [
      result('s', 0, 'A', true),
      result('s', 0, 'B', false),
      result('s', 1, 'A', true),
      result('s', 1, 'B', true),
      result('s', 2, 'A', false),
      result('s', 2, 'B', false),
    ];
    const report = buildEvalReport('compare', results, { a: 'A', b: 'B' });
    expect(report.intelligence_evaluated).toBe(true);
    const a = report.summaries.find((s) => s.label === 'A')!;
    expect(a).toMatchObject({ runs: 3, passes: 2, failures: { resubmitted: 1 }, meanTokens: 120, costUsd: 0.03 });
    expect(a.interval.low).toBeCloseTo(wilsonInterval(2, 3).low, 10);
    expect(report.paired!.scenarios).toEqual([
      { scenario: 's', pairs: 3, bothPass: 1, onlyA: 1, onlyB: 0, neither: 1 },
    ]);
    expect(formatEvalTable(report)).toMatch(/only A/);
    expect(buildEvalReport('replay', results).intelligence_evaluated).toBe(false);
  });

  it('escapes what it puts into the HTML page and links each run to its events', () => {
    const report = buildEvalReport('replay', [{ ...result('s', 0, '<b>x</b>', false), reason: '<script>' }]);
    report.runs[0]!.eventsFile = 'events/001.json';
    const html = renderEvalHtml(report);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&#60;script&#62;');
    expect(html).toContain('<a href="events/001.json">events</a>');
  });
});
