/**
 * Peers benchmark child: the Vercel AI SDK (`ai` 6) — `generateText` with the five tools and a stop
 * condition (`stepCountIs`), on a minimal hand-written `LanguageModelV3` double (`doGenerate` answers a
 * turn whole). State lives in memory only: not durable.
 */
// @ts-ignore: installed on first use (bench/peers/node_modules); see the README
import type { generateText } from 'ai';
import { FILM_GOAL, FILM_RESULTS, filmTurn, filmUsage, toolName } from '../_add-a-film';
import { type FilmTally, serve } from './_child';
import { FILM_TOOL_IDS, FILM_ZOD } from './_film-zod';

// `ai` does not re-export its provider types; they are read off `generateText`'s `model` parameter.
type LanguageModelV3 = Extract<Parameters<typeof generateText>[0]['model'], { specificationVersion: 'v3' }>;
type CallOptions = Parameters<LanguageModelV3['doGenerate']>[0];
type GenerateResult = Awaited<ReturnType<LanguageModelV3['doGenerate']>>;

/** The model double: turn n = assistant messages in the prompt, answered whole. */
function filmModel(state: { tally: FilmTally }): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'bench',
    modelId: 'film',
    supportedUrls: {},
    doGenerate: async (options: CallOptions): Promise<GenerateResult> => {
      let assistants = 0;
      for (const m of options.prompt) if (m.role === 'assistant') assistants++;
      const turn = filmTurn(assistants);
      state.tally.turns++;
      const chars = JSON.stringify(options.prompt).length + JSON.stringify(options.tools ?? []).length;
      const usage = filmUsage(chars, turn);
      return {
        content: [
          { type: 'text', text: turn.text },
          ...(turn.call
            ? [
                {
                  type: 'tool-call' as const,
                  toolCallId: `call_${assistants}`,
                  toolName: toolName(turn.call.tool),
                  input: JSON.stringify(turn.call.input),
                },
              ]
            : []),
        ],
        finishReason: { unified: turn.call ? 'tool-calls' : 'stop', raw: undefined },
        usage: {
          inputTokens: { total: usage.inputTokens, noCache: usage.inputTokens, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: usage.outputTokens, text: usage.outputTokens, reasoning: 0 },
        },
        warnings: [],
      };
    },
    doStream: async () => {
      throw new Error('the add-a-film double answers whole (doGenerate)');
    },
  };
}

serve(async () => {
  // @ts-ignore: installed on first use (bench/peers/node_modules); see the README
  const { generateText: generate, stepCountIs, tool } = await import('ai');
  const state: { tally: FilmTally } = { tally: { turns: 0, toolCalls: 0, finalText: undefined } };
  const model = filmModel(state);
  const tools = Object.fromEntries(
    FILM_TOOL_IDS.map((id) => [
      toolName(id),
      tool({
        description: `${id} (benchmark: returns a fixed object).`,
        inputSchema: FILM_ZOD[id],
        execute: async () => {
          state.tally.toolCalls++;
          return FILM_RESULTS[id];
        },
      }),
    ]),
  );
  return {
    once: async () => {
      const tally: FilmTally = { turns: 0, toolCalls: 0, finalText: undefined };
      state.tally = tally;
      const result = await generate({ model, tools, prompt: FILM_GOAL, stopWhen: stepCountIs(10) });
      tally.finalText = result.text;
      return tally;
    },
    close: async () => {},
  };
});
