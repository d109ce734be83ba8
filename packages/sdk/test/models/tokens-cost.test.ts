import { describe, expect, it } from 'vitest';
import { CostMeter, costOf, priceFor } from '../../src/models/cost';
import { encodingForModel, TiktokenCounter, tokenCountPieces, UsageReconciler } from '../../src/models/token-counter';
import type { ModelTool } from '../../src/models/types';

describe('TiktokenCounter', () => {
  it('uses o200k_base for GPT-4o/4.1/5 and o-series models and cl100k_base otherwise', () => {
    expect(['gpt-4o-mini', 'gpt-4.1-nano-2025-04-14', 'gpt-5', 'o3', 'openai/o4-mini'].map(encodingForModel)).toEqual(
      Array(5).fill('o200k_base'),
    );
    expect(['gpt-4', 'gpt-3.5-turbo', 'claude-sonnet-4-5', 'deepseek-chat', undefined].map(encodingForModel)).toEqual(
      Array(5).fill('cl100k_base'),
    );
  });

  it('counts tokens with the model family encoding (tiktoken reference values)', () => {
    const c = new TiktokenCounter();
    expect(c.count('hello world', 'gpt-4o')).toBe(2);
    expect(c.count('tiktoken is great!', 'gpt-4')).toBe(6);
    c.dispose();
  });

  it('serves repeated long strings such as tool schemas from the LRU cache', () => {
    const c = new TiktokenCounter();
    const schema: ModelTool = {
      name: 'inventory.query',
      description: 'Query the media library by title, year or path',
      inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
    };
    const first = c.countRequest([{ role: 'user', content: 'hi' }], [schema], 'gpt-4.1');
    const second = c.countRequest([{ role: 'user', content: 'hi' }], [schema], 'gpt-4.1');
    expect(second).toBe(first);
    expect(c.stats).toEqual({ hits: 1, misses: 1 });
    c.dispose();
  });

  it('counts text holding a very long run (letters without a space, a line of =, CJK) in pieces of at most 512', () => {
    // BPE inside one pre-token is quadratic: 200 000 `x` counted whole blocked the event loop for over a minute.
    const run = 'x'.repeat(200_000);
    const pieces = tokenCountPieces(`before ${run} after`);
    expect(pieces.join('')).toBe(`before ${run} after`);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(512);
    const c = new TiktokenCounter();
    expect(c.count(run)).toBe(25_000); // 8 x per token, as tiktoken counts 'x'.repeat(8 * n)
    expect(c.count('='.repeat(100_000))).toBeGreaterThan(0);
    // Ordinary text is one piece, counted exactly as before.
    const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(200);
    expect(tokenCountPieces(prose)).toEqual([prose]);
    expect(c.count(prose)).toBe(2001);
    // A surrogate pair is never cut.
    expect(tokenCountPieces('𠀀'.repeat(2000)).every((p) => !/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(p))).toBe(true);
  });

  it('adds the per-message overhead to a request count', () => {
    const c = new TiktokenCounter();
    const text = 'hello world';
    expect(c.countRequest([{ role: 'user', content: text }], [], 'gpt-4o')).toBe(2 + 3 + 3);
    c.dispose();
  });
});

describe('UsageReconciler', () => {
  it('corrects later estimates by the ratio of reported to estimated prompt tokens', () => {
    const r = new UsageReconciler(0.5);
    expect(r.adjust('claude', 100)).toBe(100);
    r.observe('claude', 100, 120);
    expect(r.adjust('claude', 100)).toBe(120);
    r.observe('claude', 100, 140);
    expect(r.factor('claude')).toBeCloseTo(1.3);
    expect(r.factor('other')).toBe(1);
  });
});

describe('cost', () => {
  it('prices a dated model id by the longest matching prefix', () => {
    expect(priceFor('claude-sonnet-4-5-20250929')).toEqual({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    expect(priceFor('gpt-4.1-nano-2025-04-14')?.input).toBe(0.1);
    expect(priceFor('unknown-model')).toBeUndefined();
  });

  it('charges input, output, cache read and cache write tokens at their USD-per-million prices', () => {
    const usd = costOf(
      { inputTokens: 1_000_000, outputTokens: 100_000, cacheReadTokens: 2_000_000, cacheWriteTokens: 1_000_000 },
      { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    );
    expect(usd).toBeCloseTo(3 + 1.5 + 0.6 + 3.75, 10);
  });

  it('accumulates cost and tokens per run with a configurable table, and lists unpriced models', () => {
    const meter = new CostMeter({ 'my-model': { input: 10, output: 20 } });
    meter.add('my-model', { inputTokens: 100_000, outputTokens: 50_000, cacheReadTokens: 0, cacheWriteTokens: 0 });
    meter.add('my-model', { inputTokens: 100_000, outputTokens: 0, cacheReadTokens: 100_000, cacheWriteTokens: 0 });
    meter.add('mystery', { inputTokens: 5, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(meter.totalUsd).toBeCloseTo(1 + 1 + 1 + 1, 10);
    expect(meter.tokens).toEqual({
      inputTokens: 200_005,
      outputTokens: 50_005,
      cacheReadTokens: 100_000,
      cacheWriteTokens: 0,
    });
    expect(meter.calls).toBe(3);
    expect([...meter.unpricedModels]).toEqual(['mystery']);
  });
});
