import { describe, expect, it, vi } from 'vitest';
import { withIdentityDeadline } from '../../src/authorization/identity-deadline';
import { answerWithin, DeadlineExceeded } from '../../src/core/deadline';
import { createAgentHost, type Logger } from '../../src/index';
import { IDENTITY_TIMEOUT_MS } from '../../src/authorization';

const never = () => new Promise<never>(() => {});

describe('host hooks within a deadline', () => {
  it('answerWithin passes a value or a settled promise through and rejects a late one with DeadlineExceeded', async () => {
    expect(await answerWithin('admin', 10)).toBe('admin');
    expect(await answerWithin(Promise.resolve('user'), 10)).toBe('user');
    await expect(answerWithin(Promise.reject(new Error('boom')), 10)).rejects.toThrow('boom');
    await expect(answerWithin(never(), 10)).rejects.toBeInstanceOf(DeadlineExceeded);
  });

  it('a resolver that never answers counts as user after the deadline; one that answers in time is obeyed', async () => {
    const late: string[] = [];
    const bounded = withIdentityDeadline({ roleOf: (actor) => (actor === 'user:1' ? 'admin' : never()) }, 20, (a) =>
      late.push(a),
    );
    expect(await bounded.roleOf('user:1')).toBe('admin');
    expect(await bounded.roleOf('user:2')).toBe('user');
    expect(late).toEqual(['user:2']);
    const slowAdmin = withIdentityDeadline({ roleOf: async () => 'admin' as const }, 1000);
    expect(await slowAdmin.roleOf('user:3')).toBe('admin');
  });

  it('the host bounds its identity resolver: a hung one makes the actor an ordinary user, with a warning', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const warnings: string[] = [];
      const logger: Logger = {
        debug() {},
        info() {},
        warn: (message) => void warnings.push(message),
        error() {},
      };
      const host = createAgentHost({ identity: { roleOf: never }, logger });
      const role = host.roleOf('user:1');
      await vi.advanceTimersByTimeAsync(IDENTITY_TIMEOUT_MS);
      expect(await role).toBe('user');
      expect(warnings.some((w) => w.includes('identity resolver did not answer'))).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
