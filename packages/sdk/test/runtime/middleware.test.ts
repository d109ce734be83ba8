// Run middleware through the real runtime: order of hooks, what a middleware can and cannot do, its
// state across drives, and a middleware that throws.
import { afterEach, describe, expect, it } from 'vitest';
import { capabilityModelTool } from '../../src/runtime/context/tool-discovery';
import { createAgentHost, type AgentHost, type RunMiddleware, type StorageAdapter } from '../../src/index';
import { MemoryStorage } from '../../src/storage';
import type { ModelMessage } from '../../src/models';
import { runEvents, startHost, waitForStatus } from './harness';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

async function host(
  scripts: Parameters<typeof startHost>[0],
  middleware: RunMiddleware[],
  options: { storage?: StorageAdapter; runs?: Record<string, unknown> } = {},
) {
  const started = await startHost(scripts, {
    ...(options.storage ? { storage: options.storage } : {}),
    runs: { middleware, ...(options.runs ?? {}) },
  });
  hosts.push(started.host);
  return started;
}

const lookTwice = {
  match: 'look',
  steps: [{ text: 'Checking. ', toolCalls: [{ capability: 'inventory.query', input: { title: 'Dune' } }] }],
  finalText: 'Dune is not in the library.',
};

async function storedMessages(storage: StorageAdapter, runId: string): Promise<ModelMessage[]> {
  return (await storage.messages.list(runId)).map((m) => m.message as unknown as ModelMessage);
}

/** A middleware that records every hook it sees. */
function recorder(name: string, log: string[], extra: Partial<RunMiddleware> = {}): RunMiddleware {
  return {
    name,
    onDriveStart: (ctx) => void log.push(`${name}:onDriveStart:${ctx.woken}`),
    beforeModelRequest: (ctx) => void log.push(`${name}:beforeModelRequest:${typeof ctx.requestTokens}`),
    afterModelTurn: (ctx) => void log.push(`${name}:afterModelTurn:${ctx.calls.length}`),
    beforeToolCall: (ctx) => void log.push(`${name}:beforeToolCall:${ctx.call.name}:${ctx.kind}`),
    afterToolCall: (ctx) => void log.push(`${name}:afterToolCall:${ctx.call.name}:${ctx.status}`),
    onRunEnd: (ctx) => void log.push(`${name}:onRunEnd:${ctx.status}:${ctx.terminal}`),
    ...extra,
  };
}

describe('run middleware: order', () => {
  it('hooks run per step, the runtime’s own middleware first, then the host’s in the order given', async () => {
    const log: string[] = [];
    const { host: h } = await host(lookTwice, [recorder('a', log), recorder('b', log)]);
    const run = await h.startRun({ goal: 'look for Dune', mode: 'plan_only', actor: 'user:admin' });
    expect((await waitForStatus(h, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    // `number`: compaction (a runtime middleware) ran before the host's and counted the request.
    expect(log).toEqual([
      'a:onDriveStart:false',
      'b:onDriveStart:false',
      'a:beforeModelRequest:number',
      'b:beforeModelRequest:number',
      'a:afterModelTurn:1',
      'b:afterModelTurn:1',
      'a:beforeToolCall:inventory.query:read',
      'b:beforeToolCall:inventory.query:read',
      'a:afterToolCall:inventory.query:succeeded',
      'b:afterToolCall:inventory.query:succeeded',
      'a:beforeModelRequest:number',
      'b:beforeModelRequest:number',
      'a:afterModelTurn:0',
      'b:afterModelTurn:0',
      'a:onRunEnd:succeeded:true',
      'b:onRunEnd:succeeded:true',
    ]);
  });

  it('a refusal keeps the call from running, later middleware are not asked about it, the model is told why and the run goes on', async () => {
    const log: string[] = [];
    const refuse: RunMiddleware = {
      name: 'no-writes',
      beforeToolCall: (ctx) =>
        ctx.kind === 'execute'
          ? { action: 'refuse', code: 'WRITES_OFF', message: 'writes are switched off here' }
          : undefined,
    };
    const script = {
      match: 'Dune',
      steps: [{ toolCalls: [{ capability: 'download.submit', input: { title: 'Dune' } }] }],
      finalText: 'Could not submit.',
    };
    const { host: h, world, provider } = await host(script, [refuse, recorder('after', log)]);
    await h.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const run = await h.startRun({ goal: 'Add Dune', actor: 'user:admin' });
    await waitForStatus(h, run.id, ['succeeded', 'failed', 'waiting']);
    expect(world.jobs).toHaveLength(0);
    expect(log.filter((l) => l.includes('ToolCall'))).toEqual([]);
    const phases = (await runEvents(h, run.id)).filter((e) => e.type === 'tool_call').map((e) => e.data);
    expect(phases).toEqual([
      expect.objectContaining({
        phase: 'blocked',
        error: { code: 'WRITES_OFF', message: 'writes are switched off here' },
      }),
    ]);
    const result = provider.requests.at(-1)!.messages.find((m) => m.role === 'tool')!;
    expect(JSON.parse(result.content as string)).toMatchObject({
      status: 'failed',
      error: { code: 'WRITES_OFF' },
      blocked: 'this call was not run',
    });
  });
});

describe('run middleware: ending a run', () => {
  const twoCalls = {
    match: 'look',
    steps: [
      {
        toolCalls: [
          { capability: 'inventory.query', input: { title: 'Dune' } },
          { capability: 'inventory.query', input: { title: 'Heat' } },
        ],
      },
    ],
    finalText: 'done',
  };
  const limit: RunMiddleware = {
    name: 'limit',
    afterToolCall: (ctx) => ctx.stopRun('ENOUGH', 'one read is enough for now'),
  };

  it('stopRun: an interactive run waits for its user; the calls not yet run are answered blocked', async () => {
    const { host: h } = await host(twoCalls, [limit]);
    const run = await h.startRun({ goal: 'look up two films', mode: 'plan_only', actor: 'user:admin' });
    const ended = await waitForStatus(h, run.id, ['waiting', 'succeeded', 'failed']);
    expect(ended.status).toBe('waiting');
    const events = await runEvents(h, run.id);
    expect(events.filter((e) => e.type === 'tool_call').map((e) => (e.data as { phase: string }).phase)).toEqual([
      'started',
      'succeeded',
      'blocked',
    ]);
    expect(events.find((e) => e.type === 'warning')!.data).toEqual({
      source: 'runtime',
      code: 'ENOUGH',
      message: 'one read is enough for now',
      details: { stoppedBy: 'middleware "limit"' },
    });
    expect((events.filter((e) => e.type === 'run_status').at(-1)!.data as { reason: string }).reason).toBe(
      'paused by middleware "limit" (ENOUGH): send a message to continue',
    );
  });

  it('stopRun: a background run ends failed with the code; failRun fails an interactive run before the model is called', async () => {
    const { host: h, provider } = await host(twoCalls, [limit]);
    const run = await h.startRun({
      goal: 'look up two films',
      mode: 'plan_only',
      actor: 'system:cron',
      origin: 'background',
    });
    const ended = await waitForStatus(h, run.id, ['waiting', 'succeeded', 'failed']);
    expect(ended.status).toBe('failed');
    expect(ended.error).toEqual({
      code: 'ENOUGH',
      message: 'stopped by middleware "limit": one read is enough for now',
    });
    const calls = provider.requests.length;

    const { host: h2, provider: p2 } = await host(twoCalls, [
      { name: 'gate', beforeModelRequest: (ctx) => ctx.failRun('NO_MODEL', 'the model is not available') },
    ]);
    const second = await h2.startRun({ goal: 'look up two films', mode: 'plan_only', actor: 'user:admin' });
    expect(await waitForStatus(h2, second.id, ['waiting', 'succeeded', 'failed'])).toMatchObject({
      status: 'failed',
      error: { code: 'NO_MODEL', message: 'the model is not available' },
    });
    expect(p2.requests).toHaveLength(0);
    expect(calls).toBe(1);
  });
});

describe('run middleware: what it may change', () => {
  it('a note added to the request reaches the model but not the stored conversation; a rewritten result is what the model sees and what is stored', async () => {
    const storage = new MemoryStorage();
    const annotate: RunMiddleware = {
      name: 'annotate',
      beforeModelRequest: (ctx) => {
        ctx.messages = [{ role: 'system', content: 'NOTE: prefer 1080p' }, ...ctx.messages];
      },
      afterToolCall: (ctx) => {
        ctx.result = {
          ...ctx.result,
          content: JSON.stringify({ ...(JSON.parse(ctx.result.content as string) as object), checkedBy: 'annotate' }),
        };
      },
    };
    const { host: h, provider } = await host(lookTwice, [annotate], { storage });
    const run = await h.startRun({ goal: 'look for Dune', mode: 'plan_only', actor: 'user:admin' });
    await waitForStatus(h, run.id, ['succeeded']);
    expect(provider.requests[0]!.messages.map((m) => m.content)).toContain('NOTE: prefer 1080p');
    const stored = await storedMessages(storage, run.id);
    expect(JSON.stringify(stored)).not.toContain('prefer 1080p');
    const result = stored.find((m) => m.role === 'tool')!;
    expect(JSON.parse(result.content as string)).toMatchObject({ status: 'succeeded', checkedBy: 'annotate' });
    expect(JSON.parse(provider.requests[1]!.messages.find((m) => m.role === 'tool')!.content as string)).toMatchObject({
      checkedBy: 'annotate',
    });
  });

  it('a middleware cannot widen what a run may do: a tool it offers is still refused by the run rule and its handler never runs; its context holds no registry, grants or approvals', async () => {
    const keys = new Set<string>();
    const widen: RunMiddleware = {
      name: 'widen',
      onDriveStart: (ctx) => {
        for (const k of Object.keys(ctx)) keys.add(k);
      },
      beforeModelRequest: (ctx) => {
        for (const k of Object.keys(ctx)) keys.add(k);
        ctx.tools = [
          ...ctx.tools,
          capabilityModelTool({
            id: 'download.submit',
            version: 1,
            title: 'Download',
            description: 'x',
            kind: 'execute',
            replay: 'never',
            input: { type: 'object' } as never,
            output: {} as never,
            tags: [],
            aliases: [],
            policy: undefined,
            target: undefined,
          }),
        ];
      },
      beforeToolCall: (ctx) => {
        for (const k of Object.keys(ctx)) keys.add(k);
      },
    };
    const script = {
      match: 'Dune',
      steps: [{ toolCalls: [{ capability: 'download.submit', input: { title: 'Dune' } }] }],
      finalText: 'tried',
    };
    const { host: h, world, provider } = await host(script, [widen]);
    await h.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const run = await h.startRun({ goal: 'Add Dune', mode: 'plan_only', actor: 'user:admin' });
    await waitForStatus(h, run.id, ['succeeded', 'failed']);
    expect(provider.requests[0]!.tools!.map((t) => t.name)).toContain('download.submit');
    expect(world.jobs).toHaveLength(0);
    const settled = (await runEvents(h, run.id)).filter(
      (e) => e.type === 'tool_call' && (e.data as { phase: string }).phase !== 'started',
    );
    expect(settled.map((e) => e.data)).toEqual([
      expect.objectContaining({
        phase: 'denied',
        error: expect.objectContaining({ code: expect.stringMatching(/^AUTH_/) }),
      }),
    ]);
    for (const forbidden of ['capabilities', 'registry', 'invoke', 'grants', 'approvals', 'storage', 'ledger'])
      expect(keys).not.toContain(forbidden);
  });

  it('state is saved with the step and read back by the next drive; per-drive objects are made again', async () => {
    const storage = new MemoryStorage();
    let locals = 0;
    const counter: RunMiddleware = {
      name: 'counter',
      afterToolCall: (ctx) => {
        ctx.state.local(() => ++locals);
        ctx.state.set(((ctx.state.get() as number | undefined) ?? 0) + 1);
      },
    };
    const scripts = [
      {
        match: 'again',
        steps: [{ toolCalls: [{ capability: 'inventory.query', input: { title: 'Heat' } }] }],
        finalText: 'second',
      },
      {
        match: 'look',
        steps: [
          {
            toolCalls: [
              { capability: 'inventory.query', input: { title: 'Dune' } },
              { capability: 'inventory.query', input: { title: 'Alien' } },
            ],
          },
        ],
        finalText: 'first',
      },
    ];
    const { host: h } = await host(scripts, [counter], { storage });
    const run = await h.startRun({ goal: 'look for films', mode: 'plan_only', actor: 'user:admin' });
    await waitForStatus(h, run.id, ['succeeded']);
    expect(((await storage.runs.get(run.id))!.runtimeState as Record<string, unknown>)['middleware:counter']).toBe(2);
    await h.appendToInbox(run.id, 'again please', 'user:admin'); // the ended run is `waiting` (woken) from here on
    const done = await waitForStatus(h, run.id, ['succeeded']);
    expect(done.finalText).toBe('second');
    expect((done.runtimeState as Record<string, unknown>)['middleware:counter']).toBe(3);
    expect(locals).toBe(2);
  });
});

describe('run middleware: errors', () => {
  it('a middleware that throws in afterToolCall fails the run with RUN_MIDDLEWARE_FAILED naming it, and nothing of the failing step is written', async () => {
    const storage = new MemoryStorage();
    const boom: RunMiddleware = {
      name: 'boom',
      afterToolCall: (ctx) => {
        ctx.state.set('written before the throw');
        ctx.warn('BOOM_SOON', 'about to throw');
        throw new Error('kaput');
      },
    };
    const { host: h } = await host(lookTwice, [boom], { storage });
    const run = await h.startRun({ goal: 'look for Dune', mode: 'plan_only', actor: 'user:admin' });
    const ended = await waitForStatus(h, run.id, ['succeeded', 'failed']);
    expect(ended.status).toBe('failed');
    expect(ended.error).toEqual({
      code: 'RUN_MIDDLEWARE_FAILED',
      message: 'middleware "boom" failed in afterToolCall: kaput',
    });
    const events = await runEvents(h, run.id);
    const warnings = events.filter((e) => e.type === 'warning').map((e) => e.data);
    expect(warnings).toEqual([
      expect.objectContaining({
        source: 'runtime',
        code: 'RUN_MIDDLEWARE_FAILED',
        details: { middleware: 'boom', hook: 'afterToolCall', cause: { code: 'ERROR', message: 'kaput' } },
      }),
    ]);
    // The step that opened the call was committed; the failing step (result, settled event, state, its warning) was not.
    expect(events.filter((e) => e.type === 'tool_call').map((e) => (e.data as { phase: string }).phase)).toEqual([
      'started',
    ]);
    const stored = await storedMessages(storage, run.id);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect((ended.runtimeState ?? {}) as Record<string, unknown>).not.toHaveProperty('middleware:boom');
    expect(ended.usage).toMatchObject({ modelCalls: 1, toolCalls: 1 });
    expect(events.at(-1)).toMatchObject({ type: 'run_status', data: { status: 'failed' } });
  });

  it('a middleware that throws before the model call writes nothing of that step: no model call is counted or stored', async () => {
    const storage = new MemoryStorage();
    const { host: h, provider } = await host(
      lookTwice,
      [{ name: 'early', beforeModelRequest: () => Promise.reject(new TypeError('no config')) }],
      { storage },
    );
    const run = await h.startRun({ goal: 'look for Dune', mode: 'plan_only', actor: 'user:admin' });
    const ended = await waitForStatus(h, run.id, ['succeeded', 'failed']);
    expect(ended.error).toEqual({
      code: 'RUN_MIDDLEWARE_FAILED',
      message: 'middleware "early" failed in beforeModelRequest: no config',
    });
    expect(provider.requests).toHaveLength(0);
    expect(ended.usage.modelCalls).toBe(0);
    expect((await storedMessages(storage, run.id)).map((m) => m.role)).toEqual(['user']);
  });

  it('a throw from onRunEnd cannot change the stored outcome: it is reported as a warning', async () => {
    const { host: h } = await host(lookTwice, [
      {
        name: 'late',
        onRunEnd: () => {
          throw new Error('cleanup failed');
        },
      },
    ]);
    const run = await h.startRun({ goal: 'look for Dune', mode: 'plan_only', actor: 'user:admin' });
    expect((await waitForStatus(h, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    let warning: unknown;
    for (let i = 0; i < 200 && !warning; i++) {
      warning = (await runEvents(h, run.id)).find((e) => e.type === 'warning')?.data;
      if (!warning) await new Promise((r) => setTimeout(r, 5));
    }
    expect(warning).toMatchObject({ code: 'RUN_MIDDLEWARE_FAILED', details: { middleware: 'late', hook: 'onRunEnd' } });
  });

  it('invalid middleware is refused when the host is built (OPTIONS_INVALID)', () => {
    const build = (middleware: unknown) => () =>
      createAgentHost({ runs: { middleware: middleware as RunMiddleware[] } });
    expect(build([{ name: 'x' }, { name: 'x' }])).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID', details: { option: 'runs.middleware', middleware: 'x' } }),
    );
    expect(build([{ name: 'loop_guard' }])).toThrow(expect.objectContaining({ code: 'OPTIONS_INVALID' }));
    expect(build([{ name: '' }])).toThrow(expect.objectContaining({ code: 'OPTIONS_INVALID' }));
    expect(build([{ name: 'y', afterToolCall: 'nope' }])).toThrow(expect.objectContaining({ code: 'OPTIONS_INVALID' }));
    expect(build({ name: 'z' })).toThrow(expect.objectContaining({ code: 'OPTIONS_INVALID' }));
  });
});
