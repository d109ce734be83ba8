/**
 * `waitForRunStatus` wakes on the run's own events when the host has `events` (a started `AgentHost`), and polls
 * only as a fallback: timers are frozen here (vitest fake `setTimeout`), so a wait that returns proves it was woken
 * by an event, not by a poll.
 */
import { afterEach, expect, it, vi } from 'vitest';
import type { RunRecord, RunStatus } from '../../src/core/run-records';
import type { AgentHost } from '../../src/runtime/agent-host';
import { waitForRunStatus } from '../../src/testing';
import { runRecord } from '../storage/run-record';

afterEach(() => {
  vi.useRealTimers();
});

/** A host whose run is in `status` and whose event stream yields when `push` is called. */
function fakeHost(withEvents: boolean) {
  let status: RunStatus = 'running';
  let reads = 0;
  const waiting: Array<() => void> = [];
  let open = 0;
  const host = {
    async getRun(id: string) {
      reads += 1;
      return { run: runRecord(id, { status }) as RunRecord } as Awaited<ReturnType<AgentHost['getRun']>>;
    },
    ...(withEvents
      ? {
          events(options: { runId?: string; signal?: AbortSignal }) {
            return (async function* () {
              open += 1;
              try {
                while (!options.signal?.aborted) {
                  await new Promise<void>((resolve) => {
                    waiting.push(resolve);
                    options.signal?.addEventListener('abort', () => resolve(), { once: true });
                  });
                  if (!options.signal?.aborted) yield { type: 'run_status', runId: options.runId };
                }
              } finally {
                open -= 1;
              }
            })();
          },
        }
      : {}),
  };
  return {
    host: host as unknown as AgentHost,
    reads: () => reads,
    open: () => open,
    /** The run moves to `next` and writes an event. */
    push(next: RunStatus) {
      status = next;
      for (const w of waiting.splice(0)) w();
    },
  };
}

/** Lets pending promise callbacks run (no timer involved). */
const drain = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

it('returns at the run’s event, with no timer firing, and closes its subscription', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const fake = fakeHost(true);
  let done: RunRecord | undefined;
  const waiting = waitForRunStatus(fake.host, 'run_1', ['waiting']).then((r) => (done = r));
  await drain();
  expect(done).toBeUndefined();
  expect(fake.reads()).toBe(1);
  fake.push('waiting');
  await waiting;
  expect(done?.status).toBe('waiting');
  expect(fake.reads()).toBe(2);
  expect(fake.open()).toBe(0);
});

it('without `events` (a bare getRun), it polls every 5 ms', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const fake = fakeHost(false);
  let done: RunRecord | undefined;
  const waiting = waitForRunStatus(fake.host, 'run_1', ['waiting']).then((r) => (done = r));
  await drain();
  fake.push('waiting');
  await drain();
  expect(done).toBeUndefined();
  await vi.advanceTimersByTimeAsync(5);
  await waiting;
  expect(done?.status).toBe('waiting');
});

it('with events but no event, it still reads the run again after 50 ms', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const fake = fakeHost(true);
  let done: RunRecord | undefined;
  const waiting = waitForRunStatus(fake.host, 'run_1', ['succeeded']).then((r) => (done = r));
  await drain();
  expect(fake.reads()).toBe(1);
  await vi.advanceTimersByTimeAsync(49);
  expect(fake.reads()).toBe(1);
  await vi.advanceTimersByTimeAsync(1);
  expect(fake.reads()).toBe(2);
  // The run got there without an event this host saw (another process): the next read finds it.
  fake.push('succeeded');
  await waiting;
  expect(done?.status).toBe('succeeded');
  expect(fake.open()).toBe(0);
});
