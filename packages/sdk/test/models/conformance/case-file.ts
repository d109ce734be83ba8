// Reads one conformance case: a recorded provider stream (one SSE `data:` payload per line, the format of
// test/fixtures/provider-streams) with a `#` header naming its public source and what the runtime must get.
// The header grammar is in this folder's README.md.
import type { ReplayEvent, ReplayResponse } from '../../../src/models/replay-server';
import type { ModelUsage, StopReason } from '../../../src/models/types';

/** One tool call the runtime must get: parsed arguments, or the code that refused them. */
export interface ExpectedCall {
  /** Tool name as offered (and as the model sent it). */
  name: string;
  /** Parsed arguments (absent when `failure` is set). */
  input?: unknown;
  /** `TOOL_ARGS_MALFORMED` | `TOOL_ARGS_INVALID` | `TOOL_UNKNOWN` when the arguments must be refused. */
  failure?: string;
  /** The call id the runtime must get (checked only when given). */
  id?: string;
  /** The call's opaque signature, e.g. Gemini's `thought_signature` (checked only when given). */
  signature?: string;
}

/** One thinking block of the collected assistant message. */
export interface ExpectedThinking {
  /** Reasoning text. */
  thinking: string;
  /** Anthropic signature, when the block carries one. */
  signature?: string;
  /** Anthropic `redacted_thinking` payload. */
  redacted?: string;
}

/** What the runtime must get from the case (the `# expect:` header). */
export interface CaseExpectation {
  /** Concatenated text deltas (default `""`). */
  text?: string;
  /** Concatenated thinking deltas (default `""`). */
  reasoning?: string;
  /** Thinking blocks of the collected message, in order (checked only when given). */
  thinking?: ExpectedThinking[];
  /** Completed tool calls, in order (default none). */
  calls?: ExpectedCall[];
  /** Stop reason of the `done` event. */
  stop: StopReason;
  /** Fields the last `usage` event must have (checked only when given; `null`: no usage event). */
  usage?: Partial<ModelUsage> | null;
  /** Code of the `error` event (`PROVIDER_*`); absent: no error event. */
  error?: string;
  /** How many HTTP requests the provider must have made (default 1; more means retries). */
  requests?: number;
}

/** A tool offered in the request (`# tools:`); default: every expected call's name with `{type: object}`. */
export interface CaseTool {
  /** Tool name. */
  name: string;
  /** JSON Schema of its input (default `{ "type": "object" }`). */
  schema?: Record<string, unknown>;
}

/** A parsed case file. */
export interface ConformanceCase {
  /** File name. */
  file: string;
  /** Server family, e.g. `Kimi (Moonshot)`. */
  server: string;
  /** One line saying what the case shows. */
  title: string;
  /** Public source(s): URL, `repo#number`, or `repo@commit:path`. */
  sources: string[];
  /** `anthropic` (Messages API events) or `openai` (Chat Completions chunks). */
  format: 'anthropic' | 'openai';
  /** OpenAI-compatible dialect to use when it is built in (else `generic`). */
  dialect?: string;
  /** Model id sent in the request. */
  model?: string;
  /** Tools offered. */
  tools?: CaseTool[];
  /** Expected outcome. */
  expect: CaseExpectation;
  /** Responses to serve, in request order (the last one repeats). */
  responses: ReplayResponse[];
}

const KEYS = ['server', 'case', 'source', 'format', 'dialect', 'model', 'tools', 'expect', 'note', 'trimmed'];
const SECTION_KEYS = ['status', 'done', 'response'];

/**
 * Parses a case file.
 * @param file - file name (for messages)
 * @param text - file contents
 * @returns the case
 * @throws Error naming the file when the header is incomplete or not JSON where JSON is required
 */
export function parseCase(file: string, text: string): ConformanceCase {
  const header: Record<string, string[]> = {};
  const sections: Array<{ meta: Record<string, string>; lines: string[] }> = [{ meta: {}, lines: [] }];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (line.trim() === '') continue;
    const section = sections[sections.length - 1]!;
    if (line.startsWith('#')) {
      const m = /^#\s*([a-z]+):\s?(.*)$/.exec(line);
      if (!m) continue; // a comment line
      const key = m[1]!;
      const value = m[2]!;
      if (key === 'response') {
        sections.push({ meta: {}, lines: [] });
        continue;
      }
      if (SECTION_KEYS.includes(key)) section.meta[key] = value;
      else if (KEYS.includes(key)) (header[key] ??= []).push(value);
      else throw new Error(`${file}: unknown header key "${key}"`);
      continue;
    }
    section.lines.push(line);
  }
  const one = (key: string): string | undefined => header[key]?.[0];
  const need = (key: string): string => {
    const v = one(key);
    if (v === undefined || v === '') throw new Error(`${file}: missing "# ${key}:" header`);
    return v;
  };
  const format = need('format');
  if (format !== 'anthropic' && format !== 'openai') throw new Error(`${file}: format must be anthropic or openai`);
  const json = <T>(key: string, value: string): T => {
    try {
      return JSON.parse(value) as T;
    } catch (err) {
      throw new Error(`${file}: "# ${key}:" is not JSON: ${(err as Error).message}`);
    }
  };
  const sources = header.source ?? [];
  if (sources.length === 0) throw new Error(`${file}: missing "# source:" header`);
  const toolsText = one('tools');
  const dialect = one('dialect');
  const model = one('model');
  return {
    file,
    server: need('server'),
    title: need('case'),
    sources,
    format,
    ...(dialect !== undefined ? { dialect } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(toolsText !== undefined ? { tools: json<CaseTool[]>('tools', toolsText) } : {}),
    expect: json<CaseExpectation>('expect', need('expect')),
    responses: sections
      .filter((s, i) => i === 0 || s.lines.length > 0 || s.meta.status !== undefined)
      .map((s) => toResponse(file, format, s.meta, s.lines)),
  };
}

/** One section of the file as the replay server's response. */
function toResponse(
  file: string,
  format: 'anthropic' | 'openai',
  meta: Record<string, string>,
  lines: string[],
): ReplayResponse {
  const status = meta.status !== undefined ? Number(meta.status) : 200;
  if (status !== 200) return { status, body: lines.join('\n') };
  const events: ReplayEvent[] = lines.map((data) => {
    if (format === 'openai') return { data };
    let type: string;
    try {
      type = (JSON.parse(data) as { type: string }).type;
    } catch (err) {
      throw new Error(`${file}: an Anthropic line is not JSON: ${(err as Error).message}`);
    }
    return { event: type, data };
  });
  if (format === 'openai' && meta.done !== 'false') events.push({ data: '[DONE]' });
  return { events };
}
