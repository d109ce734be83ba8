import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHost, RunEvent } from '../../src/index';
import type { TracingOptions } from '../../src/loop';
import { makeStorage, STORAGE_KINDS } from '../helpers';
import { startHost, waitForStatus } from './harness';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
});

/** Collects an iteration (each test bounds it with a signal, so a stream that never ends fails instead of hanging). */
async function collect(
  iterable: AsyncIterable<RunEvent>,
  onEvent?: (e: RunEvent) => Promise<void> | void,
): Promise<RunEvent[]> {
  const seen: RunEvent[] = [];
  for await (const e of iterable) {
    seen.push(e);
    await onEvent?.(e);
  }
  return seen;
}

const isTerminalStatus = (e: RunEvent | undefined) =>
  e?.type === 'run_status' && ['succeeded', 'failed', 'cancelled', 'budget_exceeded'].includes(e.data.status);

describe.each(STORAGE_KINDS)('host.events({ runId }) ends with the run (%s storage)', (kind) => {
  async function host(scripts: Parameters<typeof startHost>[0], tracing?: TracingOptions) {
    const started = await startHost(scripts, { storage: makeStorage(kind), ...(tracing ? { tracing } : {}) });
    hosts.push(started.host);
    return started;
  }

  it('a live subscription ends after the terminal run_status event, having delivered every event of the run', async () => {
    const { host: h } = await host({ match: 'look', finalText: 'first answer' });
    const run = await h.startRun({ goal: 'look', mode: 'plan_only', actor: 'user:admin' });
    const guard = AbortSignal.timeout(10_000);
    const seen = await collect(h.events({ runId: run.id, signal: guard, pollMs: 20 }));
    expect(guard.aborted).toBe(false);
    expect(seen.at(-1)).toMatchObject({ type: 'run_status', data: { status: 'succeeded' } });
    const stored = (await h.getRun(run.id, { limit: 1000 })).events;
    expect(seen.map((e) => e.globalSeq)).toEqual(stored.map((e) => e.globalSeq));
    expect(seen.every((e) => e.runId === run.id)).toBe(true);
  });

  it('a subscription to a run that already ended replays it and ends', async () => {
    const { host: h } = await host({ match: 'look', finalText: 'Done! It is in your library.' });
    const run = await h.startRun({ goal: 'look', actor: 'user:admin' });
    await waitForStatus(h, run.id, ['succeeded']); // an answer: it attempted no effect
    const guard = AbortSignal.timeout(10_000);
    const seen = await collect(h.events({ runId: run.id, signal: guard }));
    expect(guard.aborted).toBe(false);
    expect(seen.at(-1)).toMatchObject({ type: 'run_status', data: { status: 'succeeded' } });
    expect(seen.filter((e) => e.type === 'report')).toHaveLength(1);
  });

  it('a finished run that was woken is followed to its last end; `follow: true` stays open across the wake', async () => {
    const { host: h } = await host([
      { match: 'again', finalText: 'second answer' },
      { match: 'look', finalText: 'first answer' },
    ]);
    const run = await h.startRun({ goal: 'look', mode: 'plan_only', actor: 'user:admin' });
    const follower = new AbortController();
    const followed: RunEvent[] = [];
    let endsSeen = 0;
    const following = collect(
      h.events({ runId: run.id, follow: true, signal: follower.signal, pollMs: 20 }),
      async (e) => {
        followed.push(e);
        if (!isTerminalStatus(e)) return;
        endsSeen += 1;
        // The first end: a person writes to the finished run, which drives it once more.
        if (endsSeen === 1) await h.appendToInbox(run.id, 'again please', 'user:admin');
        else follower.abort();
      },
    );
    const guard = setTimeout(() => follower.abort(), 10_000);
    await following;
    clearTimeout(guard);
    expect(endsSeen).toBe(2);
    expect(followed.filter((e) => e.type === 'inbox_queued')).toHaveLength(1);

    // Without `follow`, a replay does not stop at the first end (the run was woken after it) but at the last.
    const replay = await collect(h.events({ runId: run.id, signal: AbortSignal.timeout(10_000) }));
    expect(replay.filter(isTerminalStatus)).toHaveLength(2);
    expect(replay.at(-1)).toMatchObject({ type: 'run_status', data: { status: 'succeeded' } });
    expect(replay.map((e) => e.globalSeq)).toEqual(
      (await h.getRun(run.id, { limit: 1000 })).events.map((e) => e.globalSeq),
    );
  });

  it('a waiting run does not end the iteration; its end does', async () => {
    const { host: h, clock } = await host({
      match: 'Dune',
      steps: [{ toolCalls: [{ capability: 'download.submit', input: { title: 'Dune' } }] }],
      finalText: 'Submitted Dune; it will be imported.',
    });
    await h.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const run = await h.startRun({ goal: 'Add Dune to the library', actor: 'user:admin' });
    const controller = new AbortController();
    let waitingSeenAt = -1;
    const seen = collect(h.events({ runId: run.id, signal: controller.signal, pollMs: 20 }), (e) => {
      if (e.type === 'run_status' && e.data.status === 'waiting') waitingSeenAt = e.seq;
    });
    expect((await waitForStatus(h, run.id, ['waiting', 'succeeded', 'failed'])).status).toBe('waiting'); // submitted, not imported yet
    const state = await Promise.race([
      seen.then(() => 'ended' as const),
      new Promise<'open'>((r) => setTimeout(() => r('open'), 300)),
    ]);
    expect(state).toBe('open');
    clock.advance(61_000); // the download imports
    await waitForStatus(h, run.id, ['succeeded', 'failed'], { clock, tickMs: 1000 });
    const guard = setTimeout(() => controller.abort(), 10_000);
    const events = await seen;
    clearTimeout(guard);
    expect(controller.signal.aborted).toBe(false);
    expect(waitingSeenAt).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ type: 'run_status', data: { status: 'succeeded' } });
  });

  it('refuses a follow option that is not a boolean', async () => {
    const { host: h } = await host({ match: 'look', finalText: 'ok' });
    expect(() => h.events({ runId: 'run-1', follow: 'yes' as unknown as boolean })).toThrow(
      expect.objectContaining({ code: 'RUN_REQUEST_INVALID' }),
    );
  });

  it('a run whose driver fails outside a step (here its tracer throws) ends failed with its terminal event', async () => {
    const tracer = {
      startSpan() {
        throw new Error('tracer broke');
      },
    } as unknown as NonNullable<TracingOptions['tracer']>;
    const { host: h } = await host({ match: 'look', finalText: 'ok' }, { tracer });
    const run = await h.startRun({ goal: 'look', mode: 'plan_only', actor: 'user:admin' });
    const guard = AbortSignal.timeout(10_000);
    const seen = await collect(h.events({ runId: run.id, signal: guard, pollMs: 20 }));
    expect(guard.aborted).toBe(false);
    expect(seen.at(-1)).toMatchObject({ type: 'run_status', data: { status: 'failed', reason: 'DRIVER_FAILED' } });
    expect((await h.getRun(run.id)).run).toMatchObject({ status: 'failed', error: { code: 'DRIVER_FAILED' } });
  });

  it('refuses tracing options that are not a tracer', async () => {
    await expect(host({ finalText: 'ok' }, { tracer: {} as never })).rejects.toMatchObject({ code: 'OPTIONS_INVALID' });
  });
});
