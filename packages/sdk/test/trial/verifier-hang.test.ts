// Found by trying the SDK as a new user would (README and docs only); each case failed before its fix.
import { describe, expect, it } from 'vitest';
import Type from 'typebox';
import { createAgentHost, defineCapability } from '@media-agent/sdk';
import { ScriptedProvider, waitForRunStatus } from '@media-agent/sdk/testing';

describe('trial: read-back verifier', () => {
  it('a verifier that never settles does not keep the run running forever', async () => {
    let verifying!: () => void;
    const verifyStarted = new Promise<void>((r) => (verifying = r));
    const set = defineCapability({
      id: 'settings.set',
      version: 1,
      title: 'set',
      description: 'set one setting',
      kind: 'execute',
      replay: 'never',
      effect: 'setting',
      input: Type.Object({ key: Type.String() }),
      output: Type.Object({ ok: Type.Boolean() }),
      // e.g. the host's read hangs on a dead socket, ignoring the signal
      verify: () => {
        verifying();
        return new Promise(() => {});
      },
      handler: async () => ({ ok: true }),
    });
    const scripts = [
      {
        match: 'set',
        finalText: 'Set.',
        steps: [{ toolCalls: [{ capability: 'settings.set', input: { key: 'q' } }] }],
      },
    ];
    const host = createAgentHost({
      model: { provider: new ScriptedProvider({ scripts }) },
      runs: { goalPollSec: 1, pollMs: 20 },
    });
    host.capabilities.register(set);
    await host.start();
    await host.grants.create({ action: 'settings.set', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'set quality', actor: 'user:admin' });
    await verifyStarted; // the run is stuck in the verifier
    await host.abort(run.id, 'stuck');
    const ended = await waitForRunStatus(host, run.id, ['succeeded', 'failed', 'cancelled'], { timeoutMs: 3000 }).catch(
      (e) => e as Error,
    );
    const { run: r } = await host.getRun(run.id);
    await Promise.race([host.stop(), new Promise((res) => setTimeout(res, 1000))]);
    // observed: still 'running' (step drive) after abort; without abort it stayed 'running' for 100 s
    expect(r.status).toBe('cancelled');
    expect(ended).not.toBeInstanceOf(Error);
  });
});
