// Found by trying the SDK as a new user would (README and docs only); each case failed before its fix.
import { describe, expect, it } from 'vitest';
import { createAgentHost } from '@media-agent/sdk';
import {
  registerSandboxCapabilities,
  SandboxWorld,
  ScriptedProvider,
  waitForRunStatus,
} from '@media-agent/sdk/testing';

describe('trial: an effect refused for invalid input', () => {
  it('a policy.apply refused with TOOL_ARGS_INVALID (no retry) does not end succeeded as an answer', async () => {
    const scripts = [
      {
        match: 'resolution',
        finalText: 'Minimum resolution set.',
        steps: [
          {
            toolCalls: [
              { capability: 'policy.apply', input: { kind: 'acquisition', settings: { minResolution: 'bogus' } } },
            ],
          },
        ],
      },
    ];
    const world = new SandboxWorld({});
    const host = createAgentHost({
      model: { provider: new ScriptedProvider({ scripts }) },
      goalFacts: world,
      runs: { goalPollSec: 1, pollMs: 20 },
    });
    registerSandboxCapabilities(host, world);
    await host.start();
    await host.grants.create({ action: 'policy.apply', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'set the minimum resolution', actor: 'user:admin' });
    await waitForRunStatus(host, run.id, ['succeeded', 'failed', 'waiting'], { timeoutMs: 30_000 });
    const { report, events } = await host.getRun(run.id, { afterSeq: 0, limit: 100 });
    await host.stop();
    expect(events.some((e) => e.type === 'tool_call' && e.data.phase === 'failed')).toBe(true); // TOOL_ARGS_INVALID
    // observed: { status: 'succeeded', request: ['answer'], effects: [], summary: 'no effect was made: the run answered …' }
    // docs/architecture.md: "an effect failed or refused (not authorized, input invalid, …) → failed"
    expect(report?.request).toEqual(['setting']);
    expect(report?.status).toBe('failed');
  });
});
