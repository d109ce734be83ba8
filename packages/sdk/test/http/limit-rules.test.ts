// The limit rules on their own: the sliding window of run starts and the open-slot rule of event streams
// (pure functions), and the per-process counters built on them.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/index';
import { HostLimitError, pruneWindow, slidingWindow, slotVerdict } from '../../src/limits';
import { resolveHostLimits } from '../../src/runtime/limits/host-limits';
import { RunStartLimiter } from '../../src/runtime/limits/run-start-limiter';
import { StreamSlots } from '../../src/runtime/limits/stream-slots';

describe('slidingWindow', () => {
  it('allows up to max starts in the window ending now, then names the wait until the oldest leaves', () => {
    expect(slidingWindow([], 1000, 60_000, 2)).toEqual({ allowed: true, retryAfterMs: 0 });
    expect(slidingWindow([1000], 1000, 60_000, 2)).toEqual({ allowed: true, retryAfterMs: 0 });
    expect(slidingWindow([1000, 5000], 6000, 60_000, 2)).toEqual({ allowed: false, retryAfterMs: 55_000 });
    // At the exact end of the window the oldest start has left it.
    expect(slidingWindow([1000, 5000], 61_000, 60_000, 2)).toEqual({ allowed: true, retryAfterMs: 0 });
    expect(slidingWindow([1000, 5000], 60_999, 60_000, 2)).toEqual({ allowed: false, retryAfterMs: 1 });
  });

  it('over max (a lowered limit), waits for enough starts to leave', () => {
    expect(slidingWindow([0, 10, 20, 30], 40, 100, 2)).toEqual({ allowed: false, retryAfterMs: 80 });
  });

  it('pruneWindow keeps only the starts inside (now - window, now], without changing its input', () => {
    const starts = [0, 10, 50, 99];
    expect(pruneWindow(starts, 110, 100)).toEqual([50, 99]);
    expect(starts).toEqual([0, 10, 50, 99]);
  });
});

describe('slotVerdict', () => {
  it('refuses at the actor’s share first, then at the host’s total', () => {
    const limits = { perActor: 2, total: 3 };
    expect(slotVerdict(0, 0, limits)).toBe('ok');
    expect(slotVerdict(1, 2, limits)).toBe('ok');
    expect(slotVerdict(2, 2, limits)).toBe('actor');
    expect(slotVerdict(2, 3, limits)).toBe('actor');
    expect(slotVerdict(0, 3, limits)).toBe('total');
  });
});

describe('StreamSlots', () => {
  it('counts per actor and in total; a release gives one slot back once, however often it is called', () => {
    const slots = new StreamSlots({ streamsPerActor: 2, streamsTotal: 3 });
    const a1 = slots.acquire('user:a');
    slots.acquire('user:a');
    expect(() => slots.acquire('user:a')).toThrow(expect.objectContaining({ code: 'STREAM_LIMIT_REACHED' }));
    slots.acquire('user:b');
    const refused = (() => {
      try {
        slots.acquire('user:c');
      } catch (error) {
        return error as HostLimitError;
      }
    })();
    expect(refused).toBeInstanceOf(HostLimitError);
    expect(refused?.details).toMatchObject({ actor: 'user:c', limit: 'total', max: 3, retryAfterMs: 5000 });
    a1();
    a1();
    expect(slots.open('user:a')).toBe(1);
    expect(slots.open()).toBe(2);
    slots.acquire('user:c');
    expect(slots.open()).toBe(3);
  });
});

describe('RunStartLimiter', () => {
  it('records only the starts that went through: a refused or failed start uses none of the allowance (BerriAI/litellm#39309)', async () => {
    const clock = new ManualClock(0);
    const limiter = new RunStartLimiter({ runStartsPerMinutePerActor: 2, runStartsPerMinuteTotal: 3 }, clock);
    const ok = () => Promise.resolve('started');
    await limiter.reserve('user:a', ok);
    await expect(limiter.reserve('user:a', () => Promise.reject(new Error('invalid goal')))).rejects.toThrow(
      'invalid goal',
    );
    await limiter.reserve('user:a', ok);
    const refused = await limiter.reserve('user:a', ok).catch((error: HostLimitError) => error);
    expect(refused).toMatchObject({ code: 'RUN_START_RATE_LIMITED', details: { limit: 'perActor', max: 2 } });
    // The refusal did not count towards the total: one more start fits for someone else.
    await limiter.reserve('user:b', ok);
    await expect(limiter.reserve('user:c', ok)).rejects.toMatchObject({
      code: 'RUN_START_RATE_LIMITED',
      details: { limit: 'total', max: 3, retryAfterMs: 60_000 },
    });
    clock.advance(60_000);
    await expect(limiter.reserve('user:a', ok)).resolves.toBe('started');
  });
});

describe('resolveHostLimits', () => {
  it('applies the documented defaults and refuses a limit that is not a positive integer', () => {
    expect(resolveHostLimits(undefined)).toEqual({
      streamsPerActor: 8,
      streamsTotal: 64,
      runStartsPerMinutePerActor: 10,
      runStartsPerMinuteTotal: 60,
    });
    expect(resolveHostLimits({ streamsPerActor: 2 }).streamsPerActor).toBe(2);
    for (const bad of [0, -1, 1.5, Number.NaN, '3'])
      expect(() => resolveHostLimits({ streamsTotal: bad as number })).toThrow(
        expect.objectContaining({ code: 'OPTIONS_INVALID' }),
      );
  });
});
