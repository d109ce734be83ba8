// Capability deadlines inside a run (createAgentHost + the scripted model): a read that hangs fails
// CAPABILITY_TIMEOUT and the run goes on; an execute whose handler ignores its signal is unknown at the deadline,
// the model's repeat of the call goes to the verifier, and the handler never runs twice.
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, defineCapability, type AgentHost } from '../../src/index';
import { ScriptedProvider, waitForRunStatus } from '../../src/testing';
import { makeStorage } from '../helpers';

const hosts: AgentHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop()));
});

describe('capability deadlines in a run', () => {
  it('a hung read fails CAPABILITY_TIMEOUT, a hung execute is unknown, the repeat is verified, nothing is retried blindly (SQLite file)', async () => {
    const runs = { scan: 0, apply: 0, verify: 0 };
    const settings = new Map<string, string>();
    let release!: () => void;
    const late = new Promise<void>((resolve) => (release = resolve));
    const scan = defineCapability({
      id: 'library.scan',
      version: 1,
      title: 'Scan the library',
      description: 'Reads the library (hangs on a dead NAS).',
      kind: 'read',
      replay: 'safe',
      timeoutMs: 150,
      input: Type.Object({ path: Type.String() }),
      output: Type.Object({ files: Type.Number() }),
      handler: async () => {
        runs.scan++;
        await late;
        return { files: 3 };
      },
    });
    const apply = defineCapability({
      id: 'settings.apply',
      version: 1,
      title: 'Apply a setting',
      description: 'Writes a setting on the media server.',
      kind: 'execute',
      replay: 'never',
      timeoutMs: 150,
      input: Type.Object({ key: Type.String(), value: Type.String() }),
      output: Type.Object({ ok: Type.Boolean() }),
      verify: async ({ input }) => {
        runs.verify++;
        return settings.get(input.key) === input.value
          ? { status: 'succeeded', output: { ok: true } }
          : { status: 'unknown', reason: 'not visible yet' };
      },
      // Ignores its signal: the server applies the setting just after the deadline, and the handler returns then.
      handler: async (input, ctx) => {
        runs.apply++;
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        settings.set(input.key, input.value);
        return { ok: true };
      },
    });
    const call = { capability: 'settings.apply', input: { key: 'quality', value: '4k' } };
    const scripts = [
      {
        match: 'quality',
        finalText: 'Quality set.',
        steps: [
          { toolCalls: [{ capability: 'library.scan', input: { path: '/nas' } }] },
          { toolCalls: [call] },
          { toolCalls: [call] }, // the model repeats the call whose outcome is unknown
        ],
      },
    ];
    const storage = makeStorage('sqlite');
    const host = createAgentHost({
      storage,
      logger: new ConsoleLogger('silent'),
      model: { provider: new ScriptedProvider({ scripts }), model: 'scripted' },
      runs: { pollMs: 20 },
    });
    hosts.push(host);
    host.capabilities.register(scan);
    host.capabilities.register(apply);
    await host.start();
    await host.grants.create({ action: 'settings.apply', actor: 'user:admin' });

    const run = await host.startRun({ goal: 'set the quality to 4k', actor: 'user:admin' });
    const done = await waitForRunStatus(host, run.id, ['succeeded', 'failed', 'cancelled', 'waiting'], {
      timeoutMs: 60_000,
    });
    release(); // the hung read finishes late: nothing is recorded, nothing runs again
    const { events } = await host.getRun(run.id);
    const calls = events
      .filter((e) => e.type === 'tool_call')
      .map((e) => e.data as { capabilityId?: string; phase?: string; error?: { code?: string } })
      .filter((d) => d.phase !== 'started' && d.phase !== 'requested');
    console.info(
      `run ${done.status}: ${calls.map((c) => `${c.capabilityId}:${c.phase}${c.error?.code ? `(${c.error.code})` : ''}`).join(', ')}`,
    );
    expect(calls).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          capabilityId: 'library.scan',
          phase: 'failed',
          error: expect.objectContaining({ code: 'CAPABILITY_TIMEOUT' }),
        }),
        expect.objectContaining({ capabilityId: 'settings.apply', phase: 'unknown' }),
        expect.objectContaining({ capabilityId: 'settings.apply', phase: 'succeeded' }),
      ]),
    );
    expect(runs.scan, 'the read is not retried by the runtime').toBe(1);
    expect(runs.apply, 'the execute is never run twice').toBe(1);
    expect(runs.verify).toBeGreaterThanOrEqual(1);
    const entries = await storage.ledger.listByState(['running', 'succeeded', 'failed', 'pending', 'unknown']);
    expect(entries.map((e) => [e.capabilityId, e.state])).toEqual([['settings.apply', 'succeeded']]);
    expect(done.status).toBe('succeeded');
  });
});
