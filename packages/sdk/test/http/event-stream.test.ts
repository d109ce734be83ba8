// The bounded event stream on its own (web streams, no socket): a reader that never reads holds at most
// the buffer, the source is not drained into memory, and the stream ends by itself.
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/index';
import { eventStream } from '../../src/http/sse';

function event(globalSeq: number, text: string): RunEvent {
  return { type: 'text_delta', runId: 'r', seq: globalSeq, globalSeq, at: 0, data: { text } };
}

/** A source of `count` events that counts how many were taken from it. */
function source(count: number, size: number) {
  const taken = { n: 0 };
  const text = 'x'.repeat(size);
  return {
    taken,
    make: (signal: AbortSignal) =>
      (async function* () {
        for (let i = 1; i <= count && !signal.aborted; i++) {
          taken.n++;
          yield event(i, text);
        }
        // then nothing new: wait for the end like a live subscription
        if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      })(),
  };
}

const options = { heartbeatMs: 60_000, retryMs: 1000 };

describe('eventStream', () => {
  it('takes from the source only what fits the buffer while nobody reads, then ends as slow', async () => {
    const events = source(10_000, 1000);
    const ended: string[] = [];
    const stream = eventStream({
      ...options,
      source: events.make,
      visible: () => true,
      stop: new AbortController().signal,
      bufferBytes: 16_384,
      slowClientMs: 100,
      onEnd: (reason) => ended.push(reason),
    });
    await expect.poll(() => ended, { timeout: 5000 }).toEqual(['slow']);
    // 16 KiB of ~1.1 KB frames: about 15 events were encoded, never the 10 000.
    expect(events.taken.n).toBeGreaterThan(5);
    expect(events.taken.n).toBeLessThan(25);
    await expect(stream.getReader().read()).rejects.toThrow(/too slowly/);
  });

  it('delivers everything, in order, to a reader that keeps up, and ends cleanly on stop', async () => {
    const events = source(2000, 1000);
    const stop = new AbortController();
    const ended: string[] = [];
    const stream = eventStream({
      ...options,
      source: events.make,
      visible: (e) => e.globalSeq % 2 === 0,
      stop: stop.signal,
      bufferBytes: 4096,
      slowClientMs: 5000,
      onEnd: (reason) => ended.push(reason),
    });
    const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while ((text.match(/^id: /gm)?.length ?? 0) < 1000) text += (await reader.read()).value;
    stop.abort();
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += r.value;
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(Array.from({ length: 1000 }, (_, i) => 2 * (i + 1)));
    expect(text.startsWith('retry: 1000\n\n')).toBe(true);
    expect(ended).toEqual(['stopped']);
  });

  it('stops taking from the source when the reader cancels', async () => {
    const events = source(100_000, 10);
    const ended: string[] = [];
    const stream = eventStream({
      ...options,
      source: events.make,
      visible: () => true,
      stop: new AbortController().signal,
      bufferBytes: 1024,
      slowClientMs: 5000,
      onEnd: (reason) => ended.push(reason),
    });
    const reader = stream.getReader();
    await reader.read();
    await reader.cancel();
    await expect.poll(() => ended, { timeout: 10_000 }).toEqual(['cancelled']);
    const after = events.taken.n;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(events.taken.n).toBe(after);
    expect(after).toBeLessThan(1000);
  });
});
