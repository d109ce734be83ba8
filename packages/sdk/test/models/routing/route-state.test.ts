// The rules that pick a turn's entry of a fallback chain: host-wide cool-downs, a run's sticky entry, the end
// of the chain. Time is an argument (the host's clock), so each case moves it explicitly.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/index';
import { ScriptedProvider } from '../../../src/testing';
import { ModelRoute } from '../../../src/models/routing/model-route';
import {
  afterFailure,
  afterSuccess,
  DEFAULT_FALLBACK_COOLDOWN_MS,
  firstEntry,
  freshRoute,
  nextEntry,
  stickyEntry,
} from '../../../src/models/routing/route-state';

const T = 1_000_000;

describe('route state rules', () => {
  it('a fresh chain starts every run on the primary; a failed entry is skipped until its cool-down has passed', () => {
    let cooling = freshRoute(3);
    expect(firstEntry(cooling, 0, T)).toBe(0);
    cooling = afterFailure(cooling, 0, T, 60_000);
    expect(firstEntry(cooling, 0, T)).toBe(1);
    expect(firstEntry(cooling, 0, T + 59_999)).toBe(1);
    expect(firstEntry(cooling, 0, T + 60_000)).toBe(0);
  });

  it('next entry: the first later one not cooling down, else the next one anyway, else the chain is used up', () => {
    let cooling = afterFailure(freshRoute(3), 1, T, 60_000);
    expect(nextEntry(cooling, 0, T)).toBe(2);
    cooling = afterFailure(cooling, 2, T, 60_000);
    expect(nextEntry(cooling, 0, T)).toBe(1);
    expect(nextEntry(cooling, 2, T)).toBeUndefined();
  });

  it("every entry from the run's own on cooling down: the turn still calls its own entry (never refused without a call)", () => {
    const cooling = afterFailure(afterFailure(freshRoute(2), 0, T, 60_000), 1, T, 60_000);
    expect(firstEntry(cooling, 0, T + 1)).toBe(0);
    expect(firstEntry(cooling, 1, T + 1)).toBe(1);
    expect(firstEntry(cooling, 7, T + 1)).toBe(1); // an entry past the chain (a shorter chain after a restart)
  });

  it('a run stays on the entry it moved to until the cool-down has passed since the move, then starts on the primary', () => {
    expect(stickyEntry(undefined, T, 60_000)).toBe(0);
    expect(stickyEntry({ entry: 2, at: T }, T + 59_999, 60_000)).toBe(2);
    expect(stickyEntry({ entry: 2, at: T }, T + 60_000, 60_000)).toBe(0);
    expect(stickyEntry({ entry: 0, at: T }, T, 60_000)).toBe(0);
  });

  it('an entry that answered is tried again at once; the default cool-down is 60 s', () => {
    const cooling = afterFailure(freshRoute(2), 1, T, 60_000);
    expect(afterSuccess(cooling, 1)).toEqual([0, 0]);
    expect(afterSuccess(cooling, 0)).toBe(cooling);
    expect(DEFAULT_FALLBACK_COOLDOWN_MS).toBe(60_000);
  });

  it('ModelRoute applies them on the host clock, shared by every run of the host', () => {
    const clock = new ManualClock(T);
    const entry = (model: string) => ({
      provider: new ScriptedProvider(),
      model,
      maxTokens: undefined,
      thinking: undefined,
    });
    const route = new ModelRoute([entry('a'), entry('b'), entry('c')], clock, 1_000);
    expect(route.first(undefined)).toBe(0);
    expect(route.failed(0)).toBe(1);
    expect(route.first(undefined)).toBe(1); // another run, meanwhile: skips the primary
    expect(route.failed(1)).toBe(2);
    route.answered(2);
    clock.advance(1_000);
    expect(route.first(undefined)).toBe(0);
    expect(route.first({ entry: 2, at: T + 500 })).toBe(2);
    clock.advance(500);
    expect(route.first({ entry: 2, at: T + 500 })).toBe(0);
  });
});
