import { afterEach, describe, expect, it } from 'vitest';
import type { DecisionRecord } from '@media-agent/sdk';
import { ScriptedProvider } from '@media-agent/sdk/testing';
import { SIM_RELEASES } from '@media-agent/host-adapter-v3/testing';
import { raiseV3Decisions, v3DecisionInputs } from '@media-agent/host-adapter-v3';
import { runCleanups, runEvents, v3Setup } from './helpers';
import { submitFirstRelease } from '../../host-adapter-kit/test/adapter-fixtures';

afterEach(runCleanups);

const ADMIN = 'user:admin';
const taskOf = (goal: string) => /"taskId":"(th-\d+)"/.exec(goal)?.[1] ?? 'th-0';

describe('automatic recovery on the MoviePilot 3.x simulator', () => {
  it('a failed transfer raises download_failed; the recovery run redoes it within a grant; the host facts verify it; the decision is resolved by system:auto-recover', async () => {
    const provider = new ScriptedProvider({
      scripts: {
        match: /Investigate decision/,
        steps: [
          { toolCalls: [{ capability: 'task.inspect', input: (c) => ({ taskId: taskOf(c.goal) }) }] },
          { toolCalls: [{ capability: 'task.retry', input: (c) => ({ taskId: taskOf(c.goal) }) }] },
        ],
        finalText: 'Redid the failed transfer.',
      },
    });
    const { host, sim, clock, client } = await v3Setup({
      sim: { faults: { transferState: 'failed' } },
      host: { model: { provider }, decisions: { autoInvestigate: true, autoInvestigateMode: 'recover' } },
    });
    // A download that completed, then failed to organize (the host's transfer failed).
    const { submitted } = await submitFirstRelease(host, ADMIN, { limit: 1 });
    expect(submitted.status).not.toBe('denied');
    clock.advance(60_000);
    const hash = sim.downloads()[0]!.hash;
    const organize = await host.invoke('organize.plan', { downloadId: hash }, { actor: ADMIN });
    const organizePlanId = (organize.output as { plan: { id: string } }).plan.id;
    await host.invoke('organize.execute', { planId: organizePlanId }, { actor: ADMIN });
    expect(sim.inLibrary('themoviedb:693134')).toBe(false);

    const inputs = await v3DecisionInputs(client);
    expect(inputs).toEqual([
      expect.objectContaining({
        kind: 'download_failed',
        subject: { type: 'download', id: hash },
        rootCause: `download_failed:${hash}`,
        options: [expect.objectContaining({ id: 'retry', capabilityId: 'task.retry' })],
      }),
    ]);
    await host.grants.create({ action: 'task.retry', actor: ADMIN });
    sim.faults.transferState = 'completed'; // the cause is gone: a redo will succeed
    const [raised] = await raiseV3Decisions(host, client);
    expect(await raiseV3Decisions(host, client)).toEqual([expect.objectContaining({ id: raised!.id })]); // the same occurrence: nothing new

    const deadline = Date.now() + 15_000;
    let decision: DecisionRecord;
    for (;;) {
      decision = await host.getDecision(raised!.id);
      if (decision.status !== 'open') break;
      if (Date.now() > deadline) throw new Error(JSON.stringify(decision));
      clock.advance(1000);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(decision).toMatchObject({
      status: 'resolved',
      resolvedBy: 'system:auto-recover',
      resolution: { execution: { kind: 'agent_recover', verified: true } },
    });
    const evidence = decision.evidence as Record<string, any>;
    expect(evidence.autoRecover).toMatchObject({ outcome: 'verified', actions: [{ capabilityId: 'task.retry' }] });
    const { run, report } = await host.getRun(evidence.investigation.runId);
    expect(run.status).toBe('succeeded');
    expect(report?.summary).toMatch(
      /^recovered \(verified by the system\): task\.retry th-\d+; now: organize th-\d+ succeeded/,
    );
    expect(sim.inLibrary('themoviedb:693134')).toBe(true);
    expect(sim.requestsFor('transfer.history.redo')).toHaveLength(1);
    expect((await runEvents(host, run.id)).some((e) => e.type === 'tool_call' && e.data.phase === 'denied')).toBe(
      false,
    );
    sim.assertNoViolations();
  });
});

describe('identity decisions from the MoviePilot 3.x recognition', () => {
  it('a download the host recognizes as another title than the downloader says raises identity_ambiguous with an organize option per title', async () => {
    // Two releases of one name: recognition by name binds it to the first (Dune, 2021), the downloader to Part Two.
    const decoy = { ...SIM_RELEASES[0]!, media: 'themoviedb:438631', enclosure: 'https://pt.example/download/9999' };
    const { host, sim, clock, client } = await v3Setup({ sim: { releases: [decoy, ...SIM_RELEASES] } });
    await submitFirstRelease(host, ADMIN, { limit: 1 });
    clock.advance(500);
    const hash = sim.downloads()[0]!.hash;
    const [raised, ...rest] = await raiseV3Decisions(host, client);
    expect(rest).toEqual([]);
    expect(raised).toMatchObject({
      kind: 'identity_ambiguous',
      subjectType: 'download',
      subjectId: hash,
      raisedBy: 'system:moviepilot-v3',
      evidence: {
        candidates: [
          { mediaEntityId: 'tmdb:693134', by: 'downloader' },
          { mediaEntityId: 'tmdb:438631', by: 'recognition' },
        ],
      },
    });
    expect(raised!.options.map((o) => o.id)).toEqual(['organize-as-tmdb-693134', 'organize-as-tmdb-438631']);
    expect(await v3DecisionInputs(client, undefined, { recognize: false })).toEqual([]);
    clock.advance(60_000); // completed: it can be organized
    const chosen = await host.chooseDecisionOption(raised!.id, 'organize-as-tmdb-693134', ADMIN);
    expect(chosen.execution).toMatchObject({ capabilityId: 'organize.plan', status: 'succeeded' });
    expect(chosen.execution).toMatchObject({ output: { organize: { mediaEntityId: 'tmdb:693134' } } });
    sim.assertNoViolations();
  });
});
