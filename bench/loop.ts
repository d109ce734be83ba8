/**
 * Benchmark `loop`: steps per second of the run driver, against the same scripted
 * conversation run through `@openai/agents` (its `ScriptedModel` from `@openai/agents/testing`) in
 * the same process, as a ratio. No network on either side.
 *
 * The conversation (identical on both sides): a goal, then {@link TOOL_TURNS} model turns that each
 * say a short sentence and call one cheap read tool (`bench.lookup` / `bench_lookup`, the same
 * handler returning the same object), then one turn with the final text: {@link TURNS} model turns
 * per run. A "step" is one model turn plus its tool call, so one run is {@link TURNS} steps.
 *
 * Both models stream the turn the same way: text in {@link CHUNK}-character deltas, then the tool
 * call (start, arguments in {@link CHUNK}-character fragments, end), with a `setImmediate` yield
 * before each delta — this is what our `ScriptedProvider` does, and the `@openai/agents` side is a
 * `ScriptedModel` whose streamed steps (`modelStreamResponder`) emit the same deltas as its
 * normalized stream events (`output_text_delta`, raw `model` events for the argument fragments,
 * `response_done` with the turn's output). Both test doubles copy every request they receive
 * (ours `structuredClone`, theirs a frozen snapshot, twice) and both derive token usage from the
 * request size, so the model side costs about the same and the difference is the loop around it.
 * To check that the ratio is not an artifact of the test doubles, the sequential lines are repeated
 * with a minimal model written here for each SDK (our `ModelProvider`, their `Model`): the same
 * deltas and usage, no request copies, no recording, no script matching.
 *
 * What each side does per step:
 *
 * - ours (`AgentHost` with the worker pool, `plan_only` run as `user:admin`): two steps of the run
 *   loop, committed together in one storage transaction (the call only reads, so the model-turn
 *   step's writes wait for the call's step; a call with an effect would be preceded by its own
 *   commit). The model-turn step: check the abort and the lease (as of the last commit), read the
 *   steering inbox, check the budgets, run the middleware (compaction estimate, repeated-result
 *   references, loop guard), consume the model stream, and set aside the usage, the assistant
 *   message, the `text_delta` event and the `tool_call` `started` event. The tool-call step: invoke
 *   the capability through the one invocation path as `agent:<runId>` (TypeBox input validation,
 *   authorization, handler, output validation, an audit row batched into the next transaction), the
 *   middleware (result spill, loop guard), then commit the turn's writes with the `tool_call`
 *   `succeeded` event, the tool-result message and
 *   the loop guard's state. The lease is taken and released once per run; its heartbeat (every
 *   `leaseMs / 3`, 10 s by default) does not fire within a run. The run's start (lease, daily
 *   budget check, status) and end (goal facts, report, status) are counted in the run's time.
 *   Measured from `startRun` to the terminal `run_status` event (an in-process listener on the
 *   event bus, no polling).
 * - `@openai/agents` (`Runner` with tracing disabled, `run(agent, goal, { stream: true })`, every
 *   stream event consumed): the turn loop, history kept in memory, the function tool (JSON schema
 *   parameters, strict: the arguments are parsed, not validated against the schema), no storage.
 *   Measured from `run()` to the end of its stream.
 *
 * `@openai/agents` keeps the whole run in memory, so the fair comparison for the loop itself is our
 * driver on `MemoryStorage`; the SQLite rows (a real file in `os.tmpdir()`, WAL,
 * `synchronous=NORMAL`, deleted afterwards) are the durable runs the SDK is for. Each line is a
 * fresh host (or runner); runs are sequential, or {@link IN_FLIGHT} at once (worker pool
 * `concurrency` {@link IN_FLIGHT}; {@link IN_FLIGHT} concurrent `run()` calls). The lines one ratio
 * compares form a group and are measured interleaved: each is warmed up, then {@link ROUNDS} rounds
 * give each line a {@link WINDOW_MS} window in rotating order, so other load on the machine falls
 * on all of them alike.
 * A last table counts and times the storage calls of our driver on SQLite per step (a wrapper
 * around the adapter, averaged over {@link PROFILE_RUNS} runs), to show where the driver's time goes.
 *
 * Figures are from one run on the machine that printed them; compare rows, not machines.
 * Run with `npm run bench -- loop`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { printMachine, printTable } from './_report';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  Agent,
  Runner,
  setTracingDisabled,
  tool,
  type Model,
  type ModelRequest as AgentsModelRequest,
  type ModelResponse,
  type StreamEvent,
} from '@openai/agents';
import { ScriptedModel, assistantMessage, functionCall, modelStreamResponder } from '@openai/agents/testing';
import Type from 'typebox';
import {
  ConsoleLogger,
  createAgentContainer,
  defineCapability,
  resolvePort,
  Tokens,
  type AgentHost,
  type StorageAdapter,
} from '../packages/sdk/src/index';
import { MemoryStorage } from '../packages/sdk/src/storage';
import { RUNTIME_SYSTEM_PROMPT } from '../packages/sdk/src/runtime/system-prompt';
import { TERMINAL_RUN_STATUSES, type RunStatus, type StorageSession } from '../packages/sdk/src/storage';
import { createSqliteStorage } from '../packages/sdk/src/sqlite';
import { runLoopPostgres } from './_loop-postgres';
import {
  ScriptedProvider,
  type FakeScript,
  type ModelEvent,
  type ModelProvider,
  type ModelRequest,
} from '../packages/sdk/src/testing';

/** Tool-calling model turns per run. */
const TOOL_TURNS = 20;
/** Model turns (steps) per run: the tool-calling turns and the final answer. */
const TURNS = TOOL_TURNS + 1;
/** Characters per streamed text delta / argument fragment (the scripted provider's default). */
const CHUNK = 8;
/** Runs in flight at once in the concurrent variant. */
const IN_FLIGHT = 4;
/** Rounds per group of lines: each round gives every line of the group one window, in rotating order. */
const ROUNDS = 3;
/** Length of one line's window in one round. */
const WINDOW_MS = 1000;
/** Length of each line's warm-up before the first round (not counted). */
const WARMUP_MS = 500;
/** Runs counted in the storage-call table (their averages are printed). */
const PROFILE_RUNS = 20;

// ---------------------------------------------------------------------------------------------
// The conversation, shared by both sides.

const turnText = (turn: number): string => `Looking up release r${turn} in the library. `;
const turnInput = (turn: number) => ({ releaseId: `r${turn}`, includeFiles: true });
const FINAL_TEXT = `Looked up ${TOOL_TURNS} releases; every one is in the library with its files.`;

/** The one tool handler both sides call. */
async function lookupHandler(input: { releaseId: string; includeFiles: boolean }) {
  return {
    releaseId: input.releaseId,
    title: 'Some Movie',
    year: 2024,
    files: input.includeFiles ? ['Some.Movie.2024.1080p.mkv'] : [],
  };
}

const LookupInput = Type.Object(
  { releaseId: Type.String(), includeFiles: Type.Boolean() },
  { additionalProperties: false },
);

const lookup = defineCapability({
  id: 'bench.lookup',
  version: 1,
  title: 'Look up a release',
  description: 'Returns what the library knows about a release (benchmark stub).',
  kind: 'read',
  replay: 'safe',
  input: LookupInput,
  output: Type.Object({
    releaseId: Type.String(),
    title: Type.String(),
    year: Type.Integer(),
    files: Type.Array(Type.String()),
  }),
  handler: lookupHandler,
});

const SCRIPT: FakeScript = {
  name: 'loop',
  steps: Array.from({ length: TOOL_TURNS }, (_, turn) => ({
    text: turnText(turn),
    toolCalls: [{ capability: 'bench.lookup', input: turnInput(turn) }],
  })),
  finalText: FINAL_TEXT,
};

const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One streamed piece of a turn, before it is put in either SDK's event format. */
type Delta =
  | { kind: 'text'; text: string }
  | { kind: 'call_start'; callId: string }
  | { kind: 'args'; callId: string; delta: string };

/**
 * The deltas of model turn `turn` as our scripted provider streams them: the text in `CHUNK`-character
 * pieces, then the tool call's start and its arguments in `CHUNK`-character fragments, a
 * `setImmediate` yield before each.
 */
async function* turnDeltas(turn: number): AsyncGenerator<Delta> {
  const text = turn === TOOL_TURNS ? FINAL_TEXT : turnText(turn);
  for (let i = 0; i < text.length; i += CHUNK) {
    await pause();
    yield { kind: 'text', text: text.slice(i, i + CHUNK) };
  }
  if (turn === TOOL_TURNS) return;
  const callId = `call_scripted_${turn}_0`;
  const raw = JSON.stringify(turnInput(turn));
  await pause();
  yield { kind: 'call_start', callId };
  for (let i = 0; i < raw.length; i += CHUNK) {
    await pause();
    yield { kind: 'args', callId, delta: raw.slice(i, i + CHUNK) };
  }
}

/** Which model double drives a line: each SDK's shipped scripted model, or a minimal one written here. */
type ModelKind = 'scripted' | 'minimal';

/**
 * A minimal {@link ModelProvider} for our driver: the turn is the number of assistant messages so
 * far; the same deltas as the scripted provider, without its request copy, script matching,
 * templates or argument validation (the invocation path validates the input anyway).
 */
class MinimalProvider implements ModelProvider {
  readonly id = 'bench-minimal';
  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    const turn = request.messages.filter((m) => m.role === 'assistant').length;
    let raw = '';
    let out = 0;
    for await (const d of turnDeltas(turn)) {
      if (d.kind === 'text') {
        out += d.text.length;
        yield { type: 'text_delta', text: d.text };
      } else if (d.kind === 'call_start') yield { type: 'tool_call_start', id: d.callId, name: lookup.id };
      else {
        raw += d.delta;
        yield { type: 'tool_call_delta', id: d.callId, argumentsDelta: d.delta };
      }
    }
    if (raw)
      yield {
        type: 'tool_call_end',
        id: `call_scripted_${turn}_0`,
        name: lookup.id,
        rawArguments: raw,
        ok: true,
        input: JSON.parse(raw) as unknown,
      };
    const inputChars = JSON.stringify(request.messages).length + JSON.stringify(request.tools ?? []).length;
    yield {
      type: 'usage',
      usage: {
        inputTokens: Math.ceil(inputChars / 4),
        outputTokens: Math.ceil((out + raw.length) / 4),
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      },
    };
    yield { type: 'done', stopReason: raw ? 'tool_use' : 'end_turn' };
  }
}

// ---------------------------------------------------------------------------------------------
// Measurement helpers.

const AGENTS = '@openai/agents Runner';

interface Line {
  implementation: string;
  model: string;
  kind: ModelKind;
  storage: string;
  inFlight: number;
  runs: number;
  ms: number;
}

/** One line of the table while it is measured: how to run the conversation once, check the result, and clean up. */
interface Contender {
  line: Omit<Line, 'runs' | 'ms'>;
  /** Runs the conversation once; rejects when the run did not play it. */
  once: () => Promise<void>;
  /** Called after the warm-up, before the first measured window. */
  reset?: () => void;
  /** Checks the runs measured; throws when they did not play the whole conversation. */
  check: (runs: number) => Promise<void>;
  /** Releases the host. */
  close: () => Promise<void>;
}

/** Runs `once` back to back in `inFlight` loops for `ms`; returns the completed runs and the wall time. */
async function window(once: () => Promise<void>, inFlight: number, ms: number): Promise<{ runs: number; ms: number }> {
  let runs = 0;
  const started = performance.now();
  const deadline = started + ms;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < deadline) {
        await once();
        runs++;
      }
    }),
  );
  return { runs, ms: performance.now() - started };
}

/**
 * Measures a group of lines against each other: each is warmed up for `WARMUP_MS`, then `ROUNDS`
 * rounds give every line one `WINDOW_MS` window, the order rotating each round, so load from other
 * work on the machine falls on all of them alike.
 */
async function measureGroup(contenders: Contender[]): Promise<Line[]> {
  try {
    const totals = contenders.map(() => ({ runs: 0, ms: 0 }));
    for (const c of contenders) {
      await window(c.once, c.line.inFlight, WARMUP_MS);
      c.reset?.();
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < contenders.length; k++) {
        const i = (k + round) % contenders.length;
        const c = contenders[i]!;
        const w = await window(c.once, c.line.inFlight, WINDOW_MS);
        totals[i]!.runs += w.runs;
        totals[i]!.ms += w.ms;
      }
    }
    for (const [i, c] of contenders.entries()) await c.check(totals[i]!.runs);
    return contenders.map((c, i) => ({ ...c.line, ...totals[i]! }));
  } finally {
    for (const c of contenders) await c.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Our driver.

/** A started host with the scripted provider, and a function that runs the conversation once and checks it. */
async function ourHost(storage: StorageAdapter, concurrency: number, kind: ModelKind) {
  const container = createAgentContainer({
    storage,
    logger: new ConsoleLogger('silent'),
    model: {
      provider:
        kind === 'scripted' ? new ScriptedProvider({ scripts: SCRIPT, chunkSize: CHUNK }) : new MinimalProvider(),
      model: 'scripted',
    },
    runs: {
      concurrency,
      pollMs: 50,
      budgets: { maxToolCalls: TOOL_TURNS + 1 },
      daily: { agentMaxRunsPerDay: 1_000_000 },
    },
  });
  const host = resolvePort(container, Tokens.AgentHost);
  const bus = resolvePort(container, Tokens.RunEventBus);
  host.capabilities.register(lookup);
  await host.start();
  const ended = new Map<string, RunStatus>();
  const waiting = new Map<string, (status: RunStatus) => void>();
  bus.onEvent((e) => {
    if (e.type !== 'run_status') return;
    const status = (e.data as { status: RunStatus }).status;
    if (!TERMINAL_RUN_STATUSES.includes(status)) return;
    const wake = waiting.get(e.runId);
    if (wake) wake(status);
    else ended.set(e.runId, status);
  });
  let n = 0;
  const once = async () => {
    const run = await host.startRun({
      goal: `Look up the releases (run ${++n}).`,
      mode: 'plan_only',
      actor: 'user:admin',
    });
    const status = ended.get(run.id) ?? (await new Promise<RunStatus>((resolve) => waiting.set(run.id, resolve)));
    waiting.delete(run.id);
    ended.delete(run.id);
    if (status !== 'succeeded')
      throw new Error(`run ${run.id} ended ${status}: ${JSON.stringify((await host.getRun(run.id)).run.error)}`);
  };
  return { host, once };
}

/** Checks that one run of our driver played the whole conversation. */
async function checkOurs(host: AgentHost): Promise<void> {
  const [last] = await host.listRuns({ limit: 1 });
  if (!last) throw new Error('no run');
  const { run } = await host.getRun(last.id);
  if (run.usage.modelCalls !== TURNS || run.usage.toolCalls !== TOOL_TURNS || run.finalText !== FINAL_TEXT) {
    throw new Error(
      `our run played ${run.usage.modelCalls} model turns, ${run.usage.toolCalls} tool calls, final text ${JSON.stringify(run.finalText)}`,
    );
  }
}

async function ourContender(
  kind: ModelKind,
  label: string,
  storage: StorageAdapter,
  inFlight: number,
): Promise<Contender> {
  const { host, once } = await ourHost(storage, inFlight, kind);
  return {
    line: {
      implementation: 'media-agent run driver',
      model: kind === 'scripted' ? 'ScriptedProvider' : 'minimal ModelProvider',
      kind,
      storage: label,
      inFlight,
    },
    once,
    check: () => checkOurs(host),
    close: () => host.stop(),
  };
}

// ---------------------------------------------------------------------------------------------
// @openai/agents.

/** One scripted turn as `@openai/agents` normalized stream events, delivered as our scripted provider delivers it. */
async function* agentsTurn(turn: number, inputChars: number): AsyncGenerator<StreamEvent> {
  const text = turn === TOOL_TURNS ? FINAL_TEXT : turnText(turn);
  const itemId = `msg_${turn}`;
  yield { type: 'response_started' };
  let raw = '';
  let callId = '';
  for await (const d of turnDeltas(turn)) {
    if (d.kind === 'text') yield { type: 'output_text_delta', itemId, delta: d.text };
    else if (d.kind === 'call_start') {
      callId = d.callId;
      yield {
        type: 'model',
        event: {
          type: 'response.output_item.added',
          item: { type: 'function_call', id: callId, call_id: callId, name: 'bench_lookup', arguments: '' },
        },
      };
    } else {
      raw += d.delta;
      yield {
        type: 'model',
        event: { type: 'response.function_call_arguments.delta', item_id: callId, delta: d.delta },
      };
    }
  }
  const output: Array<ReturnType<typeof assistantMessage> | ReturnType<typeof functionCall>> = [
    assistantMessage(text, { id: itemId }),
  ];
  if (raw) output.push(functionCall('bench_lookup', raw, { callId }));
  const inputTokens = Math.ceil(inputChars / 4);
  const outputTokens = Math.ceil((text.length + raw.length) / 4);
  yield {
    type: 'response_done',
    response: {
      id: `resp_${turn}`,
      usage: { requests: 1, inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
      output,
    },
  };
}

/**
 * A minimal `@openai/agents` {@link Model}: the turn is the number of function-call results so far;
 * the same stream as the scripted variant, without `ScriptedModel`'s request snapshots and records.
 */
class MinimalModel implements Model {
  getResponse(): Promise<ModelResponse> {
    return Promise.reject(new Error('the loop benchmark streams'));
  }
  getStreamedResponse(request: AgentsModelRequest): AsyncIterable<StreamEvent> {
    const input = typeof request.input === 'string' ? [] : request.input;
    const turn = input.filter((item) => item.type === 'function_call_result').length;
    return agentsTurn(turn, JSON.stringify(request.input).length + JSON.stringify(request.tools).length);
  }
}

function agentsSide(kind: ModelKind) {
  let toolCalls = 0;
  const lookupTool = tool({
    name: 'bench_lookup',
    description: lookup.description,
    parameters: LookupInput as unknown as {
      type: 'object';
      properties: Record<string, never>;
      required: string[];
      additionalProperties: false;
    },
    strict: true,
    execute: async (input) => {
      toolCalls++;
      return lookupHandler(input as { releaseId: string; includeFiles: boolean });
    },
  });
  const runner = new Runner({ tracingDisabled: true });
  let lastFinal: unknown;
  const once = async () => {
    const model =
      kind === 'minimal'
        ? new MinimalModel()
        : new ScriptedModel(
            Array.from({ length: TURNS }, (_, turn) =>
              modelStreamResponder((call) =>
                agentsTurn(turn, JSON.stringify(call.request.input).length + JSON.stringify(call.request.tools).length),
              ),
            ),
          );
    const agent = new Agent({ name: 'bench', instructions: RUNTIME_SYSTEM_PROMPT, model, tools: [lookupTool] });
    const result = await runner.run(agent, 'Look up the releases.', { stream: true, maxTurns: TURNS + 1 });
    for await (const _event of result) void _event;
    await result.completed;
    if (result.error) throw result.error;
    if (model instanceof ScriptedModel) model.assertComplete();
    lastFinal = result.finalOutput;
  };
  return {
    once,
    check: async (runs: number) => {
      if (lastFinal !== FINAL_TEXT || toolCalls !== runs * TOOL_TURNS)
        throw new Error(
          `@openai/agents: final output ${JSON.stringify(lastFinal)}, ${toolCalls} tool calls in ${runs} runs`,
        );
    },
    reset: () => void (toolCalls = 0),
  };
}

function agentsContender(kind: ModelKind, inFlight: number): Contender {
  const side = agentsSide(kind);
  return {
    line: {
      implementation: AGENTS,
      model: kind === 'scripted' ? 'ScriptedModel' : 'minimal Model',
      kind,
      storage: 'in memory (no persistence)',
      inFlight,
    },
    once: side.once,
    reset: side.reset,
    check: side.check,
    close: async () => undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// Where our driver's time goes: storage calls of one run, counted and timed.

interface CallStats {
  count: number;
  ms: number;
}

/** Wraps a storage adapter so every repository call (and every transaction) is counted and timed. */
function countingStorage(inner: StorageAdapter, stats: Map<string, CallStats>): StorageAdapter {
  const record = (name: string, ms: number) => {
    const s = stats.get(name) ?? { count: 0, ms: 0 };
    s.count++;
    s.ms += ms;
    stats.set(name, s);
  };
  const wrapRepo = (repoName: string, repo: object, inTx: boolean) =>
    new Proxy(repo, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          const t = performance.now();
          try {
            return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          } finally {
            record(`${inTx ? '  in tx: ' : ''}${repoName}.${String(prop)}`, performance.now() - t);
          }
        };
      },
    });
  const wrapSession = <S extends StorageSession>(session: S, inTx: boolean): S =>
    new Proxy(session, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop);
        if (prop === 'transaction' && typeof value === 'function') {
          return async <T>(fn: (s: StorageSession) => Promise<T>) => {
            const t = performance.now();
            try {
              return await (value as StorageAdapter['transaction']).call(target, (s) => fn(wrapSession(s, true)));
            } finally {
              record('transaction', performance.now() - t);
            }
          };
        }
        if (typeof value === 'function') return (value as (...a: unknown[]) => unknown).bind(target);
        if (value && typeof value === 'object' && typeof prop === 'string') return wrapRepo(prop, value, inTx);
        return value;
      },
    });
  return wrapSession(inner, false);
}

/** Runs the conversation {@link PROFILE_RUNS} times (after a warm-up) on SQLite with every storage call counted; returns the totals per run. */
async function storageProfile(path: string): Promise<{ rows: Array<[string, CallStats]>; runMs: number }> {
  const stats = new Map<string, CallStats>();
  const { host, once } = await ourHost(countingStorage(createSqliteStorage({ path }), stats), 1, 'scripted');
  try {
    for (let i = 0; i < 20; i++) await once(); // warm up JIT and the file
    stats.clear();
    const t = performance.now();
    for (let i = 0; i < PROFILE_RUNS; i++) await once();
    const runMs = (performance.now() - t) / PROFILE_RUNS;
    const rows = [...stats.entries()]
      .map(([name, s]): [string, CallStats] => [name, { count: s.count / PROFILE_RUNS, ms: s.ms / PROFILE_RUNS }])
      .sort((a, b) => b[1].ms - a[1].ms);
    await checkOurs(host);
    return { rows, runMs };
  } finally {
    await host.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Output.

function fmt(x: number, digits = 1): string {
  return x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

// The host is shared with the PostgreSQL lines' worker processes (bench/_loop-postgres-worker.ts).
export { ourHost };

export async function run(): Promise<void> {
  setTracingDisabled(true);
  const realFetch = globalThis.fetch;
  let fetches = 0;
  globalThis.fetch = ((...args: Parameters<typeof fetch>) => {
    fetches++;
    return realFetch(...args);
  }) as typeof fetch;

  const started = performance.now();
  printMachine();
  console.log(
    `one run on this machine; each line: ${WARMUP_MS} ms warm-up, then ${ROUNDS} windows of ${WINDOW_MS} ms interleaved with the other lines of its group (a group = the lines one ratio compares); compare rows, not machines.`,
  );
  console.log(
    `conversation: ${TOOL_TURNS} turns of text + one read tool call, then the final text = ${TURNS} steps per run; ${CHUNK}-character deltas with a setImmediate yield before each, on both sides.`,
  );
  console.log('');

  const dir = mkdtempSync(join(tmpdir(), 'media-agent-bench-loop-'));
  const lines: Line[] = [];
  let profile: Awaited<ReturnType<typeof storageProfile>>;
  try {
    let db = 0;
    const sqlite = () => createSqliteStorage({ path: join(dir, `loop-${++db}.db`) });
    const memory = () => new MemoryStorage();
    const groups: Array<[ModelKind, number]> = [
      ['scripted', 1],
      ['scripted', IN_FLIGHT],
      ['minimal', 1],
    ];
    for (const [kind, inFlight] of groups) {
      const group = [
        agentsContender(kind, inFlight),
        await ourContender(kind, 'SQLite (file, WAL)', sqlite(), inFlight),
        await ourContender(kind, 'MemoryStorage', memory(), inFlight),
      ];
      lines.push(...(await measureGroup(group)));
    }
    profile = await storageProfile(join(dir, 'profile.db'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    globalThis.fetch = realFetch;
  }

  const stepsPerSec = (l: Line) => (l.runs * TURNS) / (l.ms / 1000);
  const baseline = (l: Line) =>
    lines.find((b) => b.implementation === AGENTS && b.inFlight === l.inFlight && b.kind === l.kind)!;
  printTable(
    [
      'implementation',
      'model double',
      'storage',
      'in flight',
      'runs',
      'steps',
      'steps/s',
      'ms/step',
      'ratio vs @openai/agents',
    ],
    lines.map((l) => {
      const sps = stepsPerSec(l);
      const ratio = sps / stepsPerSec(baseline(l));
      return [
        l.implementation,
        l.model,
        l.storage,
        String(l.inFlight),
        String(l.runs),
        String(l.runs * TURNS),
        fmt(sps, 0),
        fmt(1000 / sps, 3),
        ratio.toFixed(2),
      ];
    }),
    new Set([3, 4, 5, 6, 7, 8]),
  );
  console.log('');
  console.log(
    `ratio = steps/s of the line ÷ steps/s of @openai/agents with the same model double and the same number of runs in flight (above 1: faster).`,
  );
  console.log(
    "model double: each SDK's shipped scripted model (both copy every request and record it), or a minimal model written here for each SDK (same deltas, no copies).",
  );
  console.log(
    `ms/step with ${IN_FLIGHT} in flight is wall time ÷ steps (inverse throughput), not the latency of one step.`,
  );
  console.log(
    '@openai/agents keeps the run in memory and persists nothing; compare its line with MemoryStorage for the loop alone.',
  );
  console.log(
    `Our runs: plan_only as user:admin, worker pool, one lease per run (its 10 s heartbeat never fires in a run), every event and message stored; time from startRun to the terminal run_status event.`,
  );
  console.log(`SQLite: one file per line in ${tmpdir()}, WAL, synchronous=NORMAL, deleted afterwards.`);
  console.log(`network: ${fetches} fetch call(s) during the benchmark (tracing disabled on the @openai/agents side).`);
  console.log('');

  console.log(
    `storage calls of our driver on SQLite (ScriptedProvider, sequential), average of ${PROFILE_RUNS} runs after a warm-up: ${fmt(profile.runMs, 1)} ms wall per run of ${TURNS} steps; µs = until the call's promise resolved (includes queueing):`,
  );
  const totalMs = profile.rows.filter(([name]) => !name.startsWith('  in tx')).reduce((a, [, s]) => a + s.ms, 0);
  printTable(
    ['call', 'calls/step', 'µs/call', 'ms/run', 'share of run'],
    profile.rows.map(([name, s]) => [
      name,
      fmt(s.count / TURNS, 2),
      fmt((s.ms * 1000) / s.count, 0),
      fmt(s.ms, 2),
      `${((s.ms / profile.runMs) * 100).toFixed(0)}%`,
    ]),
    new Set([1, 2, 3, 4]),
  );
  const inTx = profile.rows.some(([name]) => name.startsWith('  in tx'));
  console.log(
    `storage calls add up to ${fmt(totalMs, 1)} ms of a run's ${fmt(profile.runMs, 1)} ms${inTx ? ' ("in tx" rows are inside a transaction row and not added)' : ''}; the rest is the model stream and the driver's own work.`,
  );
  await runLoopPostgres({ ourHost, checkOurs, turns: TURNS });
  console.log('');
  console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
