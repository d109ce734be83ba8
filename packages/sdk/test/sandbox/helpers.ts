import { ConsoleLogger, ManualClock, SequentialIdGenerator, createAgentHost, type AgentHost } from '../../src/index';
import { MemoryStorage } from '../../src/storage';
import { SandboxWorld, registerSandboxCapabilities, type SandboxWorldOptions } from '../../src/testing';

/** A real host (memory storage, manual clock, sequential ids, silent logger) with the sandbox world registered. */
export async function makeSandboxHost(options: Omit<SandboxWorldOptions, 'clock'> = {}) {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const host = createAgentHost({
    storage: new MemoryStorage(),
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
  });
  await host.start();
  const world = new SandboxWorld({ ...options, clock });
  registerSandboxCapabilities(host, world);
  return { host, clock, world };
}

/** Approves a plan as the console administrator (echoing its payload hash) and returns the approval id. */
export async function approve(host: AgentHost, planId: string, actor = 'agent:run-1'): Promise<string> {
  const plan = await host.plans.get(planId);
  const approval = await host.approvals.request({ planType: plan.type, planId, actor });
  await host.approvals.decide(approval.id, { status: 'approved', actor: 'user:admin', payloadHash: plan.payloadHash });
  return approval.id;
}

export const DUNE_2 = { mediaSource: 'tmdb', mediaId: '693134' } as const;
