// Token counting with tiktoken (WASM, offline), cached, and reconciled with provider-reported usage.
import { LRUCache } from 'lru-cache';
import { createRequire } from 'node:module';
import type { Tiktoken } from 'tiktoken';
import type { ModelMessage, ModelTool } from './types';

/**
 * Counts tokens before a request (budgets, compaction thresholds, tool-discovery budgets).
 * Estimates only: the provider's reported usage is the truth.
 *
 * @public
 */
export interface TokenCounter {
  /**
   * Counts the tokens of a text.
   * @param text - any text
   * @param model - model id, selects the encoding
   * @returns the token count of `text`
   */
  count(text: string, model?: string): number;
  /**
   * Estimates the prompt tokens of a whole request.
   * @param messages - a conversation
   * @param tools - tool definitions sent with it
   * @param model - model id
   * @returns estimated prompt tokens of the whole request
   */
  countRequest(messages: ReadonlyArray<ModelMessage>, tools?: ReadonlyArray<ModelTool>, model?: string): number;
}

/**
 * The tiktoken encodings used.
 *
 * @public
 */
export type TokenEncodingName = 'o200k_base' | 'cl100k_base';

/** Short texts whose counts a {@link TiktokenCounter} keeps per encoding (see `minCachedLength`). */
const SHORT_TEXTS_KEPT = 4096;

/** Every {@link TokenEncodingName}. */
const ENCODINGS: readonly TokenEncodingName[] = ['o200k_base', 'cl100k_base'];

/**
 * Chooses the encoding for a model: `o200k_base` for OpenAI's GPT-4o, GPT-4.1, GPT-5 and o-series
 * families (tiktoken's model table), `cl100k_base` for everything else (GPT-4, GPT-3.5 and, as an
 * approximation, models whose tokenizers tiktoken does not ship: Claude, DeepSeek, Qwen, Llama).
 *
 * @param model - model id (may be undefined)
 * @returns the encoding name
 * @public
 */
export function encodingForModel(model: string | undefined): TokenEncodingName {
  const m = (model ?? '').toLowerCase().replace(/^.*\//, '');
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o1|o3|o4|gpt-oss)/.test(m)) return 'o200k_base';
  return 'cl100k_base';
}

/**
 * Per-message overhead in tokens (role and separators) and the reply priming added once.
 * Source: OpenAI Cookbook, "How to count tokens with tiktoken" (3 per message, 3 for the reply).
 *
 * @public
 */
export const MESSAGE_OVERHEAD_TOKENS = 3;

/**
 * Options of {@link TiktokenCounter}.
 *
 * @public
 */
export interface TiktokenCounterOptions {
  /**
   * Entries in the LRU cache of counted strings, per encoding.
   * @defaultValue 2000
   */
  cacheSize?: number;
  /**
   * Strings shorter than this many characters skip the LRU cache (and {@link TiktokenCounter.stats}): they are
   * kept in a plain map of their own (at most 4096 texts per encoding, emptied when full), as counting even a
   * tool name with tiktoken costs far more than a lookup.
   * @defaultValue 32
   */
  minCachedLength?: number;
}

let tiktoken: typeof import('tiktoken') | undefined;

/** Longest run of one character class that tiktoken is given at once, in UTF-16 units. */
const RUN_PIECE = 512;
/** Runs of letters, digits, other symbols or whitespace longer than {@link RUN_PIECE}. */
const LONG_RUN = new RegExp(
  `[\\p{L}\\p{M}]{${RUN_PIECE + 1},}|\\p{N}{${RUN_PIECE + 1},}|[^\\s\\p{L}\\p{M}\\p{N}]{${RUN_PIECE + 1},}|\\s{${RUN_PIECE + 1},}`,
  'gu',
);

/**
 * The pieces a text is counted in: the text whole, except that a run of one character class longer than
 * 512 (80 000 letters with no space, a line of `=`, a long CJK paragraph) is cut into pieces of at most 512.
 * BPE merges inside one pre-token take time quadratic in its length (80 000 `x` took 11 s, the event loop
 * blocked all along), so a tool result or argument from anywhere could stall the host; cut, the count of such
 * a run is the same or within a token per piece. Text without such runs is one piece, counted exactly.
 * @internal
 */
export function tokenCountPieces(text: string): string[] {
  if (text.length <= RUN_PIECE) return [text];
  const pieces: string[] = [];
  let last = 0;
  for (const m of text.matchAll(LONG_RUN)) {
    if (m.index > last) pieces.push(text.slice(last, m.index));
    const run = m[0];
    for (let i = 0; i < run.length; ) {
      let end = Math.min(i + RUN_PIECE, run.length);
      const code = run.charCodeAt(end - 1);
      if (end < run.length && code >= 0xd800 && code <= 0xdbff) end--; // never split a surrogate pair
      pieces.push(run.slice(i, end));
      i = end;
    }
    last = m.index + run.length;
  }
  if (last < text.length) pieces.push(text.slice(last));
  return pieces;
}

/**
 * tiktoken, loaded on the first count: loading it compiles its WASM tokenizer (~100 ms), which a
 * process that imports the SDK but never counts tokens should not pay. Synchronous because
 * {@link TokenCounter.count} is.
 */
function loadTiktoken(): typeof import('tiktoken') {
  return (tiktoken ??= createRequire(import.meta.url)('tiktoken') as typeof import('tiktoken'));
}

/**
 * {@link TokenCounter} backed by tiktoken, with an LRU cache for strings counted repeatedly
 * (tool schemas, the system prompt, old messages).
 *
 * @public
 */
export class TiktokenCounter implements TokenCounter {
  readonly #encoders = new Map<TokenEncodingName, Tiktoken>();
  /** Counts by text, one cache per encoding (a text is its own key: no key string is built per lookup). */
  readonly #caches: ReadonlyMap<TokenEncodingName, LRUCache<string, number>>;
  /** Counts of texts shorter than `minCachedLength`, per encoding. */
  readonly #short: ReadonlyMap<TokenEncodingName, Map<string, number>> = new Map(
    ENCODINGS.map((name) => [name, new Map<string, number>()]),
  );
  readonly #minCached: number;
  #lastModel: string | undefined;
  #lastEncoding: TokenEncodingName | undefined;
  /** Cache statistics: `hits` and `misses` since construction. */
  readonly stats = { hits: 0, misses: 0 };

  /** @param options - cache settings */
  constructor(options: TiktokenCounterOptions = {}) {
    const max = options.cacheSize ?? 2000;
    this.#caches = new Map(ENCODINGS.map((name) => [name, new LRUCache<string, number>({ max })]));
    this.#minCached = options.minCachedLength ?? 32;
  }

  #encoder(name: TokenEncodingName): Tiktoken {
    let e = this.#encoders.get(name);
    if (!e) {
      e = loadTiktoken().get_encoding(name);
      this.#encoders.set(name, e);
    }
    return e;
  }

  /** {@inheritDoc TokenCounter.count} */
  count(text: string, model?: string): number {
    if (text === '') return 0;
    // The encoding of the model counted last, kept: a host counts for one or two models.
    if (model !== this.#lastModel || this.#lastEncoding === undefined) {
      this.#lastEncoding = encodingForModel(model);
      this.#lastModel = model;
    }
    const enc = this.#lastEncoding;
    if (text.length < this.#minCached) {
      const short = this.#short.get(enc)!;
      let n = short.get(text);
      if (n === undefined) {
        n = this.#encoder(enc).encode_ordinary(text).length;
        if (short.size >= SHORT_TEXTS_KEPT) short.clear();
        short.set(text, n);
      }
      return n;
    }
    const cache = this.#caches.get(enc)!;
    const hit = cache.get(text);
    if (hit !== undefined) {
      this.stats.hits++;
      return hit;
    }
    this.stats.misses++;
    const encoder = this.#encoder(enc);
    let n = 0;
    for (const piece of tokenCountPieces(text)) n += encoder.encode_ordinary(piece).length;
    cache.set(text, n);
    return n;
  }

  /** {@inheritDoc TokenCounter.countRequest} */
  countRequest(messages: ReadonlyArray<ModelMessage>, tools: ReadonlyArray<ModelTool> = [], model?: string): number {
    let total = MESSAGE_OVERHEAD_TOKENS;
    for (const m of messages) {
      total += MESSAGE_OVERHEAD_TOKENS;
      if (m.role === 'system') total += this.count(m.content, model);
      else if (m.role === 'assistant') {
        for (const p of m.content) {
          if (p.type === 'text') total += this.count(p.text, model);
          else if (p.type === 'thinking') total += this.count(p.thinking, model);
          else total += this.count(p.name, model) + this.count(JSON.stringify(p.input ?? {}), model);
        }
      } else {
        const parts = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
        for (const p of parts) total += p.type === 'text' ? this.count(p.text, model) : IMAGE_TOKENS_ESTIMATE;
      }
    }
    for (const t of tools) total += this.count(`${t.name}\n${t.description}\n${JSON.stringify(t.inputSchema)}`, model);
    return total;
  }

  /** Frees the WASM encoders. The counter may be used again afterwards (encoders are recreated). */
  dispose(): void {
    for (const e of this.#encoders.values()) e.free();
    this.#encoders.clear();
  }
}

/**
 * Tokens assumed for one image when estimating (about a 1000×1000 image). Source: Anthropic
 * "Vision" guide, tokens ≈ width × height / 750.
 *
 * @public
 */
export const IMAGE_TOKENS_ESTIMATE = 1334;

/**
 * Reconciles local estimates with the prompt tokens providers report, per model: keeps a
 * correction factor (exponential moving average of reported ÷ estimated) and applies it to later
 * estimates, so budgets converge on the provider's own tokenizer.
 *
 * @public
 */
export class UsageReconciler {
  readonly #factors = new Map<string, number>();
  /** @param smoothing - weight of the newest observation in (0, 1] (default 0.3) */
  constructor(private readonly smoothing = 0.3) {}

  /**
   * Records one call's estimate against the provider's reported prompt tokens.
   * @param model - model id
   * @param estimatedTokens - what the counter said before the call
   * @param reportedTokens - `inputTokens + cacheReadTokens + cacheWriteTokens` from the provider
   * @returns the updated correction factor
   */
  observe(model: string, estimatedTokens: number, reportedTokens: number): number {
    if (!(estimatedTokens > 0) || !(reportedTokens > 0)) return this.factor(model);
    const ratio = reportedTokens / estimatedTokens;
    const prev = this.#factors.get(model);
    const next = prev === undefined ? ratio : prev + this.smoothing * (ratio - prev);
    this.#factors.set(model, next);
    return next;
  }

  /**
   * The current correction factor of a model (1 before any observation).
   * @param model - model id
   */
  factor(model: string): number {
    return this.#factors.get(model) ?? 1;
  }

  /**
   * Corrects a raw estimate for a model, rounded up to whole tokens.
   * @param model - model id
   * @param estimatedTokens - a raw estimate
   */
  adjust(model: string, estimatedTokens: number): number {
    return Math.ceil(estimatedTokens * this.factor(model));
  }
}
