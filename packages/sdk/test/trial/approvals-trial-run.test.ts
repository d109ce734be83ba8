// Trial: a run's call denied for want of an approval asks for it even when the capability's impact misbehaves
// ("an unknown impact never blocks anything", docs/approvals.md#impact). Real SQLite file, scripted model.
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { defineCapability } from '../../src/index';
import { ScriptedProvider, listRunEvents, waitForRunStatus } from '../../src/testing';
import { makeTrialHost, type TrialHost } from './approvals-trial-helpers';

let h: TrialHost | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

function shelf(impact: () => unknown) {
  return defineCapability({
    id: 'shelf.apply',
    version: 1,
    title: 'Shelf',
    description: 'Executes a shelf plan.',
    kind: 'execute',
    replay: 'reconcile',
    input: Type.Object({ planId: Type.String() }),
    output: Type.Object({}),
    target: (input) => ({ planType: 'shelf', planId: input.planId }),
    impact: impact as never,
    handler: async () => ({}),
  });
}

async function runUntilWaiting(throwing: () => unknown) {
  const planHolder: { id?: string } = {};
  const scripts = [
    {
      match: 'shelf',
      steps: [{ toolCalls: () => [{ capability: 'shelf.apply', input: { planId: planHolder.id } }] }],
      finalText: 'Waiting.',
    },
  ];
  h = await makeTrialHost({
    extra: { model: { provider: new ScriptedProvider({ scripts: scripts as never }) }, runs: { pollMs: 20 } } as never,
    workers: true,
  });
  const t = h;
  t.host.capabilities.register(shelf(throwing));
  planHolder.id = (await t.host.plans.create({ type: 'shelf', payload: { bytes: 1 }, actor: 'user:bob' })).id;
  const run = await t.host.startRun({ goal: 'put it on the shelf', actor: 'user:bob' });
  await waitForRunStatus(t.host, run.id, ['waiting', 'failed', 'succeeded'], { clock: t.clock, tickMs: 1000 });
  const events = await listRunEvents(t.host, run.id);
  return { t, run: await t.host.getRun(run.id), events };
}

describe('trial: a run asks for an approval whatever the impact does', () => {
  it('an impact that throws an Error: the run waits for an approval marked impact unknown (control)', async () => {
    const { events } = await runUntilWaiting(() => {
      throw new Error('no disk');
    });
    const requested = events.find((e) => e.type === 'approval_requested');
    expect(requested?.data).toMatchObject({ impact: { status: 'unknown', code: 'IMPACT_FAILED' } });
  });

  it('an impact that throws a null-prototype object: the run still waits for an approval marked impact unknown', async () => {
    const { events, run } = await runUntilWaiting(() => {
      throw Object.create(null);
    });
    expect(run.run.status).toBe('waiting');
    const requested = events.find((e) => e.type === 'approval_requested');
    expect(requested?.data).toMatchObject({ impact: { status: 'unknown', code: 'IMPACT_FAILED' } });
  });
});
