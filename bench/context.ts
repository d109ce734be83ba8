/**
 * Benchmark `context`: the cost of assembling one model request under context management,
 * and the TokenCounter's throughput.
 *
 * Setup: 200 registered capabilities (the standard media contracts plus synthetic plugin tools with
 * 4–10 string fields each) and 500 prior messages (a goal, tool turns of 1–3 parallel calls whose
 * results are 300–900 characters of tool-result JSON, a steering message every 10 turns; about one
 * long result in ten is repeated verbatim, so deduplication has work to do).
 *
 * Assembling a request is what the run driver does before each model call: `compact(...)` with the
 * discovery's base tools (accounting: system, tools and every message counted — message counts are
 * memoized per message object; over the threshold it also picks the cut, calls the summarizer and
 * builds the summary message), `ToolDiscovery.toolsForNextCall({ requestTokens })` (candidate
 * schemas counted and fitted to the budget), and `dedupeRepeatedResults(...)` on the outbound copy.
 * "tokens sent" is the request as sent, counted once after the measurement. Rows:
 *
 * - `maxTools 0 (all 200 tools)`, `maxTools 16 + 8 candidates`: a 1,000,000-token window, so the
 *   history is under the threshold: accounting only, no compaction.
 * - `with compaction, model summary`: a window at which the history is over 80%, compacted from the
 *   same 500 messages on every iteration; the summarizer is a stub that answers at once, so the
 *   figure is the runtime's own cost, not the model's latency (a real summary call adds seconds).
 * - `with compaction, fallback digest`: the same with a summarizer that throws.
 *
 * The counter is warm (encoders loaded, its LRU cache filled by the warm-up) in these rows, as in a
 * running host where the same history is re-counted on every call. The throughput table measures
 * `TiktokenCounter.count` on 2 KB texts: `cold` distinct texts never seen (cache misses: real
 * tokenization), `cached` the same texts again (cache hits), and the one-off encoder load.
 *
 * Figures are from one run on the machine that printed them; compare rows, not machines.
 * Run with `npm run bench -- context`.
 */
import { printMachine, printTable } from './_report';
import { performance } from 'node:perf_hooks';
import type { CapabilityDescriptor } from '../packages/sdk/src/core/capability-descriptor';
import { STANDARD_CAPABILITIES } from '../packages/sdk/src/media/contracts';
import { TiktokenCounter } from '../packages/sdk/src/models/token-counter';
import type { ModelMessage, ModelTool } from '../packages/sdk/src/models/types';
import {
  compact,
  dedupeRepeatedResults,
  SEARCH_TOOLS_MODEL_TOOL,
  ToolDiscovery,
  type Summarizer,
} from '../packages/sdk/src/runtime/context/index';
import { capabilityModelTool } from '../packages/sdk/src/runtime/context/tool-discovery';
import { UPDATE_PLAN_MODEL_TOOL } from '../packages/sdk/src/runtime/checklist';
import { RUNTIME_SYSTEM_PROMPT } from '../packages/sdk/src/runtime/system-prompt';
import { toolResultMessage } from '../packages/sdk/src/runtime/tool-result';

/** Length of one measurement window. */
const MEASURE_MS = 1500;
/** Length of the warm-up before each measurement (not counted). */
const WARMUP_MS = 250;
const CAPABILITIES = 200;
const MESSAGES = 500;
const MODEL = 'claude-sonnet-4-5';

/** 200 descriptors: the standard contracts, then synthetic plugin tools. */
function capabilities(): CapabilityDescriptor[] {
  const out: CapabilityDescriptor[] = Object.values(STANDARD_CAPABILITIES).map((c) => {
    const d = c as unknown as CapabilityDescriptor & { tags?: string[]; aliases?: string[] };
    return { ...d, version: 1, tags: d.tags ?? [], aliases: d.aliases ?? [], policy: d.policy, target: undefined };
  });
  for (let n = 0; out.length < CAPABILITIES; n++) {
    const properties: Record<string, unknown> = {};
    for (let f = 0; f < 4 + (n % 7); f++)
      properties[`field_${f}`] = { type: 'string', description: `Field ${f} of plugin tool ${n}.` };
    out.push({
      id: `plugin.p${n}.action`,
      version: 1,
      title: `Plugin action ${n}`,
      description: `Runs action ${n} of a third-party plugin (subtitles, notifications, site checks).`,
      kind: 'read',
      replay: 'safe',
      input: { type: 'object', properties } as never,
      output: { type: 'object' } as never,
      tags: ['plugin', n % 2 ? 'subtitles' : 'notify'],
      aliases: [],
      policy: undefined,
      target: undefined,
    });
  }
  return out;
}

/** 500 messages: goal, tool turns, steering messages; some long results repeated verbatim. */
function history(): ModelMessage[] {
  const out: ModelMessage[] = [
    { role: 'user', content: 'Find Dune (2021) in 4K, download it and organize it into the library; add subtitles.' },
  ];
  let repeated: string | undefined;
  for (let t = 0; out.length < MESSAGES; t++) {
    if (t > 0 && t % 10 === 0)
      out.push({ role: 'user', content: `Steering ${t}: prefer releases with Atmos and at least 20 seeders.` });
    const calls = 1 + (t % 3);
    const ids = Array.from({ length: calls }, (_, k) => `call_${t}_${k}`);
    out.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Step ${t}: checking releases and tasks.` },
        ...ids.map((id, k) => ({
          type: 'tool_call' as const,
          id,
          name: 'media.search',
          input: { query: `Dune ${t} ${k}`, page: k },
        })),
      ],
    });
    for (const [k, id] of ids.entries()) {
      const text =
        `Dune.2021.2160p.UHD.BluRay.x265-GROUP${t}${k} seeders=${(t * 7 + k) % 90} size=${(t % 50) + 10}GB; `.repeat(
          3 + ((t + k) % 8),
        );
      const message = toolResultMessage(id, 'media.search', { status: 'succeeded', output: { results: text } });
      if (t % 10 === 3 && repeated)
        out.push({ ...toolResultMessage(id, 'media.search', { status: 'succeeded', output: { results: repeated } }) });
      else out.push(message);
      if (t % 10 === 1 && k === 0) repeated = text;
    }
  }
  // end on a complete turn (no dangling call)
  while (out.length > 0 && out[out.length - 1]!.role === 'assistant') out.pop();
  return out;
}

interface Measurement {
  ops: number;
  ms: number;
}

/** Calls `op` sequentially for `ms` milliseconds (batches grow until one takes ≥ 2 ms). */
async function timeBoxed(op: (i: number) => unknown, ms: number): Promise<Measurement> {
  const start = performance.now();
  const deadline = start + ms;
  let done = 0;
  let batch = 1;
  let now = start;
  while (now < deadline) {
    const t0 = now;
    for (let k = 0; k < batch; k++) await op(done + k);
    done += batch;
    now = performance.now();
    if (now - t0 < 2 && batch < 65_536) batch *= 2;
  }
  return { ops: done, ms: now - start };
}

const msPerOp = (m: Measurement) => m.ms / m.ops;

function fmt(x: number, digits = 2): string {
  if (!Number.isFinite(x)) return '–';
  return x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(digits);
}

/** Entry point called by `bench/run.ts`. */
export async function run(): Promise<void> {
  printMachine();
  console.log(
    `one run on this machine; each figure is a ${MEASURE_MS} ms window after a ${WARMUP_MS} ms warm-up; compare rows, not machines.`,
  );
  console.log('');
  const started = performance.now();

  const t0 = performance.now();
  const counter = new TiktokenCounter({ cacheSize: 5000 });
  counter.count('warm the encoder up', MODEL);
  const encoderLoadMs = performance.now() - t0;

  const catalog = capabilities();
  const messages = history();
  const system: ModelMessage[] = [{ role: 'system', content: RUNTIME_SYSTEM_PROMPT }];
  const alwaysOn: ModelTool[] = [UPDATE_PLAN_MODEL_TOOL, SEARCH_TOOLS_MODEL_TOOL];
  const historyTokens = counter.countRequest(messages, [], MODEL);
  const allToolsTokens = counter.countRequest([], catalog.map(capabilityModelTool), MODEL);
  const stub: Summarizer = async (m) =>
    `The agent ran ${m.filter((x) => x.role === 'tool').length} searches for Dune releases; candidates were compared by seeders and size.`;
  const failing: Summarizer = async () => Promise.reject(new Error('model unavailable'));
  const pinned = {
    goal: 'Dune (2021) in 4K',
    checklist: { goal: 'Dune', steps: [{ title: 'search', status: 'in_progress' }] },
    unknownWrites: [],
    pendingApprovals: [],
  };

  const rows: string[][] = [];
  const assemble = (maxTools: number, window: number, summarize: Summarizer, label: string) => async () => {
    const discovery = new ToolDiscovery(catalog, {
      maxTools,
      counter,
      model: MODEL,
      contextWindowTokens: window,
      alwaysOn,
    });
    discovery.select(messages[0]!.content as string);
    if (maxTools > 0) discovery.search('notify', 8);
    let outbound: ModelMessage[] = [];
    let tools: ModelTool[] = [];
    let compacted = false;
    // The order the driver follows: compact (accounting includes the base tools), then the tools of
    // the call (extras fitted to what is left), then the outbound copy with repeats deduplicated.
    const op = async () => {
      const c = await compact(messages, {
        counter,
        model: MODEL,
        contextWindowTokens: window,
        system,
        tools: discovery.baseTools(),
        pinned,
        summarize,
      });
      compacted = c.summarySource !== 'none';
      const offered = discovery.toolsForNextCall({ requestTokens: c.tokensAfter });
      tools = offered.tools;
      outbound = [
        ...system,
        ...(offered.note ? [{ role: 'system' as const, content: offered.note }] : []),
        ...dedupeRepeatedResults(c.messages),
      ];
    };
    await timeBoxed(op, WARMUP_MS);
    const m = await timeBoxed(op, MEASURE_MS);
    const after = counter.countRequest(outbound, tools, MODEL);
    rows.push([
      label,
      String(tools.length),
      window.toLocaleString('en-US'),
      compacted ? 'yes' : 'no',
      after.toLocaleString('en-US'),
      fmt(msPerOp(m)),
      fmt((m.ops * 1000) / m.ms, 1),
    ]);
  };

  const overWindow = Math.ceil((historyTokens + 4000) / 0.75 / 1000) * 1000 * 0.5; // history ≈ 150% of the window: well over 80%
  await assemble(0, 1_000_000, stub, 'maxTools 0 (all 200 tools), no compaction needed')();
  await assemble(16, 1_000_000, stub, 'maxTools 16 + 8 candidates, no compaction needed')();
  await assemble(16, overWindow, stub, 'maxTools 16, with compaction, model summary (stub)')();
  await assemble(16, overWindow, failing, 'maxTools 16, with compaction, fallback digest')();

  console.log(
    `request assembly: ${catalog.length} capabilities, ${messages.length} prior messages (${historyTokens.toLocaleString('en-US')} tokens; all 200 tool schemas ${allToolsTokens.toLocaleString('en-US')} tokens), model ${MODEL}`,
  );
  printTable(
    ['scenario', 'tools sent', 'window', 'compacted', 'tokens sent', 'ms/request', 'requests/s'],
    rows,
    new Set([1, 2, 4, 5, 6]),
  );
  console.log('');

  // TokenCounter throughput on 2 KB texts.
  const texts = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) =>
      `${prefix}${i}: ${JSON.stringify({ status: 'succeeded', note: 'done', output: { title: `Dune ${i}`, release: `Dune.2021.2160p.UHD.BluRay.x265-GROUP${i}`, files: Array.from({ length: 12 }, (_, k) => `/media/movies/Dune (2021)/part${k}-${i}.mkv`), 整理: '整理计划 入库' } })}`.padEnd(
        2048,
        ' lorem ipsum',
      ),
    );
  const rowsTok: string[][] = [];
  for (const model of [MODEL, 'gpt-4.1']) {
    const c = new TiktokenCounter({ cacheSize: 100_000 });
    c.count('load', model);
    let batch = 0;
    let tokens = 0;
    // cold: every text new (cache misses)
    const cold = await timeBoxed(() => {
      for (const t of texts(`cold-${batch++}-`, 50)) tokens += c.count(t, model);
    }, MEASURE_MS);
    const coldTokens = tokens;
    const fixed = texts('cached-', 50);
    for (const t of fixed) c.count(t, model);
    tokens = 0;
    const cached = await timeBoxed(() => {
      for (const t of fixed) tokens += c.count(t, model);
    }, MEASURE_MS);
    rowsTok.push([
      model,
      c.constructor.name === 'TiktokenCounter' ? (model === MODEL ? 'cl100k_base' : 'o200k_base') : '?',
      fmt((coldTokens * 1000) / cold.ms / 1e6, 2),
      fmt((tokens * 1000) / cached.ms / 1e6, 1),
    ]);
    c.dispose();
  }
  console.log(
    `TokenCounter.count on 2 KB texts (million tokens per second); encoder load (first count) ${fmt(encoderLoadMs, 1)} ms`,
  );
  printTable(['model', 'encoding', 'cold (misses) Mtok/s', 'cached (hits) Mtok/s'], rowsTok, new Set([2, 3]));
  counter.dispose();
  console.log('');
  console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
