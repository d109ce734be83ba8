/**
 * `InvocationResult` is a union discriminated by `status`: narrowing on it types `output` and `error`. These are
 * type assertions (checked by `npm run typecheck`, which covers this file) plus a real invocation so that the
 * narrowed values are what the types say at run time.
 */
// mastra-ai/mastra#11381: a tool's execute result could not be narrowed to its output type after an error check;
// here `result.output` was `O | undefined` even after `result.status === 'succeeded'`.
import { Type } from 'typebox';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createAgentHost, defineCapability, type DecisionChoice, type InvocationResult } from '../../src/index';
import type { DecisionExecution, DecisionRefusedChoice } from '../../src/decisions';

const lookup = defineCapability({
  id: 'title.lookup',
  version: 1,
  title: 'Look up a title',
  description: 'Finds a title by name.',
  kind: 'read',
  replay: 'safe',
  input: Type.Object({ query: Type.String() }),
  output: Type.Object({ id: Type.String(), year: Type.Number() }),
  handler: async (input) =>
    input.query === 'boom' ? Promise.reject(new Error('down')) : { id: 'tmdb:438631', year: 2021 },
});

describe('InvocationResult narrowing', () => {
  it('status narrows output to O (succeeded, pending) and makes error present (failed, denied, unknown)', () => {
    expectTypeOf<InvocationResult<{ id: string }>>().toHaveProperty('status');
    const check = (r: InvocationResult<{ id: string }>) => {
      if (r.status === 'succeeded') {
        expectTypeOf(r.output).toEqualTypeOf<{ id: string }>();
        expectTypeOf(r.error).toEqualTypeOf<undefined>();
      } else if (r.status === 'pending') {
        expectTypeOf(r.output).toEqualTypeOf<{ id: string }>();
      } else {
        expectTypeOf(r.status).toEqualTypeOf<'failed' | 'denied' | 'unknown'>();
        expectTypeOf(r.error).toEqualTypeOf<{ code: string; message: string }>();
        expectTypeOf(r.output).toEqualTypeOf<undefined>();
      }
      // Before narrowing, output is still readable (O or undefined).
      expectTypeOf(r.output).toEqualTypeOf<{ id: string } | undefined>();
    };
    expect(typeof check).toBe('function');
  });

  it('a typed invoke narrows to the capability output schema, and the values match at run time', async () => {
    const host = createAgentHost({});
    host.capabilities.register(lookup);
    await host.start({ workers: false });
    try {
      const ok = await host.invoke(lookup, { query: 'Dune' }, { actor: 'user:alice' });
      expect(ok.status).toBe('succeeded');
      if (ok.status !== 'succeeded') return;
      expectTypeOf(ok.output).toEqualTypeOf<{ id: string; year: number }>();
      expect(ok.output.year).toBe(2021);

      const failed = await host.invoke(lookup, { query: 'boom' }, { actor: 'user:alice' });
      expect(failed.status).toBe('failed');
      if (failed.status === 'succeeded' || failed.status === 'pending') return;
      expect(failed.error.code).toMatch(/^[A-Z_]+$/);
      expect(failed.output).toBeUndefined();
    } finally {
      await host.stop();
    }
  });

  it("a decision's execution has its documented type, discriminated by kind", () => {
    expectTypeOf<DecisionChoice['execution']>().toEqualTypeOf<DecisionExecution | DecisionRefusedChoice | null>();
    const check = (e: DecisionChoice['execution']) => {
      if (e?.kind === 'capability') {
        expectTypeOf(e.capabilityId).toEqualTypeOf<string>();
        expectTypeOf(e.status).toEqualTypeOf<'succeeded' | 'failed' | 'pending' | 'unknown' | 'denied'>();
      } else if (e?.kind === 'agent_recover') expectTypeOf(e.runId).toEqualTypeOf<string>();
    };
    expect(typeof check).toBe('function');
  });
});
