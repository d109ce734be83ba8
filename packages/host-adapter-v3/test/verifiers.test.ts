import { afterEach, describe, expect, it } from 'vitest';
import { runCleanups, v3Setup } from './helpers';

afterEach(runCleanups);
/** One task, so the repeated call has the same idempotency key as the first. */
const admin = (taskId: string) => ({ actor: 'user:admin' as const, taskId });

describe('V3 verifiers (issue 5 item 5)', () => {
  it('an unknown organize (transfer.file accepted, then the connection dropped) is settled by the transfer history: one transfer on the host, not a second', async () => {
    const { host, sim } = await v3Setup();
    const args = { body: { fileitem: { storage: 'local', type: 'dir', path: '/downloads/Dune.Part.Two.2024.2160p.WEB-DL.H265.HDR-MP' }, media_source: 'themoviedb', media_id: '693134', transfer_type: 'link' } };
    sim.faults.dropAfterAccept.push('transfer.file');
    const first = await host.invoke('mp.transfer.file', args, admin('organize-1'));
    expect(first.status).toBe('unknown');
    expect(sim.transfers()).toHaveLength(1);
    const again = await host.invoke('mp.transfer.file', args, admin('organize-1'));
    expect(again.status).toBe('succeeded');
    expect(again.output).toMatchObject({ success: true, data: { items: [{ source: args.body.fileitem.path, state: 'completed', history_id: sim.transfers()[0]!.id }] } });
    expect(sim.requestsFor('transfer.file')).toHaveLength(1);
    expect(sim.requestsFor('transfer.history').length).toBeGreaterThan(0);
    expect(sim.transfers()).toHaveLength(1);
    expect(sim.inLibrary('themoviedb:693134')).toBe(true);
    sim.assertNoViolations();
  });
});
