// ctx.progress and ctx.logToCaller on the invocation path itself: what reaches InvocationContext.listener,
// and what never fails a call.
import Type from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentHost,
  type CallerLogLevel,
  createAgentHost,
  defineCapability,
  isMediaAgentError,
  type ProgressUpdate,
} from '../../src/index';
import { MemoryStorage } from '../../src/storage';

let host: AgentHost;
beforeAll(async () => {
  host = createAgentHost({ storage: new MemoryStorage() });
  host.capabilities.register(
    defineCapability({
      id: 'probe.report',
      version: 1,
      title: 'Report',
      description: 'Reports the given progress values, then logs.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({ values: Type.Array(Type.Number()) }),
      output: Type.Object({ ok: Type.Boolean() }),
      handler: async ({ values }, ctx) => {
        for (const v of values) ctx.progress({ progress: v, total: 10 });
        ctx.progress({ progress: 99, total: Number.POSITIVE_INFINITY }); // a total that is no number: dropped
        ctx.logToCaller('error', 'done', { count: values.length });
        return { ok: true };
      },
    }),
  );
  await host.start({ workers: false });
});
afterAll(async () => {
  await host.stop();
});

describe('InvocationContext.listener', () => {
  it('hears only growing, finite progress, and the caller log', async () => {
    const heard: Array<ProgressUpdate | [CallerLogLevel, string, unknown]> = [];
    const result = await host.invoke(
      'probe.report',
      { values: [1, 3, 3, 2, 7, 10] },
      {
        actor: 'apikey:t',
        listener: { progress: (u) => heard.push(u), log: (level, message, data) => heard.push([level, message, data]) },
      },
    );
    expect(result.status).toBe('succeeded');
    expect(heard).toEqual([
      { progress: 1, total: 10 },
      { progress: 3, total: 10 },
      { progress: 7, total: 10 },
      { progress: 10, total: 10 },
      ['error', 'done', { count: 6 }],
    ]);
  });

  it('does nothing without a listener, and a listener that throws never fails the call', async () => {
    expect((await host.invoke('probe.report', { values: [1] }, { actor: 'apikey:t' })).status).toBe('succeeded');
    const throwing = {
      progress: () => {
        throw new Error('client gone');
      },
      log: () => {
        throw new Error('client gone');
      },
    };
    const result = await host.invoke('probe.report', { values: [1, 2] }, { actor: 'apikey:t', listener: throwing });
    expect(result).toMatchObject({ status: 'succeeded', output: { ok: true } });
  });

  it('a listener that is not an object is CONTEXT_INVALID before anything runs', async () => {
    const error = await host
      .invoke('probe.report', { values: [] }, { actor: 'apikey:t', listener: 'loud' as never })
      .catch((e: unknown) => e);
    expect(isMediaAgentError(error, 'CONTEXT_INVALID')).toBe(true);
  });
});
