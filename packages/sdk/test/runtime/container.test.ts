import { describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  createAgentContainer,
  createAgentHost,
  ManualClock,
  resolvePort,
  Tokens,
  type AuthorizationVerdict,
  type PortToken,
  type Authorizer,
} from '../../src/index';
import { PolicyAuthorizer } from '../../src/authorization';
import { MemoryStorage } from '../../src/storage';
import { createRunContainer } from '../../src/composition/container';
import { unredactedStorage } from '../../src/storage/redacting-storage';
import { DefaultAgentHost } from '../../src/runtime/agent-host';
import { ScriptedProvider } from '../../src/testing';
import { registerWorld } from '../helpers';

describe('dependency injection (tsyringe)', () => {
  it('registers a default implementation for every port token', () => {
    const c = createAgentContainer();
    for (const [name, token] of Object.entries(Tokens)) {
      if (name === 'RunScope') continue;
      expect(c.isRegistered(token, true), name).toBe(true);
      expect(c.resolve(token as PortToken<unknown>), name).toBeDefined();
    }
    expect(resolvePort(c, Tokens.Authorizer)).toBeInstanceOf(PolicyAuthorizer);
    expect(resolvePort(c, Tokens.AgentHost)).toBeInstanceOf(DefaultAgentHost);
    expect(resolvePort(c, Tokens.StorageAdapter)).toBeInstanceOf(MemoryStorage);
  });

  it('defaults are singletons within one container and separate between containers', () => {
    const a = createAgentContainer();
    const b = createAgentContainer();
    expect(a.resolve(Tokens.CapabilityRegistry)).toBe(a.resolve(Tokens.CapabilityRegistry));
    expect(a.resolve(Tokens.CapabilityRegistry)).not.toBe(b.resolve(Tokens.CapabilityRegistry));
  });

  it('options supply storage and clock', () => {
    const storage = new MemoryStorage();
    const clock = new ManualClock(5);
    const c = createAgentContainer({ storage, clock });
    // The port is the given store seen through the redaction boundary (docs/secrets.md).
    expect(unredactedStorage(resolvePort(c, Tokens.StorageAdapter))).toBe(storage);
    expect(resolvePort(c, Tokens.Clock).now()).toBe(5);
  });

  it('a host replaces any port; the invocation path then uses the replacement', async () => {
    const seen: string[] = [];
    const denyAll: Authorizer = {
      async authorize(request): Promise<AuthorizationVerdict> {
        seen.push(request.capability.id);
        return { allowed: false, code: 'AUTH_NO_AUTHORIZATION', reason: 'host policy: nothing today' };
      },
    };
    const c = createAgentContainer({
      configure: (container) => container.register(Tokens.Authorizer, { useValue: denyAll }),
    });
    const host = resolvePort(c, Tokens.AgentHost);
    await host.start();
    registerWorld(host);
    const result = await host.invoke('inventory.query', { query: 'x' }, { actor: 'user:admin' });
    expect(result).toMatchObject({ status: 'denied', error: { message: 'host policy: nothing today' } });
    expect(seen).toEqual(['inventory.query']);
  });

  it('a run gets a child container with its RunScope that inherits the parent’s singletons', () => {
    const parent = createAgentContainer();
    const run = createRunContainer(parent, { runId: 'run-9' });
    expect(resolvePort(run, Tokens.RunScope)).toEqual({ runId: 'run-9', actor: 'agent:run-9' });
    expect(resolvePort(run, Tokens.CapabilityRegistry)).toBe(resolvePort(parent, Tokens.CapabilityRegistry));
    expect(parent.isRegistered(Tokens.RunScope, false)).toBe(false);
    const other = createRunContainer(parent, { runId: 'run-10', actor: 'system:recover' });
    expect(resolvePort(other, Tokens.RunScope)).toEqual({ runId: 'run-10', actor: 'system:recover' });
  });

  it('a host without a model runs capabilities but refuses to start a run (MODEL_NOT_CONFIGURED)', async () => {
    const host = createAgentHost({ logger: new ConsoleLogger('silent') });
    await host.start({ workers: false });
    registerWorld(host);
    expect(await host.invoke('inventory.query', { query: 'Dune' }, { actor: 'user:admin' })).toMatchObject({
      status: 'succeeded',
    });
    await expect(host.startRun({ goal: 'Add Dune', actor: 'user:admin' })).rejects.toMatchObject({
      code: 'MODEL_NOT_CONFIGURED',
    });
    expect(await host.listRuns()).toEqual([]);
    await host.stop();
  });

  it('a model registered as Tokens.ModelProvider counts as configured', async () => {
    const c = createAgentContainer({
      configure: (container) => container.register(Tokens.ModelProvider, { useValue: new ScriptedProvider() }),
    });
    const host = resolvePort(c, Tokens.AgentHost);
    await host.start({ workers: false });
    registerWorld(host);
    expect(await host.startRun({ goal: 'Add Dune', actor: 'user:admin' })).toMatchObject({ status: 'queued' });
    await host.stop();
  });

  it('invalid options are a typed error', () => {
    expect(() => createAgentContainer({ maxInputBytes: 0 })).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID' }),
    );
    expect(() => createAgentContainer({ ledgerRetentionMs: -1 })).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID' }),
    );
    expect(() => createAgentContainer({ approvalTtlMs: Number.NaN })).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID' }),
    );
  });

  it('options and ports that are not what they claim are OPTIONS_INVALID when the host is made, not a TypeError later', () => {
    for (const options of [
      null,
      'fast',
      { storage: 'x' },
      { storage: {} },
      { clock: { now: 5 } },
      { ids: null },
      { logger: console.log },
      { goalFacts: {} },
      { runs: 'fast' },
      { model: [] },
      { history: {} },
      { history: { store: {} } },
      { history: { store: 'sqlite' } },
      { decisions: 5 },
      { decisions: { subjects: 5 } },
      { decisions: { subjects: {} } },
    ])
      expect(() => createAgentContainer(options as never), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: 'OPTIONS_INVALID' }),
      );
  });

  it('a misspelt option name is refused with the name meant, in every group the host reads', () => {
    const cases: Array<[unknown, string, string | undefined]> = [
      [{ learnig: {} }, 'learnig', 'learning'],
      [{ runs: { pollMS: 5 } }, 'runs.pollMS', 'runs.pollMs'],
      [{ runs: { budgets: { maxToolCall: 3 } } }, 'runs.budgets.maxToolCall', 'runs.budgets.maxToolCalls'],
      [{ runs: { loopGuard: { maxSearch: 3 } } }, 'runs.loopGuard.maxSearch', 'runs.loopGuard.maxSearches'],
      [{ model: { thinkng: 'low' } }, 'model.thinkng', 'model.thinking'],
      [{ skills: { dataDir: '/tmp/x', reveiw: false } }, 'skills.reveiw', undefined],
      [{ learning: { reveiw: false } }, 'learning.reveiw', 'learning.review'],
      [{ decisions: { autoInvestgate: true } }, 'decisions.autoInvestgate', 'decisions.autoInvestigate'],
      [{ tracing: { capture: true } }, 'tracing.capture', undefined],
      [{ completelyUnknown: 1 }, 'completelyUnknown', undefined],
    ];
    for (const [options, option, meant] of cases) {
      let error: { code?: string; message?: string; details?: { option?: string } } | undefined;
      try {
        createAgentContainer(options as never);
      } catch (e) {
        error = e as typeof error;
      }
      expect(error, option).toMatchObject({ code: 'OPTIONS_INVALID', details: { option } });
      if (meant) expect(error!.message).toContain(`did you mean ${meant}?`);
      else expect(error!.message).not.toContain('did you mean');
    }
    // Every documented name is accepted.
    expect(() =>
      createAgentContainer({
        maxInputBytes: 1024,
        approvalTtlMs: 1000,
        ledgerRetentionMs: 0,
        model: { model: 'scripted', maxTokens: 100, thinking: 'low', temperature: 0.5 },
        runs: {
          pollMs: 5,
          budgets: { maxToolCalls: 3 },
          daily: { agentMaxRunsPerDay: 5 },
          loopGuard: { maxSearches: 2 },
        },
        learning: { review: false },
        decisions: { autoInvestigate: false },
        tracing: { captureContent: false },
      }),
    ).not.toThrow();
  });
});
