// SSE throughput: our SSE parser + provider translation versus the official SDKs' stream parsers,
// on a large Anthropic stream and a large OpenAI stream built from the recorded fixtures (the
// recorded delta lines repeated until the stream is ~8 MB). Two measurements per stream:
//  - parse: the same bytes already in memory, served to both sides as the same web
//           ReadableStream of 16 KiB chunks (SSE parsing + JSON + event translation only; ours
//           runs exactly the provider's path minus HTTP);
//  - http:  the full provider over undici versus the official client (`messages.create` /
//           `chat.completions.create` with `stream: true`), both against the same local node:http
//           server, which writes the same pre-encoded bytes in 64 KiB writes.
// Fairness: every run must consume the whole stream (checked: ours ends with done(end_turn) and no
// error, the official iterator yields every non-ping event); one warm-up run per side; then the
// rounds alternate ours / official so that machine noise hits both alike. Prints the median MB/s
// of each side (1 MB = 1e6 bytes), their ratio, and the range of the per-round ratios.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import { Stream as AnthropicStream } from '@anthropic-ai/sdk/core/streaming';
import OpenAI from 'openai';
import { Stream as OpenAIStream } from 'openai/core/streaming';
import { AnthropicProvider } from '../packages/sdk/src/models/anthropic';
import { AnthropicTranslator } from '../packages/sdk/src/models/anthropic-stream';
import { guardStream } from '../packages/sdk/src/models/http';
import { OpenAICompatibleProvider } from '../packages/sdk/src/models/openai-compatible';
import { OpenAITranslator } from '../packages/sdk/src/models/openai-stream';
import { encodeSse, transcriptEvents, type ReplayEvent } from '../packages/sdk/src/models/replay-server';
import { translateSse, type SseTranslator } from '../packages/sdk/src/models/sse-translator';
import { RequestTools } from '../packages/sdk/src/models/tools';
import type { ModelEvent } from '../packages/sdk/src/models/types';

const fixtures = fileURLToPath(new URL('../packages/sdk/test/fixtures/provider-streams/', import.meta.url));
const TARGET_BYTES = 8_000_000;
const PARSE_CHUNK = 16 * 1024;
const HTTP_WRITE = 64 * 1024;
const ROUNDS = 7;

/** Repeats the recorded lines matching `isDelta` (in order, cyclically) until the stream reaches the target size. */
function enlarge(events: ReplayEvent[], isDelta: (e: ReplayEvent) => boolean): ReplayEvent[] {
  const first = events.findIndex(isDelta);
  let last = events.length - 1;
  while (last >= 0 && !isDelta(events[last]!)) last--;
  const head = events.slice(0, first);
  const deltas = events.slice(first, last + 1).filter(isDelta);
  const tail = events.slice(last + 1);
  const out = [...head];
  let size = Buffer.byteLength(encodeSse([...head, ...tail]));
  for (let i = 0; size < TARGET_BYTES; i++) {
    const d = deltas[i % deltas.length]!;
    out.push(d);
    size += Buffer.byteLength(encodeSse([d]));
  }
  return [...out, ...tail];
}

function split(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

/** An SSE response whose body is a web ReadableStream of the given chunks (what `fetch` gives the official SDKs). */
function response(parts: Buffer[]): Response {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < parts.length) controller.enqueue(parts[i++]!);
      else controller.close();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

/** A local server answering every request with the pre-encoded stream of its API (no encoding per request). */
async function startServer(bodies: {
  anthropic: Buffer[];
  openai: Buffer[];
}): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const part of req.url?.includes('chat/completions') ? bodies.openai : bodies.anthropic) res.write(part);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Drains our stream; fails unless it ran to the end (done with end_turn, no error). */
async function countOurs(events: AsyncIterable<ModelEvent>): Promise<number> {
  let n = 0;
  let last: ModelEvent | undefined;
  for await (const e of events) {
    if (e.type === 'error') throw e.error;
    last = e;
    n++;
  }
  if (last?.type !== 'done' || last.stopReason !== 'end_turn')
    throw new Error(`our stream ended early: ${JSON.stringify(last)}`);
  return n;
}

/** Drains an official SDK stream; fails unless it yielded `expected` events (the whole stream). */
async function countOfficial(events: AsyncIterable<unknown>, expected: number): Promise<number> {
  let n = 0;
  for await (const _ of events) n++;
  if (n !== expected) throw new Error(`official stream yielded ${n} events, expected ${expected}`);
  return n;
}

/** Our provider's stream path without HTTP: SSE parsing, translation and the per-event guard. */
function oursFromBytes(parts: Buffer[], translator: SseTranslator): AsyncIterable<ModelEvent> {
  return guardStream('bench', undefined, {}, () => translateSse(response(parts).body!, translator));
}

interface Side {
  mbps: number;
  events: number;
  rates: number[];
}

async function timed(bytes: number, fn: () => Promise<number>): Promise<{ rate: number; events: number }> {
  const t = process.hrtime.bigint();
  const events = await fn();
  const s = Number(process.hrtime.bigint() - t) / 1e9;
  return { rate: bytes / 1e6 / s, events };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** One warm-up run per side, then ROUNDS rounds alternating ours and official. */
async function compare(
  bytes: number,
  ours: () => Promise<number>,
  official: () => Promise<number>,
): Promise<{ ours: Side; official: Side; ratios: number[] }> {
  await ours();
  await official();
  const o: Side = { mbps: 0, events: 0, rates: [] };
  const f: Side = { mbps: 0, events: 0, rates: [] };
  const ratios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const a = await timed(bytes, ours);
    const b = await timed(bytes, official);
    o.rates.push(a.rate);
    f.rates.push(b.rate);
    o.events = a.events;
    f.events = b.events;
    ratios.push(a.rate / b.rate);
  }
  o.mbps = median(o.rates);
  f.mbps = median(f.rates);
  return { ours: o, official: f, ratios };
}

export async function run(): Promise<void> {
  const anthropicEvents = enlarge(
    transcriptEvents(readFileSync(`${fixtures}anthropic-clear-thinking.1.chunks.txt`, 'utf8'), 'anthropic'),
    (e) => /"(thinking_delta|text_delta)"/.test(e.data),
  );
  const openaiEvents = enlarge(
    transcriptEvents(readFileSync(`${fixtures}openai-text.chunks.txt`, 'utf8'), 'openai'),
    (e) => /"delta":\{"content":"[^"]/.test(e.data),
  );
  const anthropicBytes = Buffer.from(encodeSse(anthropicEvents));
  const openaiBytes = Buffer.from(encodeSse(openaiEvents));
  const aParts = split(anthropicBytes, PARSE_CHUNK);
  const oParts = split(openaiBytes, PARSE_CHUNK);
  // What the official iterators yield for the whole stream: Anthropic skips `ping`, OpenAI stops at `[DONE]`.
  const anthropicOfficialEvents = anthropicEvents.filter((e) => e.event !== 'ping').length;
  const openaiOfficialEvents = openaiEvents.length - 1;

  const server = await startServer({
    anthropic: split(anthropicBytes, HTTP_WRITE),
    openai: split(openaiBytes, HTTP_WRITE),
  });
  const ours = {
    anthropic: new AnthropicProvider({ apiKey: 'bench-key', baseUrl: server.url }),
    openai: new OpenAICompatibleProvider({ apiKey: 'bench-key', baseUrl: server.url }),
  };
  const official = {
    anthropic: new Anthropic({ apiKey: 'bench-key', baseURL: server.url, maxRetries: 0 }),
    openai: new OpenAI({ apiKey: 'bench-key', baseURL: `${server.url}/v1`, maxRetries: 0 }),
  };
  const messages = [{ role: 'user' as const, content: 'bench' }];
  const aLabel = `anthropic (${(anthropicBytes.length / 1e6).toFixed(1)} MB, ${anthropicEvents.length} events)`;
  const oLabel = `openai (${(openaiBytes.length / 1e6).toFixed(1)} MB, ${openaiEvents.length} events)`;
  const cases = [
    {
      stream: aLabel,
      mode: 'parse',
      bytes: anthropicBytes.length,
      ours: () => countOurs(oursFromBytes(aParts, new AnthropicTranslator(new RequestTools()))),
      official: () =>
        countOfficial(
          AnthropicStream.fromSSEResponse(response(aParts), new AbortController()),
          anthropicOfficialEvents,
        ),
    },
    {
      stream: aLabel,
      mode: 'http',
      bytes: anthropicBytes.length,
      ours: () => countOurs(ours.anthropic.stream({ model: 'bench-model', messages })),
      official: async () =>
        countOfficial(
          await official.anthropic.messages.create({ model: 'bench-model', max_tokens: 1024, messages, stream: true }),
          anthropicOfficialEvents,
        ),
    },
    {
      stream: oLabel,
      mode: 'parse',
      bytes: openaiBytes.length,
      ours: () => countOurs(oursFromBytes(oParts, new OpenAITranslator(new RequestTools()))),
      official: () =>
        countOfficial(OpenAIStream.fromSSEResponse(response(oParts), new AbortController()), openaiOfficialEvents),
    },
    {
      stream: oLabel,
      mode: 'http',
      bytes: openaiBytes.length,
      ours: () => countOurs(ours.openai.stream({ model: 'gpt-4.1-nano', messages })),
      official: async () =>
        countOfficial(
          await official.openai.chat.completions.create({ model: 'gpt-4.1-nano', messages, stream: true }),
          openaiOfficialEvents,
        ),
    },
  ];

  const rows: string[] = [];
  try {
    for (const c of cases) {
      const r = await compare(c.bytes, c.ours, c.official);
      const ratio = r.ours.mbps / r.official.mbps;
      const range = `${Math.min(...r.ratios).toFixed(2)}–${Math.max(...r.ratios).toFixed(2)}`;
      rows.push(
        `| ${c.stream} | ${c.mode} | ${r.ours.mbps.toFixed(1)} | ${r.official.mbps.toFixed(1)} | **${ratio.toFixed(2)}x** ${ratio >= 1 ? 'faster' : 'slower'} | ${range} | ${r.ours.events} / ${r.official.events} |`,
      );
    }
  } finally {
    await ours.anthropic.close();
    await ours.openai.close();
    await server.close();
  }
  console.log(
    `median of ${ROUNDS} alternating rounds after one warm-up per side; MB = 1e6 bytes; parse = same bytes in memory as a web stream of ${PARSE_CHUNK / 1024} KiB chunks; ` +
      `http = local node:http server writing the same pre-encoded bytes in ${HTTP_WRITE / 1024} KiB writes`,
  );
  console.log(
    '| stream | mode | ours MB/s | official SDK MB/s | ours / official | per-round ratio range | events ours / official |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|');
  for (const row of rows) console.log(row);
}
