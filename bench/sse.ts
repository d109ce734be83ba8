// SSE throughput: our SSE parser + provider translation versus the official SDKs' stream parsers,
// on a large Anthropic stream and a large OpenAI stream built from the recorded fixtures (the
// recorded delta lines repeated until the stream is ~8 MB). Two measurements per stream:
//  - parse: bytes already in memory, fed in 16 KiB chunks (parser + event translation only);
//  - http:  the full provider over undici against a local node:http server, versus the official
//           client (`messages.create` / `chat.completions.create` with `stream: true`) against the same server.
// Prints MB/s (1 MB = 1e6 bytes, median of the timed rounds) and our/official ratios.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import { Stream as AnthropicStream } from '@anthropic-ai/sdk/core/streaming';
import OpenAI from 'openai';
import { Stream as OpenAIStream } from 'openai/core/streaming';
import { AnthropicProvider, translateAnthropic } from '../packages/sdk/src/models/anthropic';
import { OpenAICompatibleProvider, translateOpenAI } from '../packages/sdk/src/models/openai-compatible';
import { encodeSse, transcriptEvents, WireReplayServer, type ReplayEvent } from '../packages/sdk/src/models/replay-server';
import { readSseBatches } from '../packages/sdk/src/models/sse';
import { RequestTools } from '../packages/sdk/src/models/tools';

const fixtures = fileURLToPath(new URL('../packages/sdk/test/fixtures/provider-streams/', import.meta.url));
const TARGET_BYTES = 8_000_000;
const CHUNK = 16 * 1024;
const ROUNDS = 5;

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

function chunks(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += CHUNK) out.push(bytes.subarray(i, i + CHUNK));
  return out;
}

async function* iterate(parts: Buffer[]): AsyncGenerator<Buffer> {
  for (const p of parts) yield p;
}

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

async function measure(bytes: number, fn: () => Promise<number>): Promise<{ mbps: number; events: number }> {
  let events = await fn(); // warm-up
  const rates: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = process.hrtime.bigint();
    events = await fn();
    const s = Number(process.hrtime.bigint() - t) / 1e9;
    rates.push(bytes / 1e6 / s);
  }
  rates.sort((a, b) => a - b);
  return { mbps: rates[Math.floor(rates.length / 2)]!, events };
}

async function count<T>(it: AsyncIterable<T>): Promise<number> {
  let n = 0;
  for await (const _ of it) n++;
  return n;
}

export async function run(): Promise<void> {
  const anthropicEvents = enlarge(transcriptEvents(readFileSync(`${fixtures}anthropic-clear-thinking.1.chunks.txt`, 'utf8'), 'anthropic'), (e) =>
    /"(thinking_delta|text_delta)"/.test(e.data),
  );
  const openaiEvents = enlarge(transcriptEvents(readFileSync(`${fixtures}openai-text.chunks.txt`, 'utf8'), 'openai'), (e) => /"delta":\{"content":"[^"]/.test(e.data));
  const anthropicBytes = Buffer.from(encodeSse(anthropicEvents));
  const openaiBytes = Buffer.from(encodeSse(openaiEvents));
  const aParts = chunks(anthropicBytes);
  const oParts = chunks(openaiBytes);

  const server = await WireReplayServer.start((req) => ({ events: req.url.includes('chat/completions') ? openaiEvents : anthropicEvents, chunkSize: 64 * 1024 }));
  const ours = {
    anthropic: new AnthropicProvider({ apiKey: 'bench-key', baseUrl: server.url }),
    openai: new OpenAICompatibleProvider({ apiKey: 'bench-key', baseUrl: server.url }),
  };
  const official = {
    anthropic: new Anthropic({ apiKey: 'bench-key', baseURL: server.url, maxRetries: 0 }),
    openai: new OpenAI({ apiKey: 'bench-key', baseURL: `${server.url}/v1`, maxRetries: 0 }),
  };
  const messages = [{ role: 'user' as const, content: 'bench' }];

  const rows: Array<{ stream: string; mode: string; oursMbps: number; officialMbps: number; oursEvents: number; officialEvents: number }> = [];
  try {
    const aMb = anthropicBytes.length;
    const oMb = openaiBytes.length;
    const cases = [
      {
        stream: `anthropic (${(aMb / 1e6).toFixed(1)} MB, ${anthropicEvents.length} events)`,
        mode: 'parse',
        bytes: aMb,
        ours: () => count(translateAnthropic(readSseBatches(iterate(aParts)), new RequestTools())),
        official: () => count(AnthropicStream.fromSSEResponse(response(aParts), new AbortController())),
      },
      {
        stream: `anthropic (${(aMb / 1e6).toFixed(1)} MB, ${anthropicEvents.length} events)`,
        mode: 'http',
        bytes: aMb,
        ours: () => count(ours.anthropic.stream({ model: 'bench-model', messages })),
        official: async () => count(await official.anthropic.messages.create({ model: 'bench-model', max_tokens: 1024, messages, stream: true })),
      },
      {
        stream: `openai (${(oMb / 1e6).toFixed(1)} MB, ${openaiEvents.length} events)`,
        mode: 'parse',
        bytes: oMb,
        ours: () => count(translateOpenAI(readSseBatches(iterate(oParts)), new RequestTools())),
        official: () => count(OpenAIStream.fromSSEResponse(response(oParts), new AbortController())),
      },
      {
        stream: `openai (${(oMb / 1e6).toFixed(1)} MB, ${openaiEvents.length} events)`,
        mode: 'http',
        bytes: oMb,
        ours: () => count(ours.openai.stream({ model: 'gpt-4.1-nano', messages })),
        official: async () => count(await official.openai.chat.completions.create({ model: 'gpt-4.1-nano', messages, stream: true })),
      },
    ];
    for (const c of cases) {
      const o = await measure(c.bytes, c.ours);
      const f = await measure(c.bytes, c.official);
      rows.push({ stream: c.stream, mode: c.mode, oursMbps: o.mbps, officialMbps: f.mbps, oursEvents: o.events, officialEvents: f.events });
    }
  } finally {
    await ours.anthropic.close();
    await ours.openai.close();
    await server.close();
  }
  console.log(`median of ${ROUNDS} rounds after one warm-up; MB = 1e6 bytes; parse = in-memory ${CHUNK / 1024} KiB chunks, http = local node:http server`);
  console.log('| stream | mode | ours MB/s | official SDK MB/s | ours / official | events ours / official |');
  console.log('|---|---|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(`| ${r.stream} | ${r.mode} | ${r.oursMbps.toFixed(1)} | ${r.officialMbps.toFixed(1)} | ${(r.oursMbps / r.officialMbps).toFixed(2)}x | ${r.oursEvents} / ${r.officialEvents} |`);
  }
}
