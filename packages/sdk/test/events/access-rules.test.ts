// The access rules of an open subscription on their own (pure), and where the host's hook reaches them.
import { describe, expect, it } from 'vitest';
import { accessLostReason, recheckDue } from '../../src/limits';
import { AccessWatch } from '../../src/runtime/events/access-watch';

describe('accessLostReason', () => {
  it('is decided by what the subscription was opened to see and what is true now', () => {
    const rows: Array<
      [Parameters<typeof accessLostReason>[0], Parameters<typeof accessLostReason>[1], string | undefined]
    > = [
      ['all', { authenticated: true, admin: true }, undefined],
      ['all', { authenticated: true, admin: false }, 'role_changed'],
      ['all', { authenticated: false, admin: true }, 'unauthenticated'],
      ['own', { authenticated: true, admin: false }, undefined],
      ['own', { authenticated: false, admin: false }, 'unauthenticated'],
      ['run', { authenticated: true, admin: false, runVisible: true }, undefined],
      ['run', { authenticated: true, admin: true, runVisible: false }, 'run_not_visible'],
      ['run', { authenticated: false, admin: false, runVisible: true }, 'unauthenticated'],
    ];
    for (const [view, now, reason] of rows)
      expect(accessLostReason(view, now), `${view} ${JSON.stringify(now)}`).toBe(reason);
  });
});

describe('recheckDue', () => {
  it('is due once the interval passed by the clock, and when the clock went back', () => {
    expect(recheckDue(1000, 30_999, 30_000)).toBe(false);
    expect(recheckDue(1000, 31_000, 30_000)).toBe(true);
    expect(recheckDue(1000, 999, 30_000)).toBe(true);
  });
});

describe('AccessWatch', () => {
  it('raises the tickets of the actor named (or everyone), synchronously, until they are closed', () => {
    const watch = new AccessWatch();
    const a1 = watch.open('user:a');
    const a2 = watch.open('user:a');
    const b = watch.open('user:b');
    let woken = 0;
    a1.onRaise = () => woken++;
    expect(watch.changed('user:a', { signedOut: true })).toBe(2);
    expect([a1.stale, a1.signedOut, a2.stale, b.stale, woken]).toEqual([true, true, true, false, 1]);
    a1.close();
    a2.stale = false;
    expect(watch.changed(undefined)).toBe(2);
    expect([a2.stale, a2.signedOut, b.stale, b.signedOut, woken]).toEqual([true, true, true, false, 1]); // a sign-out sticks
    expect(watch.changed('user:nobody')).toBe(0);
  });
});
