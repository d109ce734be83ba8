// A host whose run asks a person for an approval (plan.make, then plan.execute denied until approved), for the
// review-break tests of the run's end reading its approvals once, filtered by requester.
import Type from 'typebox';
import { defineCapability, type StorageAdapter } from '../../src/index';
import { MemoryStorage } from '../../src/storage';
import { startHost } from '../runtime/harness';

export const ASK_SCRIPT = {
  match: 'Dune',
  steps: [
    { toolCalls: [{ capability: 'plan.make', input: { title: 'Dune' } }] },
    { toolCalls: [{ capability: 'plan.execute', input: { planId: '{{plan.make.planId}}' } }] },
    { text: 'Waiting for a person to approve the download.' },
    { toolCalls: [{ capability: 'plan.execute', input: { planId: '{{plan.make.planId}}' } }] },
  ],
  finalText: 'Approved and submitted.',
};

/** A started host (memory storage unless given) with plan.make (granted) and plan.execute (needs an approval). */
export async function approvalHost(storage: StorageAdapter = new MemoryStorage()) {
  const started = await startHost(ASK_SCRIPT, { storage });
  const { host, world } = started;
  host.capabilities.register(
    defineCapability({
      id: 'plan.make',
      version: 1,
      title: 'Plan',
      description: 'Plans a download.',
      kind: 'propose',
      replay: 'reconcile',
      input: Type.Object({ title: Type.String() }),
      output: Type.Object({ planId: Type.String() }),
      handler: async (input, ctx) => ({
        planId: (await host.plans.create({ type: 'download', payload: { title: input.title }, actor: ctx.actor })).id,
      }),
    }),
  );
  host.capabilities.register(
    defineCapability({
      id: 'plan.execute',
      version: 1,
      title: 'Execute',
      description: 'Executes a download plan.',
      kind: 'execute',
      replay: 'never',
      input: Type.Object({ planId: Type.String() }),
      output: Type.Object({ jobId: Type.String() }),
      target: (input) => ({ planType: 'download', planId: input.planId }),
      handler: async (_input, ctx) => {
        world.jobs.push({ id: `job-${world.jobs.length + 1}`, title: 'Dune', runId: ctx.runId, at: 0, key: undefined });
        return { jobId: `job-${world.jobs.length}` };
      },
    }),
  );
  await host.grants.create({ action: 'plan.make', actor: 'user:admin' });
  return started;
}

/** Waits (real time) until `check` holds, at most `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
}
