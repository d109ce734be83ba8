// Attacks on PolicyAuthorizer keeping a run's mode, allow-list and depth per run id (LRU of 1,024), on the claim
// that they never change after the run is created.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHost } from '../../src/index';
import { PolicyAuthorizer } from '../../src/authorization/policy-authorizer';
import type { AuthorizationRequest } from '../../src/authorization/authorizer';
import type { CapabilityDescriptor } from '../../src/core/capability-descriptor';
import type { RunRecord } from '../../src/core/run-records';
import { MemoryStorage } from '../../src/storage';
import type { RunPatch } from '../../src/ports/storage-adapter';
import { runRecord } from '../storage/run-record';
import { runEvents, startHost, waitForStatus } from '../runtime/harness';
import { until } from '../approvals/approval-host';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

const execute = {
  id: 'download.submit',
  kind: 'execute',
  policy: {},
  adminOnly: false,
} as unknown as CapabilityDescriptor;
const read = { id: 'media.search', kind: 'read', policy: {}, adminOnly: false } as unknown as CapabilityDescriptor;
const request = (runId: string, capability: CapabilityDescriptor): AuthorizationRequest => ({
  actor: 'user:admin',
  role: 'admin',
  capability,
  target: { bytes: 0 },
  plan: undefined,
  approvalId: undefined,
  idempotencyKey: undefined,
  runId,
  now: 1_000,
});

/** authorize through `storage`, counting the run reads. */
function counted(storage: MemoryStorage, authorizer: PolicyAuthorizer) {
  const reads: string[] = [];
  const authorize = (runId: string, capability: CapabilityDescriptor) =>
    storage.transaction((s) =>
      authorizer.authorize(request(runId, capability), {
        ...s,
        runs: { ...s.runs, get: (id: string) => (reads.push(id), s.runs.get(id)) },
      } as typeof s),
    );
  return { reads, authorize };
}

describe('PolicyAuthorizer: a run’s facts kept per run id', () => {
  it('two hosts in one process whose runs have the same id (sequential ids) each apply their own run’s mode', async () => {
    const script = { match: 'x', steps: [], finalText: 'x' };
    const a = await startHost(script, { workers: false });
    const b = await startHost(script, { workers: false });
    hosts.push(a.host, b.host);
    const planOnly = await a.host.startRun({ goal: 'x', mode: 'plan_only', actor: 'user:admin' });
    const exec = await b.host.startRun({ goal: 'x', mode: 'execute', actor: 'user:admin' });
    expect(planOnly.id).toBe(exec.id); // the same id in two stores
    const submit = (host: AgentHost, n: number) =>
      host.invoke('download.submit', { title: `Dune ${n}` }, { actor: 'user:admin', runId: exec.id });
    for (let n = 0; n < 2; n++) {
      expect((await submit(a.host, n)).status, 'plan_only run on host A').toBe('denied');
      expect((await submit(b.host, n)).status, 'execute run on host B').toBe('succeeded');
    }
  });

  it('a run evicted from the 1,024 kept is read again and judged from its own record', async () => {
    const storage = new MemoryStorage();
    const { reads, authorize } = counted(storage, new PolicyAuthorizer());
    await storage.runs.insert(runRecord('first', { mode: 'plan_only' }));
    expect((await authorize('first', execute)).allowed).toBe(false);
    for (let i = 0; i < 1_024; i++) {
      await storage.runs.insert(runRecord(`r${i}`, { capabilityAllowlist: ['other.cap'] }));
      expect((await authorize(`r${i}`, read)).allowed).toBe(false);
    }
    expect(reads.filter((id) => id === 'first')).toHaveLength(1);
    // `first` was the least recently used: evicted, read again, still plan_only.
    expect((await authorize('first', execute)).allowed).toBe(false);
    expect(reads.filter((id) => id === 'first')).toHaveLength(2);
    // The most recent ones are still kept (no read).
    await authorize('r1023', read);
    expect(reads.filter((id) => id === 'r1023')).toHaveLength(1);
  });

  it('a run’s mode, allow-list and depth stay as created through its life: run, end, wake by a message, fork', async () => {
    const script = {
      match: 'Dune',
      steps: [{ toolCalls: [{ capability: 'inventory.query', input: { title: 'Dune' } }] }],
      finalText: 'checked',
    };
    const { host } = await startHost([script, script, script]);
    hosts.push(host);
    const facts = (r: RunRecord) => ({ mode: r.mode, allowlist: r.capabilityAllowlist, depth: r.depth });
    const run = await host.startRun({
      goal: 'Dune',
      mode: 'plan_only',
      actor: 'user:admin',
      capabilityAllowlist: ['inventory.query'],
    });
    const created = facts(run);
    expect(created).toEqual({ mode: 'plan_only', allowlist: ['inventory.query'], depth: 0 });
    const ended = await waitForStatus(host, run.id, ['succeeded', 'failed']);
    expect(facts(ended)).toEqual(created);
    await host.appendToInbox(run.id, 'Dune again please', { actor: 'user:admin' });
    // Until the message woke the run (its event says so), then until it ended again.
    const woken = async () =>
      (await runEvents(host, run.id)).some(
        (e) => e.type === 'run_status' && (e.data as { reason?: string }).reason === 'woken by a new message',
      );
    expect(await until(woken, 10_000)).toBe(true);
    const again = await waitForStatus(host, run.id, ['succeeded', 'failed']);
    expect(facts(again)).toEqual(created);
    const points = await host.listForkPoints(run.id, { actor: 'user:admin' });
    const forkRun = await host.forkRun(run.id, { atSeq: points[points.length - 1]!.seq, actor: 'user:admin' });
    expect(facts(forkRun)).toEqual(created);
    expect(forkRun.id).not.toBe(run.id);
  });

  it('a run’s mode, allow-list and depth cannot be patched (RunPatch leaves them out): what the authorizer keeps stays true', async () => {
    const storage = new MemoryStorage();
    const { authorize } = counted(storage, new PolicyAuthorizer());
    await storage.runs.insert(runRecord('run-x', { mode: 'execute' }));
    expect((await authorize('run-x', execute)).allowed).toBe(true);
    // @ts-expect-error mode is fixed at creation
    const mode: RunPatch = { mode: 'plan_only' };
    // @ts-expect-error the allow-list is fixed at creation
    const allowlist: RunPatch = { capabilityAllowlist: ['media.search'] };
    // @ts-expect-error the depth is fixed at creation
    const depth: RunPatch = { depth: 1 };
    expect([mode, allowlist, depth]).toHaveLength(3);
  });
});
