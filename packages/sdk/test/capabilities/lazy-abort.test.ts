import { describe, expect, it } from 'vitest';
import { LazyAbort } from '../../src/capabilities/lazy-abort';

describe('LazyAbort', () => {
  it('hands out one signal, and aborts it (listeners hear it at once) like an AbortController', () => {
    const lazy = new LazyAbort();
    const signal = lazy.signal;
    expect(lazy.signal).toBe(signal);
    expect(signal.aborted).toBe(false);
    const heard: unknown[] = [];
    signal.addEventListener('abort', () => heard.push(signal.reason));
    const reason = new Error('deadline');
    lazy.abort(reason);
    expect(heard).toEqual([reason]);
    expect(signal.aborted).toBe(true);
    expect(lazy.reason).toBe(reason);
  });

  it('a signal read after the abort is aborted already, with the first abort’s reason', () => {
    const lazy = new LazyAbort();
    const first = new Error('caller');
    lazy.abort(first);
    lazy.abort(new Error('later'));
    expect(lazy.reason).toBe(first);
    expect(lazy.signal.aborted).toBe(true);
    expect(lazy.signal.reason).toBe(first);
  });

  it('an abort without a reason gives the signal the AbortError an AbortController gives', () => {
    const lazy = new LazyAbort();
    lazy.abort(undefined);
    const controller = new AbortController();
    controller.abort(undefined);
    expect(lazy.signal.aborted).toBe(true);
    expect((lazy.signal.reason as Error).name).toBe((controller.signal.reason as Error).name);
    expect(lazy.reason).toBeUndefined();
  });
});
