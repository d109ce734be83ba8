/**
 * Peers benchmark child: the OpenAI Agents SDK (`@openai/agents` 0.14) — an `Agent` with the five
 * function tools run by a `Runner` with tracing disabled, on a minimal hand-written `Model` double
 * (`getResponse` answers a turn whole). State lives in memory only: not durable.
 */
import type { Model, ModelRequest, ModelResponse } from '@openai/agents';
import { z } from 'zod';
import { type FilmTool, FILM_GOAL, FILM_RESULTS, filmTurn, filmUsage, toolName } from '../_add-a-film';
import { type FilmTally, serve } from './_child';
import { FILM_TOOL_IDS, FILM_ZOD } from './_film-zod';

// The SDK takes zod parameters in strict mode only, where an optional field is a required nullable one.
const STRICT: Partial<Record<FilmTool, z.ZodObject>> = {
  'catalog.lookup': z.object({ query: z.string(), limit: z.number().int().nullable() }),
  'release.search': z.object({ mediaSource: z.string(), mediaId: z.string(), limit: z.number().int().nullable() }),
};

serve(async () => {
  const { Agent, Runner, Usage, setTracingDisabled, tool } = await import('@openai/agents');
  setTracingDisabled(true);
  let tally: FilmTally = { turns: 0, toolCalls: 0, finalText: undefined };

  /** The model double: turn n = assistant messages in the input, answered whole. */
  const model: Model = {
    getResponse: async (request: ModelRequest): Promise<ModelResponse> => {
      let assistants = 0;
      if (typeof request.input !== 'string')
        for (const item of request.input) if ('role' in item && item.role === 'assistant') assistants++;
      const turn = filmTurn(assistants);
      tally.turns++;
      const chars = JSON.stringify(request.input).length + JSON.stringify(request.tools).length;
      const usage = filmUsage(chars, turn);
      const output: ModelResponse['output'] = [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: turn.text }],
        },
      ];
      if (turn.call)
        output.push({
          type: 'function_call',
          callId: `call_${assistants}`,
          name: toolName(turn.call.tool),
          arguments: JSON.stringify(turn.call.input),
          status: 'completed',
        });
      return {
        usage: new Usage({
          requests: 1,
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          totalTokens: usage.inputTokens + usage.outputTokens,
        }),
        output,
      };
    },
    getStreamedResponse: () => {
      throw new Error('the add-a-film double answers whole (getResponse)');
    },
  };
  const agent = new Agent({
    name: 'film',
    instructions: 'Add films to the library.',
    model,
    tools: FILM_TOOL_IDS.map((id) =>
      tool({
        name: toolName(id),
        description: `${id} (benchmark: returns a fixed object).`,
        parameters: STRICT[id] ?? FILM_ZOD[id],
        execute: async () => {
          tally.toolCalls++;
          return FILM_RESULTS[id];
        },
      }),
    ),
  });
  const runner = new Runner({ tracingDisabled: true });
  return {
    once: async () => {
      tally = { turns: 0, toolCalls: 0, finalText: undefined };
      const own = tally;
      const result = await runner.run(agent, FILM_GOAL, { maxTurns: 10 });
      own.finalText = result.finalOutput;
      return own;
    },
    close: async () => {},
  };
});
