/**
 * Peers benchmark child: Mastra (`@mastra/core` 0.24) — an `Agent` with the five tools and `Memory`
 * (`@mastra/memory`) on a `LibSQLStore` file (`@mastra/libsql`): each run is a new thread whose messages
 * (the goal, the model turns, the tool calls and results) are saved in the database. With `savePerStep: true`
 * (set: its most durable standard setting) each step's messages are queued for saving with a 100 ms debounce,
 * so with real model turns a run killed half-way keeps its earlier steps; with this benchmark's fast turns the
 * debounce has not fired before the run ends, so here they are written when the run ends. The model double is a minimal hand-written `LanguageModelV2` (Mastra's agent loop
 * streams, so `doStream` emits a turn's parts all at once; `doGenerate` answers whole).
 */
import { join } from 'node:path';
// @ts-ignore: installed on first use (bench/peers/node_modules); see the README
import type { LanguageModelV2, LanguageModelV2StreamPart } from '@ai-sdk/provider-v5';
import {
  FILM_GOAL,
  FILM_RESULTS,
  FILM_TOOL_CALLS,
  FILM_TURNS,
  type FilmTurn,
  filmTurn,
  filmUsage,
  toolName,
} from '../_add-a-film';
import { type FilmTally, serve } from './_child';
import { FILM_TOOL_IDS, FILM_ZOD } from './_film-zod';

/** What the double reads of a call (a part of `LanguageModelV2CallOptions`). */
interface CallOptions {
  prompt: ReadonlyArray<{ role: string }>;
  tools?: unknown;
}
/** What the double answers (parts of `LanguageModelV2Content`). */
type Content =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: string };

serve(async (dir) => {
  // @ts-ignore: installed on first use (bench/peers/node_modules); see the README
  const { Agent } = await import('@mastra/core/agent');
  // @ts-ignore: installed on first use (bench/peers/node_modules); see the README
  const { createTool } = await import('@mastra/core/tools');
  // @ts-ignore: installed on first use (bench/peers/node_modules); see the README
  const { LibSQLStore } = await import('@mastra/libsql');
  // @ts-ignore: installed on first use (bench/peers/node_modules); see the README
  const { Memory } = await import('@mastra/memory');
  let tally: FilmTally = { turns: 0, toolCalls: 0, finalText: undefined };

  /** Turn n = assistant messages in the prompt; the parts of its answer and its usage. */
  const answer = (options: CallOptions) => {
    let assistants = 0;
    for (const m of options.prompt) if (m.role === 'assistant') assistants++;
    const turn: FilmTurn = filmTurn(assistants);
    tally.turns++;
    const chars = JSON.stringify(options.prompt).length + JSON.stringify(options.tools ?? []).length;
    const u = filmUsage(chars, turn);
    const content: Content[] = [{ type: 'text', text: turn.text }];
    if (turn.call)
      content.push({
        type: 'tool-call',
        toolCallId: `call_${assistants}`,
        toolName: toolName(turn.call.tool),
        input: JSON.stringify(turn.call.input),
      });
    return {
      content,
      finishReason: turn.call ? ('tool-calls' as const) : ('stop' as const),
      usage: { inputTokens: u.inputTokens, outputTokens: u.outputTokens, totalTokens: u.inputTokens + u.outputTokens },
      warnings: [],
    };
  };
  const model: LanguageModelV2 = {
    specificationVersion: 'v2',
    provider: 'bench',
    modelId: 'film',
    supportedUrls: {},
    doGenerate: async (options: CallOptions) => answer(options),
    doStream: async (options: CallOptions) => {
      const { content, finishReason, usage } = answer(options);
      const parts: LanguageModelV2StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      for (const c of content)
        if (c.type === 'text')
          parts.push(
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: c.text },
            { type: 'text-end', id: 't' },
          );
        else if (c.type === 'tool-call') parts.push(c);
      parts.push({ type: 'finish', finishReason, usage });
      const stream = new ReadableStream<LanguageModelV2StreamPart>({
        start(controller) {
          for (const p of parts) controller.enqueue(p);
          controller.close();
        },
      });
      return { stream };
    },
  };

  const memory = new Memory({
    storage: new LibSQLStore({ url: `file:${join(dir, 'mastra.db')}` }),
    options: {
      lastMessages: 20,
      semanticRecall: false,
      workingMemory: { enabled: false },
      threads: { generateTitle: false },
    },
  });
  const tools = Object.fromEntries(
    FILM_TOOL_IDS.map((id) => [
      toolName(id),
      createTool({
        id: toolName(id),
        description: `${id} (benchmark: returns a fixed object).`,
        inputSchema: FILM_ZOD[id],
        execute: async () => {
          tally.toolCalls++;
          return FILM_RESULTS[id];
        },
      }),
    ]),
  );
  const agent = new Agent({ name: 'film', instructions: 'Add films to the library.', model, tools, memory });
  let runs = 0;
  let lastThread = '';
  return {
    once: async () => {
      tally = { turns: 0, toolCalls: 0, finalText: undefined };
      const own = tally;
      lastThread = `film-${++runs}`;
      const result = await agent.generate(FILM_GOAL, {
        memory: { thread: lastThread, resource: 'user:admin' },
        maxSteps: 10,
        // Its most durable standard setting: each step's messages are queued for saving (debounced 100 ms).
        savePerStep: true,
      });
      // `result.text` joins every step's text; the final text is the last step's.
      own.finalText = result.steps[result.steps.length - 1]?.text;
      return own;
    },
    // The run is in the database: its thread holds the goal, 6 texts, 5 tool calls and their 5 results.
    check: async () => {
      const { messages } = await memory.query({ threadId: lastThread, resourceId: 'user:admin' });
      const results = messages.filter((m: { role: string }) => m.role === 'tool').length;
      if (messages.length !== 1 + FILM_TURNS + 2 * FILM_TOOL_CALLS || results !== FILM_TOOL_CALLS)
        throw new Error(`thread ${lastThread} holds ${messages.length} messages, ${results} tool results`);
    },
    close: async () => {},
  };
});
