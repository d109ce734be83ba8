// A run denied a plan execution asks for an approval, then executes: its report lists the execution once as
// succeeded, and the denied call (same idempotency key) as not run.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHost } from '../../src/index';
import { runEvents, waitForStatus } from '../runtime/harness';
import { approvalHost, until } from './approval-host';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

describe('the report of a run that executed after an approval', () => {
  // The kind of langfuse/langfuse#15229 (an approved tool call shown twice in the transcript).
  it('lists the execution once as succeeded; the denied attempt never ran', async () => {
    const { host, world } = await approvalHost();
    hosts.push(host);
    const run = await host.startRun({ goal: 'Add Dune', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['waiting']);
    const asked = (await runEvents(host, run.id)).find((e) => e.type === 'approval_requested')!.data as {
      approvalId: string;
      payloadHash: string;
    };
    await host.approvals.decide(asked.approvalId, {
      status: 'approved',
      actor: 'user:admin',
      payloadHash: asked.payloadHash,
    });
    expect(await until(() => world.jobs.length === 1)).toBe(true);
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed']);
    const effects = (done.report as unknown as { effects: Array<{ capabilityId: string; outcome: string }> }).effects;
    expect(world.jobs).toHaveLength(1);
    expect(
      effects.filter((e) => e.capabilityId === 'plan.execute' && e.outcome === 'succeeded'),
      JSON.stringify(effects),
    ).toHaveLength(1);
  });
});
