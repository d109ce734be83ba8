// Keys the runtime builds from parts of different callers, on real storage: a decision's occurrence key and the
// ledger's (scope, call id) index. No choice of separators in the parts makes two callers' keys one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import Type from 'typebox';
import { afterAll, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, defineCapability, type AgentHost } from '../../src/index';
import { defaultDecisionKey } from '../../src/runtime/decisions/decision-key';
import { SqliteStorage } from '../../src/sqlite';
import { MemoryStorage } from '../../src/storage';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A started host on `storage`, with one side-effecting capability that counts its handler invocations. */
async function hostOn(storage: 'memory' | 'sqlite'): Promise<{ host: AgentHost; sent: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-keys-'));
  dirs.push(dir);
  const host = createAgentHost({
    storage: storage === 'memory' ? new MemoryStorage() : new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
    logger: new ConsoleLogger('silent'),
  });
  const sent: string[] = [];
  host.capabilities.register(
    defineCapability({
      id: 'notify.send',
      version: 1,
      title: 'Send a notification',
      description: 'Sends a notification.',
      kind: 'execute',
      replay: 'never',
      input: Type.Object({ text: Type.String() }),
      output: Type.Object({ taskId: Type.String() }),
      handler: async (_input, ctx) => {
        sent.push(ctx.taskId ?? '');
        return { taskId: ctx.taskId ?? '' };
      },
    }),
  );
  await host.start({ workers: false });
  await host.grants.create({ action: 'notify.send', actor: 'user:admin' });
  return { host, sent };
}

describe('a decision occurrence key per subject', () => {
  it('keeps the stored form for a type without ":" and length-prefixes a type with one', () => {
    expect(defaultDecisionKey('download_failed', { type: 'download', id: 'abc:1' })).toBe(
      'download_failed:download:abc:1',
    );
    expect(defaultDecisionKey('k', { type: 'a:b', id: 'c' })).toBe('1:k,3:a:b,1:c,');
    expect(defaultDecisionKey('k', { type: 'a', id: 'b:c' })).toBe('k:a:b:c');
  });

  it('distinct subjects of one kind never share a key (property)', () => {
    const text = fc.string({ unit: fc.constantFrom('a', ':', '1', ',', 'k'), minLength: 1, maxLength: 8 });
    const subject = fc.record({ type: text, id: text });
    const kind = fc.constantFrom('k', 'ka', 'k1');
    fc.assert(
      fc.property(kind, subject, kind, subject, (k1, s1, k2, s2) => {
        fc.pre(k1 !== k2 || s1.type !== s2.type || s1.id !== s2.id);
        expect(defaultDecisionKey(k1, s1)).not.toBe(defaultDecisionKey(k2, s2));
      }),
      { numRuns: 3000 },
    );
  });

  it('two subjects whose parts join to the same text are two decisions (SQLite)', async () => {
    const { host } = await hostOn('sqlite');
    try {
      const raise = (type: string, id: string) =>
        host.raiseDecision({
          kind: 'host.check',
          subject: { type, id },
          reason: `check ${type} ${id}`,
          raisedBy: 'system:test',
        });
      const a = await raise('share:kids', 'tv');
      const b = await raise('share', 'kids:tv');
      expect(a.id).not.toBe(b.id);
      expect((await host.decisions()).map((d) => [d.subjectType, d.subjectId])).toEqual(
        expect.arrayContaining([
          ['share:kids', 'tv'],
          ['share', 'kids:tv'],
        ]),
      );
      expect(await host.decisions()).toHaveLength(2);
      // The same subject raised again is still one occurrence.
      expect((await raise('share:kids', 'tv')).id).toBe(a.id);
      expect((await raise('share', 'kids:tv')).id).toBe(b.id);
    } finally {
      await host.stop();
    }
  });
});

describe("the ledger's (scope, call id) index", () => {
  for (const storage of ['memory', 'sqlite'] as const)
    it(`two tasks whose scope and call id join to the same text both execute (${storage})`, async () => {
      const { host, sent } = await hostOn(storage);
      try {
        const ctx = (taskId: string, callId: string) => ({ actor: 'user:admin' as const, taskId, callId });
        const a = await host.invoke('notify.send', { text: 'x' }, ctx('home\u0000kids', 'one'));
        const b = await host.invoke('notify.send', { text: 'x' }, ctx('home', 'kids\u0000one'));
        expect(a).toMatchObject({ status: 'succeeded', output: { taskId: 'home\u0000kids' } });
        expect(b).toMatchObject({ status: 'succeeded', output: { taskId: 'home' } });
        expect(b.replayed).toBeUndefined();
        expect(sent).toEqual(['home\u0000kids', 'home']);
        // Each retry finds its own record.
        const againA = await host.invoke('notify.send', { text: 'x' }, ctx('home\u0000kids', 'one'));
        const againB = await host.invoke('notify.send', { text: 'x' }, ctx('home', 'kids\u0000one'));
        expect(againA).toMatchObject({ replayed: true, output: { taskId: 'home\u0000kids' } });
        expect(againB).toMatchObject({ replayed: true, output: { taskId: 'home' } });
        expect(sent).toHaveLength(2);
      } finally {
        await host.stop();
      }
    });
});
