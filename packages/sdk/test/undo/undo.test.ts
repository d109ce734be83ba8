// host.undo end to end, on the memory store and on a real SQLite file: undo by invocation and by run (a run driven by
// the scripted model), newest first, what is not undoable, a repeated undo that runs no inverse twice, who may undo,
// an inverse that fails halfway (the rest stops, a decision is raised) and one that is denied.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHost } from '../../src/index';
import { waitForRunStatus } from '../../src/testing';
import { STORAGE_KINDS } from '../helpers';
import { ADMIN, ALICE, BOB, TIDY_SCRIPT, grantForwardCalls, undoHost } from './fixtures';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

async function setup(kind: (typeof STORAGE_KINDS)[number]) {
  const made = await undoHost(kind, [TIDY_SCRIPT]);
  hosts.push(made.host);
  return made;
}

/** Starts the tidy run as `owner` and waits until it ended. */
async function tidyRun(host: AgentHost, owner: string) {
  await grantForwardCalls(host);
  const run = await host.startRun({ goal: 'tidy the downloads', actor: owner });
  await waitForRunStatus(host, run.id, ['succeeded']);
  return run;
}

const undoRows = async (host: AgentHost) =>
  (await host.audit({ limit: 1000 })).filter((r) => r.action.startsWith('undo.'));

describe.each(STORAGE_KINDS)('host.undo on %s', (kind) => {
  it('undoes one invocation through its inverse, and a repeated undo runs no inverse twice', async () => {
    const { host, world } = await setup(kind);
    const moved = await host.invoke('files.move', { from: 'a.mkv', to: 'movies/a.mkv' }, { actor: ADMIN });
    expect(moved.status).toBe('succeeded');

    const undo = await host.undo({ invocationId: moved.invocationId }, { actor: ADMIN });
    expect(undo).toMatchObject({
      status: 'undone',
      target: { invocationId: moved.invocationId },
      notUndoable: [],
      notAttempted: [],
      undone: [
        {
          invocationId: moved.invocationId,
          capabilityId: 'files.move',
          idempotencyKey: moved.idempotencyKey,
          inverseCapabilityId: 'files.restore',
          status: 'undone',
          result: { status: 'succeeded', output: { from: 'movies/a.mkv', to: 'a.mkv' } },
        },
      ],
    });
    expect(undo.stoppedAt).toBeUndefined();
    expect(world.files.has('a.mkv')).toBe(true);
    expect(world.calls).toEqual(['files.move a.mkv movies/a.mkv', 'files.restore movies/a.mkv a.mkv']);

    // Again: the inverse's recorded result comes back; its handler is not called a second time.
    const again = await host.undo({ invocationId: moved.invocationId }, { actor: ADMIN });
    expect(again.status).toBe('undone');
    expect(again.undone[0]!.result).toMatchObject({ status: 'succeeded', replayed: true });
    expect(again.undone[0]!.result!.invocationId).not.toBe(undo.undone[0]!.result!.invocationId);
    expect(world.calls.filter((c) => c.startsWith('files.restore'))).toHaveLength(1);

    // The inverse itself is never undone again.
    const ofInverse = await host.undo({ invocationId: undo.undone[0]!.result!.invocationId }, { actor: ADMIN });
    expect(ofInverse).toMatchObject({ status: 'nothing_to_undo', undone: [], notUndoable: [] });
    expect(world.calls.filter((c) => c.startsWith('files.'))).toHaveLength(2);

    // Audited: requested then finished, per undo, under the undo's id.
    const rows = await undoRows(host);
    expect(rows.map((r) => [r.action, r.outcome, r.invocationId])).toEqual([
      ['undo.requested', 'requested', undo.undoId],
      ['undo.finished', 'undone', undo.undoId],
      ['undo.requested', 'requested', again.undoId],
      ['undo.finished', 'undone', again.undoId],
      ['undo.requested', 'requested', ofInverse.undoId],
      ['undo.finished', 'nothing_to_undo', ofInverse.undoId],
    ]);
    expect(rows.every((r) => r.actor === ADMIN && r.capabilityId === 'host.undo')).toBe(true);
  });

  it('undoes a run newest first, lists what has no inverse, skips reads, and never runs an inverse twice', async () => {
    const { host, world, storage } = await setup(kind);
    const run = await tidyRun(host, ADMIN);
    expect(world.calls).toEqual([
      'files.move a.mkv movies/a.mkv',
      'files.delete b.mkv',
      'files.tag c.mkv',
      'files.list',
      'files.move d.mkv movies/d.mkv',
    ]);
    world.calls.length = 0;

    const undo = await host.undo({ runId: run.id }, { actor: ADMIN });
    expect(undo.status).toBe('partial');
    expect(undo.undone.map((s) => [s.capabilityId, s.inverseCapabilityId, s.result?.status])).toEqual([
      ['files.move', 'files.restore', 'succeeded'],
      ['files.tag', 'files.untag', 'succeeded'],
      ['files.move', 'files.restore', 'succeeded'],
    ]);
    expect(undo.notUndoable).toEqual([expect.objectContaining({ capabilityId: 'files.delete', reason: 'no_inverse' })]);
    // Newest first: d's move, c's tag, a's move (b's delete stays, and is said to).
    expect(world.calls).toEqual([
      'files.restore movies/d.mkv d.mkv',
      'files.untag c.mkv',
      'files.restore movies/a.mkv a.mkv',
    ]);
    expect([...world.files.keys()].sort()).toEqual(['a.mkv', 'c.mkv', 'd.mkv']);
    expect(world.tags.get('c.mkv')?.size).toBe(0);
    // Each step names the invocation it undid, as the run's ledger has it.
    const entries = await storage.ledger.listByRun(run.id);
    expect(undo.undone.map((s) => s.idempotencyKey).sort()).toEqual(
      entries
        .filter((e) => e.capabilityId !== 'files.delete')
        .map((e) => e.key)
        .sort(),
    );

    const again = await host.undo({ runId: run.id }, { actor: ADMIN });
    expect(again.status).toBe('partial');
    expect(again.undone.every((s) => s.result?.replayed === true)).toBe(true);
    expect(world.calls).toHaveLength(3);
  });

  it("refuses another person's effects (UNDO_FORBIDDEN, audited, nothing runs) unless an administrator undoes them", async () => {
    const { host, world, storage } = await setup(kind);
    const run = await tidyRun(host, ALICE);
    world.calls.length = 0;

    await expect(host.undo({ runId: run.id }, { actor: BOB })).rejects.toMatchObject({
      code: 'UNDO_FORBIDDEN',
      details: { actor: BOB, performers: [ALICE] },
    });
    // One invocation of the run: its performer is the run's owner too.
    const [entry] = await storage.ledger.listByRun(run.id);
    await expect(host.undo({ invocationId: entry!.invocationId }, { actor: BOB })).rejects.toMatchObject({
      code: 'UNDO_FORBIDDEN',
    });
    expect(world.calls).toEqual([]);
    const refused = (await undoRows(host)).filter((r) => r.action === 'undo.refused');
    expect(refused.map((r) => [r.actor, r.reason])).toEqual([
      [BOB, 'UNDO_FORBIDDEN'],
      [BOB, 'UNDO_FORBIDDEN'],
    ]);

    // A person's own direct call, undone by another ordinary user: refused too.
    await host.grants.create({ action: 'files.rename', actor: ADMIN });
    const renamed = await host.invoke('files.rename', { from: 'c.mkv', to: 'c2.mkv' }, { actor: BOB });
    expect(renamed.status).toBe('succeeded');
    await expect(host.undo({ invocationId: renamed.invocationId }, { actor: ALICE })).rejects.toMatchObject({
      code: 'UNDO_FORBIDDEN',
      details: { performers: [BOB] },
    });

    const undo = await host.undo({ runId: run.id }, { actor: ADMIN });
    expect(undo.status).toBe('partial');
    expect(undo.undone).toHaveLength(3);
  });

  it('reports an inverse denied by its own authorization and stops there (an ordinary user needs an approval)', async () => {
    const { host, world } = await setup(kind);
    const run = await tidyRun(host, ALICE);
    world.calls.length = 0;

    // Alice may undo her own run, but files.restore is not granted to her: the newest inverse is denied.
    const undo = await host.undo({ runId: run.id }, { actor: ALICE });
    expect(undo.status).toBe('denied');
    expect(undo.undone).toEqual([]);
    expect(undo.stoppedAt).toMatchObject({
      capabilityId: 'files.move',
      inverseCapabilityId: 'files.restore',
      status: 'denied',
      result: { status: 'denied' },
      error: { code: 'AUTH_NO_AUTHORIZATION' },
    });
    // Nothing older is skipped silently: the two older undoable effects are listed as not attempted.
    expect(undo.notAttempted.map((n) => n.inverseCapabilityId)).toEqual(['files.untag', 'files.restore']);
    expect(undo.notUndoable.map((n) => n.capabilityId)).toEqual(['files.delete']);
    expect(undo.decisionId).toBeUndefined();
    expect(world.calls).toEqual([]);
    const denied = await host.audit({ action: 'capability.denied', capabilityId: 'files.restore' });
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ actor: ALICE, taskId: expect.stringMatching(/^undo:[0-9a-f]{64}$/) });
    const finished = (await undoRows(host)).find((r) => r.action === 'undo.finished');
    expect(finished).toMatchObject({ outcome: 'denied', reason: 'AUTH_NO_AUTHORIZATION', runId: run.id });

    // With a grant for the inverses, her undo goes through.
    await host.grants.create({ action: 'files.restore', actor: ADMIN });
    await host.grants.create({ action: 'files.untag', actor: ADMIN });
    expect((await host.undo({ runId: run.id }, { actor: ALICE })).status).toBe('partial');
    expect(world.calls).toHaveLength(3);
  });

  // As in apache/incubator-seata#2861 ("How does Seata handle failed compensation transactions in SAGA mode?": the
  // compensation stops at the failed C2, C1 runs only once C2 succeeded) and eventuate-tram/eventuate-tram-sagas#9
  // (compensation1 is sent only after compensation2 replied success): a failed inverse stops the older ones, and a
  // later undo resumes without running the newer inverses again.
  it('stops at an inverse that fails halfway, raises one undo_failed decision, and resumes on the next undo', async () => {
    const { host, world } = await setup(kind);
    const run = await tidyRun(host, ADMIN);
    world.calls.length = 0;
    world.untagFailsFor = 'c.mkv';

    const undo = await host.undo({ runId: run.id }, { actor: ADMIN });
    expect(undo.status).toBe('failed');
    expect(undo.undone.map((s) => s.capabilityId)).toEqual(['files.move']);
    expect(undo.stoppedAt).toMatchObject({
      capabilityId: 'files.tag',
      inverseCapabilityId: 'files.untag',
      status: 'failed',
      result: { status: 'failed' },
      error: { code: 'HANDLER_FAILED' },
    });
    expect(undo.notAttempted).toEqual([
      expect.objectContaining({ capabilityId: 'files.move', inverseCapabilityId: 'files.restore' }),
    ]);
    // a.mkv's move is not undone: the undo stopped before it.
    expect(world.calls).toEqual(['files.restore movies/d.mkv d.mkv', 'files.untag c.mkv']);
    expect(world.files.has('movies/a.mkv')).toBe(true);

    const decisions = await host.decisions({ kind: 'undo_failed' });
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({
      id: undo.decisionId,
      status: 'open',
      subjectType: 'run',
      subjectId: run.id,
      raisedBy: 'system:undo',
      evidence: {
        undoId: undo.undoId,
        actor: ADMIN,
        capabilityId: 'files.tag',
        inverseCapabilityId: 'files.untag',
        error: { code: 'HANDLER_FAILED' },
        notAttemptedCount: 1,
      },
    });

    // Failing again raises nothing new; once the tag service works, the undo resumes where it stopped.
    expect((await host.undo({ runId: run.id }, { actor: ADMIN })).status).toBe('failed');
    expect(await host.decisions({ kind: 'undo_failed' })).toHaveLength(1);
    world.untagFailsFor = undefined;
    const resumed = await host.undo({ runId: run.id }, { actor: ADMIN });
    expect(resumed.status).toBe('partial');
    expect(resumed.undone.map((s) => s.result?.replayed === true)).toEqual([true, false, false]);
    expect(world.calls).toEqual([
      'files.restore movies/d.mkv d.mkv',
      'files.untag c.mkv',
      'files.untag c.mkv',
      'files.untag c.mkv',
      'files.restore movies/a.mkv a.mkv',
    ]);
    expect([...world.files.keys()].sort()).toEqual(['a.mkv', 'c.mkv', 'd.mkv']);
  });

  it('an inverse whose input cannot be computed fails UNDO_INVERSE_INVALID; unknown outcomes are not undoable', async () => {
    const { host, world } = await setup(kind);
    await host.grants.create({ action: 'files.rename', actor: ADMIN });
    const renamed = await host.invoke('files.rename', { from: 'a.mkv', to: 'a2.mkv' }, { actor: ADMIN });
    const undo = await host.undo({ invocationId: renamed.invocationId }, { actor: ADMIN });
    expect(undo).toMatchObject({
      status: 'failed',
      stoppedAt: { status: 'failed', result: null, error: { code: 'UNDO_INVERSE_INVALID' } },
    });
    expect(undo.stoppedAt!.error!.message).toMatch(/no original name/);
    const [decision] = await host.decisions({ kind: 'undo_failed' });
    expect(decision).toMatchObject({ subjectType: 'invocation', subjectId: renamed.invocationId });

    world.tagUnknownFor = 'b.mkv';
    const tagged = await host.invoke('files.tag', { path: 'b.mkv', tag: 'x' }, { actor: ADMIN });
    expect(tagged.status).toBe('unknown');
    const unknown = await host.undo({ invocationId: tagged.invocationId }, { actor: ADMIN });
    expect(unknown).toMatchObject({
      status: 'partial',
      undone: [],
      notUndoable: [{ capabilityId: 'files.tag', reason: 'outcome_unknown' }],
    });
    expect(unknown.notUndoable[0]!.message).toMatch(/outcome unknown/);
  });

  it('undoes an accepted (pending) job with its receipt; reads have nothing to undo', async () => {
    const { host, world } = await setup(kind);
    const archived = await host.invoke('files.archive', { path: 'a.mkv' }, { actor: ADMIN });
    expect(archived.status).toBe('pending');
    const undo = await host.undo({ invocationId: archived.invocationId }, { actor: ADMIN });
    expect(undo.status).toBe('undone');
    expect(world.files.has('a.mkv')).toBe(true);

    const listed = await host.invoke('files.list', {}, { actor: ADMIN });
    // A read's audit row is batched: wait until it is stored.
    await expect
      .poll(async () => (await host.audit({ invocationId: listed.invocationId })).length, { timeout: 10_000 })
      .toBe(1);
    expect(await host.undo({ invocationId: listed.invocationId }, { actor: ADMIN })).toMatchObject({
      status: 'nothing_to_undo',
      undone: [],
      notUndoable: [],
    });
  });

  it('refuses a bad target and a target with no record, audited', async () => {
    const { host } = await setup(kind);
    for (const target of [{}, { invocationId: 'inv_1', runId: 'run_1' }, { runId: '' }, null])
      await expect(host.undo(target as never, { actor: ADMIN })).rejects.toMatchObject({
        code: 'UNDO_REQUEST_INVALID',
      });
    await expect(host.undo({ invocationId: 'inv_nope' }, { actor: ADMIN })).rejects.toMatchObject({
      code: 'UNDO_NOT_FOUND',
    });
    await expect(host.undo({ runId: 'run_nope' }, { actor: ADMIN })).rejects.toMatchObject({ code: 'UNDO_NOT_FOUND' });
    await expect(host.undo({ runId: 'run_1' }, { actor: 'nobody' })).rejects.toMatchObject({ code: 'ACTOR_INVALID' });
    const refused = (await undoRows(host)).map((r) => [r.action, r.reason]);
    expect(refused).toEqual([
      ...Array(4).fill(['undo.refused', 'UNDO_REQUEST_INVALID']),
      ['undo.refused', 'UNDO_NOT_FOUND'],
      ['undo.refused', 'UNDO_NOT_FOUND'],
    ]);
  });
});

it('host.undo is refused before start and after stop', async () => {
  const { host } = await undoHost('memory');
  await host.stop();
  await expect(host.undo({ runId: 'run_1' }, { actor: ADMIN })).rejects.toMatchObject({ code: 'HOST_STOPPED' });
});
