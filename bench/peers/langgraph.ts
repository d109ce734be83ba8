/**
 * Peers benchmark child: LangGraph (`@langchain/langgraph` 1.x) — the prebuilt `createReactAgent` with
 * the five tools and a `SqliteSaver` checkpointer on a real file (better-sqlite3, WAL; a checkpoint per
 * step): durable. Each run is a new thread. The model double is a minimal `BaseChatModel` whose
 * `_generate` answers a turn whole.
 */
import { join } from 'node:path';
// @ts-ignore: installed on first use (bench/peers/node_modules); see the README
import type { BaseMessage } from '@langchain/core/messages';
// @ts-ignore: installed on first use (bench/peers/node_modules); see the README
import type { ChatResult } from '@langchain/core/outputs';
import { FILM_GOAL, FILM_RESULTS, FILM_TOOL_CALLS, FILM_TURNS, filmTurn, filmUsage, toolName } from '../_add-a-film';
import { type FilmTally, serve } from './_child';
import { FILM_TOOL_IDS, FILM_ZOD } from './_film-zod';

serve(async (dir) => {
  // @ts-ignore: installed on first use (bench/peers/node_modules); see the README
  const { BaseChatModel } = await import('@langchain/core/language_models/chat_models');
  // @ts-ignore: installed on first use (bench/peers/node_modules); see the README
  const { AIMessage } = await import('@langchain/core/messages');
  // @ts-ignore: installed on first use (bench/peers/node_modules); see the README
  const { tool } = await import('@langchain/core/tools');
  // @ts-ignore: installed on first use (bench/peers/node_modules); see the README
  const { createReactAgent } = await import('@langchain/langgraph/prebuilt');
  // @ts-ignore: installed on first use (bench/peers/node_modules); see the README
  const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite');
  let tally: FilmTally = { turns: 0, toolCalls: 0, finalText: undefined };

  /** The model double: turn n = AI messages in the request, answered whole. */
  class FilmChat extends BaseChatModel {
    _llmType(): string {
      return 'bench-film';
    }
    constructor() {
      super({});
    }
    async _generate(messages: BaseMessage[]): Promise<ChatResult> {
      let assistants = 0;
      for (const m of messages) if (m.getType() === 'ai') assistants++;
      const turn = filmTurn(assistants);
      tally.turns++;
      const usage = filmUsage(JSON.stringify(messages).length, turn);
      const message = new AIMessage({
        content: turn.text,
        tool_calls: turn.call
          ? [{ id: `call_${assistants}`, name: toolName(turn.call.tool), args: turn.call.input, type: 'tool_call' }]
          : [],
        usage_metadata: {
          input_tokens: usage.inputTokens,
          output_tokens: usage.outputTokens,
          total_tokens: usage.inputTokens + usage.outputTokens,
        },
      });
      return { generations: [{ text: turn.text, message }] };
    }
  }

  const checkpointer = SqliteSaver.fromConnString(join(dir, 'langgraph.sqlite'));
  const tools = FILM_TOOL_IDS.map((id) =>
    tool(
      async () => {
        tally.toolCalls++;
        return FILM_RESULTS[id];
      },
      { name: toolName(id), description: `${id} (benchmark: returns a fixed object).`, schema: FILM_ZOD[id] },
    ),
  );
  // The double takes the tools as they are (createReactAgent binds them to the model).
  const llm = new FilmChat();
  Object.assign(llm, { bindTools: () => llm });
  const agent = createReactAgent({ llm, tools, checkpointer });
  let runs = 0;
  let lastThread = '';
  return {
    once: async () => {
      tally = { turns: 0, toolCalls: 0, finalText: undefined };
      const own = tally;
      lastThread = `film-${++runs}`;
      const state = await agent.invoke(
        { messages: [{ role: 'user', content: FILM_GOAL }] },
        { configurable: { thread_id: lastThread }, recursionLimit: 50 },
      );
      const final = state.messages[state.messages.length - 1];
      own.finalText = typeof final?.content === 'string' ? final.content : undefined;
      return own;
    },
    // The run is in the database: its last checkpoint holds the goal, 6 model turns and 5 tool results.
    check: async () => {
      const saved = await checkpointer.getTuple({ configurable: { thread_id: lastThread } });
      const messages = (saved?.checkpoint.channel_values as { messages?: unknown[] } | undefined)?.messages;
      if (messages?.length !== 1 + FILM_TURNS + FILM_TOOL_CALLS)
        throw new Error(`the last checkpoint of ${lastThread} holds ${messages?.length} messages`);
    },
    close: async () => {
      checkpointer.db.close();
    },
  };
});
