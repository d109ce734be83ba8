// A host whose model is a real HTTP provider (OpenAI-compatible or Anthropic, over undici) pointed at
// a local replay server, with SQLite storage in a temp directory and the tiny world of the harness.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsoleLogger, createAgentHost, ManualClock, type AgentHost, type RunOptions } from '../../src/index';
import { AnthropicProvider, OpenAICompatibleProvider } from '../../src/models';
import { SqliteStorage } from '../../src/sqlite';
import { transcriptEvents, WireReplayServer, type RecordedRequest, type ReplayResponse } from '../../src/testing';
import { makeWorld } from './harness';

/** What a test started; {@link closeWireHosts} stops all of it. */
const started: { hosts: AgentHost[]; servers: WireReplayServer[]; dirs: string[] } = {
  hosts: [],
  servers: [],
  dirs: [],
};

/** Stops every host and server {@link wireHost} started, and removes their directories. */
export async function closeWireHosts(): Promise<void> {
  for (const h of started.hosts.splice(0)) await h.stop().catch(() => undefined);
  await Promise.all(started.servers.splice(0).map((s) => s.close()));
  for (const d of started.dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** An OpenAI-compatible stream chunk. */
export const chunk = (delta: object, finish: string | null = null, extra: object = {}) => ({
  id: 'chatcmpl-own',
  object: 'chat.completion.chunk',
  created: 1770000000,
  model: 'own-model',
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});

/** An OpenAI-compatible reply: optional text, tool calls (name and raw argument text), a finish reason, optional usage. */
export function openaiReply(reply: {
  text?: string;
  calls?: Array<{ name: string; args: string }>;
  finish: string;
  promptTokens?: number;
}): ReplayResponse {
  const lines: object[] = [chunk({ role: 'assistant', ...(reply.text ? { content: reply.text } : {}) })];
  if (reply.calls?.length)
    lines.push(
      chunk({
        tool_calls: reply.calls.map((c, index) => ({
          index,
          id: `call_wire_${index}`,
          type: 'function',
          function: { name: c.name, arguments: c.args },
        })),
      }),
    );
  lines.push(chunk({}, reply.finish));
  if (reply.promptTokens !== undefined)
    lines.push({
      ...chunk({}),
      choices: [],
      usage: { prompt_tokens: reply.promptTokens, completion_tokens: 20, total_tokens: reply.promptTokens + 20 },
    });
  return { events: transcriptEvents(lines.map((l) => JSON.stringify(l)).join('\n'), 'openai') };
}

/** An Anthropic Messages stream: optional text, tool_use blocks (raw input JSON pieces), a stop reason. */
export function anthropicReply(reply: {
  text?: string;
  calls?: Array<{ name: string; input: string[] }>;
  stop: string;
  inputTokens?: number;
}): ReplayResponse {
  const lines: object[] = [
    {
      type: 'message_start',
      message: {
        id: 'msg_wire',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: reply.inputTokens ?? 0, output_tokens: 1 },
      },
    },
  ];
  let index = 0;
  if (reply.text) {
    lines.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    lines.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: reply.text } });
    lines.push({ type: 'content_block_stop', index });
    index++;
  }
  for (const call of reply.calls ?? []) {
    lines.push({
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: `toolu_wire_${index}`, name: call.name, input: {} },
    });
    for (const piece of call.input)
      lines.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
    lines.push({ type: 'content_block_stop', index });
    index++;
  }
  lines.push({
    type: 'message_delta',
    delta: { stop_reason: reply.stop, stop_sequence: null },
    usage: { output_tokens: 40 },
  });
  lines.push({ type: 'message_stop' });
  return { events: transcriptEvents(lines.map((l) => JSON.stringify(l)).join('\n'), 'anthropic') };
}

/**
 * Starts a host over a replay server.
 * @param responses - the server's answers in order (the last repeats), or a function of the request
 * @param options - the provider family, run options
 */
export async function wireHost(
  responses: ReplayResponse[] | ((req: RecordedRequest, index: number) => ReplayResponse),
  options: { provider?: 'openai' | 'anthropic'; runs?: RunOptions; maxTokens?: number } = {},
) {
  const server = await WireReplayServer.start(responses);
  started.servers.push(server);
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-wire-'));
  started.dirs.push(dir);
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const world = makeWorld(clock);
  const provider =
    options.provider === 'anthropic'
      ? new AnthropicProvider({ baseUrl: server.url, apiKey: 'sk-ant-test-0123456789', retry: { maxAttempts: 1 } })
      : new OpenAICompatibleProvider({ baseUrl: server.url, apiKey: 'sk-test-0123456789', retry: { maxAttempts: 1 } });
  const host = createAgentHost({
    storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
    clock,
    logger: new ConsoleLogger('silent'),
    model: {
      provider,
      model: options.provider === 'anthropic' ? 'claude-sonnet-4-5' : 'own-model',
      ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}),
    },
    goalFacts: world.facts,
    runs: { pollMs: 5, leaseMs: 60_000, refusedTurnPauseMs: 1, ...options.runs },
  });
  for (const c of world.capabilities) host.capabilities.register(c);
  started.hosts.push(host);
  return { host, server, world, clock, provider, start: () => host.start() };
}
