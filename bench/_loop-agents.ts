/**
 * The add-a-film workload (`_add-a-film.ts`) on `@openai/agents`, for `npm run bench -- loop`: a
 * `Runner` with tracing disabled, the five tools as function tools with the same trivial handlers, no
 * approvals (the counterpart of our standing grant), and {@link FilmAgentsModel}, the same minimal
 * whole-turn double as our `FilmModel`: turn n = the assistant messages already in the request, answered
 * in one `getResponse` (no streaming), no request copies, token usage by `filmUsage`.
 *
 * Everything lives in memory: a run killed mid-way is lost with its process.
 */
import { z } from 'zod';
import { Agent, Runner, tool, Usage, type Model, type ModelRequest, type ModelResponse } from '@openai/agents';
import { RUNTIME_SYSTEM_PROMPT } from '../packages/sdk/src/runtime/system-prompt';
import {
  FILM_FINAL_TEXT,
  FILM_GOAL,
  FILM_RESULTS,
  FILM_TOOL_CALLS,
  FILM_TURNS,
  filmTurn,
  filmUsage,
  toolName,
} from './_add-a-film';
import { FILM_CAPABILITIES } from './_add-a-film-ours';

/** The workload's tool inputs for the SDK (strict mode: optional fields are required nullable ones). */
const FILM_AGENTS_ZOD = {
  'catalog.lookup': z.object({ query: z.string(), limit: z.number().int().nullable() }),
  'release.search': z.object({ mediaSource: z.string(), mediaId: z.string(), limit: z.number().int().nullable() }),
  'download.plan': z.object({ mediaSource: z.string(), mediaId: z.string(), releaseId: z.string() }),
  'download.submit': z.object({ planId: z.string() }),
  'download.status': z.object({ downloadId: z.string() }),
} as const;

/** The minimal `@openai/agents` model double: turn n = assistant messages so far, answered whole. */
export class FilmAgentsModel implements Model {
  /** Model calls answered (each is one turn). */
  calls = 0;

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.calls++;
    const input = typeof request.input === 'string' ? [] : request.input;
    let assistants = 0;
    for (const item of input) if ('role' in item && item.role === 'assistant') assistants++;
    const turn = filmTurn(assistants);
    const output: ModelResponse['output'] = [
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        id: `msg_${assistants}`,
        content: [{ type: 'output_text', text: turn.text }],
      },
    ];
    if (turn.call)
      output.push({
        type: 'function_call',
        id: `fc_${assistants}`,
        callId: `call_${assistants}`,
        name: toolName(turn.call.tool),
        arguments: JSON.stringify(turn.call.input),
        status: 'completed',
      });
    const chars = JSON.stringify(request.input).length + JSON.stringify(request.tools).length;
    const { inputTokens, outputTokens } = filmUsage(chars, turn);
    return {
      usage: new Usage({ requests: 1, inputTokens, outputTokens, totalTokens: inputTokens + outputTokens }),
      output,
      responseId: `resp_${assistants}`,
    };
  }

  getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the add-a-film double answers whole turns (run without stream: true)');
  }
}

/** The workload on a `Runner`: `once()` runs it once; `check(runs)` verifies every run since `reset()` played it all. */
export interface FilmAgents {
  once: () => Promise<void>;
  reset: () => void;
  check: (runs: number) => void;
}

/** Builds the `@openai/agents` side (call `setTracingDisabled(true)` first). */
export function filmAgents(): FilmAgents {
  let toolCalls = 0;
  let lastFinal: unknown;
  const model = new FilmAgentsModel();
  const tools = FILM_CAPABILITIES.map((c) =>
    tool({
      name: toolName(c.id as keyof typeof FILM_RESULTS),
      description: c.description,
      // Validated like the other sides (ours: TypeBox): zod in the SDK's strict mode, where an optional field is a
      // required nullable one.
      parameters: FILM_AGENTS_ZOD[c.id as keyof typeof FILM_RESULTS],
      strict: true,
      execute: async () => {
        toolCalls++;
        return FILM_RESULTS[c.id as keyof typeof FILM_RESULTS];
      },
    }),
  );
  const agent = new Agent({ name: 'bench', instructions: RUNTIME_SYSTEM_PROMPT, model, tools });
  const runner = new Runner({ tracingDisabled: true });
  return {
    once: async () => {
      const result = await runner.run(agent, FILM_GOAL, { maxTurns: FILM_TURNS + 1 });
      lastFinal = result.finalOutput;
    },
    reset: () => {
      toolCalls = 0;
      model.calls = 0;
    },
    check: (runs) => {
      if (lastFinal !== FILM_FINAL_TEXT || toolCalls !== runs * FILM_TOOL_CALLS || model.calls !== runs * FILM_TURNS)
        throw new Error(
          `@openai/agents: final output ${JSON.stringify(lastFinal)}, ${toolCalls} tool calls and ${model.calls} model calls in ${runs} runs`,
        );
    },
  };
}
