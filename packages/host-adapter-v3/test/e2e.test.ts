import { afterEach, describe, expect, it } from 'vitest';
import { runCleanups, runEvents, v3Setup, waitForStatus, waitUntil } from './helpers';
import { approveRequested, requestedApproval } from '@media-agent/sdk/testing';

afterEach(runCleanups);

describe('V3 end to end (simulator, scripted model, real runtime)', () => {
  it('adds a film: search → identify → releases → plan → approval → submit → download completes → organize → library has it; the report is verified succeeded', async () => {
    const { host, sim, clock } = await v3Setup();
    await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
    await host.grants.create({ action: 'policy.organize', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'Add Dune: Part Two to the library', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['waiting']);
    const asked = await requestedApproval(host, run.id);
    expect(sim.requestsFor('download.add')).toHaveLength(0);
    await approveRequested(host, asked);
    await waitUntil(() => sim.downloads().length === 1);
    clock.advance(60_000);
    expect(sim.downloads()[0]!.state).toBe('completed');
    await waitForStatus(host, run.id, ['waiting']);
    expect(sim.inLibrary('themoviedb:693134')).toBe(false);
    await host.appendToInbox(run.id, 'The download finished: organize the completed download.', 'user:admin');
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed', 'cancelled', 'budget_exceeded'], {
      clock,
      tickMs: 1000,
      timeoutMs: 15_000,
    });
    expect(done.status).toBe('succeeded');
    const detail = await host.getRun(run.id);
    expect(detail.report).toMatchObject({ status: 'succeeded', verified: true });
    expect(detail.report!.facts.downloads).toEqual([
      expect.objectContaining({ mediaEntityId: 'tmdb:693134', status: 'imported' }),
    ]);
    expect(detail.report!.facts.library).toEqual([
      expect.objectContaining({ mediaEntityId: 'tmdb:693134', present: true }),
    ]);
    expect(sim.inLibrary('themoviedb:693134')).toBe(true);
    expect(sim.requestsFor('download.add')).toHaveLength(1);
    expect(sim.requestsFor('transfer.file').length).toBeGreaterThanOrEqual(2); // preview + run
    sim.assertNoViolations();
  });

  it('accept-then-drop: download.add is accepted then the connection drops; the verifier settles the unknown submit from the downloader task list; one download on the host, no second add', async () => {
    const { host, sim } = await v3Setup();
    await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    sim.faults.dropAfterAccept.push('download.add');
    const run = await host.startRun({ goal: 'Add Dune: Part Two to the library', actor: 'user:admin' });
    await waitUntil(
      async () =>
        (await runEvents(host, run.id)).filter(
          (e) => e.type === 'tool_call' && (e.data as { capabilityId: string }).capabilityId === 'download.submit',
        ).length >= 4,
    );
    const phases = (await runEvents(host, run.id))
      .filter((e) => e.type === 'tool_call' && (e.data as { capabilityId: string }).capabilityId === 'download.submit')
      .map((e) => (e.data as { phase: string }).phase);
    expect(phases.slice(0, 4)).toEqual(['started', 'unknown', 'started', 'succeeded']);
    expect(sim.requestsFor('download.add')).toHaveLength(1);
    expect(sim.downloads()).toHaveLength(1);
    const audit = await host.audit({ capabilityId: 'download.submit' });
    expect(audit.some((a) => (a.reason ?? '').includes('verified by a read-only verifier'))).toBe(true);
    sim.assertNoViolations();
  });
});
