import { describe, expect, it } from 'vitest';
import { PolicyAuthorizer } from '../../src/authorization/policy-authorizer';
import type { AuthorizationRequest } from '../../src/authorization/authorizer';
import type { CapabilityDescriptor } from '../../src/core/capability-descriptor';
import { MemoryStorage } from '../../src/storage';
import { runRecord } from '../storage/run-record';

const read = { id: 'media.search', kind: 'read', policy: {}, adminOnly: false } as unknown as CapabilityDescriptor;
const request = (runId: string): AuthorizationRequest => ({
  actor: `agent:${runId}`,
  role: 'user',
  capability: read,
  target: { bytes: 0 },
  plan: undefined,
  approvalId: undefined,
  idempotencyKey: undefined,
  runId,
  now: 1_000,
});

describe('PolicyAuthorizer: the facts of a run, read once', () => {
  it('reads a run once for many calls, and a run not found again until it is found', async () => {
    const storage = new MemoryStorage();
    await storage.runs.insert(runRecord('run-a', { capabilityAllowlist: ['other.cap'] }));
    const authorizer = new PolicyAuthorizer();
    let reads = 0;
    const authorize = (runId: string) =>
      storage.transaction((s) =>
        authorizer.authorize(request(runId), {
          ...s,
          runs: { ...s.runs, get: (id: string) => (reads++, s.runs.get(id)) },
        } as typeof s),
      );
    // The allow-list leaves out the capability: denied by the run rule, from the facts read once.
    const first = await authorize('run-a');
    const second = await authorize('run-a');
    expect(first.allowed).toBe(false);
    expect(second).toEqual(first);
    expect(reads).toBe(1);
    // Not found: the call has no run facts; the run is read again once it exists.
    expect((await authorize('run-b')).allowed).toBe(true);
    await storage.runs.insert(runRecord('run-b', { capabilityAllowlist: ['other.cap'] }));
    expect((await authorize('run-b')).allowed).toBe(false);
    expect(reads).toBe(3);
  });
});
