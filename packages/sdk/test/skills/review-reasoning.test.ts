// A learning review is a tool loop of its own: its second call must carry the reasoning of its first
// exactly as the provider documents (Anthropic thinking blocks with their signatures before the
// tool_use; DeepSeek `reasoning_content` on every assistant message with tool calls), and a review
// reply cut by the output limit runs none of its calls. Real HTTP to local servers speaking each wire.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/models/anthropic';
import { OpenAICompatibleProvider } from '../../src/models/openai-compatible';
import { WireReplayServer, type RecordedRequest, type ReplayResponse } from '../../src/models/replay-server';
import type { ModelMessage } from '../../src/models/types';
import { FileSkillStore } from '../../src/skills/file-skill-store';
import { runLearningReview } from '../../src/skills/review-run';
import { fastRetry } from '../models/helpers';

type Json = Record<string, unknown>;
let dir: string;
let store: FileSkillStore;
const servers: WireReplayServer[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'review-reasoning-'));
  store = new FileSkillStore({ dataDir: dir });
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

const conversation: ModelMessage[] = [
  { role: 'user', content: 'Add Dune: Part Two to the library' },
  { role: 'assistant', content: [{ type: 'text', text: 'Added.' }] },
];

const anthropicEvents = (events: Json[]): ReplayResponse => ({
  events: events.map((e) => ({ event: String(e.type), data: JSON.stringify(e) })),
});
const SIG = 'EqQBCkYIBxgCKkBsig0123456789abcdef==';

describe('learning review reasoning round trips', () => {
  // Anthropic "Preserving thinking blocks": with thinking on, the assistant turn that made a tool call must be
  // sent back starting with its thinking block, unmodified, signature included (earendil-works/pi#3636 is the
  // same refusal on DeepSeek's side; anthropics/claude-code reports the Anthropic wording below).
  it('Anthropic: the review’s second call sends the first call’s thinking block back, signed, before its tool_use', async () => {
    const responder = (req: RecordedRequest, index: number): ReplayResponse => {
      if (index === 0)
        return anthropicEvents([
          {
            type: 'message_start',
            message: {
              id: 'm1',
              type: 'message',
              role: 'assistant',
              content: [],
              model: 'claude-sonnet-4-5',
              usage: { input_tokens: 50, output_tokens: 1 },
            },
          },
          { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
          {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'thinking_delta', thinking: 'List the skills first.' },
          },
          { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: SIG } },
          { type: 'content_block_stop', index: 0 },
          {
            type: 'content_block_start',
            index: 1,
            content_block: { type: 'tool_use', id: 'toolu_1', name: 'skills_list', input: {} },
          },
          { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{}' } },
          { type: 'content_block_stop', index: 1 },
          { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 20 } },
          { type: 'message_stop' },
        ]);
      const messages = (req.json as Json).messages as Array<{ role: string; content: Json[] | string }>;
      const last = messages.filter((m) => m.role === 'assistant').at(-1)!;
      const first = Array.isArray(last.content) ? last.content[0] : undefined;
      if (first?.type !== 'thinking' || first.signature !== SIG || first.thinking !== 'List the skills first.')
        return {
          status: 400,
          body: JSON.stringify({
            type: 'error',
            error: {
              type: 'invalid_request_error',
              message: `messages.${messages.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type ?? 'text')}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`,
            },
          }),
        };
      return anthropicEvents([
        {
          type: 'message_start',
          message: {
            id: 'm2',
            type: 'message',
            role: 'assistant',
            content: [],
            model: 'claude-sonnet-4-5',
            usage: { input_tokens: 80, output_tokens: 1 },
          },
        },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Nothing to save.' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } },
        { type: 'message_stop' },
      ]);
    };
    const server = await WireReplayServer.start(responder);
    servers.push(server);
    const provider = new AnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: server.url, retry: fastRetry });
    const result = await runLearningReview({
      provider,
      request: { model: 'claude-sonnet-4-5', messages: conversation, thinking: 'low', maxTokens: 4096 },
      due: { memory: false, skills: true },
      store,
      userId: 'alice',
    });
    expect(result.ended).toBe('done');
    expect(result.modelCalls).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  // DeepSeek "Thinking Mode" (tool calls): every assistant message with tool calls keeps its reasoning_content in
  // later requests, else 400 (earendil-works/pi#3636, continuedev/continue#9606).
  it('DeepSeek: the review’s second call keeps reasoning_content on the assistant message with the tool call', async () => {
    const chunk = (delta: Json, finish: string | null = null) => ({
      data: JSON.stringify({
        id: 'c',
        object: 'chat.completion.chunk',
        model: 'deepseek-chat',
        choices: [{ index: 0, delta, finish_reason: finish }],
      }),
    });
    const responder = (req: RecordedRequest, index: number): ReplayResponse => {
      if (index === 0)
        return {
          events: [
            chunk({ role: 'assistant', content: null, reasoning_content: 'List the skills first.' }),
            chunk({
              tool_calls: [
                { index: 0, id: 'call_0', type: 'function', function: { name: 'skills_list', arguments: '{}' } },
              ],
            }),
            chunk({}, 'tool_calls'),
            { data: '[DONE]' },
          ],
        };
      const messages = (req.json as Json).messages as Array<Json>;
      const withCalls = messages.filter((m) => m.role === 'assistant' && Array.isArray(m.tool_calls));
      if (withCalls.length === 0 || withCalls.some((m) => m.reasoning_content !== 'List the skills first.'))
        return {
          status: 400,
          body: JSON.stringify({
            error: {
              message: 'The `reasoning_content` in the thinking mode must be passed back to the API.',
              type: 'invalid_request_error',
              param: null,
              code: 'invalid_request_error',
            },
          }),
        };
      return {
        events: [chunk({ role: 'assistant', content: 'Nothing to save.' }), chunk({}, 'stop'), { data: '[DONE]' }],
      };
    };
    const server = await WireReplayServer.start(responder);
    servers.push(server);
    const provider = new OpenAICompatibleProvider({
      dialect: 'deepseek',
      apiKey: 'sk-test',
      baseUrl: server.url,
      retry: fastRetry,
    });
    const result = await runLearningReview({
      provider,
      request: { model: 'deepseek-reasoner', messages: conversation, thinking: 'low' },
      due: { memory: false, skills: true },
      store,
      userId: 'alice',
    });
    expect(result.ended).toBe('done');
    expect(server.requests).toHaveLength(2);
  });

  it('a review reply cut by the output limit runs none of its calls: each is answered with an error asking for it again', async () => {
    const chunk = (delta: Json, finish: string | null = null) => ({
      data: JSON.stringify({
        id: 'c',
        object: 'chat.completion.chunk',
        model: 'gpt-4.1',
        choices: [{ index: 0, delta, finish_reason: finish }],
      }),
    });
    const responder = (_req: RecordedRequest, index: number): ReplayResponse =>
      index === 0
        ? {
            events: [
              chunk({
                role: 'assistant',
                content: null,
                tool_calls: [
                  {
                    index: 0,
                    id: 'call_0',
                    type: 'function',
                    function: {
                      name: 'skill_manage',
                      arguments:
                        '{"operations":[{"op":"create","name":"subtitles","content":"---\\nname: subtitles\\ndescription: x\\n---\\nAlways',
                    },
                  },
                ],
              }),
              chunk({}, 'length'),
              { data: '[DONE]' },
            ],
          }
        : { events: [chunk({ role: 'assistant', content: 'Done.' }), chunk({}, 'stop'), { data: '[DONE]' }] };
    const server = await WireReplayServer.start(responder);
    servers.push(server);
    const provider = new OpenAICompatibleProvider({ baseUrl: server.url, retry: fastRetry });
    const result = await runLearningReview({
      provider,
      request: { model: 'gpt-4.1', messages: conversation },
      due: { memory: false, skills: true },
      store,
      userId: 'alice',
    });
    expect(result.writes).toBe(0);
    expect(await store.list('alice')).toEqual([]);
    const second = (server.requests[1]!.json as Json).messages as Array<Json>;
    const answer = second.find((m) => m.role === 'tool');
    expect(String(answer?.content)).toContain('TOOL_CALL_TRUNCATED');
  });
});
