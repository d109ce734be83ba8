// Anthropic thinking blocks through the real runtime: AnthropicProvider over undici against a local
// Messages-wire server, SQLite storage, a host stopped mid-run and another host resuming it. The server
// refuses (400, the API's wording) any request whose assistant turn does not carry every thinking and
// redacted_thinking block back byte-identical and in place.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, ManualClock } from '../../src/index';
import { AnthropicProvider } from '../../src/models';
import { SqliteStorage } from '../../src/sqlite';
import { WireReplayServer, type RecordedRequest, type ReplayResponse } from '../../src/testing';
import {
  anthropicText,
  anthropicTurn,
  queryCall,
  redactedBlock,
  refuseAlteredThinking,
  thinkingBlock,
} from '../models/thinking-wire';
import { closedAfterEach, makeWorld, waitForStatus } from './harness';

const { hosts, servers, dirs } = closedAfterEach<WireReplayServer>();

const thinkingA = thinkingBlock(
  'The user wants Dune downloaded. First check whether it is already in the library.',
  'EqQBCkYIBRgCIkBlz3m0Q1Zx9pJ5vX2m7kq8wRr1cHh0yT6sD4aN3fB2gE5iL9uV0oP8jK7mC6xZ1bA3nS4dQ2wE5rT6yU7iI8oEgxRuntimeSigA',
);
const thinkingB = thinkingBlock(
  'A library query is read-only, so it needs no approval.',
  'EpUBCkYIBRgCIkCsecond9Kq2xW8vN3mB5lJ7hG1fD4sA6pO0iU9yT2rE8wQ3zX5cV7bN1mL4kJ6hG8fD0sA2pO4iU6yT8rE0wQEgxRuntimeSigB',
);
const redacted = redactedBlock;
const thinkingC = thinkingBlock(
  'Also check Part Two.',
  'ErcBCkYIBRgCIkAthird1Qz3xW5vN7mB9lJ1hG3fD5sA7pO9iU1yT3rE5wQ7zX9cV1bN3mL5kJ7hG9fD1sA3pO5iU7yT9rE1wQEgxRuntimeSigC',
);
const query = queryCall;

/** Index in `messages` of the first assistant turn of a request body. */
const assistantAt = (body: unknown) =>
  (body as { messages: Array<{ role: string }> }).messages.findIndex((m) => m.role === 'assistant');

async function hostOn(dbFile: string, server: WireReplayServer, clock: ManualClock) {
  const world = makeWorld(clock);
  const host = createAgentHost({
    storage: new SqliteStorage({ path: dbFile }),
    clock,
    logger: new ConsoleLogger('silent'),
    model: {
      provider: new AnthropicProvider({
        apiKey: 'sk-ant-test-0123456789',
        baseUrl: server.url,
        retry: { maxAttempts: 1 },
        betas: ['interleaved-thinking-2025-05-14'],
      }),
      model: 'claude-sonnet-4-5',
      thinking: 'medium',
    },
    goalFacts: world.facts,
    runs: { pollMs: 5, leaseMs: 60_000 },
  });
  for (const c of world.capabilities) host.capabilities.register(c);
  await host.start();
  hosts.push(host);
  return { host, world };
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('Anthropic thinking blocks through the runtime (SQLite, host restart)', () => {
  // simonw/llm-anthropic#81 (consecutive thinking blocks merged, redacted_thinking lost) and
  // NousResearch/hermes-agent#35975 (interleaved thinking moved): the stored turn must be sent back as it came.
  it.each([
    {
      name: 'two thinking blocks, a redacted_thinking block, then a tool call',
      blocks: [thinkingA, thinkingB, redacted, query('toolu_01A', 'Dune')],
    },
    {
      name: 'interleaved: thinking, tool call, thinking, tool call',
      blocks: [thinkingA, query('toolu_01A', 'Dune'), thinkingC, query('toolu_01B', 'Dune: Part Two')],
    },
  ])(
    '$name: every block is its own part and goes back byte-identical, before and after a host restart',
    async ({ blocks }) => {
      const refusals: string[] = [];
      const server = await WireReplayServer.start((req: RecordedRequest, index: number): ReplayResponse => {
        if (index === 0) return { events: anthropicTurn(blocks) };
        const refused = refuseAlteredThinking(req.json, assistantAt(req.json), blocks);
        if (refused) {
          refusals.push(refused.body ?? '');
          return refused;
        }
        // The first host's follow-up call hangs until that host stops; the next host's call gets the answer.
        return index === 1
          ? { events: anthropicText('Dune is in the library.').events ?? [], stallAfterEvents: 1 }
          : anthropicText('Dune is in the library.');
      });
      servers.push(server);
      const dir = mkdtempSync(join(tmpdir(), 'media-agent-thinking-'));
      dirs.push(dir);
      const dbFile = join(dir, 'agent.sqlite');
      const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));

      const a = await hostOn(dbFile, server, clock);
      const run = await a.host.startRun({ goal: 'Is Dune in the library?', mode: 'plan_only', actor: 'user:admin' });
      await until(() => server.requests.length >= 2);
      expect(refusals).toEqual([]);
      await a.host.stop();

      const b = await hostOn(dbFile, server, clock);
      const done = await waitForStatus(b.host, run.id, ['succeeded', 'failed'], { timeoutMs: 15_000 });
      expect(refusals).toEqual([]);
      expect(done.error).toBeNull();
      expect(done.status).toBe('succeeded');
      expect(done.finalText).toBe('Dune is in the library.');
      expect(server.requests).toHaveLength(3);
      // What the resumed host sent: the thinking blocks exactly as streamed, in their places.
      const resent = server.requests[2]!.json as { messages: Array<{ content: Array<{ type: string }> }> };
      const turn = resent.messages[assistantAt(resent)]!.content;
      expect(turn.map((c) => c.type)).toEqual(blocks.map((c) => c.type));
      expect(turn.filter((c) => c.type !== 'tool_use').map((c) => JSON.stringify(c))).toEqual(
        blocks.filter((c) => c.type !== 'tool_use').map((c) => JSON.stringify(c)),
      );
    },
  );
});
