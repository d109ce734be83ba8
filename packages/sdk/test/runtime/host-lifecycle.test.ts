import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, defineCapability, HostLifecycleError, type AgentHost } from '../../src/index';
import { makeStorage, STORAGE_KINDS } from '../helpers';

const echo = defineCapability({
  id: 'library.echo',
  version: 1,
  title: 'Echo',
  description: 'Returns its input.',
  kind: 'read',
  replay: 'safe',
  input: Type.Object({ text: Type.String() }),
  output: Type.Object({ text: Type.String() }),
  handler: async (input) => ({ text: input.text }),
});

/** Every call of the host that needs storage, each as a thunk, named as the error names it. */
function storageCalls(host: AgentHost): Array<[string, () => unknown]> {
  return [
    ['invoke', () => host.invoke(echo, { text: 'hi' }, { actor: 'user:admin' })],
    ['capabilities.invoke', () => host.capabilities.invoke('library.echo', { text: 'hi' }, { actor: 'user:admin' })],
    ['startRun', () => host.startRun({ goal: 'look', actor: 'user:admin' })],
    ['getRun', () => host.getRun('run-1')],
    ['listRuns', () => host.listRuns()],
    ['listEvents', () => host.listEvents()],
    ['appendToInbox', () => host.appendToInbox('run-1', 'hello', 'user:admin')],
    ['abort', () => host.abort('run-1')],
    ['decisions', () => host.decisions()],
    ['audit', () => host.audit()],
    ['grants.create', () => host.grants.create({ action: 'library.echo', actor: 'user:admin' })],
    ['grants.list', () => host.grants.list()],
    ['approvals.list', () => host.approvals.list()],
    ['plans.create', () => host.plans.create({ type: 'download', payload: { releaseId: 'r1' }, actor: 'user:admin' })],
    ['policies.createRevision', () => host.policies.createRevision('download', 'user:admin')],
    ['automation.get', () => host.automation.get()],
    ['ledger.get', () => host.ledger.get('k')],
  ];
}

/** The error a call raised, whether it threw or rejected. */
async function errorOf(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe.each(STORAGE_KINDS)('host lifecycle errors (%s storage)', (kind) => {
  const newHost = () => createAgentHost({ storage: makeStorage(kind), logger: new ConsoleLogger('silent') });

  it('before start(): every storage call is HOST_NOT_STARTED naming the call and the fix; registering needs no start', async () => {
    const host = newHost();
    host.capabilities.register(echo);
    expect(host.capabilities.has('library.echo')).toBe(true);
    for (const [operation, call] of storageCalls(host)) {
      const error = await errorOf(call);
      expect(error, operation).toBeInstanceOf(HostLifecycleError);
      expect(error, operation).toMatchObject({ code: 'HOST_NOT_STARTED', details: { operation } });
      expect((error as Error).message, operation).toContain('await host.start()');
    }
    expect(() => host.events({ runId: 'run-1' })).toThrow(expect.objectContaining({ code: 'HOST_NOT_STARTED' }));
    // Nothing was written: after start the store is empty and the host works.
    await host.start({ workers: false });
    expect(await host.grants.list()).toEqual([]);
    expect(await host.invoke(echo, { text: 'hi' }, { actor: 'user:admin' })).toMatchObject({
      status: 'succeeded',
      output: { text: 'hi' },
    });
    await host.stop();
  });

  it('after stop(): every storage call and start() are HOST_STOPPED saying a stopped host cannot restart', async () => {
    const host = newHost();
    host.capabilities.register(echo);
    await host.start({ workers: false });
    await host.grants.create({ action: 'library.echo', actor: 'user:admin' });
    await host.stop();
    for (const [operation, call] of storageCalls(host)) {
      expect(await errorOf(call), operation).toMatchObject({ code: 'HOST_STOPPED', details: { operation } });
    }
    const restart = await errorOf(() => host.start());
    expect(restart).toBeInstanceOf(HostLifecycleError);
    expect(restart).toMatchObject({ code: 'HOST_STOPPED', details: { operation: 'start' } });
    expect((restart as Error).message).toMatch(/cannot be started again.*createAgentHost\(\)/);
  });

  it('the runtime itself is not behind the guard: start() recovers the ledger and a started host runs the full path', async () => {
    const host = newHost();
    host.capabilities.register(echo);
    const report = await host.start({ workers: false });
    expect(report).toEqual({ recovered: [], cleaned: 0 });
    const plan = await host.plans.create({ type: 'download', payload: { releaseId: 'r1' }, actor: 'user:admin' });
    expect((await host.plans.get(plan.id)).payloadHash).toBe(plan.payloadHash);
    expect(host.approvals.events).toBeDefined(); // properties pass through
    await host.stop();
  });
});
