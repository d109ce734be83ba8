// Property-based fuzz targets (fast-check, https://fast-check.dev), shared by the vitest CI subset
// (test/fuzz/*.test.ts, a few hundred cases per target) and the long runner (`npm run fuzz`,
// test/fuzz/run.ts). A target is an arbitrary plus a `check` that throws (node:assert) when the
// property is violated; `propertyOf` turns it into a fast-check property.
//
// Targets:
// - sse-fixtures: every recorded stream, re-encoded with random line endings, BOM and comments and
//   cut into random chunks (1 B … 64 KiB): `SseParser`, `readSse` and `readSseBatches` give the
//   one-chunk events, which are the recorded events.
// - sse-grammar: random SSE-like lines (field names, colons, CR/LF/CRLF, NUL, BOM, multi-byte and
//   invalid UTF-8) under random chunking equal a whole-stream reading of the WHATWG rules,
//   "Interpreting an event stream".
// - translate-openai / translate-anthropic: every recorded stream through `translateSse` with the
//   provider's translator, under random chunk boundaries, truncation, byte corruption and
//   event-level corruption (drop, duplicate, swap, a JSON value replaced or deleted): only
//   ProviderErrors are thrown, every event has its ModelEvent shape, a stream that did not throw
//   ends with one done, no tool_call_end is ok:true unless its raw arguments are a complete JSON
//   object passing the tool's schema; chunking alone changes nothing.
// - capability-input: every standard capability invoked through the real invocation path with
//   random inputs (`anything()`, `object()`, mutations of a valid example).
import { deepStrictEqual, equal, fail, ok } from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { Value } from 'typebox/value';
import { MediaAgentError } from '../../src/core/errors';
import { STANDARD_CAPABILITIES, STANDARD_CAPABILITY_IDS, type StandardCapabilityId } from '../../src/media/contracts';
import {
  defineStandardCapability,
  registerStandardCapabilities,
  type StandardImplementations,
} from '../../src/media/define-standard';
import { AnthropicTranslator } from '../../src/models/anthropic-stream';
import { ProviderError } from '../../src/models/errors';
import { OpenAITranslator } from '../../src/models/openai-stream';
import { encodeSse, type ReplayEvent } from '../../src/models/replay-server';
import { readSse, readSseBatches, SseParser, type SseEvent } from '../../src/models/sse';
import { translateSse, type SseTranslator } from '../../src/models/sse-translator';
import { RequestTools } from '../../src/models/tools';
import type { ModelEvent, ModelTool } from '../../src/models/types';
import { ConsoleLogger, ManualClock, SequentialIdGenerator, createAgentHost, type AgentHost } from '../../src/index';
import { MemoryStorage } from '../../src/storage';
import { FIXTURE_TOOLS, STREAM_FIXTURES, fixturesOf, type StreamFixture, type StreamFormat } from './fixtures';

// ---------------------------------------------------------------------------------------------
// Seeds and targets

/** Seed used when `FUZZ_SEED` is not set. */
export const DEFAULT_FUZZ_SEED = 20_260_131;

/**
 * The seed of a fuzz run: `FUZZ_SEED` from the environment (an integer), else {@link DEFAULT_FUZZ_SEED}.
 * @throws when `FUZZ_SEED` is set but is not an integer
 */
export function fuzzSeed(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.FUZZ_SEED;
  if (raw === undefined || raw.trim() === '') return DEFAULT_FUZZ_SEED;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got ${JSON.stringify(raw)}`);
  return seed | 0;
}

/** One fuzz target: inputs and the property they must satisfy. */
export interface FuzzTarget<T> {
  /** Short name, e.g. `sse-fixtures`. */
  readonly name: string;
  /** What is checked. */
  readonly description: string;
  /** The generated cases. */
  readonly arbitrary: fc.Arbitrary<T>;
  /** Checks one case; throws (an `AssertionError`) when the property does not hold. */
  check(value: T): Promise<void>;
  /** Counters of what the cases exercised (outcomes, mutation kinds, fixtures), for coverage reports. */
  readonly stats: Map<string, number>;
  /** Releases what the target holds (a host), when anything. */
  close?(): Promise<void>;
}

/** A target whose case type is not known statically (lists of targets). */
export type AnyFuzzTarget = FuzzTarget<any>;

/** The fast-check property of a target. */
export function propertyOf<T>(target: FuzzTarget<T>): fc.IAsyncPropertyWithHooks<[T]> {
  return fc.asyncProperty(target.arbitrary, (value) => target.check(value));
}

/** Names of the targets {@link createTarget} makes, in the order the runner runs them. */
export const TARGET_NAMES = [
  'sse-fixtures',
  'sse-grammar',
  'translate-openai',
  'translate-anthropic',
  'capability-input',
] as const;
/** One of {@link TARGET_NAMES}. */
export type TargetName = (typeof TARGET_NAMES)[number];

/** Makes one target by name (the capability target starts a host: call `close()` when done). */
export async function createTarget(name: TargetName): Promise<AnyFuzzTarget> {
  switch (name) {
    case 'sse-fixtures':
      return sseFixturesTarget();
    case 'sse-grammar':
      return sseGrammarTarget();
    case 'translate-openai':
      return translatorTarget('openai');
    case 'translate-anthropic':
      return translatorTarget('anthropic');
    case 'capability-input':
      return capabilityInputTarget();
  }
}

function bump(stats: Map<string, number>, key: string): void {
  stats.set(key, (stats.get(key) ?? 0) + 1);
}

// ---------------------------------------------------------------------------------------------
// Chunking

/**
 * Chunk sizes, used in turn until the bytes run out: each from 1–4 B, 1–256 B or 1 B–64 KiB, so a
 * case mixes byte-by-byte splits (inside UTF-8 sequences, between CR and LF) with large reads.
 */
export const chunkSizesArb: fc.Arbitrary<number[]> = fc.array(
  fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 256 }), fc.integer({ min: 1, max: 64 * 1024 })),
  { minLength: 1, maxLength: 12 },
);

/** Cuts `bytes` into chunks of the given sizes, cycling through them. */
export function splitBytes(bytes: Uint8Array, sizes: readonly number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let pos = 0, i = 0; pos < bytes.length; i++) {
    const n = Math.max(1, sizes[i % sizes.length]!);
    out.push(bytes.subarray(pos, pos + n));
    pos += n;
  }
  return out;
}

async function* stream(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const c of chunks) yield c;
}

const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));

function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

// ---------------------------------------------------------------------------------------------
// SSE parser

function parseWith(chunks: readonly Uint8Array[]): SseEvent[] {
  const parser = new SseParser();
  const out: SseEvent[] = [];
  for (const c of chunks) out.push(...parser.feed(c));
  out.push(...parser.end());
  return out;
}

/** A printable form of any value, at most ~600 characters; never throws (inputs can be hostile). */
function short(value: unknown): string {
  let s: string;
  try {
    s = value === undefined ? '(none)' : fc.stringify(value);
  } catch {
    try {
      s = `${JSON.stringify(value)} (JSON form; fast-check could not print it)`;
    } catch {
      s = `a ${typeof value} that cannot be printed`;
    }
  }
  return s.length > 600 ? `${s.slice(0, 600)}… (${s.length} characters)` : s;
}

/** Asserts two lists are deeply equal, reporting only the first difference (the lists can be long). */
export function sameList<T>(actual: readonly T[], expected: readonly T[], what: string): void {
  const n = Math.max(actual.length, expected.length);
  for (let i = 0; i < n; i++) {
    if (!isDeepStrictEqual(actual[i], expected[i])) {
      fail(
        `${what} | first difference at index ${i} (${actual.length} items, expected ${expected.length}):\n  actual   ${short(actual[i])}\n  expected ${short(expected[i])}`,
      );
    }
  }
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Checks `SseParser`, `readSse` and `readSseBatches` over `chunks` against `expected`. */
async function checkAllReaders(chunks: readonly Uint8Array[], expected: SseEvent[]): Promise<void> {
  sameList(parseWith(chunks), expected, 'SseParser.feed/end over the chunks vs the one-chunk parse');
  sameList(await collect(readSse(stream(chunks))), expected, 'readSse over the chunks vs the one-chunk parse');
  sameList(
    (await collect(readSseBatches(stream(chunks)))).flat(),
    expected,
    'readSseBatches over the chunks vs the one-chunk parse',
  );
}

/** A case of the sse-fixtures target. */
export interface SseFixtureCase {
  fixture: string;
  /** Line endings, used in turn line by line. */
  endings: Array<'\n' | '\r\n' | '\r'>;
  /** Start the stream with a UTF-8 byte-order mark. */
  bom: boolean;
  /** Put a `: keep-alive` comment line before every event. */
  comments: boolean;
  sizes: number[];
}

function encodeVariant(events: readonly ReplayEvent[], c: SseFixtureCase): Uint8Array {
  let text = c.bom ? '\uFEFF' : '';
  let n = 0;
  let previous = '';
  const line = (s: string) => {
    let ending = c.endings[n++ % c.endings.length]!;
    // CR ending a line, then an empty line ending in LF, would read as one CRLF: end that empty line with CRLF.
    if (previous === '\r' && s === '' && ending === '\n') ending = '\r\n';
    text += s + ending;
    previous = ending;
  };
  for (const e of events) {
    if (c.comments) line(': keep-alive');
    if (e.event !== undefined) line(`event: ${e.event}`);
    line(`data: ${e.data}`);
    line('');
  }
  return utf8(text);
}

function sseFixturesTarget(): FuzzTarget<SseFixtureCase> {
  const stats = new Map<string, number>();
  const byName = new Map(STREAM_FIXTURES.map((f) => [f.name, f]));
  return {
    name: 'sse-fixtures',
    description:
      'SseParser / readSse / readSseBatches under random chunking (1 B–64 KiB), line endings, BOM and comments over every recorded stream: chunked = one chunk = recorded events',
    stats,
    arbitrary: fc.record({
      fixture: fc.constantFrom(...STREAM_FIXTURES.map((f) => f.name)),
      endings: fc.array(fc.constantFrom<'\n' | '\r\n' | '\r'>('\n', '\r\n', '\r'), { minLength: 1, maxLength: 6 }),
      bom: fc.boolean(),
      comments: fc.boolean(),
      sizes: chunkSizesArb,
    }),
    async check(c) {
      const fixture = byName.get(c.fixture)!;
      bump(stats, `fixture:${c.fixture}`);
      bump(
        stats,
        `endings:${[...new Set(c.endings)]
          .map((e) => (e === '\n' ? 'LF' : e === '\r' ? 'CR' : 'CRLF'))
          .sort()
          .join('+')}`,
      );
      if (c.bom) bump(stats, 'bom');
      if (c.comments) bump(stats, 'comments');
      const bytes = encodeVariant(fixture.events, c);
      const whole = parseWith([bytes]);
      const recorded = fixture.events.map((e) => ({ event: e.event ?? 'message', data: e.data, id: '' }));
      sameList(whole, recorded, 'the one-chunk parse vs the recorded events');
      await checkAllReaders(splitBytes(bytes, c.sizes), whole);
    },
  };
}

/**
 * A plain reading of the WHATWG HTML rules, "Interpreting an event stream"
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation),
 * over the whole stream at once, with the two choices `SseParser` documents: `retry` is reported
 * on the event it was sent with, and a last event not followed by a blank line is dispatched at
 * the end of the stream.
 */
export function referenceSse(bytes: Uint8Array): SseEvent[] {
  const text = new TextDecoder('utf-8').decode(bytes); // UTF-8 decode, one leading BOM dropped
  const out: SseEvent[] = [];
  let data: string[] = [];
  let type = '';
  let lastId = '';
  let retry: number | undefined;
  const dispatch = () => {
    if (data.length > 0) {
      const ev: SseEvent = { event: type === '' ? 'message' : type, data: data.join('\n'), id: lastId };
      if (retry !== undefined) ev.retry = retry;
      out.push(ev);
    }
    data = [];
    type = '';
    retry = undefined;
  };
  const processLine = (line: string) => {
    if (line === '') return dispatch();
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') {
      if (!value.includes('\0')) lastId = value;
    } else if (field === 'retry') {
      if (/^[0-9]+$/.test(value)) retry = Number(value);
    }
  };
  const lines = text.split(/\r\n|\r|\n/);
  const rest = lines.pop()!;
  for (const l of lines) processLine(l);
  if (rest !== '') processLine(rest);
  dispatch();
  return out;
}

/** A case of the sse-grammar target: pieces of wire text or raw bytes, concatenated. */
export interface SseGrammarCase {
  pieces: Array<string | Uint8Array>;
  sizes: number[];
}

function sseGrammarTarget(): FuzzTarget<SseGrammarCase> {
  const stats = new Map<string, number>();
  const text = fc.constantFrom(
    '7',
    '42',
    'x',
    'message',
    'ping',
    '{"a":1}',
    '[DONE]',
    '沙丘',
    '😀',
    'é',
    '\0',
    '\uFEFF',
    ' ',
    ':',
    '\r',
    '\n',
  );
  const piece: fc.Arbitrary<string | Uint8Array> = fc.oneof(
    { weight: 6, arbitrary: text },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 3 }) }, // raw bytes: split or invalid UTF-8
  );
  // A field line: name, separator, value pieces, line ending (none: runs into the next line).
  const fieldLine = fc
    .tuple(
      fc.oneof(
        { weight: 6, arbitrary: fc.constant('data') },
        { weight: 4, arbitrary: fc.constantFrom('event', 'id', 'retry', ':') },
        { weight: 1, arbitrary: fc.constantFrom('', 'dat', 'Data', 'data ', ' data', '\uFEFFdata') },
      ),
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(':', ': ') },
        { weight: 1, arbitrary: fc.constantFrom(':  ', '', ' : ', '::') },
      ),
      fc.array(piece, { maxLength: 4 }),
      fc.constantFrom('\n', '\n', '\r', '\r\n', ''),
    )
    .map(([name, sep, value, ending]): Array<string | Uint8Array> => [name + sep, ...value, ending]);
  const blankLine = fc.constantFrom('\n', '\r\n', '\r').map((e): Array<string | Uint8Array> => [e]);
  return {
    name: 'sse-grammar',
    description:
      'SseParser / readSse / readSseBatches on random SSE-like lines (fields, CR/LF/CRLF, NUL, BOM, split and invalid UTF-8) under random chunking = a whole-stream reading of the WHATWG rules',
    stats,
    arbitrary: fc.record({
      pieces: fc
        .array(
          fc.oneof(
            { weight: 5, arbitrary: fieldLine },
            { weight: 3, arbitrary: blankLine },
            {
              weight: 1,
              arbitrary: fc
                .constantFrom('retry: 250\n', 'retry:0\r\n', 'retry: 1x\n', 'id: 7\n', 'id\n', 'data\n', 'event\r')
                .map((l) => [l]),
            },
            { weight: 1, arbitrary: piece.map((p) => [p]) },
          ),
          { maxLength: 60, size: 'medium' },
        )
        .map((lines) => lines.flat()),
      sizes: chunkSizesArb,
    }),
    async check(c) {
      const bytes = concatBytes(c.pieces.map((p) => (typeof p === 'string' ? utf8(p) : p)));
      const expected = referenceSse(bytes);
      bump(stats, expected.length === 0 ? 'events:0' : expected.length < 4 ? 'events:1-3' : 'events:4+');
      if (expected.some((e) => e.retry !== undefined)) bump(stats, 'with retry');
      if (expected.some((e) => e.id !== '')) bump(stats, 'with id');
      if (expected.some((e) => e.event !== 'message')) bump(stats, 'with event type');
      sameList(parseWith([bytes]), expected, 'the one-chunk parse vs the WHATWG reading');
      await checkAllReaders(splitBytes(bytes, c.sizes), expected);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Stream translators

/** Byte-level corruption: replace, insert or delete one byte (positions taken modulo the length). */
export interface ByteOp {
  op: 'replace' | 'insert' | 'delete';
  at: number;
  byte: number;
}

/** Event-level corruption (positions taken modulo the number of events / JSON nodes). */
export interface EventOp {
  op: 'drop' | 'duplicate' | 'swap' | 'json-set' | 'json-delete';
  at: number;
  /** Pre-order index of the JSON node to replace or delete (`json-*`). */
  node: number;
  /** The replacement (`json-set`). */
  value: unknown;
}

/** How a translator case's stream is damaged before it is cut into chunks. */
export type StreamMutation =
  | { kind: 'none' }
  | { kind: 'truncate'; at: number }
  | { kind: 'bytes'; ops: ByteOp[]; truncateAt: number | null }
  | { kind: 'events'; ops: EventOp[]; truncateAt: number | null };

/** A case of a translate-* target. */
export interface TranslatorCase {
  fixture: string;
  sizes: number[];
  mutation: StreamMutation;
}

const interestingBytes = [
  0x22, 0x7b, 0x7d, 0x5b, 0x5d, 0x3a, 0x2c, 0x5c, 0x0a, 0x0d, 0x20, 0x30, 0x31, 0x6e, 0x74, 0x00, 0xff, 0xc3, 0xe6,
  0xf0,
];

const byteOpArb: fc.Arbitrary<ByteOp> = fc.record({
  op: fc.constantFrom<ByteOp['op']>('replace', 'insert', 'delete'),
  at: fc.nat(),
  byte: fc.oneof(fc.constantFrom(...interestingBytes), fc.integer({ min: 0, max: 255 })),
});

const jsonReplacementArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      null,
      0,
      -1,
      1,
      1.5,
      1e21,
      '',
      ' ',
      'x',
      true,
      false,
      [],
      {},
      [null],
      'tool_use',
      'text',
      'thinking',
      'redacted_thinking',
      'input_json_delta',
      'text_delta',
      'thinking_delta',
      'signature_delta',
      'content_block_start',
      'content_block_stop',
      'message_delta',
      'message_stop',
      'error',
      'tool_calls',
      'stop',
      'insufficient_system_resource',
      '[DONE]',
      '{"',
      '{}',
      '[]',
      'inventory_query',
      'download_submit',
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

const eventOpArb: fc.Arbitrary<EventOp> = fc.record({
  op: fc.constantFrom<EventOp['op']>('drop', 'duplicate', 'swap', 'json-set', 'json-set', 'json-set', 'json-delete'),
  at: fc.nat(),
  node: fc.nat(),
  value: jsonReplacementArb,
});

const mutationArb: fc.Arbitrary<StreamMutation> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<StreamMutation>({ kind: 'none' }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('bytes' as const),
      ops: fc.array(byteOpArb, { minLength: 1, maxLength: 8 }),
      truncateAt: fc.option(fc.nat()),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('events' as const),
      ops: fc.array(eventOpArb, { minLength: 1, maxLength: 4 }),
      truncateAt: fc.option(fc.nat()),
    }),
  },
);

type JsonNode = { parent: Record<string, unknown> | unknown[] | undefined; key: string | number };

function isPlainContainer(v: unknown): v is Record<string, unknown> | unknown[] {
  if (Array.isArray(v)) return true;
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** The nodes of a JSON-like tree in pre-order (root first); values in `opaque` are leaves. */
function jsonNodes(root: unknown, opaque?: WeakSet<object>): JsonNode[] {
  const out: JsonNode[] = [{ parent: undefined, key: '' }];
  const walk = (v: unknown) => {
    if (!isPlainContainer(v) || opaque?.has(v)) return;
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        out.push({ parent: v, key: i });
        walk(x);
      });
    } else {
      for (const k of Object.keys(v)) {
        out.push({ parent: v, key: k });
        walk(v[k]);
      }
    }
  };
  walk(root);
  return out;
}

/** Applies one JSON edit to an event's payload; a payload that is not JSON (`[DONE]`) is left alone. */
function editJson(data: string, op: EventOp): string {
  let root: unknown;
  try {
    root = JSON.parse(data);
  } catch {
    return data;
  }
  const nodes = jsonNodes(root);
  const node = nodes[op.node % nodes.length]!;
  const value = JSON.parse(JSON.stringify(op.value ?? null)) as unknown; // a fresh copy of the generated value
  if (node.parent === undefined) return op.op === 'json-delete' ? '' : JSON.stringify(value);
  if (op.op === 'json-delete') {
    if (Array.isArray(node.parent)) node.parent.splice(node.key as number, 1);
    else delete node.parent[node.key as string];
  } else if (Array.isArray(node.parent)) node.parent[node.key as number] = value;
  else node.parent[node.key as string] = value;
  return JSON.stringify(root);
}

function mutateEvents(events: readonly ReplayEvent[], ops: readonly EventOp[]): ReplayEvent[] {
  const list = events.map((e) => ({ ...e }));
  for (const op of ops) {
    if (list.length === 0) break;
    const i = op.at % list.length;
    switch (op.op) {
      case 'drop':
        list.splice(i, 1);
        break;
      case 'duplicate':
        list.splice(i, 0, { ...list[i]! });
        break;
      case 'swap':
        if (i + 1 < list.length) [list[i], list[i + 1]] = [list[i + 1]!, list[i]!];
        break;
      default:
        list[i] = { ...list[i]!, data: editJson(list[i]!.data, op) };
    }
  }
  return list;
}

function mutateBytes(bytes: Uint8Array, ops: readonly ByteOp[]): Uint8Array {
  const b = [...bytes];
  for (const op of ops) {
    if (op.op === 'insert') b.splice(op.at % (b.length + 1), 0, op.byte);
    else if (b.length === 0) continue;
    else if (op.op === 'replace') b[op.at % b.length] = op.byte;
    else b.splice(op.at % b.length, 1);
  }
  return Uint8Array.from(b);
}

/** The wire bytes of a case after its mutation. */
export function mutatedWire(fixture: StreamFixture, m: StreamMutation): Uint8Array {
  if (m.kind === 'none') return fixture.wire;
  if (m.kind === 'truncate') return fixture.wire.subarray(0, m.at % (fixture.wire.length + 1));
  let bytes =
    m.kind === 'events' ? utf8(encodeSse(mutateEvents(fixture.events, m.ops))) : mutateBytes(fixture.wire, m.ops);
  if (m.truncateAt !== null) bytes = bytes.subarray(0, m.truncateAt % (bytes.length + 1));
  return bytes;
}

/** What translating one stream gave: every event yielded, and the error thrown at the end, if any. */
export interface Translation {
  events: ModelEvent[];
  error: unknown;
  thrown: boolean;
  batches: number;
}

function makeTranslator(format: StreamFormat, tools: RequestTools): SseTranslator {
  return format === 'anthropic' ? new AnthropicTranslator(tools) : new OpenAITranslator(tools);
}

/** Drives `translateSse` over the chunks with a fresh translator of the format. */
export async function translateChunks(
  format: StreamFormat,
  chunks: readonly Uint8Array[],
  tools: RequestTools,
): Promise<Translation> {
  const events: ModelEvent[] = [];
  let batches = 0;
  try {
    for await (const batch of translateSse(stream(chunks), makeTranslator(format, tools))) {
      batches++;
      events.push(...batch);
    }
  } catch (error) {
    return { events, error, thrown: true, batches };
  }
  return { events, error: undefined, thrown: false, batches };
}

/**
 * The events with adjacent text, plain thinking and same-call argument deltas merged, so that
 * translations that differ only in how deltas were grouped compare equal.
 */
export function normalizeEvents(events: readonly ModelEvent[]): ModelEvent[] {
  const out: ModelEvent[] = [];
  for (const e of events) {
    const last = out[out.length - 1];
    if (last?.type === 'text_delta' && e.type === 'text_delta')
      out[out.length - 1] = { type: 'text_delta', text: last.text + e.text };
    else if (
      last?.type === 'thinking_delta' &&
      e.type === 'thinking_delta' &&
      Object.keys(last).length === 2 &&
      Object.keys(e).length === 2
    )
      out[out.length - 1] = { type: 'thinking_delta', thinking: last.thinking + e.thinking };
    else if (last?.type === 'tool_call_delta' && e.type === 'tool_call_delta' && last.id === e.id)
      out[out.length - 1] = {
        type: 'tool_call_delta',
        id: e.id,
        argumentsDelta: last.argumentsDelta + e.argumentsDelta,
      };
    else out.push(e);
  }
  return out;
}

function describeError(error: unknown): string {
  if (error instanceof Error)
    return `${error.constructor.name}${'code' in error ? ` (code ${String((error as { code: unknown }).code)})` : ''}: ${error.message}`;
  try {
    return `non-Error ${typeof error}: ${String(error)}`;
  } catch {
    return `non-Error ${typeof error}`;
  }
}

/** `at <function> (<file>:<line>)` of the first stack frame in src/, for a one-line report. */
function topFrame(error: unknown): string {
  const stack = error instanceof Error ? (error.stack ?? '') : '';
  const frame = stack.split('\n').find((l) => l.includes('/src/')) ?? stack.split('\n')[1] ?? '';
  return frame.trim().replace(/\(.*\/(src\/[^:)]+):(\d+):\d+\)/, '($1:$2)');
}

function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The tool-call invariant: every `tool_call_end` with `ok: true` names an offered tool, its
 * `rawArguments` is empty/whitespace (= `{}`) or parses as a JSON object equal to `input`, that
 * input passes the tool's schema (TypeBox `Value.Check`), and (when its id was started once) the
 * raw text is exactly the concatenation of the call's `tool_call_delta`s.
 */
export function checkToolCallEnds(
  events: readonly ModelEvent[],
  toolsById: ReadonlyMap<string, ModelTool>,
  stats?: Map<string, number>,
): void {
  const starts = new Map<string, number>();
  for (const e of events) if (e.type === 'tool_call_start') starts.set(e.id, (starts.get(e.id) ?? 0) + 1);
  const deltas = new Map<string, string>();
  for (const e of events) {
    if (e.type === 'tool_call_start') deltas.set(e.id, '');
    else if (e.type === 'tool_call_delta') deltas.set(e.id, (deltas.get(e.id) ?? '') + e.argumentsDelta);
    if (e.type !== 'tool_call_end') continue;
    if (stats) bump(stats, e.ok ? 'tool_call_end ok' : `tool_call_end ${e.failure.code}`);
    if (!e.ok) continue;
    const where = `tool_call_end ok:true id=${JSON.stringify(e.id)} name=${JSON.stringify(e.name)} rawArguments=${JSON.stringify(e.rawArguments)}`;
    const tool = toolsById.get(e.name);
    ok(tool, `tool_call_end ok:true names a tool that was not offered | ${where}`);
    equal(typeof e.rawArguments, 'string', `tool_call_end ok:true with non-string rawArguments | ${where}`);
    let parsed: unknown;
    if (e.rawArguments.trim() === '') parsed = {};
    else {
      try {
        parsed = JSON.parse(e.rawArguments);
      } catch (cause) {
        fail(
          `tool_call_end ok:true with rawArguments that are not valid JSON | ${where} (${(cause as Error).message})`,
        );
      }
    }
    ok(isJsonObject(parsed), `tool_call_end ok:true with rawArguments that are not a JSON object | ${where}`);
    // The schema parseToolArguments validates against: `validationSchema` when a tool carries one, else `inputSchema`.
    const schema = (tool as { validationSchema?: Record<string, unknown> }).validationSchema ?? tool.inputSchema;
    ok(Value.Check(schema, parsed), `tool_call_end ok:true with arguments that fail the tool's schema | ${where}`);
    deepStrictEqual(
      e.input,
      parsed,
      `tool_call_end ok:true whose input differs from the parsed rawArguments | ${where}`,
    );
    if (starts.get(e.id) === 1)
      equal(
        e.rawArguments,
        deltas.get(e.id),
        `tool_call_end ok:true whose rawArguments differ from the call's tool_call_delta text | ${where}`,
      );
  }
}

const STOP_REASONS = new Set(['end_turn', 'tool_use', 'max_tokens', 'refusal', 'aborted', 'error']);
const FAILURE_CODES = new Set(['TOOL_ARGS_MALFORMED', 'TOOL_ARGS_INVALID', 'TOOL_UNKNOWN']);

/** What is wrong with an event's shape against the `ModelEvent` union of models/types.ts, if anything. */
export function eventShapeProblem(e: ModelEvent): string | undefined {
  const str = (v: unknown) => typeof v === 'string';
  const optStr = (v: unknown) => v === undefined || typeof v === 'string';
  const num = (v: unknown) => typeof v === 'number' && !Number.isNaN(v);
  const ev = e as Record<string, unknown>;
  switch (e.type) {
    case 'text_delta':
      return str(ev.text) ? undefined : `text_delta.text is ${typeof ev.text}`;
    case 'thinking_delta':
      if (!str(ev.thinking)) return `thinking_delta.thinking is ${typeof ev.thinking}`;
      if (!optStr(ev.signature)) return `thinking_delta.signature is ${typeof ev.signature}`;
      return optStr(ev.redacted) ? undefined : `thinking_delta.redacted is ${typeof ev.redacted}`;
    case 'tool_call_start':
      return str(ev.id) && str(ev.name) ? undefined : `tool_call_start id/name are ${typeof ev.id}/${typeof ev.name}`;
    case 'tool_call_delta':
      return str(ev.id) && str(ev.argumentsDelta)
        ? undefined
        : `tool_call_delta id/argumentsDelta are ${typeof ev.id}/${typeof ev.argumentsDelta}`;
    case 'tool_call_end':
      if (!(str(ev.id) && str(ev.name) && str(ev.rawArguments) && typeof ev.ok === 'boolean'))
        return 'tool_call_end id/name/rawArguments/ok have wrong types';
      return e.ok || (FAILURE_CODES.has(e.failure?.code) && str(e.failure.message))
        ? undefined
        : 'tool_call_end ok:false without a valid failure';
    case 'usage': {
      const u = ev.usage as Record<string, unknown> | undefined;
      if (!u || ![u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens].every(num))
        return 'usage has non-numeric token counts';
      return u.reasoningTokens === undefined || num(u.reasoningTokens)
        ? undefined
        : 'usage.reasoningTokens is not a number';
    }
    case 'done':
      return STOP_REASONS.has(e.stopReason) ? undefined : `done.stopReason is ${JSON.stringify(e.stopReason)}`;
    case 'warning':
      return e.warning && str(e.warning.code) && str(e.warning.message)
        ? undefined
        : 'warning without a string code and message';
    case 'error':
      return e.error instanceof Error ? undefined : 'error event without an Error';
    default:
      return `unknown event type ${JSON.stringify((e as { type: unknown }).type)}`;
  }
}

function translatorTarget(format: StreamFormat): FuzzTarget<TranslatorCase> {
  const stats = new Map<string, number>();
  const fixtures = fixturesOf(format);
  const byName = new Map(fixtures.map((f) => [f.name, f]));
  const tools = new RequestTools([...FIXTURE_TOOLS]);
  const toolsById = new Map(FIXTURE_TOOLS.map((t) => [t.name, t]));
  const baselines = new Map<string, { events: ModelEvent[]; error: string | null }>();
  const outcome = (t: Translation) => ({
    events: normalizeEvents(t.events),
    error: t.thrown ? describeError(t.error) : null,
  });
  return {
    name: `translate-${format}`,
    description: `translateSse + ${format === 'anthropic' ? 'AnthropicTranslator' : 'OpenAITranslator'} over every recorded ${format} stream under random chunking, truncation and byte/event corruption: only ProviderErrors thrown, bounded, no ok:true tool_call_end with partial/invalid/schema-failing arguments; chunking alone = one-chunk translation`,
    stats,
    arbitrary: fc.record({
      fixture: fc.constantFrom(...fixtures.map((f) => f.name)),
      sizes: chunkSizesArb,
      mutation: mutationArb,
    }),
    async check(c) {
      const fixture = byName.get(c.fixture)!;
      bump(stats, `fixture:${c.fixture}`);
      bump(stats, `mutation:${c.mutation.kind}`);
      const bytes = mutatedWire(fixture, c.mutation);
      const chunks = splitBytes(bytes, c.sizes);
      const t = await translateChunks(format, chunks, tools);
      // Bounded: translateSse yields at most one batch per chunk plus one at the end, then stops.
      ok(
        t.batches <= chunks.length + 1,
        `translateSse yielded more batches than chunks + 1 | ${t.batches} batches for ${chunks.length} chunks`,
      );
      if (t.thrown) {
        bump(stats, `threw ${t.error instanceof ProviderError ? t.error.code : 'untyped'}`);
        ok(
          t.error instanceof ProviderError && typeof t.error.code === 'string',
          `translateSse threw an untyped error: ${describeError(t.error)} ${topFrame(t.error)}`,
        );
      } else {
        bump(stats, 'completed');
        const dones = t.events.filter((e) => e.type === 'done').length;
        equal(
          dones,
          1,
          `a stream that ended without an error has ${dones === 0 ? 'no' : 'several'} done events | ${dones} done events`,
        );
        equal(
          t.events[t.events.length - 1]?.type,
          'done',
          'a stream that ended without an error does not end with done | last event is not done',
        );
      }
      for (const e of t.events) {
        const problem = eventShapeProblem(e);
        if (problem !== undefined) fail(`an event does not match the ModelEvent type: ${problem} | ${short(e)}`);
      }
      checkToolCallEnds(t.events, toolsById, stats);
      if (c.mutation.kind === 'none') {
        let base = baselines.get(fixture.name);
        if (!base) {
          base = outcome(await translateChunks(format, [fixture.wire], tools));
          baselines.set(fixture.name, base);
        }
        const got = outcome(t);
        equal(
          got.error,
          base.error,
          'chunking changed how the translation ended (error or not) | chunked vs one chunk',
        );
        sameList(got.events, base.events, 'chunking changed the normalized events');
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Standard capability inputs through the invocation path

/** Valid inputs of the 15 standard capabilities (every optional field set where there is one). */
export const VALID_EXAMPLES: Readonly<Record<StandardCapabilityId, Record<string, unknown>>> = {
  'catalog.lookup': { query: 'Dune: Part Two', kind: 'movie', year: 2024, limit: 5 },
  'release.search': {
    mediaSource: 'tmdb',
    mediaId: '693134',
    season: 1,
    minResolution: '1080p',
    maxSizeBytes: 20_000_000_000,
    limit: 10,
  },
  'release.inspect': { releaseId: 'rel-1' },
  'identity.resolve': {
    subjectType: 'release',
    subjectId: 'rel-1',
    mediaSource: 'tmdb',
    mediaId: '693134',
    kind: 'movie',
    evidence: 'year and runtime match',
  },
  'download.plan': { mediaSource: 'tmdb', mediaId: '693134', kind: 'movie', releaseId: 'rel-1', note: 'prefer 1080p' },
  'download.submit': { planId: 'plan-1' },
  'download.recheck': { downloadId: 'dl-1', action: 'resume' },
  'organize.plan': { downloadId: 'dl-1', mode: 'hardlink', mediaSource: 'douban', mediaId: '35575567' },
  'organize.execute': { planId: 'plan-2' },
  'task.inspect': {
    taskId: 't-1',
    planId: 'plan-1',
    mediaEntityId: 'tmdb:693134',
    idempotencyKey: 'download.submit:v1:run-1:abc',
    type: 'download',
    status: 'queued',
    limit: 20,
  },
  'task.retry': { taskId: 't-1' },
  'task.cancel': { taskId: 't-1', reason: 'duplicate' },
  'policy.preview': {
    kind: 'acquisition',
    settings: {
      minResolution: '1080p',
      maxSizeBytes: 1,
      preferredSites: ['site-a'],
      organizeMode: 'copy',
      autoImport: true,
      autoRecover: false,
      minIdentityConfidence: 0.5,
    },
  },
  'policy.apply': { kind: 'organize', settings: { organizeMode: 'move', autoImport: false }, note: 'switch to move' },
  'inventory.query': { query: '沙丘', kind: 'tv', limit: 200 },
};

/** The fuzz host's input limit: small, so that the INPUT_TOO_LARGE path is reached cheaply (the default is 1 MiB). */
export const FUZZ_MAX_INPUT_BYTES = 16 * 1024;
const OVERSIZE = 'x'.repeat(FUZZ_MAX_INPUT_BYTES);
/** Stands for {@link OVERSIZE} in generated edits, so that a counterexample prints short. */
const OVERSIZE_MARK: object = Object.freeze({ [fc.toStringMethod]: () => `'x'.repeat(${FUZZ_MAX_INPUT_BYTES})` });

/** One edit of a valid example (positions taken modulo the number of nodes). */
export interface InputOp {
  op: 'set' | 'delete' | 'add';
  node: number;
  key: string;
  value: unknown;
}

/** A case of the capability-input target. */
export interface CapabilityCase {
  id: StandardCapabilityId;
  /** `anything` / `object`: `value` as generated; `example`: the capability's valid example edited by `ops`. */
  source: 'anything' | 'object' | 'example';
  value: unknown;
  ops: InputOp[];
}

/** Values put into inputs: boundary values of the standard schemas and other types. */
const inputValueArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom<unknown>(
      null,
      undefined,
      0,
      -0,
      -1,
      1,
      1.5,
      1869,
      1870,
      2100,
      2101,
      51,
      201,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      2 ** 53,
      1e300,
      true,
      '',
      ' ',
      'x',
      'x'.repeat(65),
      'x'.repeat(129),
      'x'.repeat(201),
      'x'.repeat(501),
      'x'.repeat(2001),
      '693134\n',
      'tt15239678',
      'tmdb:693134',
      'tmdb:',
      'TMDB:1',
      'movie',
      'tv',
      'Movie',
      'tmdb',
      'netflix',
      '1080p',
      '4k',
      'hardlink',
      'release',
      'download',
      'acquisition',
      'policy',
      '__proto__',
      [],
      {},
      ['a'],
      Array.from({ length: 21 }, (_, i) => `site-${i}`),
    ),
  },
  {
    weight: 3,
    arbitrary: fc.anything({
      maxDepth: 2,
      withBoxedValues: true,
      withNullPrototype: true,
      withBigInt: true,
      withDate: true,
      withSparseArray: true,
    }),
  },
);

/** Values an edit of a valid example puts in: {@link inputValueArb}, and now and then 16 KiB of text (over the limit). */
const editValueArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 10, arbitrary: inputValueArb },
  { weight: 1, arbitrary: fc.constant(OVERSIZE_MARK) },
);

const inputKeyArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    '',
    ' planId',
    'planId ',
    'extra',
    'kind',
    'query',
    'settings',
    'note',
    'apiKey',
  ),
  fc.string({ maxLength: 8 }),
);

function clonePlain<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** A valid example edited by `ops` (a fresh copy; the generated values are inserted as they are and never modified). */
export function editExample(example: Record<string, unknown>, ops: readonly InputOp[]): unknown {
  let root: unknown = clonePlain(example);
  const inserted = new WeakSet<object>();
  const put = (target: object, key: string | number, generated: unknown) => {
    const value = generated === OVERSIZE_MARK ? OVERSIZE : generated;
    if (typeof value === 'object' && value !== null) inserted.add(value);
    // An own property, even for keys such as __proto__ (as JSON.parse makes them).
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  };
  for (const op of ops) {
    const nodes = jsonNodes(root, inserted);
    const node = nodes[op.node % nodes.length]!;
    if (op.op === 'add') {
      const containers = nodes
        .map((n) => (n.parent === undefined ? root : (n.parent as Record<string, unknown>)[n.key as string]))
        .filter((v): v is object => isPlainContainer(v) && !inserted.has(v));
      if (containers.length > 0) put(containers[op.node % containers.length]!, op.key, op.value);
    } else if (node.parent === undefined) {
      root = op.op === 'delete' ? undefined : op.value === OVERSIZE_MARK ? OVERSIZE : op.value;
      if (typeof root === 'object' && root !== null) inserted.add(root);
    } else if (op.op === 'delete') {
      if (Array.isArray(node.parent)) node.parent.splice(node.key as number, 1);
      else delete node.parent[node.key as string];
    } else put(node.parent, node.key, op.value);
  }
  return root;
}

/** The input of a case. */
export function capabilityInput(c: CapabilityCase): unknown {
  return c.source === 'example' ? editExample(VALID_EXAMPLES[c.id], c.ops) : c.value;
}

/** Property names of a capability's input schema (nested objects included), as likely keys. */
function schemaKeys(schema: unknown, out = new Set<string>()): Set<string> {
  if (typeof schema === 'object' && schema !== null) {
    const props = (schema as { properties?: Record<string, unknown> }).properties;
    if (props) {
      for (const [k, v] of Object.entries(props)) {
        out.add(k);
        schemaKeys(v, out);
      }
    }
  }
  return out;
}

/**
 * The input error the invocation path must answer with, from the README's rules: input that has
 * no JSON form → `INPUT_INVALID`; JSON larger than the limit → `INPUT_TOO_LARGE` (an input that is
 * also schema-invalid may get either); failing the schema → `INPUT_INVALID`; else none.
 */
export function expectedInputErrors(input: unknown, schema: unknown, maxBytes: number): ReadonlySet<string> {
  let json: string | undefined;
  try {
    json = JSON.stringify(input);
  } catch {
    return new Set(['INPUT_INVALID']);
  }
  if (json === undefined) return new Set(['INPUT_INVALID']);
  const valid = Value.Check(schema as Parameters<typeof Value.Check>[0], input);
  if (Buffer.byteLength(json, 'utf8') > maxBytes)
    return new Set(valid ? ['INPUT_TOO_LARGE'] : ['INPUT_TOO_LARGE', 'INPUT_INVALID']);
  return new Set(valid ? [] : ['INPUT_INVALID']);
}

/** A handler call whose input failed the schema or the size limit. */
interface Violation {
  id: string;
  input: string;
  reason: string;
}

async function capabilityInputTarget(): Promise<FuzzTarget<CapabilityCase>> {
  const stats = new Map<string, number>();
  const calls = new Map<string, number>();
  const violations: Violation[] = [];
  let host: AgentHost | undefined;
  let invocations = 0;

  const startHost = async () => {
    const h = createAgentHost({
      storage: new MemoryStorage(),
      clock: new ManualClock(Date.UTC(2026, 10, 30, 12)),
      ids: new SequentialIdGenerator(),
      logger: new ConsoleLogger('silent'),
      maxInputBytes: FUZZ_MAX_INPUT_BYTES,
    });
    await h.start({ workers: false });
    const implementations = Object.fromEntries(
      STANDARD_CAPABILITY_IDS.map((id) => [
        id,
        defineStandardCapability(id, async (input: unknown) => {
          calls.set(id, (calls.get(id) ?? 0) + 1);
          // The handler checks what it was given itself: the schema (TypeBox Value.Check) and the size limit.
          if (!Value.Check(STANDARD_CAPABILITIES[id].input, input))
            violations.push({ id, input: short(input), reason: 'fails the input schema' });
          else if (Buffer.byteLength(JSON.stringify(input), 'utf8') > FUZZ_MAX_INPUT_BYTES)
            violations.push({ id, input: short(input), reason: 'over the input size limit' });
          // Not a property (TypeBox accepts e.g. a Date where every field is optional), only counted: the
          // ledger hashes and the audit summarizes the JSON form, which then differs in shape from what was checked.
          else if (!Value.Check(STANDARD_CAPABILITIES[id].input, JSON.parse(JSON.stringify(input))))
            bump(stats, 'handled input whose JSON form fails the schema');
          return {} as never; // output validity is not under test (an invalid output settles as OUTPUT_INVALID)
        }),
      ]),
    ) as StandardImplementations;
    registerStandardCapabilities(h.capabilities, implementations);
    return h;
  };

  const caseArb = (id: StandardCapabilityId): fc.Arbitrary<CapabilityCase> => {
    const keys = [...schemaKeys(STANDARD_CAPABILITIES[id].input)];
    return fc.oneof(
      {
        weight: 2,
        arbitrary: fc
          .anything({
            maxDepth: 3,
            withBoxedValues: true,
            withNullPrototype: true,
            withBigInt: true,
            withDate: true,
            withMap: true,
            withSet: true,
            withTypedArray: true,
            withSparseArray: true,
            withObjectString: true,
            withUnicodeString: true,
          })
          .map((value) => ({ id, source: 'anything' as const, value, ops: [] })),
      },
      {
        weight: 2,
        arbitrary: fc
          .object({
            key: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...keys) }, { weight: 1, arbitrary: inputKeyArb }),
            values: [inputValueArb],
            maxDepth: 2,
            maxKeys: 8,
          })
          .map((value) => ({ id, source: 'object' as const, value, ops: [] })),
      },
      {
        weight: 5,
        arbitrary: fc
          .array(
            fc.record({
              op: fc.constantFrom<InputOp['op']>('set', 'set', 'delete', 'add'),
              node: fc.nat(),
              key: fc.oneof(fc.constantFrom(...keys), inputKeyArb),
              value: editValueArb,
            }),
            { maxLength: 3 },
          )
          .map((ops) => ({ id, source: 'example' as const, value: null, ops })),
      },
    );
  };

  return {
    name: 'capability-input',
    description:
      'the 15 standard capabilities through host.invoke with anything()/object()/mutated valid inputs: no handler call with schema-failing or oversize input; invalid input → INPUT_INVALID / INPUT_TOO_LARGE; valid read input reaches the handler once',
    stats,
    arbitrary: fc.constantFrom(...STANDARD_CAPABILITY_IDS).chain(caseArb),
    async check(c) {
      // A fresh host now and then, so that 100 000 cases do not pile up in one memory store.
      if (!host || invocations % 5000 === 0) {
        await host?.stop();
        host = await startHost();
      }
      invocations++;
      const input = capabilityInput(c);
      const contract = STANDARD_CAPABILITIES[c.id];
      const expected = expectedInputErrors(input, contract.input, FUZZ_MAX_INPUT_BYTES);
      const before = calls.get(c.id) ?? 0;
      const violationsBefore = violations.length;
      let thrown: unknown;
      let status: string | undefined;
      try {
        // No runId/taskId: each call gets its own idempotency scope, so the ledger never answers from a recorded result.
        status = (await host.invoke(c.id, input, { actor: 'user:admin' })).status;
      } catch (error) {
        thrown = error;
      }
      const handled = (calls.get(c.id) ?? 0) - before;
      bump(stats, `source:${c.source}`);
      bump(
        stats,
        thrown === undefined
          ? `result:${status}`
          : `threw ${thrown instanceof MediaAgentError ? thrown.code : 'untyped'}`,
      );
      const where = `${c.id} with input ${short(input)}`;
      const violation = violations[violationsBefore];
      ok(
        violation === undefined,
        `a handler was called with input that ${violation?.reason ?? ''} | ${JSON.stringify(violation)}`,
      );
      if (expected.size > 0) {
        ok(
          thrown !== undefined,
          `invalid input was not refused: expected ${[...expected].join(' or ')}, got status ${status} | ${where} (handler calls: ${handled})`,
        );
        ok(
          thrown instanceof MediaAgentError && typeof thrown.code === 'string',
          `invoke threw an untyped error: ${describeError(thrown)} ${topFrame(thrown)} | ${where}`,
        );
        ok(
          expected.has(thrown.code),
          `invalid input refused with the wrong code: expected ${[...expected].join(' or ')}, got ${thrown.code} | ${where}: ${thrown.message}`,
        );
        equal(handled, 0, `the handler ran for an input refused with ${thrown.code} | ${where}`);
      } else {
        bump(stats, 'valid input');
        if (thrown !== undefined) {
          ok(
            thrown instanceof MediaAgentError && typeof thrown.code === 'string',
            `invoke threw an untyped error: ${describeError(thrown)} ${topFrame(thrown)} | ${where}`,
          );
          ok(
            !thrown.code.startsWith('INPUT_'),
            `a schema-valid input was refused with ${thrown.code} | ${where}: ${thrown.message}`,
          );
        }
        if (contract.kind === 'read' || contract.kind === 'preview')
          equal(
            handled,
            1,
            `a valid ${contract.kind} input was not handled exactly once | ${where} (status ${status ?? describeError(thrown)}, handler calls ${handled})`,
          );
      }
    },
    async close() {
      await host?.stop();
      host = undefined;
    },
  };
}
