// An impact that throws, takes too long or answers nonsense makes the impact "unknown"; the dry run and the approval
// still work. Real SQLite file.
import { afterEach, describe, expect, it } from 'vitest';
import Type from 'typebox';
import { defineCapability, type AgentHost } from '../../src/index';
import { ADMIN, BOB, shelfHost } from './fixtures';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
});

async function planned(options: { impactTimeoutMs?: number; secrets?: string[] } = {}) {
  const made = await shelfHost(options);
  hosts.push(made.host);
  const p = await made.host.invoke('shelf.plan', { title: 'Dune', quality: '1080p' }, { actor: ADMIN });
  return { ...made, planId: (p.output as { planId: string }).planId };
}

describe('an impact that fails', () => {
  it('throws: IMPACT_FAILED with its message; the verdict is still there', async () => {
    const { host, shelf, planId } = await planned();
    shelf.impactThrows = 'the NAS did not answer';
    const preview = await host.invoke('shelf.apply', { planId }, { actor: BOB, dryRun: true });
    expect(preview.impact).toMatchObject({ status: 'unknown', code: 'IMPACT_FAILED' });
    expect(preview.impact.summary).toBe('impact unknown: shelf.apply: impact failed: the NAS did not answer');
    expect(preview.verdict).toMatchObject({ allowed: false, approvalRequired: true });
  });

  it("an impact's error text carries no secret the host redacts, in the dry run nor on the stored approval", async () => {
    const { host, shelf, planId, storage } = await planned({ secrets: ['nas-password-7f3k2'] });
    shelf.impactThrows = 'login nas-password-7f3k2 refused';
    const preview = await host.invoke('shelf.apply', { planId }, { actor: BOB, dryRun: true });
    expect(preview.impact).toMatchObject({ status: 'unknown', code: 'IMPACT_FAILED' });
    expect(JSON.stringify(preview)).not.toContain('nas-password-7f3k2');
    expect(JSON.stringify(preview)).toContain('refused');
    const approval = await host.approvals.request({
      planType: 'shelf',
      planId,
      actor: BOB,
      capabilityId: 'shelf.apply',
      impact: {
        status: 'unknown',
        code: 'IMPACT_FAILED',
        reason: 'login nas-password-7f3k2 refused',
        summary: 'impact unknown: login nas-password-7f3k2 refused',
      },
    });
    expect(JSON.stringify(await storage.approvals.get(approval.id))).not.toContain('nas-password-7f3k2');
  });

  it('takes longer than impactTimeoutMs: IMPACT_TIMEOUT, its signal aborted, and the call is not held', async () => {
    const { host, shelf, planId } = await planned({ impactTimeoutMs: 50 });
    shelf.impactHangs = true;
    const preview = await host.invoke('shelf.apply', { planId }, { actor: BOB, dryRun: true });
    expect(preview.impact).toMatchObject({ status: 'unknown', code: 'IMPACT_TIMEOUT' });
    expect(preview.impact.summary).toContain('50 ms');
  });

  it('answers something that is not an impact record: IMPACT_INVALID naming where', async () => {
    const made = await shelfHost();
    hosts.push(made.host);
    made.host.capabilities.register(
      defineCapability({
        id: 'shelf.wipe',
        version: 1,
        title: 'Wipe',
        description: 'Wipes.',
        kind: 'execute',
        replay: 'never',
        input: Type.Object({}),
        output: Type.Object({}),
        impact: async () => ({ deleteBytes: -5 }) as never,
        handler: async () => ({}),
      }),
    );
    const preview = await made.host.invoke('shelf.wipe', {}, { actor: BOB, dryRun: true });
    expect(preview.impact).toMatchObject({ status: 'unknown', code: 'IMPACT_INVALID' });
  });

  it('defineCapability refuses impact, inverse and planPayload on a read, and a malformed inverse', () => {
    const base = {
      id: 'x.read',
      version: 1,
      title: 'Read',
      description: 'Reads.',
      kind: 'read' as const,
      replay: 'safe' as const,
      input: Type.Object({}),
      output: Type.Object({}),
      handler: async () => ({}),
    };
    expect(() => defineCapability({ ...base, impact: async () => ({ reversible: true }) })).toThrow(
      expect.objectContaining({ code: 'CAPABILITY_DEFINITION_INVALID' }),
    );
    expect(() =>
      defineCapability({
        ...base,
        kind: 'execute',
        replay: 'never',
        inverse: { capability: 'x.read', input: () => ({}) },
      }),
    ).toThrow(/cannot be the capability itself/);
    expect(() =>
      defineCapability({
        ...base,
        kind: 'execute',
        replay: 'never',
        inverse: { capability: 'Not An Id', input: () => ({}) },
      }),
    ).toThrow(/inverse.capability/);
    expect(() =>
      defineCapability({ ...base, kind: 'execute', replay: 'never', inverse: { capability: 'x.undo' } as never }),
    ).toThrow(/inverse.input/);
  });
});
