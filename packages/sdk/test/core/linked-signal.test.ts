import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { linkedSignal } from '../../src/core/linked-signal';

describe('linkedSignal', () => {
  it('aborts with the reason of the first source that aborts, then detaches from every source', () => {
    const a = new AbortController();
    const b = new AbortController();
    const link = linkedSignal([a.signal, undefined, b.signal]);
    expect(link.signal.aborted).toBe(false);
    b.abort('b went');
    expect(link.signal.aborted).toBe(true);
    expect(link.signal.reason).toBe('b went');
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(b.signal, 'abort')).toHaveLength(0);
    a.abort('a went');
    expect(link.signal.reason).toBe('b went');
  });

  it('a source already aborted aborts it at once and attaches nothing', () => {
    const live = new AbortController();
    const link = linkedSignal([live.signal, AbortSignal.abort('gone')]);
    expect(link.signal.aborted).toBe(true);
    expect(link.signal.reason).toBe('gone');
    expect(getEventListeners(live.signal, 'abort')).toHaveLength(0);
  });

  it('dispose() detaches it: a long-lived source keeps nothing of 1000 links, and a later abort no longer reaches them', () => {
    const host = new AbortController();
    const links = Array.from({ length: 1000 }, () => linkedSignal([host.signal, new AbortController().signal]));
    expect(getEventListeners(host.signal, 'abort')).toHaveLength(1000);
    for (const link of links) {
      link.dispose();
      link.dispose();
    }
    expect(getEventListeners(host.signal, 'abort')).toHaveLength(0);
    host.abort();
    expect(links.some((l) => l.signal.aborted)).toBe(false);
  });

  it('no sources: a signal that never aborts', () => {
    const link = linkedSignal([]);
    expect(link.signal.aborted).toBe(false);
    link.dispose();
  });
});
