import { describe, expect, it } from 'vitest';
import {
  currentExecutor,
  formatExecutor,
  FOREIGN_CLAIM_GRACE_MS,
  isClaimAbandoned,
  isExecutorAlive,
  parseExecutor,
  type ExecutorIdentity,
  type ExecutorProbe,
} from '../../src/ledger/executor-identity';

const boot = 'ed9218fd-6501-4dc1-8779-ce7840b5a367';
const self: ExecutorIdentity = { host: 'nas', pid: 1, startTicks: '5000', bootId: boot };
/** A machine where the given pids run with the given start times. */
function machine(processes: Record<number, string>, me: ExecutorIdentity = self): ExecutorProbe {
  return {
    self: me,
    pidAlive: (pid) => pid in processes || pid === me.pid,
    startTicksOf: (pid) => (pid === me.pid ? me.startTicks : processes[pid]),
  };
}
const token = (id: ExecutorIdentity) => `${formatExecutor(id)}~tok_1`;

describe('executor liveness (ledger recovery)', () => {
  it('a restarted process that got the same pid (PID 1 in a container) does not count as the old executor', () => {
    const before: ExecutorIdentity = { ...self, startTicks: '1200' };
    expect(isExecutorAlive(token(before), machine({}))).toBe(false);
    expect(isExecutorAlive(token(self), machine({}))).toBe(true); // its own claim
  });

  it('a pid reused by another process on a busy machine does not keep a dead claim alive', () => {
    const dead: ExecutorIdentity = { host: 'nas', pid: 4242, startTicks: '777', bootId: boot };
    expect(isExecutorAlive(token(dead), machine({ 4242: '9999' }))).toBe(false);
    expect(isExecutorAlive(token(dead), machine({ 4242: '777' }))).toBe(true); // the same process, still running
    expect(isExecutorAlive(token(dead), machine({}))).toBe(false);
  });

  it('another boot, another host, a token without an executor, and an old-format token naming this pid are not alive', () => {
    expect(isExecutorAlive(token({ ...self, pid: 7, bootId: 'aaaa-bbbb' }), machine({ 7: '5000' }))).toBe(false);
    expect(isExecutorAlive(token({ ...self, host: 'other' }), machine({}))).toBe(false);
    expect(isExecutorAlive('tok_1', machine({}))).toBe(false);
    expect(isExecutorAlive('nas:1~tok_1', machine({}))).toBe(false);
    expect(isExecutorAlive('nas:7~tok_1', machine({ 7: '1' }))).toBe(true); // an older version's live process is left alone
  });

  it('where the platform cannot tell start times, a live pid still counts as alive', () => {
    const bare: ExecutorIdentity = { host: 'mac', pid: 50 };
    const me: ExecutorIdentity = { host: 'mac', pid: 60 };
    expect(
      isExecutorAlive(token(bare), { self: me, pidAlive: (pid) => pid === 50, startTicksOf: () => undefined }),
    ).toBe(true);
    expect(isExecutorAlive(token(bare), { self: me, pidAlive: () => false, startTicksOf: () => undefined })).toBe(
      false,
    );
  });

  it('the token prefix round-trips, and this process reads its own start time and boot id on Linux', () => {
    expect(parseExecutor(token(self))).toEqual(self);
    expect(parseExecutor(`${formatExecutor({ host: 'mac', pid: 3 })}~x`)).toEqual({ host: 'mac', pid: 3 });
    const me = currentExecutor();
    expect(me.pid).toBe(process.pid);
    if (process.platform === 'linux') {
      expect(me.startTicks).toMatch(/^\d+$/);
      expect(me.bootId).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('recovery takes a claim of this machine when its executor is gone, and one of another machine only after the grace', () => {
    const now = 1_000_000_000;
    const here = { token: token({ host: 'nas', pid: 4242, startTicks: '777', bootId: boot }), claimedAt: now };
    expect(isClaimAbandoned(here, machine({ 4242: '777' }), now)).toBe(false);
    expect(isClaimAbandoned(here, machine({}), now)).toBe(true);
    const there = { token: token({ host: 'other', pid: 1, startTicks: '5000', bootId: boot }), claimedAt: now };
    expect(isClaimAbandoned(there, machine({}), now + FOREIGN_CLAIM_GRACE_MS - 1)).toBe(false);
    expect(isClaimAbandoned(there, machine({}), now + FOREIGN_CLAIM_GRACE_MS)).toBe(true);
    expect(isClaimAbandoned({ token: 'tok_1', claimedAt: now }, machine({}), now)).toBe(true); // no executor named: a crash
  });
});
