// Trial of capability impacts (docs/approvals.md#impact): bad impact functions never block and never crash a dry run.
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { defineCapability, type ImpactContext } from '../../src/index';
import { makeTrialHost, type TrialHost } from './approvals-trial-helpers';

let h: TrialHost | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

function shelf(id: string, impact: (input: { planId: string }, ctx: ImpactContext) => unknown) {
  return defineCapability({
    id,
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

async function dry(t: TrialHost, id: string) {
  const plan = await t.host.plans.create({ type: 'shelf', payload: { bytes: 1 }, actor: 'user:admin' });
  return t.host.invoke(id, { planId: plan.id }, { actor: 'user:bob', dryRun: true });
}

describe('trial: bad impact functions', () => {
  it('odd numbers (NaN, Infinity, negative, huge) are refused as IMPACT_INVALID, never shown as real units', async () => {
    h = await makeTrialHost({ extra: { impactTimeoutMs: 200 } });
    const t = h;
    const odd: Record<string, unknown> = {
      nan: { reversible: true, downloadBytes: Number.NaN },
      inf: { reversible: true, writeBytes: Number.POSITIVE_INFINITY },
      neg: { reversible: true, deleteBytes: -5 },
      negCount: { reversible: true, filesDeleted: -1 },
      quotaInf: { reversible: true, quota: { name: 'ratio', used: Number.POSITIVE_INFINITY, limit: 10, unit: 'GB' } },
      quotaNaN: { reversible: true, quota: { name: 'ratio', used: 1, limit: Number.NaN, unit: 'GB' } },
      fractionFiles: { reversible: true, filesCreated: 1.5 },
      noReversible: { downloadBytes: 1 },
      huge: { reversible: true, notes: Array.from({ length: 10_000 }, () => 'x'.repeat(300)) },
      extra: { reversible: true, secret: 'x' },
      string: 'downloads everything',
    };
    const results: Record<string, string> = {};
    for (const [name, value] of Object.entries(odd)) {
      t.host.capabilities.register(shelf(`shelf.${name.toLowerCase()}`, () => value));
      const r = await dry(t, `shelf.${name.toLowerCase()}`);
      results[name] = r.impact.status === 'unknown' ? r.impact.code : `known: ${r.impact.summary}`;
    }
    expect(results).toEqual(Object.fromEntries(Object.keys(odd).map((k) => [k, 'IMPACT_INVALID'])));
  });

  it('an impact that throws something that is not an Error (a null-prototype object) is IMPACT_FAILED, the dry run still answers', async () => {
    h = await makeTrialHost();
    const t = h;
    t.host.capabilities.register(
      shelf('shelf.weird', () => {
        throw Object.create(null);
      }),
    );
    const r = await dry(t, 'shelf.weird');
    expect(r.status).toBe('dry_run');
    expect(r.impact).toMatchObject({ status: 'unknown', code: 'IMPACT_FAILED' });
  });

  it('an impact that rejects with an object whose toString throws is IMPACT_FAILED, the dry run still answers', async () => {
    h = await makeTrialHost();
    const t = h;
    t.host.capabilities.register(
      shelf('shelf.weird2', async () => {
        throw {
          toString() {
            throw new Error('no');
          },
        };
      }),
    );
    const r = await dry(t, 'shelf.weird2');
    expect(r.impact).toMatchObject({ status: 'unknown', code: 'IMPACT_FAILED' });
  });

  it('an impact with a throwing getter is IMPACT_FAILED or IMPACT_INVALID, the dry run still answers', async () => {
    h = await makeTrialHost();
    const t = h;
    t.host.capabilities.register(
      shelf('shelf.getter', () => ({
        reversible: true,
        get downloadBytes(): number {
          throw new Error('boom');
        },
      })),
    );
    const r = await dry(t, 'shelf.getter');
    expect(r.impact.status).toBe('unknown');
  });

  it('an impact that never resolves and ignores its signal times out (IMPACT_TIMEOUT) and the dry run answers', async () => {
    h = await makeTrialHost({ extra: { impactTimeoutMs: 100 } });
    const t = h;
    t.host.capabilities.register(shelf('shelf.hang', () => new Promise(() => {})));
    const r = await dry(t, 'shelf.hang');
    expect(r.impact).toMatchObject({ status: 'unknown', code: 'IMPACT_TIMEOUT' });
    expect(r.impact.summary).toMatch(/impact unknown/i);
  });

  it('an impact that throws a huge message does not put megabytes in the dry run, approval or audit', async () => {
    h = await makeTrialHost();
    const t = h;
    t.host.capabilities.register(
      shelf('shelf.loud', () => {
        throw new Error('x'.repeat(2_000_000));
      }),
    );
    const r = await dry(t, 'shelf.loud');
    expect(r.impact.status).toBe('unknown');
    expect(JSON.stringify(r.impact).length).toBeLessThan(10_000);
  });
});
