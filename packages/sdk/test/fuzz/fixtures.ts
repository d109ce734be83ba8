// The recorded provider streams (test/fixtures/provider-streams) as SSE wire bytes, and the tools a
// request offering the fixtures' tool names would carry. Shared by the fuzz properties.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { STANDARD_CAPABILITIES } from '../../src/media/contracts';
import { encodeSse, transcriptEvents, type ReplayEvent } from '../../src/models/replay-server';
import type { ModelTool } from '../../src/models/types';

const dir = fileURLToPath(new URL('../fixtures/provider-streams/', import.meta.url));

/** Wire format of a recorded stream. */
export type StreamFormat = 'anthropic' | 'openai';

/** One recorded stream, ready to replay. */
export interface StreamFixture {
  /** File name in test/fixtures/provider-streams. */
  name: string;
  /** Anthropic Messages or OpenAI-compatible Chat Completions. */
  format: StreamFormat;
  /** The SSE events a replay server sends for it (`event:` for Anthropic, a final `[DONE]` for OpenAI). */
  events: ReplayEvent[];
  /** Those events encoded as the replay server encodes them (UTF-8). */
  wire: Uint8Array;
}

/** Every `*.chunks.txt` file, sorted by name; Anthropic files are those named `anthropic-*` or `own-anthropic-*`. */
export const STREAM_FIXTURES: readonly StreamFixture[] = readdirSync(dir)
  .filter((f) => f.endsWith('.chunks.txt'))
  .sort()
  .map((name) => {
    const format: StreamFormat = /^(own-)?anthropic-/.test(name) ? 'anthropic' : 'openai';
    const events = transcriptEvents(readFileSync(`${dir}${name}`, 'utf8'), format);
    return { name, format, events, wire: new Uint8Array(Buffer.from(encodeSse(events), 'utf8')) };
  });

/** The fixtures of one wire format. */
export function fixturesOf(format: StreamFormat): StreamFixture[] {
  return STREAM_FIXTURES.filter((f) => f.format === format);
}

/**
 * Tools matching the tool names the fixtures call: `weather` (OpenAI-compatible recordings),
 * `json` and `updateIssueList` (Anthropic recordings), and `inventory.query`, `task.inspect`,
 * `download.submit` (the hand-written `own-*` files call them `inventory_query` … on the wire) with
 * the standard contracts' input schemas. `rm_rf` is deliberately not offered (an unknown tool).
 */
export const FIXTURE_TOOLS: readonly ModelTool[] = [
  {
    name: 'weather',
    description: 'Weather at a location',
    inputSchema: {
      type: 'object',
      properties: { location: { type: 'string' } },
      required: ['location'],
      additionalProperties: false,
    },
  },
  {
    name: 'json',
    description: 'Structured answer',
    inputSchema: {
      type: 'object',
      properties: {
        elements: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              location: { type: 'string' },
              temperature: { type: 'number' },
              condition: { type: 'string' },
            },
            required: ['location', 'temperature', 'condition'],
          },
        },
      },
      required: ['elements'],
    },
  },
  {
    name: 'updateIssueList',
    description: 'Update the issue list',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  },
  ...(['inventory.query', 'task.inspect', 'download.submit'] as const).map((id) => ({
    name: id,
    description: STANDARD_CAPABILITIES[id].title,
    inputSchema: STANDARD_CAPABILITIES[id].input as unknown as Record<string, unknown>,
  })),
];
