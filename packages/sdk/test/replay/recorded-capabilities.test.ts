import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  ManualClock,
  RecordedAnswers,
  recordedCapabilities,
  SequentialIdGenerator,
  type AgentHost,
  type RecordedTurn,
} from '../../src';

let realCalls = 0;
const submit = defineCapability({
  id: 'job.submit',
  version: 1,
  title: 'Submit a job',
  description: 'Submits a job.',
  kind: 'execute',
  replay: 'never',
  input: Type.Object({ name: Type.String() }),
  output: Type.Object({ id: Type.String() }),
  verify: async () => ({ status: 'failed', reason: 'real verifier' }),
  impact: () => {
    throw new Error('real impact ran');
  },
  handler: async () => {
    realCalls++;
    return { id: 'real' };
  },
});
const lookup = defineCapability({
  id: 'job.lookup',
  version: 1,
  title: 'Look a job up',
  description: 'Reads a job.',
  kind: 'read',
  replay: 'safe',
  input: Type.Object({ name: Type.String() }),
  output: Type.Object({ id: Type.String() }),
  handler: async () => {
    realCalls++;
    return { id: 'real' };
  },
});

const turns: RecordedTurn[] = [
  {
    calls: [
      { capability: 'job.lookup', input: { name: 'a' }, status: 'succeeded', output: { id: 'j1' } },
      {
        capability: 'job.lookup',
        input: { name: 'a' },
        status: 'failed',
        invocationId: 'inv_2',
        error: { code: 'HOST_DOWN', message: 'down' },
      },
      {
        capability: 'job.lookup',
        input: { name: 'b' },
        status: 'failed',
        error: { code: 'INPUT_INVALID', message: 'bad' },
      },
    ],
  },
  {
    calls: [
      {
        capability: 'job.submit',
        input: { name: 'a' },
        status: 'denied',
        idempotencyKey: 'k1',
        error: { code: 'AUTH_NO_AUTHORIZATION', message: '' },
      },
      { capability: 'job.submit', input: { name: 'a' }, status: 'pending', idempotencyKey: 'k1', output: { id: 'j2' } },
      // The ledger's recorded result for the same key: the handler never ran for it.
      { capability: 'job.submit', input: { name: 'a' }, status: 'pending', idempotencyKey: 'k1', output: { id: 'j2' } },
      {
        capability: 'job.submit',
        input: { name: 'c' },
        status: 'unknown',
        idempotencyKey: 'k2',
        error: { code: 'CAPABILITY_TIMEOUT', message: 'late' },
      },
      { capability: 'gone.capability', input: {}, status: 'succeeded', output: {} },
      { capability: 'update_plan', input: {}, status: 'succeeded' },
    ],
  },
];

describe('RecordedAnswers: the results that reached a handler, by capability and canonical input, in order', () => {
  it('queues handler outcomes and skips denials, pre-handler failures and ledger-recorded repeats', () => {
    const answers = new RecordedAnswers({ turns, subagents: [] });
    expect(answers.take('job.lookup', { name: 'a' })).toMatchObject({ status: 'succeeded' });
    expect(answers.take('job.lookup', { name: 'a' })).toMatchObject({ status: 'failed', error: { code: 'HOST_DOWN' } });
    expect(answers.take('job.lookup', { name: 'a' })).toBeUndefined();
    expect(answers.take('job.lookup', { name: 'b' })).toBeUndefined(); // INPUT_INVALID never reached the handler
    expect(answers.take('job.submit', { name: 'a' })).toMatchObject({ status: 'pending', output: { id: 'j2' } });
    expect(answers.take('job.submit', { name: 'a' })).toBeUndefined(); // denied, then a ledger repeat: one handler call
    expect(answers.take('job.submit', { name: 'c' })).toMatchObject({ status: 'unknown' });
    expect({ answered: answers.answered, unanswered: answers.unanswered }).toEqual({ answered: 4, unanswered: 3 });
  });
});

describe('recordedCapabilities: the current definitions with recorded handlers, through a real invocation path', () => {
  let host: AgentHost | undefined;
  afterEach(async () => {
    await host?.stop();
    host = undefined;
  });

  it('answers succeeded, failed (its code), pending, unknown, and REPLAY_NO_RECORDED_RESULT; never the real code', async () => {
    const current = createAgentHost({ logger: new ConsoleLogger('silent') });
    current.capabilities.register(submit);
    current.capabilities.register(lookup);
    const { definitions, missing } = recordedCapabilities({ turns, subagents: [] }, current.capabilities);
    expect(missing).toEqual(['gone.capability']);
    expect(definitions.map((d) => [d.id, d.kind, d.replay, d.impact, typeof d.verify])).toEqual([
      ['job.lookup', 'read', 'safe', undefined, 'undefined'],
      ['job.submit', 'execute', 'never', undefined, 'function'],
    ]);
    host = createAgentHost({
      clock: new ManualClock(),
      ids: new SequentialIdGenerator(),
      logger: new ConsoleLogger('silent'),
    });
    for (const d of definitions) host.capabilities.register(d);
    await host.start();
    await host.grants.create({ action: 'job.submit', actor: 'user:admin' });
    const as = { actor: 'user:admin' };
    expect(await host.invoke('job.lookup', { name: 'a' }, as)).toMatchObject({
      status: 'succeeded',
      output: { id: 'j1' },
    });
    expect(await host.invoke('job.lookup', { name: 'a' }, as)).toMatchObject({
      status: 'failed',
      error: { code: 'HOST_DOWN' },
    });
    expect(await host.invoke('job.lookup', { name: 'a' }, as)).toMatchObject({
      status: 'failed',
      error: { code: 'REPLAY_NO_RECORDED_RESULT' },
    });
    expect(await host.invoke('job.submit', { name: 'a' }, as)).toMatchObject({
      status: 'pending',
      output: { id: 'j2' },
    });
    expect(await host.invoke('job.submit', { name: 'c' }, as)).toMatchObject({
      status: 'unknown',
      error: { code: 'OUTCOME_UNKNOWN', message: 'late' },
    });
    // Schema validation is the current definition's.
    await expect(host.invoke('job.lookup', { name: 3 }, as)).rejects.toMatchObject({ code: 'INPUT_INVALID' });
    expect(realCalls).toBe(0);
  });
});
