// Reasoning round trips per provider family, over real local HTTP: a two-user-turn conversation with
// tool calls against a server that refuses (with the provider's own error text) a request breaking the
// provider's documented replay rule. Each case names the public bug report it reproduces.
import { describe, expect, it } from 'vitest';
import { collectStream } from '../../src/models/complete';
import { OpenAICompatibleProvider } from '../../src/models/openai-compatible';
import type { OpenAIDialectName } from '../../src/models/openai-dialects';
import { WireReplayServer, type RecordedRequest, type ReplayResponse } from '../../src/models/replay-server';
import type { AssistantMessage, ModelMessage, ModelTool } from '../../src/models/types';
import { fastRetry, replayServers } from './helpers';

type Json = Record<string, unknown>;
type WireMessage = Json & { role: string; tool_calls?: Json[] };

const { track } = replayServers();

const lookup: ModelTool = {
  name: 'catalog.lookup',
  description: 'Look a title up',
  inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
};

/** One `chat.completion.chunk` SSE event. */
const chunk = (delta: Json, finish: string | null = null) => ({
  data: JSON.stringify({
    id: 'c',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finish }],
  }),
});
const done = { data: '[DONE]' };

/** A tool-call delta (one whole call), with extra fields merged into the call. */
const callDelta = (id: string, title: string, extra: Json = {}) => ({
  tool_calls: [
    {
      index: 0,
      id,
      type: 'function',
      function: { name: 'catalog_lookup', arguments: `{"title":"${title}"}` },
      ...extra,
    },
  ],
});

/** The server's scripted answers, by request index: a tool call, then a text answer, then a second tool call. */
interface Script {
  toolCall: (step: number) => ReplayResponse['events'];
  answer: () => ReplayResponse['events'];
}

/** A responder that refuses with `refusal` when `violates` finds a broken rule, else answers from the script. */
function responder(
  script: Script,
  violates: (messages: WireMessage[]) => ReplayResponse | undefined,
): (req: RecordedRequest, index: number) => ReplayResponse {
  return (req, index) => {
    const messages = (req.json as { messages: WireMessage[] }).messages;
    const refusal = violates(messages);
    if (refusal) return refusal;
    return { events: index === 1 ? script.answer() : script.toolCall(index) };
  };
}

/**
 * Runs "find Dune" (tool call, tool result, answer), then "and Part Two?" (a second user turn),
 * through the real provider, as the runtime would: each turn collected into an assistant message
 * and appended as it came.
 */
async function twoUserTurns(dialect: OpenAIDialectName, serve: ReturnType<typeof responder>) {
  const s = await WireReplayServer.start(serve);
  track(s);
  const p = new OpenAICompatibleProvider({ apiKey: 'sk-test-0123456789', baseUrl: s.url, dialect, retry: fastRetry });
  const messages: ModelMessage[] = [{ role: 'user', content: 'find Dune' }];
  const request = () => ({ model: 'm', messages: [...messages], tools: [lookup], thinking: 'medium' as const });
  const withResults = (m: AssistantMessage) => {
    messages.push(m);
    for (const part of m.content)
      if (part.type === 'tool_call')
        messages.push({ role: 'tool', toolCallId: part.id, name: part.name, status: 'ok', content: '{"id":"tt1"}' });
  };
  const first = await collectStream(p.stream(request()));
  withResults(first.message);
  const answer = await collectStream(p.stream(request()));
  messages.push(answer.message, { role: 'user', content: 'and Part Two?' });
  const second = await collectStream(p.stream(request()));
  return { s, first, answer, second, bodies: s.requests.map((r) => r.json as { messages: WireMessage[] } & Json) };
}

const assistants = (messages: WireMessage[]) => messages.filter((m) => m.role === 'assistant');

describe('DeepSeek thinking mode with tool calls (replay tool-calls)', () => {
  // earendil-works/pi#3636, continuedev/continue#9606: from the second user turn on, DeepSeek answers 400
  // because an earlier assistant tool-call message lost its reasoning_content.
  const script: Script = {
    toolCall: (step) => [
      chunk({ role: 'assistant', reasoning_content: `look it up ${step}` }),
      chunk(callDelta(`call_0${step}`, step === 0 ? 'Dune' : 'Dune Part Two')),
      chunk({}, 'tool_calls'),
      done,
    ],
    answer: () => [
      chunk({ reasoning_content: 'found it' }),
      chunk({ content: 'Dune (2021).' }),
      chunk({}, 'stop'),
      done,
    ],
  };
  const deepseekRule = (messages: WireMessage[]) => {
    // Every assistant message of a user turn that made a tool call must carry reasoning_content.
    let turn: WireMessage[] = [];
    const turns: WireMessage[][] = [];
    for (const m of messages) {
      if (m.role === 'user') {
        turns.push(turn);
        turn = [];
      } else if (m.role === 'assistant') turn.push(m);
    }
    turns.push(turn);
    const broken = turns.some(
      (t) => t.some((m) => m.tool_calls) && t.some((m) => typeof m.reasoning_content !== 'string'),
    );
    return broken
      ? {
          status: 400,
          body: JSON.stringify({
            error: {
              message: 'The `reasoning_content` in the thinking mode must be passed back to the API.',
              type: 'invalid_request_error',
              param: null,
              code: 'invalid_request_error',
            },
          }),
        }
      : undefined;
  };

  it('keeps reasoning_content on every assistant message of a tool-calling user turn, so the second user turn succeeds', async () => {
    const { s, second, bodies } = await twoUserTurns('deepseek', responder(script, deepseekRule));
    expect(s.requests).toHaveLength(3); // no refusal, no resend
    expect(second.stopReason).toBe('tool_use');
    const [call, answer] = assistants(bodies[2]!.messages);
    expect(call).toMatchObject({ reasoning_content: 'look it up 0', content: null });
    expect(answer).toMatchObject({ reasoning_content: 'found it', content: 'Dune (2021).' });
    expect(bodies[2]).toMatchObject({ thinking: { type: 'enabled' } });
  });

  it('sends an empty reasoning_content on a tool-call message whose reasoning was not captured (the field must be present)', () => {
    const p = new OpenAICompatibleProvider({ dialect: 'deepseek' });
    const body = p.buildBody({
      model: 'deepseek-v4-flash',
      tools: [lookup],
      messages: [
        { role: 'user', content: 'find Dune' },
        {
          role: 'assistant',
          content: [{ type: 'tool_call', id: 'c1', name: 'catalog.lookup', input: { title: 'Dune' } }],
        },
        { role: 'tool', toolCallId: 'c1', name: 'catalog.lookup', status: 'ok', content: '{}' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'chat' },
            { type: 'text', text: 'Dune.' },
          ],
        },
        { role: 'user', content: 'thanks' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'no tools here' },
            { type: 'text', text: 'ok' },
          ],
        },
        { role: 'user', content: 'bye' },
      ],
    }) as { messages: WireMessage[] };
    const [call, answer, chat] = assistants(body.messages);
    expect(call).toMatchObject({ reasoning_content: '' });
    expect(answer).toMatchObject({ reasoning_content: 'chat' });
    expect(chat).not.toHaveProperty('reasoning_content'); // a user turn without tool calls: ignored by DeepSeek, left out
  });
});

describe('Kimi K2 thinking (replay tool-calls)', () => {
  // mastra-ai/mastra#12592 (also CherryHQ/cherry-studio#12619): "thinking is enabled but reasoning_content is
  // missing in assistant tool call message at index 2".
  const script: Script = {
    toolCall: (step) => [
      chunk({ role: 'assistant', reasoning_content: `need the catalog ${step}` }),
      chunk(callDelta(`functions.catalog_lookup:${step}`, 'Dune')),
      chunk({}, 'tool_calls'),
      done,
    ],
    answer: () => [chunk({ reasoning_content: 'ok' }), chunk({ content: 'Found.' }), chunk({}, 'stop'), done],
  };
  const kimiRule = (messages: WireMessage[]) => {
    const index = messages.findIndex((m) => m.role === 'assistant' && m.tool_calls && !('reasoning_content' in m));
    return index < 0
      ? undefined
      : {
          status: 400,
          body: JSON.stringify({
            error: {
              message: `thinking is enabled but reasoning_content is missing in assistant tool call message at index ${index}`,
              type: 'invalid_request_error',
            },
          }),
        };
  };

  it('sends reasoning_content back on assistant tool-call messages in every later request', async () => {
    const { s, bodies } = await twoUserTurns('kimi', responder(script, kimiRule));
    expect(s.requests).toHaveLength(3);
    expect(assistants(bodies[2]!.messages)[0]).toMatchObject({ reasoning_content: 'need the catalog 0' });
    expect(bodies[0]).toMatchObject({ thinking: { type: 'enabled' } });
  });
});

describe('Gemini OpenAI-compatible endpoint (thought signatures on tool calls)', () => {
  // vercel/ai#11590 and cline/cline#7974: "Function call is missing a thought_signature in functionCall parts."
  const signature = (step: number) => `CrICAdHtim8${step}/sig==`;
  const script: Script = {
    toolCall: (step) => [
      chunk({ role: 'assistant' }),
      chunk(callDelta(`call_g${step}`, 'Dune', { extra_content: { google: { thought_signature: signature(step) } } })),
      chunk({}, 'tool_calls'),
      done,
    ],
    answer: () => [
      chunk({ content: 'Dune (2021).', extra_content: { google: { thought_signature: 'txt' } } }),
      chunk({}, 'stop'),
      done,
    ],
  };
  const geminiRule = (messages: WireMessage[]) => {
    // Strict validation on the current turn (after the last user message): every function call needs its signature.
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    const position = messages
      .slice(lastUser + 1)
      .flatMap((m) => m.tool_calls ?? [])
      .findIndex(
        (c) => typeof (c.extra_content as { google?: Json } | undefined)?.google?.thought_signature !== 'string',
      );
    return position < 0
      ? undefined
      : {
          status: 400,
          body: JSON.stringify([
            {
              error: {
                code: 400,
                message: `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:catalog_lookup\` , position ${position + 2}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
                status: 'INVALID_ARGUMENT',
              },
            },
          ]),
        };
  };

  it('keeps the signature on the tool call part and sends it back on the same call, never as reasoning', async () => {
    const { s, first, bodies } = await twoUserTurns('gemini', responder(script, geminiRule));
    expect(s.requests).toHaveLength(3);
    expect(first.message.content).toEqual([
      expect.objectContaining({ type: 'tool_call', id: 'call_g0', signature: signature(0) }),
    ]);
    for (const body of bodies.slice(1)) {
      const call = assistants(body.messages)[0]!.tool_calls![0]!;
      expect(call).toMatchObject({ id: 'call_g0', extra_content: { google: { thought_signature: signature(0) } } });
    }
    expect(JSON.stringify(bodies)).not.toContain('reasoning_content');
    expect(bodies[0]).toMatchObject({ reasoning_effort: 'medium' });
  });
});

describe('OpenRouter (reasoning_details back as received)', () => {
  // karthink/gptel#1190, microsoft/agent-framework#2947: "Gemini models require OpenRouter reasoning details
  // to be preserved in each request."
  const details = (step: number) => [
    [{ type: 'reasoning.text', text: 'Look ', format: 'google-gemini-v1', index: 0 }],
    [{ type: 'reasoning.text', text: `it up ${step}`, format: 'google-gemini-v1', index: 0 }],
    [{ type: 'reasoning.encrypted', data: `ENC${step}==`, id: `tool_or${step}`, format: 'google-gemini-v1', index: 1 }],
  ];
  const script: Script = {
    toolCall: (step) => [
      chunk({ role: 'assistant', reasoning: 'Look ', reasoning_details: details(step)[0] }),
      chunk({ reasoning: `it up ${step}`, reasoning_details: details(step)[1] }),
      chunk({ reasoning_details: details(step)[2] }),
      chunk(callDelta(`tool_or${step}`, 'Dune')),
      chunk({}, 'tool_calls'),
      done,
    ],
    answer: () => [chunk({ content: 'Dune (2021).' }), chunk({}, 'stop'), done],
  };
  const openrouterRule = (messages: WireMessage[]) => {
    const expected = JSON.stringify(details(0).flat());
    const call = messages.find((m) => m.role === 'assistant' && m.tool_calls);
    if (!call || JSON.stringify(call.reasoning_details) === expected) return undefined;
    return {
      status: 400,
      body: JSON.stringify({
        error: {
          message: 'Provider returned error',
          code: 400,
          metadata: {
            raw: 'Gemini models require OpenRouter reasoning details to be preserved in each request. Please refer to our docs: https://openrouter.ai/docs/guides/best-practices/reasoning-tokens#preserving-reasoning-blocks.',
            provider_name: 'Google AI Studio',
          },
        },
      }),
    };
  };

  it('stores the reasoning_details items verbatim on the thinking part and sends them back unmodified', async () => {
    const { s, first, bodies } = await twoUserTurns('openrouter', responder(script, openrouterRule));
    expect(s.requests).toHaveLength(3);
    expect(first.message.content[0]).toEqual({
      type: 'thinking',
      thinking: 'Look it up 0',
      details: details(0).flat(),
    });
    expect(assistants(bodies[2]!.messages)[0]).toMatchObject({ reasoning_details: details(0).flat() });
    expect(JSON.stringify(bodies)).not.toContain('reasoning_content');
    expect(bodies[0]).toMatchObject({ reasoning: { effort: 'medium' } });
  });
});

describe('Groq (reasoning never sent back)', () => {
  // NousResearch/hermes-agent#11089: "'messages.4' : for 'role:assistant' the following must be
  // satisfied[('messages.4' : property 'reasoning_content' is unsupported)]".
  const script: Script = {
    toolCall: (step) => [
      chunk({ role: 'assistant', reasoning: `think ${step}` }),
      chunk(callDelta(`call_q${step}`, 'Dune')),
      chunk({}, 'tool_calls'),
      done,
    ],
    answer: () => [chunk({ reasoning: 'ok' }), chunk({ content: 'Found.' }), chunk({}, 'stop'), done],
  };
  const groqRule = (messages: WireMessage[]) => {
    const i = messages.findIndex((m) => m.role === 'assistant' && ('reasoning_content' in m || 'reasoning' in m));
    return i < 0
      ? undefined
      : {
          status: 400,
          body: JSON.stringify({
            error: {
              message: `'messages.${i}' : for 'role:assistant' the following must be satisfied[('messages.${i}' : property 'reasoning_content' is unsupported)]`,
              type: 'invalid_request_error',
            },
          }),
        };
  };

  it('keeps the reasoning in the conversation but never puts it on the wire, with no refusal and no resend', async () => {
    const { s, first, bodies } = await twoUserTurns('groq', responder(script, groqRule));
    expect(s.requests).toHaveLength(3);
    expect(first.message.content[0]).toEqual({ type: 'thinking', thinking: 'think 0' });
    expect(bodies[0]).toMatchObject({ reasoning_effort: 'medium', include_reasoning: true });
  });
});

describe('Mistral Magistral (thinking content parts back)', () => {
  // vercel/ai#8072 (Magistral's `thinking` content type); Mistral refuses unknown fields such as
  // reasoning_content (422 "Extra inputs are not permitted").
  const script: Script = {
    toolCall: (step) => [
      chunk({ role: 'assistant', content: [{ type: 'thinking', thinking: [{ type: 'text', text: `plan ${step}` }] }] }),
      chunk(callDelta(`abcDEF12${step}`, 'Dune')),
      chunk({}, 'tool_calls'),
      done,
    ],
    answer: () => [
      chunk({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'done' }] }] }),
      chunk({ content: 'Dune (2021).' }),
      chunk({}, 'stop'),
      done,
    ],
  };
  const mistralRule = (messages: WireMessage[]) => {
    const i = messages.findIndex((m) => 'reasoning_content' in m);
    return i < 0
      ? undefined
      : {
          status: 422,
          body: JSON.stringify({
            object: 'error',
            message: {
              detail: [
                {
                  type: 'extra_forbidden',
                  loc: ['body', 'messages', i, 'assistant', 'reasoning_content'],
                  msg: 'Extra inputs are not permitted',
                },
              ],
            },
            type: 'invalid_request_message_error',
          }),
        };
  };

  it('sends each assistant message back with its thinking chunks and text in model order', async () => {
    const { s, bodies } = await twoUserTurns('mistral', responder(script, mistralRule));
    expect(s.requests).toHaveLength(3);
    const [call, answer] = assistants(bodies[2]!.messages);
    expect(call!.content).toEqual([{ type: 'thinking', thinking: [{ type: 'text', text: 'plan 0' }] }]);
    expect(answer!.content).toEqual([
      { type: 'thinking', thinking: [{ type: 'text', text: 'done' }] },
      { type: 'text', text: 'Dune (2021).' },
    ]);
    expect(bodies[0]).not.toHaveProperty('stream_options');
  });
});

describe('GLM (preserved thinking: every reasoning_content back)', () => {
  // Z.AI "Thinking Mode": with clear_thinking false, all earlier reasoning goes back complete and unmodified.
  const script: Script = {
    toolCall: (step) => [
      chunk({ role: 'assistant', reasoning_content: `glm ${step}` }),
      chunk(callDelta(`call_z${step}`, 'Dune')),
      chunk({}, 'tool_calls'),
      done,
    ],
    answer: () => [chunk({ reasoning_content: 'answer' }), chunk({ content: 'Found.' }), chunk({}, 'stop'), done],
  };
  const glmRule = (messages: WireMessage[]) =>
    assistants(messages).some((m) => typeof m.reasoning_content !== 'string')
      ? {
          status: 400,
          body: JSON.stringify({ error: { code: '1214', message: 'reasoning_content must be preserved' } }),
        }
      : undefined;

  it('asks for preserved thinking and sends back the reasoning of every assistant message', async () => {
    const { s, bodies } = await twoUserTurns('glm', responder(script, glmRule));
    expect(s.requests).toHaveLength(3);
    expect(assistants(bodies[2]!.messages).map((m) => m.reasoning_content)).toEqual(['glm 0', 'answer']);
    expect(bodies[0]).toMatchObject({ thinking: { type: 'enabled', clear_thinking: false } });
  });
});
