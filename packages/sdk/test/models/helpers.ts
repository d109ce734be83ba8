// Shared test helpers: fixture loading and event collection.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import {
  transcriptEvents,
  WireReplayServer,
  type RecordedRequest,
  type ReplayResponse,
} from '../../src/models/replay-server';
import type { ModelEvent, ModelMessage, ModelTool } from '../../src/models/types';

const dir = fileURLToPath(new URL('../fixtures/provider-streams/', import.meta.url));

/** Reads a recorded transcript from test/fixtures/provider-streams. */
export function fixture(name: string): string {
  return readFileSync(`${dir}${name}`, 'utf8');
}

/** Drains a stream into an array. */
export async function drain(events: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** Concatenated text of text_delta events. */
export function textOf(events: ModelEvent[]): string {
  return events.map((e) => (e.type === 'text_delta' ? e.text : '')).join('');
}

/** Concatenated thinking of thinking_delta events. */
export function thinkingOf(events: ModelEvent[]): string {
  return events.map((e) => (e.type === 'thinking_delta' ? e.thinking : '')).join('');
}

/** The events of one type. */
export function ofType<T extends ModelEvent['type']>(
  events: ModelEvent[],
  type: T,
): Array<Extract<ModelEvent, { type: T }>> {
  return events.filter((e): e is Extract<ModelEvent, { type: T }> => e.type === type);
}

/** Something a test opens and must close. */
interface Closable {
  close(): Promise<unknown>;
}

/**
 * Servers for the tests of one file, each closed after the test that opened it: `serve(...responses)` starts a
 * WireReplayServer, `track(server)` closes any other server too. Call once at the top level of a test file (it
 * registers an `afterEach` hook).
 */
export function replayServers() {
  const open: Closable[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const track = <S extends Closable>(server: S): S => {
    open.push(server);
    return server;
  };
  return {
    track,
    serve: async (...responses: ReplayResponse[]): Promise<WireReplayServer> =>
      track(await WireReplayServer.start(responses)),
  };
}

/** A recorded transcript from test/fixtures/provider-streams, replayed in `dialect`. */
export function replayOf(
  name: string,
  dialect: 'anthropic' | 'openai',
  extra: Partial<ReplayResponse> = {},
): ReplayResponse {
  return { events: transcriptEvents(fixture(name), dialect), ...extra };
}

/** The library query tool the provider tests offer (a required `query` string). */
export const inventoryQuery: ModelTool = {
  name: 'inventory.query',
  description: 'Query the library',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};

/** The plan submission tool the provider tests offer (a required `planId` string). */
export const downloadSubmit: ModelTool = {
  name: 'download.submit',
  description: 'Submit a plan',
  inputSchema: { type: 'object', properties: { planId: { type: 'string' } }, required: ['planId'] },
};

/** A user message of plain text. */
export const userText = (text: string): ModelMessage => ({ role: 'user', content: text });

/**
 * An assistant turn that calls `inventory.query` for Dune as `id`, and the tool's answer: `text`, then an image
 * of `mediaType` and base64 `data`.
 */
export function toolCallWithImage(id: string, text: string, mediaType: string, data: string): ModelMessage[] {
  return [
    {
      role: 'assistant',
      content: [{ type: 'tool_call', id, name: 'inventory.query', input: { query: 'Dune' } }],
    },
    {
      role: 'tool',
      toolCallId: id,
      name: 'inventory.query',
      status: 'ok',
      content: [
        { type: 'text', text },
        { type: 'image', mediaType, data },
      ],
    },
  ];
}

/**
 * A retry policy of 3 attempts, backoff from 100 ms (at most 10 s) with the jitter fixed at 0.5, that sleeps not
 * at all: `waits` gets every delay it was asked to sleep, `infos` a copy of every onRetry report.
 */
export function recordingRetry() {
  const waits: number[] = [];
  const infos: Array<Record<string, unknown>> = [];
  const retry = {
    maxAttempts: 3,
    baseDelayMs: 100,
    maxDelayMs: 10_000,
    random: () => 0.5,
    sleep: async (ms: number) => void waits.push(ms),
    onRetry: (i: object) => void infos.push({ ...i }),
  };
  return { retry, waits, infos };
}

/** A retry policy with tiny delays for tests. */
export const fastRetry = { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 3 };

/** How a strict test server words its refusal of unknown request fields. */
export type StrictStyle = 'pydantic' | 'openai-unrecognized' | 'serde' | 'unsupported-parameter' | 'vague';

/**
 * A WireReplayServer responder that enforces a closed set of top-level request fields, as strict
 * OpenAI-compatible servers do: a body with any other field gets 400 (422 for `serde`) worded in
 * `style` (`pydantic` names all extra fields; `openai-unrecognized`, `serde` and
 * `unsupported-parameter` name the first one; `vague` names none); a body within the set gets `ok`.
 */
export function strictResponder(
  allowed: readonly string[],
  style: StrictStyle,
  ok: () => ReplayResponse,
): (req: RecordedRequest) => ReplayResponse {
  return (req) => {
    const body = (req.json ?? {}) as Record<string, unknown>;
    const extra = Object.keys(body).filter((k) => !allowed.includes(k));
    if (extra.length === 0) return ok();
    const first = extra[0]!;
    switch (style) {
      case 'pydantic':
        return {
          status: 400,
          body: JSON.stringify({
            detail: extra.map((k) => ({
              type: 'extra_forbidden',
              loc: ['body', k],
              msg: 'Extra inputs are not permitted',
              input: body[k],
            })),
          }),
        };
      case 'openai-unrecognized':
        return {
          status: 400,
          body: JSON.stringify({
            error: {
              message: `Unrecognized request argument supplied: ${first}`,
              type: 'invalid_request_error',
              param: null,
              code: null,
            },
          }),
        };
      case 'serde':
        return {
          status: 422,
          headers: { 'content-type': 'text/plain' },
          body: `Failed to deserialize the JSON body into the target type: unknown field \`${first}\`, expected one of ${allowed.map((a) => `\`${a}\``).join(', ')} at line 1 column 42`,
        };
      case 'unsupported-parameter':
        return {
          status: 400,
          body: JSON.stringify({
            error: {
              message: `Unsupported parameter: '${first}' is not supported with this model.${first === 'max_tokens' ? " Use 'max_completion_tokens' instead." : ''}`,
              type: 'invalid_request_error',
              param: first,
              code: 'unsupported_parameter',
            },
          }),
        };
      case 'vague':
        return {
          status: 400,
          body: JSON.stringify({
            object: 'error',
            message: 'Extra inputs are not permitted',
            type: 'BadRequestError',
            code: 400,
          }),
        };
    }
  };
}
