// A model stream cut short, through the real runtime (AnthropicProvider over undici, SQLite): before any
// content the call is retried and the run goes on; after a complete tool call the turn fails with a typed
// error and the tool never runs.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, ManualClock, type AgentHost } from '../../src/index';
import { AnthropicProvider } from '../../src/models';
import { SqliteStorage } from '../../src/sqlite';
import { CutServer, type CutResponse } from '../models/cut-server';
import { anthropicTurn } from '../models/thinking-wire';
import { closedAfterEach, makeWorld, runEvents, waitForStatus } from './harness';

const { hosts, servers, dirs } = closedAfterEach<CutServer>();

const query = anthropicTurn([{ type: 'tool_use', id: 'toolu_01', name: 'inventory_query', input: { title: 'Dune' } }]);
const answer = anthropicTurn([{ type: 'text', text: 'Dune is in the library.' }], 'end_turn');

async function hostOver(responses: CutResponse[]) {
  const server = await CutServer.start(responses);
  servers.push(server);
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-cut-'));
  dirs.push(dir);
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const world = makeWorld(clock);
  const retries: Array<{ attempt: number; code: string }> = [];
  const host = createAgentHost({
    storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
    clock,
    logger: new ConsoleLogger('silent'),
    model: {
      provider: new AnthropicProvider({
        apiKey: 'sk-ant-test-0123456789',
        baseUrl: server.url,
        retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, onRetry: (i) => void retries.push(i) },
      }),
      model: 'claude-sonnet-4-5',
    },
    goalFacts: world.facts,
    runs: { pollMs: 5, leaseMs: 60_000 },
  });
  for (const c of world.capabilities) host.capabilities.register(c);
  await host.start();
  hosts.push(host);
  return { host, server, retries };
}

const toolRuns = async (host: AgentHost, runId: string) =>
  (await runEvents(host, runId)).filter(
    (e) => e.type === 'tool_call' && (e.data as { phase: string }).phase !== 'started',
  );

describe('a model stream cut short, through the runtime', () => {
  // earendil-works/pi#4433: an empty turn cut before message_stop failed the session instead of being retried.
  it.each(['destroy', 'end'] as const)(
    'cut after message_start (%s): the call is retried and the run succeeds',
    async (ending) => {
      const { host, server, retries } = await hostOver([
        { events: query.slice(0, 1), ending },
        { events: query, ending: 'complete' },
        { events: answer, ending: 'complete' },
      ]);
      const run = await host.startRun({ goal: 'Is Dune in the library?', mode: 'plan_only', actor: 'user:admin' });
      const done = await waitForStatus(host, run.id, ['succeeded', 'failed']);
      expect(done.error).toBeNull();
      expect(done.finalText).toBe('Dune is in the library.');
      expect(server.requests).toHaveLength(3);
      expect(retries.map((r) => [r.attempt, r.code])).toEqual([
        [1, ending === 'end' ? 'PROVIDER_PROTOCOL' : 'PROVIDER_UNREACHABLE'],
      ]);
      expect(await toolRuns(host, run.id)).toHaveLength(1);
    },
  );

  it.each(['destroy', 'end'] as const)(
    'cut after a complete tool call (%s): no retry, the tool never runs, the run fails with a typed error',
    async (ending) => {
      const { host, server, retries } = await hostOver([
        { events: query.slice(0, -2), ending }, // the tool_use block is complete; message_delta and message_stop never come
        { events: query, ending: 'complete' },
        { events: answer, ending: 'complete' },
      ]);
      const run = await host.startRun({ goal: 'Is Dune in the library?', mode: 'plan_only', actor: 'user:admin' });
      const done = await waitForStatus(host, run.id, ['succeeded', 'failed']);
      expect(done.status).toBe('failed');
      expect(done.error).toMatchObject({ code: ending === 'end' ? 'PROVIDER_PROTOCOL' : 'PROVIDER_UNREACHABLE' });
      expect(server.requests).toHaveLength(1);
      expect(retries).toEqual([]);
      expect(await toolRuns(host, run.id)).toEqual([]);
    },
  );
});
