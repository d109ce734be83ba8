// Trial: forks made while the original still works (waiting for an approval), two forks at once, fork + abort.
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeScript } from '../../src/models/scripted';
import type { ModelEvent, ModelProvider, ModelRequest } from '../../src/models/types';
import { FORK_NOTE_PREFIX } from '../../src/runtime/fork/fork-note';
import { ConsoleLogger, createAgentHost, ManualClock, SequentialIdGenerator } from '../../src/index';
import { MemoryStorage } from '../../src/storage';
import { registerSandboxCapabilities, SandboxWorld, ScriptedProvider } from '../../src/testing';
import {
  addDune,
  cleanup,
  events,
  forkResubmits,
  GOAL,
  makeHost,
  submittedOriginal,
  TERMINAL,
  untilEvents,
  waitForRunStatus,
} from './fork-trial-helpers';

afterEach(cleanup);

/** After an approval decision note, the original submits the plan it was approved for. */
const approvedSubmit: FakeScript = {
  name: 'approved submit',
  match: /was approved/,
  steps: [
    {
      text: 'Submitting. ',
      toolCalls: [{ capability: 'download.submit', input: { planId: '{{download.plan.plan.id}}' } }],
    },
  ],
  finalText: 'Submitted after the approval.',
};

/** The scripted model; a request whose last user message is a fork note waits until `release()`. */
class GatedProvider implements ModelProvider {
  readonly id = 'scripted';
  #open!: () => void;
  readonly gate = new Promise<void>((r) => (this.#open = r));
  constructor(private readonly inner: ScriptedProvider) {}
  release() {
    this.#open();
  }
  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent> {
    const lastUser = [...request.messages].reverse().find((m) => m.role === 'user');
    if (lastUser && String(lastUser.content).startsWith(FORK_NOTE_PREFIX)) await this.gate;
    yield* this.inner.stream(request, signal);
  }
}

describe('a fork made while the original waits for an approval', () => {
  it('the original submits after the fork was made; the fork then repeats that submit: refused FORK_DUPLICATE_EFFECT, one download', async () => {
    const storage = new MemoryStorage();
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
    const world = new SandboxWorld({ clock, autoImport: false });
    const provider = new GatedProvider(new ScriptedProvider({ scripts: [forkResubmits, approvedSubmit, addDune] }));
    const host = createAgentHost({
      storage,
      clock,
      ids: new SequentialIdGenerator(),
      logger: new ConsoleLogger('silent'),
      model: { provider, model: 'host-model' },
      goalFacts: world,
      runs: { pollMs: 5, goalPollSec: 1 },
      identity: { roleOf: (actor: string) => (actor === 'user:admin' ? 'admin' : 'user') },
    } as never);
    registerSandboxCapabilities(host, world);
    await host.start();
    try {
      await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
      const original = await host.startRun({ goal: GOAL, actor: 'user:alice' });
      const es = await untilEvents(host, original.id, (x) => x.some((e) => e.type === 'approval_requested'), clock);
      await waitForRunStatus(host, original.id, ['waiting'], { clock, tickMs: 10 });
      const requested = es.find((e) => e.type === 'approval_requested')!.data as {
        approvalId: string;
        payloadHash: string;
      };
      const point = (await host.listForkPoints(original.id)).at(-1)!;
      const fork = await host.forkRun(original.id, { atSeq: point.seq, actor: 'user:alice' });
      // The person approves the original's submit: it runs now, after the fork was made.
      await host.approvals.decide(requested.approvalId, {
        status: 'approved',
        actor: 'user:admin',
        payloadHash: requested.payloadHash,
      });
      await untilEvents(
        host,
        original.id,
        (x) => x.some((e) => e.type === 'tool_call' && (e.data as { phase: string }).phase === 'pending'),
        clock,
      );
      expect(world.downloads()).toHaveLength(1);
      // A standing grant for submits now exists (so only the duplicate rule can stop the fork).
      await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
      provider.release();
      await waitForRunStatus(host, fork.id, ['waiting', ...TERMINAL], { clock, tickMs: 10 });
      const results = (await storage.messages.list(fork.id))
        .map((m) => m.message as { role: string; name?: string; content: unknown })
        .filter((m) => m.role === 'tool' && m.name === 'download.submit');
      expect(results.at(-1)?.content).toContain('FORK_DUPLICATE_EFFECT');
      expect(await storage.ledger.listByRun(fork.id, { limit: 100 })).toEqual([]);
      expect(world.downloads()).toHaveLength(1);
    } finally {
      provider.release();
      await host.stop();
    }
  });
});

describe('concurrent forks', () => {
  it('two forks of one point at once: two runs, each with its own forked event at seq 1 and the same effects', async () => {
    const t = await makeHost('sqlite');
    const original = await submittedOriginal(t);
    const point = (await t.host.listForkPoints(original.id)).find((p) => p.label.includes('release.search'))!;
    const [a, b] = await Promise.all([
      t.host.forkRun(original.id, { atSeq: point.seq, actor: 'user:alice', model: 'm-a' }),
      t.host.forkRun(original.id, { atSeq: point.seq, actor: 'user:alice', model: 'm-b' }),
    ]);
    expect(a!.id).not.toBe(b!.id);
    const ea = (await events(t.host, a!.id))[0]!;
    const eb = (await events(t.host, b!.id))[0]!;
    expect(ea).toMatchObject({ seq: 1, type: 'forked', data: { model: 'm-a' } });
    expect(eb).toMatchObject({ seq: 1, type: 'forked', data: { model: 'm-b' } });
    expect((ea.data as { effectsAfter: unknown[] }).effectsAfter).toEqual(
      (eb.data as { effectsAfter: unknown[] }).effectsAfter,
    );
    expect((ea.data as { effectsAfter: unknown[] }).effectsAfter).toHaveLength(2);
  });

  it('fork and abort of the original at once: the fork is made, the original is cancelled, no effect undone or repeated', async () => {
    const t = await makeHost('sqlite');
    const original = await submittedOriginal(t);
    const point = (await t.host.listForkPoints(original.id)).at(-1)!;
    const ledger = await t.storage.ledger.listByRun(original.id, { limit: 100 });
    const [fork] = await Promise.all([
      t.host.forkRun(original.id, { atSeq: point.seq, actor: 'user:alice' }),
      t.host.abort(original.id, 'changed my mind'),
    ]);
    await waitForRunStatus(t.host, original.id, ['cancelled'], { clock: t.clock, tickMs: 10 });
    await waitForRunStatus(t.host, fork!.id, ['waiting', ...TERMINAL], { clock: t.clock, tickMs: 10 });
    expect(t.world.downloads()).toHaveLength(1);
    expect(await t.storage.ledger.listByRun(original.id, { limit: 100 })).toEqual(ledger);
    // The original ended: it may still be forked at the same point, and an undo has nothing to undo.
    const again = await t.host.forkRun(original.id, { atSeq: point.seq, actor: 'user:alice' });
    expect(again.forkedFrom).toEqual({ runId: original.id, atSeq: point.seq });
  });
});
