// The scripted ("fake") model: deterministic turns from a script, streamed as realistic deltas.
// Behaviour from 模式演示".
import { MediaAgentError } from '../core/errors';
import { ScriptExhaustedError, ScriptInvalidError, ScriptTemplateError } from './errors';
import { RequestTools } from './tools';
import type { ModelEvent, ModelMessage, ModelProvider, ModelRequest, ModelUsage } from './types';

/**
 * What a script's inputs and texts can see when they are computed.
 *
 * @public
 */
export interface ScriptContext {
  /** The run goal: the first user message's text. */
  goal: string;
  /** The latest user message's text. */
  lastUserMessage: string;
  /** Latest successful result of each capability in the conversation, parsed as JSON when possible. */
  results: Readonly<Record<string, unknown>>;
  /** 0-based model turn (number of assistant messages already in the conversation). */
  turn: number;
  /** The request being answered. */
  request: ModelRequest;
}

/**
 * One tool call in a script step.
 *
 * @public
 */
export interface ScriptToolCall {
  /** Capability id, e.g. `inventory.query`. */
  capability: string;
  /** Input object (strings may contain `{{capabilityId.path}}`), or a function of the context. */
  input?: Record<string, unknown> | ((ctx: ScriptContext) => Record<string, unknown>);
}

/**
 * One model turn of a script.
 *
 * @public
 */
export interface ScriptStep {
  /** Text the model says in this turn (may contain `{{…}}`), or a function of the context. */
  text?: string | ((ctx: ScriptContext) => string);
  /** Tool calls the model makes in this turn, or a function of the context choosing them (an empty list ends the turn with the text). */
  toolCalls?: ScriptToolCall[] | ((ctx: ScriptContext) => ScriptToolCall[]);
}

/**
 * A script: when it applies, its tool-calling turns, and the final answer.
 *
 * @remarks
 * JSON form: `{ "match": "收进来", "steps": [...], "finalText": "已提交" }`. `match` is a
 * substring, a `RegExp`, or `{ "regex": "...", "flags": "i" }`, tested against the goal and the
 * last user message; a script without `match` applies to everything.
 *
 * @public
 */
export interface FakeScript {
  /** Optional name for errors and `assertComplete()`. */
  name?: string;
  /** When this script applies. */
  match?: string | RegExp | { regex: string; flags?: string };
  /** Tool-calling turns, in order. */
  steps?: ScriptStep[];
  /**
   * The final answer after the last step.
   * @defaultValue `Done.`
   */
  finalText?: string | ((ctx: ScriptContext) => string);
}

/**
 * Options of `ScriptedProvider` (exported from `@media-agent/sdk/testing`).
 *
 * @public
 */
export interface ScriptedProviderOptions {
  /** Scripts, first match wins; JSON text (one object or an array) is accepted. Default: `DEFAULT_FAKE_SCRIPT`. */
  scripts?: FakeScript | FakeScript[] | string;
  /**
   * Characters per text delta.
   * @defaultValue 8
   */
  chunkSize?: number;
  /**
   * Wait between deltas in ms; 0 only yields to the event loop.
   * @defaultValue 0
   */
  delayMs?: number;
}

function textOf(content: string | ReadonlyArray<{ type: string; text?: string }>): string {
  return typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');
}

/**
 * The built-in demo script: query the inventory once, then report honestly what came
 * back, and make no writes.
 *
 * @public
 */
export const DEFAULT_FAKE_SCRIPT: FakeScript = {
  name: 'default',
  steps: [
    {
      text: 'Let me look at the library first.',
      toolCalls: [{ capability: 'inventory.query', input: (ctx) => ({ query: ctx.goal }) }],
    },
  ],
  finalText: (ctx) => {
    const r = ctx.results['inventory.query'];
    const items =
      r && typeof r === 'object' && Array.isArray((r as { items?: unknown }).items)
        ? (r as { items: unknown[] }).items.length
        : undefined;
    const found =
      items === undefined
        ? 'The inventory query returned no readable result.'
        : `The inventory query returned ${items} item(s).`;
    return `${found} This is the scripted demo model: nothing was downloaded, changed or deleted.`;
  },
};

/**
 * Resolves a dotted path (`items.0.slots.0.id`) in a value.
 * @internal
 */
function at(value: unknown, path: string[]): unknown {
  let v = value;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/**
 * The latest call of a capability in the conversation, whatever its outcome: what a template that
 * cannot be filled reports.
 * @public
 */
export interface ScriptCallRecord {
  /** The call's input as the model sent it. */
  input: unknown;
  /** The runtime's outcome (`succeeded`, `failed`, `denied`, …), or the tool message's status when the result is not the runtime's envelope. */
  status: string;
  /** The output (for a successful call), parsed as JSON when possible. */
  output?: unknown;
  /** The error of a call that did not succeed. */
  error?: { code?: string; message?: string };
}

/**
 * Replaces `{{capabilityId.path.to.value}}` placeholders with values from the latest successful
 * result of that capability. The capability id is the longest one with a result that prefixes the
 * reference (ids contain dots). A string that is exactly one placeholder takes the value's own type.
 *
 * @param value - a string, array or object (walked recursively)
 * @param results - latest successful result per capability id
 * @param calls - latest call per capability id (any outcome), for the error of a template that cannot be filled
 * @returns the value with placeholders resolved
 * @throws ScriptTemplateError (`SCRIPT_TEMPLATE_UNFILLED`) when a reference has no successful result or no
 *   value at its path, naming the capability, the path, the call's input and what its result held
 * @public
 */
export function resolveTemplates(
  value: unknown,
  results: Readonly<Record<string, unknown>>,
  calls: Readonly<Record<string, ScriptCallRecord>> = {},
): unknown {
  if (typeof value === 'string') {
    const one = /^\{\{\s*([^{}]+?)\s*\}\}$/.exec(value);
    if (one) return lookup(one[1]!, results, calls);
    return value.replace(/\{\{\s*([^{}]+?)\s*\}\}/g, (_, ref: string) => {
      const v = lookup(ref, results, calls);
      return typeof v === 'string' ? v : JSON.stringify(v);
    });
  }
  if (Array.isArray(value)) return value.map((v) => resolveTemplates(v, results, calls));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, resolveTemplates(v, results, calls)]),
    );
  }
  return value;
}

/** The longest of `ids` that is `ref` or prefixes it at a dot. */
function capabilityOf(ref: string, ids: Iterable<string>): string | undefined {
  return [...ids].filter((id) => ref === id || ref.startsWith(`${id}.`)).sort((a, b) => b.length - a.length)[0];
}

function lookup(
  ref: string,
  results: Readonly<Record<string, unknown>>,
  calls: Readonly<Record<string, ScriptCallRecord>>,
): unknown {
  const id = capabilityOf(ref, Object.keys(results));
  if (id === undefined) throw noResult(ref, calls);
  const path = ref === id ? [] : ref.slice(id.length + 1).split('.');
  const v = at(results[id], path);
  if (v === undefined) throw missingValue(ref, id, path, results[id], calls[id]);
  return v;
}

/** A short JSON excerpt of a value for a message (at most `max` characters). */
function excerpt(value: unknown, max = 160): string {
  const text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** "for 'Xyz'" when the input names what was looked for (`query`, `title`, `name`), else the input as JSON. */
function soughtIn(input: unknown): string {
  if (input && typeof input === 'object') {
    const o = input as Record<string, unknown>;
    const named = [o.query, o.title, o.name].find((v) => typeof v === 'string' && v !== '');
    if (named !== undefined) return `'${named as string}'`;
  }
  return excerpt(input, 120);
}

/** The reference names no capability with a successful result: say what the last call of it did, if any. */
function noResult(ref: string, calls: Readonly<Record<string, ScriptCallRecord>>): ScriptTemplateError {
  const id = capabilityOf(ref, Object.keys(calls));
  if (id === undefined) {
    return new ScriptTemplateError(
      `{{${ref}}} cannot be filled: no capability this reference names was called earlier in the conversation (the script uses a result before the call that makes it)`,
      { reference: ref },
    );
  }
  const call = calls[id]!;
  const why = call.error
    ? `${call.error.code ? `${call.error.code}: ` : ''}${call.error.message ?? ''}`.trim()
    : call.status;
  return new ScriptTemplateError(
    `{{${ref}}} cannot be filled: the last ${id} call, for ${soughtIn(call.input)}, did not succeed (${call.status}${why && why !== call.status ? ` — ${why}` : ''})`,
    {
      reference: ref,
      capability: id,
      input: call.input,
      held: excerpt(call.error ?? call.status),
    },
  );
}

/** The result has nothing at `path`: name the first segment that was not there and what its parent held. */
function missingValue(
  ref: string,
  id: string,
  path: string[],
  result: unknown,
  call: ScriptCallRecord | undefined,
): ScriptTemplateError {
  let parent: unknown = result;
  let depth = 0;
  for (; depth < path.length; depth++) {
    const next =
      parent !== null && typeof parent === 'object' ? (parent as Record<string, unknown>)[path[depth]!] : undefined;
    if (next === undefined) break;
    parent = next;
  }
  const where = path.slice(0, depth).join('.') || 'the result';
  const missing = path[depth] ?? '';
  const held = Array.isArray(parent)
    ? parent.length === 0
      ? `"${where}" is an empty list`
      : `"${where}" has ${parent.length} item(s), no index ${missing}`
    : parent !== null && typeof parent === 'object'
      ? `"${where}" has no "${missing}" (it has ${
          Object.keys(parent)
            .map((k) => `"${k}"`)
            .join(', ') || 'no fields'
        })`
      : `"${where}" is ${excerpt(parent, 60)}`;
  const found =
    Array.isArray(parent) && parent.length === 0
      ? `no ${id} result matched ${call ? soughtIn(call.input) : 'the call'}`
      : `the ${id} result${call ? ` for ${soughtIn(call.input)}` : ''} does not hold "${path.join('.')}"`;
  return new ScriptTemplateError(`${found}: ${held}, so {{${ref}}} cannot be filled`, {
    reference: ref,
    capability: id,
    path: path.join('.'),
    missing: path.slice(0, depth + 1).join('.'),
    ...(call ? { input: call.input } : {}),
    held: excerpt(parent),
  });
}

function isResultEnvelope(
  value: unknown,
): value is { status: string; output?: unknown; error?: { code?: string; message?: string } } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { status?: unknown }).status === 'string' &&
    'note' in value
  );
}

/**
 * The latest successful result of each capability (`results`, what templates read) and the latest call
 * of each, whatever its outcome, with the input the model sent (`calls`, what their errors report).
 */
function conversationResults(messages: ReadonlyArray<ModelMessage>): {
  results: Record<string, unknown>;
  calls: Record<string, ScriptCallRecord>;
} {
  const results: Record<string, unknown> = {};
  const calls: Record<string, ScriptCallRecord> = {};
  const inputs = new Map<string, unknown>();
  // Parsed tool results by call id: a repeated result the context replaced by `{ sameAsCallId }` reads as the earlier one.
  const byCall = new Map<string, unknown>();
  for (const m of messages) {
    if (m.role === 'assistant') {
      for (const part of m.content) if (part.type === 'tool_call') inputs.set(part.id, part.input);
      continue;
    }
    if (m.role !== 'tool') continue;
    const text = textOf(m.content);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
    const same = (value as { sameAsCallId?: unknown } | null)?.sameAsCallId;
    if (typeof same === 'string' && byCall.has(same)) value = byCall.get(same);
    byCall.set(m.toolCallId, value);
    const input = inputs.get(m.toolCallId);
    // The runtime wraps results as { status, note, output }: templates address the output itself.
    if (isResultEnvelope(value)) {
      calls[m.name] = {
        input,
        status: value.status,
        ...(value.output !== undefined ? { output: value.output } : {}),
        ...(value.error ? { error: value.error } : {}),
      };
      if (value.status !== 'succeeded' || m.status !== 'ok') continue;
      value = value.output;
    } else {
      calls[m.name] = {
        input,
        status: m.status,
        ...(m.status === 'ok' ? { output: value } : { error: { message: excerpt(value) } }),
      };
      if (m.status !== 'ok') continue;
    }
    results[m.name] = value;
  }
  return { results, calls };
}

function parseScripts(scripts: ScriptedProviderOptions['scripts']): FakeScript[] {
  if (scripts === undefined) return [DEFAULT_FAKE_SCRIPT];
  let value: unknown = scripts;
  if (typeof scripts === 'string') {
    try {
      value = JSON.parse(scripts);
    } catch (e) {
      throw new ScriptInvalidError(`fake script is not valid JSON: ${(e as Error).message}`, {});
    }
  }
  const list = (Array.isArray(value) ? value : [value]) as FakeScript[];
  list.forEach((s, i) => {
    if (!s || typeof s !== 'object') throw new ScriptInvalidError(`fake script #${i} is not an object`, { script: i });
    if (s.steps !== undefined && !Array.isArray(s.steps))
      throw new ScriptInvalidError(`fake script #${i}: steps must be an array`, { script: i });
  });
  return list;
}

/**
 * The script's turn: assistant messages after the latest user message that the script matches (the
 * goal for a script chosen by the goal; the goal for a script without `match`), so steering messages do
 * not restart it, a message that selects another script starts that script at its first step, and a
 * resumed run continues where it was.
 */
function turnOf(script: FakeScript, messages: ReadonlyArray<ModelMessage>): number {
  let start = -1;
  messages.forEach((m, i) => {
    if (m.role !== 'user' || isCompactionSummary(m)) return;
    // A script without `match` plays once from the goal: later user messages never restart it.
    if (script.match === undefined ? start < 0 : matches(script, [textOf(m.content)])) start = i;
  });
  // A compaction summary stands for the assistant turns it replaced ("(N assistant turns)").
  let turns = 0;
  for (const m of messages.slice(start + 1)) {
    if (m.role === 'assistant') turns++;
    else if (isCompactionSummary(m)) turns += Number(/\((\d+) assistant turns\)/.exec(textOf(m.content))?.[1] ?? 0);
  }
  return turns;
}

function isCompactionSummary(m: ModelMessage): boolean {
  return m.role === 'user' && textOf(m.content).startsWith('[context summary]');
}

function matches(script: FakeScript, texts: string[]): boolean {
  const m = script.match;
  if (m === undefined) return true;
  if (typeof m === 'string') return texts.some((t) => t.includes(m));
  const re = m instanceof RegExp ? m : new RegExp(m.regex, m.flags);
  return texts.some((t) => {
    re.lastIndex = 0;
    return re.test(t);
  });
}

/**
 * The scripted model provider (`provider: 'scripted'`): deterministic turns for tests and demos.
 *
 * @remarks
 * The turn is derived from the conversation (assistant messages after the latest user message the
 * script matches), so a resumed run
 * continues its script. The script is the first whose `match` fits the goal or last user message.
 * Turn n below `steps.length` emits step n (text deltas, then each tool call as start / argument
 * fragments / end, validated against the offered tool like a real provider); turn steps.length
 * emits `finalText`; any later turn ends with an `error` event carrying
 * {@link ScriptExhaustedError} (`SCRIPT_EXHAUSTED`). Every request is recorded.
 *
 * @public
 */
export class ScriptedProvider implements ModelProvider {
  /** {@inheritDoc ModelProvider.id} */
  readonly id = 'scripted';
  /**
   * Every request received, in order (deep copies). Each message and tool is copied the first time a
   * request carries it and that copy is reused when the same object comes again (the runtime never
   * changes a message or tool once sent), so recording a turn costs what is new in it.
   */
  readonly requests: ModelRequest[] = [];
  /** Copies of the messages and tools seen so far, by the object sent. */
  readonly #copies = new WeakMap<object, unknown>();
  /** JSON lengths of the messages and tools seen so far (for the usage estimate). */
  readonly #lengths = new WeakMap<object, number>();
  readonly #scripts: FakeScript[];
  readonly #chunk: number;
  readonly #delay: number;
  readonly #progress = new Map<FakeScript, number>();

  /**
   * @param options - scripts and streaming granularity
   * @throws ScriptInvalidError (`SCRIPT_INVALID`) for unparsable JSON scripts
   */
  constructor(options: ScriptedProviderOptions = {}) {
    this.#scripts = parseScripts(options.scripts);
    this.#chunk = Math.max(1, options.chunkSize ?? 8);
    this.#delay = options.delayMs ?? 0;
  }

  /** {@inheritDoc ModelProvider.stream} */
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent> {
    const { messages, tools, ...rest } = request;
    this.requests.push({
      ...structuredClone(rest),
      messages: messages.map((m) => this.#copy(m)),
      ...(tools ? { tools: tools.map((t) => this.#copy(t)) } : {}),
    });
    return this.#run(request, signal);
  }

  /** `JSON.stringify(items).length`, each item measured once (by the object sent). */
  #jsonLength(items: ReadonlyArray<object>): number {
    let length = 2 + Math.max(0, items.length - 1);
    for (const item of items) {
      let n = this.#lengths.get(item);
      if (n === undefined) this.#lengths.set(item, (n = JSON.stringify(item).length));
      length += n;
    }
    return length;
  }

  /** The copy of `value` made when it was first seen. */
  #copy<T extends object>(value: T): T {
    let copy = this.#copies.get(value) as T | undefined;
    if (copy === undefined) this.#copies.set(value, (copy = structuredClone(value)));
    return copy;
  }

  /**
   * Throws unless every script that was selected has played all its steps and its final text.
   * @throws MediaAgentError `SCRIPT_INCOMPLETE` naming the script and the turns played
   */
  assertComplete(): void {
    if (this.#progress.size === 0)
      throw new MediaAgentError('SCRIPT_INCOMPLETE', 'no script was used: the model was never called', {});
    for (const [script, turns] of this.#progress) {
      const needed = (script.steps?.length ?? 0) + 1;
      if (turns < needed) {
        throw new MediaAgentError(
          'SCRIPT_INCOMPLETE',
          `script ${script.name ?? this.#scripts.indexOf(script)} played ${turns} of ${needed} turns`,
          {
            script: script.name ?? this.#scripts.indexOf(script),
            turns,
            needed,
          },
        );
      }
    }
  }

  async *#run(request: ModelRequest, signal?: AbortSignal): AsyncGenerator<ModelEvent> {
    const userTexts = request.messages
      .filter((m) => m.role === 'user' && !isCompactionSummary(m))
      .map((m) => textOf(m.content));
    const goal = userTexts[0] ?? '';
    const lastUserMessage = userTexts[userTexts.length - 1] ?? '';
    // After a compaction the goal may live only in the summary (its pinned facts).
    const summaries = request.messages.filter(isCompactionSummary).map((m) => textOf(m.content));
    const script = this.#scripts.find((s) => matches(s, [goal, lastUserMessage, ...summaries]));
    const turn = script ? turnOf(script, request.messages) : 0;
    const { results, calls: lastCalls } = conversationResults(request.messages);
    const ctx: ScriptContext = { goal, lastUserMessage, results, turn, request };
    const pause = async () => {
      if (this.#delay > 0) await new Promise((r) => setTimeout(r, this.#delay));
      else await new Promise((r) => setImmediate(r));
    };
    const aborted = () => signal?.aborted === true;
    if (aborted()) {
      yield { type: 'done', stopReason: 'aborted' };
      return;
    }
    let out = 0;
    try {
      if (!script)
        throw new ScriptExhaustedError(`no fake script matches the goal "${goal.slice(0, 80)}"`, { turns: turn });
      const steps = script.steps ?? [];
      if (turn > steps.length) {
        throw new ScriptExhaustedError(
          `script ${script.name ?? this.#scripts.indexOf(script)} has no turn ${turn + 1} (it has ${steps.length} steps and a final text)`,
          {
            script: script.name ?? this.#scripts.indexOf(script),
            turns: turn,
          },
        );
      }
      this.#progress.set(script, Math.max(this.#progress.get(script) ?? 0, turn + 1));
      const step: ScriptStep = turn < steps.length ? steps[turn]! : { text: script.finalText ?? 'Done.' };
      const rawText = typeof step.text === 'function' ? step.text(ctx) : step.text;
      const text = rawText === undefined ? '' : (resolveTemplates(rawText, ctx.results, lastCalls) as string);
      const chosen = typeof step.toolCalls === 'function' ? step.toolCalls(ctx) : (step.toolCalls ?? []);
      const calls = chosen.map((c) => ({
        capability: c.capability,
        input: resolveTemplates(typeof c.input === 'function' ? c.input(ctx) : (c.input ?? {}), ctx.results, lastCalls),
      }));
      for (let i = 0; i < text.length; i += this.#chunk) {
        await pause();
        if (aborted()) break;
        const piece = text.slice(i, i + this.#chunk);
        out += piece.length;
        yield { type: 'text_delta', text: piece };
      }
      const tools = new RequestTools(request.tools);
      for (let k = 0; k < calls.length && !aborted(); k++) {
        const call = calls[k]!;
        const id = `call_scripted_${turn}_${k}`;
        const raw = JSON.stringify(call.input);
        await pause();
        yield { type: 'tool_call_start', id, name: call.capability };
        for (let i = 0; i < raw.length && !aborted(); i += this.#chunk) {
          await pause();
          yield { type: 'tool_call_delta', id, argumentsDelta: raw.slice(i, i + this.#chunk) };
        }
        if (aborted()) break;
        out += raw.length;
        const end = tools.end(id, tools.names.toWire(call.capability), raw);
        yield { ...end, name: call.capability };
      }
      if (aborted()) {
        yield { type: 'done', stopReason: 'aborted' };
        return;
      }
      const inputChars = this.#jsonLength(request.messages) + this.#jsonLength(request.tools ?? []);
      const usage: ModelUsage = {
        inputTokens: Math.ceil(inputChars / 4),
        outputTokens: Math.ceil(out / 4),
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      };
      yield { type: 'usage', usage };
      yield { type: 'done', stopReason: calls.length > 0 ? 'tool_use' : 'end_turn' };
    } catch (error) {
      yield { type: 'error', error: error as MediaAgentError };
      yield { type: 'done', stopReason: 'error' };
    }
  }
}
