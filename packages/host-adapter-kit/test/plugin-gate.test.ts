import {
  PluginCallGate,
  PluginOperationError,
  PluginRefusals,
  type PluginGateRules,
  type PluginServices,
} from '@media-agent/host-adapter-kit';
import { type HandlerContext, type InvocationResult, ManualClock, SequentialIdGenerator } from '@media-agent/sdk';
import { MemoryStorage } from '@media-agent/sdk/storage';
import { describe, expect, it } from 'vitest';

interface Op {
  name: string;
  write: boolean;
  adminOnly: boolean;
}

const OPS = new Map<string, Op>([
  ['GET /api/v1/plugin/Demo/status', { name: 'status', write: false, adminOnly: false }],
  ['POST /api/v1/plugin/Demo/run', { name: 'run', write: true, adminOnly: false }],
  ['POST /api/v1/plugin/Demo/reset', { name: 'reset', write: true, adminOnly: true }],
]);

function context(invocationId = 'inv_1', actor = 'user:alice'): HandlerContext {
  return {
    invocationId,
    idempotencyKey: 'idem-1',
    actor,
    runId: 'run_1',
    taskId: undefined,
    callId: undefined,
    plan: undefined,
    signal: new AbortController().signal,
    clock: new ManualClock(),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    pending: (output: unknown) => ({ output }) as never,
  } as unknown as HandlerContext;
}

/** A gate over OPS whose rules count their calls: `reset` is for administrators only. */
function setup(options: { actor?: string; storage?: MemoryStorage } = {}) {
  const storage = options.storage ?? new MemoryStorage();
  const services: PluginServices = { storage, ids: new SequentialIdGenerator(), clock: new ManualClock(1_000) };
  const calls = { deny: 0, writes: 0 };
  const rules: PluginGateRules<Op> = {
    async deny(op, actor) {
      calls.deny++;
      return op.adminOnly && actor !== 'user:root' ? 'superuser only' : undefined;
    },
    writes(op) {
      calls.writes++;
      return op.write;
    },
    noun: 'MoviePilot',
  };
  const gate = new PluginCallGate('plugin.demo', OPS, context('inv_1', options.actor), rules, () => services);
  const denied = () => storage.audit.list({ action: 'capability.denied' });
  return { gate, storage, calls, denied };
}

async function refusal(p: Promise<unknown>): Promise<PluginOperationError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PluginOperationError);
  return error as PluginOperationError;
}

describe('PluginCallGate', () => {
  it('lets a declared read through: nothing audited, wrote stays false', async () => {
    const { gate, denied, calls } = setup();
    expect(await gate.admit('GET /api/v1/plugin/Demo/status', 'GET /api/v1/plugin/Demo/status')).toEqual(
      OPS.get('GET /api/v1/plugin/Demo/status'),
    );
    expect(gate.wrote).toBe(false);
    expect(await denied()).toEqual([]);
    expect(calls).toEqual({ deny: 1, writes: 1 });
    expect(gate.declared).toEqual([...OPS.keys()]);
  });

  it('a declared write let through sets wrote', async () => {
    const { gate } = setup();
    await gate.admit('POST /api/v1/plugin/Demo/run', 'POST /api/v1/plugin/Demo/run');
    expect(gate.wrote).toBe(true);
  });

  it('an undeclared request is refused and audited PLUGIN_OPERATION_UNDECLARED; no rule runs', async () => {
    const { gate, denied, calls } = setup();
    const error = await refusal(gate.admit('DELETE /api/v1/plugin/Demo/all', 'DELETE /api/v1/plugin/Demo/all'));
    expect(error.code).toBe('PLUGIN_OPERATION_UNDECLARED');
    expect(error.capabilityId).toBe('plugin.demo');
    expect(error.operation).toBe('DELETE /api/v1/plugin/Demo/all');
    expect(error.message).toContain('did not declare MoviePilot DELETE /api/v1/plugin/Demo/all');
    expect(gate.refused(error)).toBe(true);
    expect(gate.wrote).toBe(false);
    expect(calls).toEqual({ deny: 0, writes: 0 });
    const rows = await denied();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      action: 'capability.denied',
      outcome: 'denied',
      actor: 'user:alice',
      capabilityId: 'plugin.demo',
      invocationId: 'inv_1',
      runId: 'run_1',
      idempotencyKey: 'idem-1',
      inputSummary: JSON.stringify({ operation: 'DELETE /api/v1/plugin/Demo/all' }),
    });
    expect(rows[0]!.reason).toMatch(/^PLUGIN_OPERATION_UNDECLARED: /);
  });

  it('a request that names no route is refused as undeclared under the name it was written with', async () => {
    const { gate, denied } = setup();
    const error = await refusal(gate.admit(undefined, 'GET https://elsewhere.example/'));
    expect(error.code).toBe('PLUGIN_OPERATION_UNDECLARED');
    expect(error.operation).toBe('GET https://elsewhere.example/');
    expect((await denied())[0]!.reason).toMatch(/^PLUGIN_OPERATION_UNDECLARED: /);
  });

  it('a forbidden request is refused and audited PLUGIN_OPERATION_FORBIDDEN; it does not count as a write', async () => {
    const { gate, denied, calls } = setup();
    const error = await refusal(gate.admit('POST /api/v1/plugin/Demo/reset', 'POST /api/v1/plugin/Demo/reset'));
    expect(error.code).toBe('PLUGIN_OPERATION_FORBIDDEN');
    expect(error.message).toContain('superuser only');
    expect(gate.wrote).toBe(false);
    expect(calls).toEqual({ deny: 1, writes: 0 });
    expect((await denied()).map((r) => r.reason?.split(':')[0])).toEqual(['PLUGIN_OPERATION_FORBIDDEN']);
    // The same route for an actor the rules allow goes through (and writes).
    const root = setup({ actor: 'user:root' });
    await root.gate.admit('POST /api/v1/plugin/Demo/reset', 'POST /api/v1/plugin/Demo/reset');
    expect(root.gate.wrote).toBe(true);
  });

  it('once closed, even a declared request is refused PLUGIN_CLIENT_CLOSED and audited; no rule runs', async () => {
    const { gate, denied, calls } = setup();
    gate.close();
    const error = await refusal(gate.admit('GET /api/v1/plugin/Demo/status', 'GET /api/v1/plugin/Demo/status'));
    expect(error.code).toBe('PLUGIN_CLIENT_CLOSED');
    expect(calls).toEqual({ deny: 0, writes: 0 });
    expect((await denied()).map((r) => r.reason?.split(':')[0])).toEqual(['PLUGIN_CLIENT_CLOSED']);
  });

  it('a failed audit write does not hide the refusal', async () => {
    const storage = new MemoryStorage();
    storage.audit.append = async () => {
      throw new Error('disk full');
    };
    const { gate } = setup({ storage });
    expect((await refusal(gate.admit('GET /nope', 'GET /nope'))).code).toBe('PLUGIN_OPERATION_UNDECLARED');
  });

  it('refused() recognises only its own refusals', async () => {
    const { gate } = setup();
    const other = new PluginOperationError('PLUGIN_OPERATION_UNDECLARED', 'plugin.demo', 'GET /x', 'elsewhere');
    expect(gate.refused(other)).toBe(false);
    expect(gate.refused(new Error('x'))).toBe(false);
  });
});

const failed = (invocationId: string): InvocationResult => ({
  invocationId,
  status: 'failed',
  error: { code: 'HANDLER_FAILED', message: 'boom' },
});
const refusalOf = (op: string) =>
  new PluginOperationError('PLUGIN_OPERATION_FORBIDDEN', 'plugin.demo', op, `may not send ${op}`);

describe('PluginRefusals', () => {
  it('a refusal turns only a failed result into denied, with its code and message, once', () => {
    const refusals = new PluginRefusals();
    refusals.remember('inv_1', refusalOf('GET /a'));
    expect(refusals.settle(failed('inv_1'))).toEqual({
      invocationId: 'inv_1',
      status: 'denied',
      error: { code: 'PLUGIN_OPERATION_FORBIDDEN', message: 'may not send GET /a' },
    });
    // Settled: the same invocation's next result is left alone.
    expect(refusals.settle(failed('inv_1')).status).toBe('failed');
  });

  it('a succeeded, pending or unknown result is left as it is (and the refusal forgotten)', () => {
    const refusals = new PluginRefusals();
    const results: InvocationResult[] = [
      { invocationId: 'inv_s', status: 'succeeded', output: 1 },
      { invocationId: 'inv_p', status: 'pending', output: { receipt: 'r' } },
      { invocationId: 'inv_u', status: 'unknown', error: { code: 'X', message: 'y' } },
    ];
    for (const r of results) {
      refusals.remember(r.invocationId, refusalOf('GET /a'));
      expect(refusals.settle(r)).toBe(r);
      expect(refusals.settle(failed(r.invocationId)).status).toBe('failed');
    }
    const other = failed('inv_other');
    expect(refusals.settle(other)).toBe(other);
  });

  it('is bounded at 1,000 pending refusals: the oldest is dropped first', () => {
    const refusals = new PluginRefusals();
    for (let i = 0; i <= 1_000; i++) refusals.remember(`inv_${i}`, refusalOf(`GET /${i}`));
    expect(refusals.settle(failed('inv_0')).status).toBe('failed');
    expect(refusals.settle(failed('inv_1')).status).toBe('denied');
    expect(refusals.settle(failed('inv_1000'))).toMatchObject({
      status: 'denied',
      error: { message: 'may not send GET /1000' },
    });
  });

  it('remembering an invocation again replaces its refusal, without growing', () => {
    const refusals = new PluginRefusals();
    for (let i = 0; i < 1_000; i++) refusals.remember(`inv_${i}`, refusalOf(`GET /${i}`));
    refusals.remember('inv_5', refusalOf('GET /again'));
    expect(refusals.settle(failed('inv_0')).status).toBe('denied');
    expect(refusals.settle(failed('inv_5'))).toMatchObject({ error: { message: 'may not send GET /again' } });
  });
});
