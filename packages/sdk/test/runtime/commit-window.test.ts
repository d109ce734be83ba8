// The commit window (runtime/loop/deferred-commit.ts) against what batched saving got wrong elsewhere:
// - mastra-ai/mastra#13984: steps saved "per step" were only kept in memory, so an abort mid-stream lost them;
// - mastra-ai/mastra#18256: a save queue drained its messages before the write and swallowed the write's failure,
//   so a storage error lost conversation history silently while the run went on as if it were saved;
// - mastra-ai/mastra#15684: two paths persisting the same step messages stored them twice.
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  type AgentHost,
  type ModelProvider,
  type StorageAdapter,
} from '../../src/index';
import type { ModelEvent, ModelRequest } from '../../src/models';
import { MemoryStorage, type StorageSession } from '../../src/storage';
import { ScriptedProvider, type FakeScript } from '../../src/testing';
import { runEvents, waitForStatus } from './harness';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

const lookup = defineCapability({
  id: 'title.lookup',
  version: 1,
  title: 'Look up a title',
  description: 'What the library knows about a title.',
  kind: 'read',
  replay: 'safe',
  input: Type.Object({ title: Type.String() }),
  output: Type.Object({ title: Type.String(), present: Type.Boolean() }),
  handler: async (input) => ({ title: input.title, present: true }),
});

const script: FakeScript = {
  match: 'look',
  steps: [
    { text: 'Looking up Dune. ', toolCalls: [{ capability: 'title.lookup', input: { title: 'Dune' } }] },
    { text: 'Looking up Alien. ', toolCalls: [{ capability: 'title.lookup', input: { title: 'Alien' } }] },
  ],
  finalText: 'Both are there.',
};

/** Answers the first model call from the script; every later call waits until the run's signal aborts. */
class StallingProvider implements ModelProvider {
  readonly id = 'stalling';
  readonly inner = new ScriptedProvider({ scripts: script });
  calls = 0;
  stalled: (() => void) | undefined;
  readonly reached = new Promise<void>((resolve) => (this.stalled = resolve));
  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncGenerator<ModelEvent> {
    if (++this.calls > 1) {
      this.stalled?.();
      await new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
      yield { type: 'error', error: { code: 'ABORTED', message: 'aborted' } } as unknown as ModelEvent;
      return;
    }
    yield* this.inner.stream(request, signal);
  }
}

function host(storage: StorageAdapter, provider: ModelProvider): AgentHost {
  const h = createAgentHost({
    storage,
    logger: new ConsoleLogger('silent'),
    model: { provider },
    // A window long enough that only the events under test commit what waits.
    runs: { pollMs: 5, concurrency: 1, commitWindowMs: 60_000 },
  });
  h.capabilities.register(lookup);
  hosts.push(h);
  return h;
}

describe('the commit window', () => {
  it('a run cancelled while a finished step waits through the next model call keeps that step (mastra#13984)', async () => {
    const storage = new MemoryStorage();
    const provider = new StallingProvider();
    const h = host(storage, provider);
    await h.start();
    const run = await h.startRun({ goal: 'look up two titles', mode: 'plan_only', actor: 'user:admin' });
    await provider.reached; // the first turn and its read's result wait through the second model call
    await h.abort(run.id, 'changed my mind');
    const done = await waitForStatus(h, run.id, ['cancelled', 'failed', 'succeeded']);
    expect(done.status).toBe('cancelled');
    const roles = (await storage.messages.list(run.id)).map((m) => (m.message as { role: string }).role);
    expect(roles).toEqual(['user', 'assistant', 'tool']);
    const phases = (await runEvents(h, run.id))
      .filter((e) => e.type === 'tool_call')
      .map((e) => (e.data as { phase: string }).phase);
    expect(phases).toEqual(['started', 'succeeded']);
  });

  it('a failed commit of the steps that waited is not swallowed: the run fails visibly and nothing of them is half-written (mastra#18256)', async () => {
    const inner = new MemoryStorage();
    let failNext = false;
    // Fails the transaction that carries the second turn's assistant message (the grouped commit before its read).
    const storage = new Proxy(inner, {
      get(target, prop) {
        if (prop === 'transaction')
          return <T>(fn: (s: StorageSession) => Promise<T>) =>
            target.transaction(async (s) => {
              const result = await fn(s);
              if (failNext) {
                failNext = false;
                throw Object.assign(new Error('disk I/O error'), { code: 'STORAGE_IO' });
              }
              return result;
            });
        const value: unknown = Reflect.get(target, prop);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const provider = new ScriptedProvider({ scripts: script });
    const armed = {
      id: 'arming',
      stream(request: ModelRequest, signal?: AbortSignal) {
        // The second model call: what waits (turn 1 and its result) commits with its step.
        if (request.messages.filter((m) => m.role === 'tool').length === 1) failNext = true;
        return provider.stream(request, signal);
      },
    } satisfies ModelProvider;
    const h = host(storage as StorageAdapter, armed);
    await h.start();
    const run = await h.startRun({ goal: 'look up two titles', mode: 'plan_only', actor: 'user:admin' });
    const done = await waitForStatus(h, run.id, ['cancelled', 'failed', 'succeeded']);
    expect(done.status).toBe('failed');
    expect(done.error).toMatchObject({ message: expect.stringContaining('disk I/O error') });
    // The grouped commit rolled back whole: none of its three messages is stored, so the conversation is the goal.
    const roles = (await inner.messages.list(run.id)).map((m) => (m.message as { role: string }).role);
    expect(roles).toEqual(['user']);
  });

  it('a step flushed before a streamed piece is stored once: no message or event twice (mastra#15684)', async () => {
    const storage = new MemoryStorage();
    const long = 'A long answer streamed in pieces: '.repeat(6);
    const h = host(
      storage,
      new ScriptedProvider({
        scripts: {
          match: 'look',
          steps: [
            { text: 'First. ', toolCalls: [{ capability: 'title.lookup', input: { title: 'Dune' } }] },
            { text: long, toolCalls: [{ capability: 'title.lookup', input: { title: 'Alien' } }] },
          ],
          finalText: 'done',
        },
      }),
    );
    await h.start();
    const run = await h.startRun({ goal: 'look up two titles', mode: 'plan_only', actor: 'user:admin' });
    expect((await waitForStatus(h, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    const messages = await storage.messages.list(run.id);
    expect(messages.map((m) => m.seq)).toEqual(messages.map((_, i) => i + 1));
    expect(messages.map((m) => (m.message as { role: string }).role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    const events = await runEvents(h, run.id);
    const calls = events.filter((e) => e.type === 'tool_call').map((e) => (e.data as { phase: string }).phase);
    expect(calls).toEqual(['started', 'succeeded', 'started', 'succeeded']);
  });
});
