// The HTTP event stream leaves nothing attached to the host's stop signal once it closed, and closes when the host
// stops. Real HTTP (undici) against the router on a real port, a host on a SQLite file.
//
// Public report of the same kind, turned into a test here:
// - nodejs/node#55351 (also jacobheun/any-signal#23, fregante/abort-utils#19): every signal `AbortSignal.any`
//   makes from a long-lived one stays attached to it, so a stream per connection combined with the host's stop
//   signal left one behind per connection for the host's lifetime.
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { openStream, serveHousehold, type Household } from './household-server';

let h: Household | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The signals `AbortSignal.any` made from `signal` that are still attached to it (Node's internal set). */
function dependants(signal: AbortSignal): number {
  const key = Object.getOwnPropertySymbols(signal).find((s) => s.description === 'kDependantSignals');
  return key ? ((signal as unknown as Record<symbol, Set<unknown>>)[key]?.size ?? 0) : 0;
}

describe('the HTTP event stream and the host’s stop signal', () => {
  it('30 streams opened and closed leave nothing attached to host.stopSignal (nodejs/node#55351)', async () => {
    h = await serveHousehold();
    const listeners = getEventListeners(h.host.stopSignal, 'abort').length;
    const before = dependants(h.host.stopSignal);
    for (let i = 0; i < 30; i++) {
      const stream = await openStream(h.base, 'admin-token');
      await stream.waitFor(() => h!.router.openStreams === 1);
      await stream.close();
      await stream.waitFor(() => h!.router.openStreams === 0);
    }
    // Before: 30 more signals attached, one per stream, until the host stops.
    expect(dependants(h.host.stopSignal)).toBe(before);
    expect(getEventListeners(h.host.stopSignal, 'abort').length).toBe(listeners);
  });

  it('an open stream ends when the host stops', async () => {
    h = await serveHousehold();
    const stream = await openStream(h.base, 'admin-token');
    await stream.waitFor(() => h!.router.openStreams === 1);
    await h.host.stop();
    await stream.ended();
    expect(stream.done).toBe(true);
    expect(h.router.openStreams).toBe(0);
  });
});
