// Found by trying the SDK as a new user would (README and docs only); each case failed before its fix.
import { describe, expect, it } from 'vitest';
import { createAgentHost } from '@media-agent/sdk';
import {
  registerSandboxCapabilities,
  SandboxWorld,
  ScriptedProvider,
  waitForRunStatus,
} from '@media-agent/sdk/testing';

describe('trial: answer classification', () => {
  it('"add X" where the model only looked X up and claimed success is not a succeeded answer', async () => {
    const scripts = [
      {
        match: 'add',
        finalText: 'Added it, it is in your library now.',
        steps: [{ toolCalls: [{ capability: 'catalog.lookup', input: { query: 'Dune: Part Two', limit: 1 } }] }],
      },
    ];
    const world = new SandboxWorld({ durations: { queuedMs: 10, downloadMs: 50, importMs: 10 } });
    const host = createAgentHost({
      model: { provider: new ScriptedProvider({ scripts }) },
      goalFacts: world,
      runs: { goalPollSec: 1, pollMs: 20 },
    });
    registerSandboxCapabilities(host, world);
    await host.start();
    const run = await host.startRun({ goal: 'add Dune: Part Two to my library', actor: 'user:admin' });
    await waitForRunStatus(host, run.id, ['succeeded', 'failed', 'waiting'], { timeoutMs: 30_000 });
    const { report } = await host.getRun(run.id);
    await host.stop();
    // observed: { status: 'succeeded', request: ['answer'], summary: 'no effect was made: … ; not in the library: Dune: Part Two' }
    // docs/architecture.md: `answer` is "no effect attempted, no title named"; the title was resolved by catalog.lookup.
    expect(report?.summary).toMatch(/Dune: Part Two .* is not in the library; the run made no effect/);
    expect(report?.status).toBe('failed');
    expect(report?.targets).toEqual([expect.objectContaining({ title: 'Dune: Part Two' })]);
  });
});
