import { afterEach, describe, expect, it } from 'vitest';
import { runCleanups, v3Setup } from './helpers';
import { planFirstRelease, submitFirstRelease } from '../../host-adapter-kit/test/adapter-fixtures';

afterEach(runCleanups);

describe('V3 answers like V2: what is not found is MEDIA_NOT_FOUND naming it', () => {
  it('download.submit and organize.execute with an unknown plan id: MEDIA_NOT_FOUND naming the plan (was MEDIA_PLAN_CONFLICT "plan ? is not a download plan")', async () => {
    const { host, sim } = await v3Setup();
    await host.grants.create({ action: '*', actor: 'user:admin' });
    for (const [capability, type] of [
      ['download.submit', 'download'],
      ['organize.execute', 'organize'],
    ] as const) {
      const r = await host.invoke(capability, { planId: 'plan-does-not-exist' }, { actor: 'user:admin' });
      expect(r.status, capability).toBe('failed');
      expect(r.error).toMatchObject({ code: 'MEDIA_NOT_FOUND' });
      expect(r.error!.message).toContain('no plan "plan-does-not-exist"');
      expect(r.error!.message).toContain(`make one with ${type}.plan first`);
      expect(r.error!.message).not.toContain('plan ?');
    }
    expect(sim.requestsFor('download.add')).toHaveLength(0);
    expect(sim.requestsFor('transfer.file')).toHaveLength(0);
  });

  it('a plan of the other type is still MEDIA_PLAN_CONFLICT, naming both types', async () => {
    const { host } = await v3Setup();
    await host.grants.create({ action: '*', actor: 'user:admin' });
    const planId = await planFirstRelease(host, 'user:admin');
    const r = await host.invoke('organize.execute', { planId }, { actor: 'user:admin' });
    expect(r.error).toMatchObject({ code: 'MEDIA_PLAN_CONFLICT' });
    expect(r.error!.message).toContain('is a download plan, not an organize plan');
  });

  // jxxghp/MoviePilot#4201: the host answered a download delete with success while the torrent stayed in the
  // downloader; a state read from the host's answer alone misleads. Here an id nobody knows is not "removed".
  it('organize.plan with an unknown download id: MEDIA_NOT_FOUND naming the download (was MEDIA_INVALID_STATE "… is removed")', async () => {
    const { host } = await v3Setup();
    await host.grants.create({ action: '*', actor: 'user:admin' });
    const id = 'ffffffffffffffffffffffffffffffffffffffff';
    const r = await host.invoke('organize.plan', { downloadId: id }, { actor: 'user:admin' });
    expect(r.error).toMatchObject({ code: 'MEDIA_NOT_FOUND' });
    expect(r.error!.message).toContain(`no download "${id}" on the MoviePilot host`);
    expect(r.error!.message).not.toMatch(/removed/);
  });

  it('task.retry and task.cancel with ids the host does not know: MEDIA_NOT_FOUND naming them (was HOST_OPERATION_UNSUPPORTED, or HOST_OPERATION_FAILED for an unknown th-<id>); a known torrent is still unsupported', async () => {
    const { host, sim } = await v3Setup();
    await host.grants.create({ action: '*', actor: 'user:admin' });
    const hash = 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
    for (const [capability, taskId, words] of [
      ['task.retry', hash, `no download "${hash}"`],
      ['task.cancel', hash, `no download "${hash}"`],
      ['task.retry', 'th-999999', 'no transfer record "th-999999"'],
      ['task.cancel', 'th-999999', 'no transfer record "th-999999"'],
    ] as const) {
      const r = await host.invoke(capability, { taskId }, { actor: 'user:admin' });
      expect(r.error, `${capability} ${taskId}`).toMatchObject({ code: 'MEDIA_NOT_FOUND' });
      expect(r.error!.message).toContain(words);
    }
    expect(sim.requestsFor('transfer.history.redo').map((q) => q.status)).toEqual([404]);
    // A torrent the downloader has: pausing and restarting it left the catalog, said as such.
    const { submitted } = await submitFirstRelease(host, 'user:admin');
    expect(submitted.status).toBe('pending'); // submitted; the download runs on the host
    const downloadId = sim.downloads()[0]!.hash;
    const r = await host.invoke('task.cancel', { taskId: downloadId }, { actor: 'user:admin' });
    expect(r.error).toMatchObject({ code: 'HOST_OPERATION_UNSUPPORTED' });
  });
});
