// The completion standard per kind of request: one pure rule (judgeCompletion), a test per kind, a property
// (an unknown effect never succeeds), and real runs for the kinds a host adds itself (subscription, setting,
// schedule) and for a plain question.
//
// Public reports these tests carry:
// - Agenta-AI/agenta#4976: a run with a failed tool call showed as failed though the agent answered — here a
//   failed read is not an effect, and the run that answered ends `succeeded`.
// - evoila/meho#2077: a zero-tool no-op reported `succeeded` with invented output — here such a run's report says
//   no effect was made and its text stays unverified (runs.test.ts has the end-to-end case).
// - jxxghp/MoviePilot#4073: downloads finished but were never scraped into the library — here a download that is
//   `completed` but not imported keeps the run `waiting`, never `succeeded`.
// - medic/cht-core#6315 and block/buzz#5400: a settings update reported success but had no effect — here a
//   setting is done only when a read confirms the new value.
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { defineCapability, type AgentHost, type GoalFactsSnapshot, type RunEffect } from '../../src/index';
import { judgeCompletion, runSettled } from '../../src/runtime/completion-rule';
import { SqliteStorage } from '../../src/sqlite';
import { startHost, waitForStatus } from './harness';

const EMPTY: GoalFactsSnapshot = { plans: [], downloads: [], organizes: [], library: [] };
const facts = (over: Partial<GoalFactsSnapshot>): GoalFactsSnapshot => ({ ...EMPTY, ...over });
let at = 0;
const effect = (over: Partial<RunEffect> & Pick<RunEffect, 'capabilityId' | 'effect'>): RunEffect => ({
  outcome: 'succeeded',
  idempotencyKey: `key-${++at}`,
  errorCode: null,
  readBack: null,
  at,
  ...over,
});
const judge = (f: GoalFactsSnapshot, effects: RunEffect[] = [], targets = [] as never[]) =>
  judgeCompletion({ mode: 'execute', facts: f, effects, targets });
const dune = { mediaEntityId: 'tmdb:438631', title: 'Dune', names: ['Dune'], year: 2021 };
const download = (status: GoalFactsSnapshot['downloads'][number]['status']) => ({
  id: 'd1',
  mediaEntityId: dune.mediaEntityId,
  title: 'Dune',
  status,
});
const inLibrary = (present: boolean) => [{ mediaEntityId: dune.mediaEntityId, title: 'Dune', present }];
const subscribed = (confirmed: boolean) =>
  effect({
    capabilityId: 'moviepilot.subscription.add',
    effect: 'subscription',
    readBack: confirmed ? { confirmed: true, reason: null } : { confirmed: false, reason: 'no subscription found' },
  });

describe('the completion rule, one kind of request at a time', () => {
  it('answer: no effect attempted, no title named → succeeded, saying no effect was made', () => {
    const v = judge(EMPTY);
    expect(v).toMatchObject({ status: 'succeeded', request: ['answer'] });
    expect(v.summary).toMatch(/^no effect was made/);
  });

  it('subscription: created and read back → succeeded, without waiting for any future release', () => {
    expect(judge(EMPTY, [subscribed(true)])).toMatchObject({ status: 'succeeded', request: ['subscription'] });
  });

  it('subscription: created but not found when read back → failed', () => {
    const v = judge(EMPTY, [subscribed(false)]);
    expect(v.status).toBe('failed');
    expect(v.summary).toContain('no subscription found');
  });

  it('download: submitted → waiting until imported; completed (downloaded, not imported) is still waiting', () => {
    const submit = effect({ capabilityId: 'download.submit', effect: 'download', outcome: 'pending' });
    for (const status of ['queued', 'downloading', 'completed'] as const) {
      const f = facts({ downloads: [download(status)], library: inLibrary(false) });
      expect(judge(f, [submit], [dune] as never[])).toMatchObject({ status: 'waiting', request: ['download'] });
      expect(runSettled(f, [submit])).toBe(false);
    }
    const imported = facts({ downloads: [download('imported')], library: inLibrary(true) });
    expect(judge(imported, [submit], [dune] as never[]).status).toBe('succeeded');
  });

  it('organize: queued or running → waiting until done; done and in the library → succeeded', () => {
    const run = effect({ capabilityId: 'organize.execute', effect: 'organize', outcome: 'pending' });
    const organize = (status: 'running' | 'succeeded') => ({
      id: 'o1',
      downloadId: null,
      mediaEntityId: dune.mediaEntityId,
      status,
      libraryPath: status === 'succeeded' ? '/media/movies/Dune (2021)' : null,
    });
    expect(judge(facts({ organizes: [organize('running')], library: inLibrary(false) }), [run]).status).toBe('waiting');
    expect(judge(facts({ organizes: [organize('succeeded')], library: inLibrary(true) }), [run])).toMatchObject({
      status: 'succeeded',
      request: ['organize'],
    });
  });

  it('setting: succeeded only when a read confirms the new value', () => {
    const set = (confirmed: boolean) =>
      effect({
        capabilityId: 'policy.apply',
        effect: 'setting',
        readBack: confirmed
          ? { confirmed: true, reason: null }
          : { confirmed: false, reason: 'the acquisition policy does not hold the new value of minResolution' },
      });
    expect(judge(EMPTY, [set(true)])).toMatchObject({ status: 'succeeded', request: ['setting'] });
    const v = judge(EMPTY, [set(false)]);
    expect(v.status).toBe('failed');
    expect(v.summary).toContain('minResolution');
    // A setting effect with no read-back at all (no verifier) is not confirmed either.
    expect(judge(EMPTY, [effect({ capabilityId: 'settings.set', effect: 'setting' })]).status).toBe('failed');
  });

  it('schedule: created → succeeded when the schedule exists (read back); never a promise about future runs', () => {
    const created = (confirmed: boolean) =>
      effect({
        capabilityId: 'schedule.create',
        effect: 'schedule',
        readBack: { confirmed, reason: confirmed ? null : 'no schedule with this id' },
      });
    expect(judge(EMPTY, [created(true)])).toMatchObject({ status: 'succeeded', request: ['schedule'] });
    expect(judge(EMPTY, [created(false)]).status).toBe('failed');
  });

  it('unknown: an effect whose outcome is unknown never succeeds, even next to effects that did', () => {
    const v = judge(EMPTY, [
      subscribed(true),
      effect({ capabilityId: 'plugin.Cleaner.run', effect: 'other', outcome: 'unknown', idempotencyKey: 'k-u' }),
    ]);
    expect(v.status).toBe('failed');
    expect(v.summary).toContain('k-u');
  });

  it('cancel: a download the run cancelled is removed on purpose, not a failure', () => {
    const f = facts({ downloads: [download('removed')], library: inLibrary(false) });
    expect(judge(f, [effect({ capabilityId: 'task.cancel', effect: 'cancel' })])).toMatchObject({
      status: 'succeeded',
      request: ['cancel'],
    });
    // Removed by someone else while the run wanted it: failed.
    expect(judge(f, [effect({ capabilityId: 'download.submit', effect: 'download' })]).status).toBe('failed');
  });

  it('other: done when the call succeeded; accepted but not done (pending) waits', () => {
    expect(judge(EMPTY, [effect({ capabilityId: 'plugin.LogsClean.clean', effect: 'other' })]).status).toBe(
      'succeeded',
    );
    const pending = [effect({ capabilityId: 'plugin.LogsClean.clean', effect: 'other', outcome: 'pending' })];
    expect(judge(EMPTY, pending).status).toBe('waiting');
    expect(runSettled(EMPTY, pending)).toBe(false);
  });

  it('a failed or refused effect fails the run unless a later call of the same capability succeeded', () => {
    const denied = effect({
      capabilityId: 'policy.apply',
      effect: 'setting',
      outcome: 'not_run',
      idempotencyKey: null,
      errorCode: 'AUTH_DENIED',
    });
    const v = judge(EMPTY, [denied]);
    expect(v).toMatchObject({ status: 'failed', request: ['setting'] });
    expect(v.summary).toContain('AUTH_DENIED');
    const applied = effect({
      capabilityId: 'policy.apply',
      effect: 'setting',
      readBack: { confirmed: true, reason: null },
    });
    expect(judge(EMPTY, [denied, applied]).status).toBe('succeeded');
  });

  it('a mixed run is judged by all its effects: the worst verdict wins', () => {
    const submit = effect({ capabilityId: 'download.submit', effect: 'download' });
    const moving = facts({ downloads: [download('downloading')], library: inLibrary(false) });
    const imported = facts({ downloads: [download('imported')], library: inLibrary(true) });
    expect(judge(moving, [subscribed(true), submit])).toMatchObject({
      status: 'waiting',
      request: ['download', 'subscription'],
    });
    expect(judge(imported, [subscribed(true), submit]).status).toBe('succeeded');
    expect(judge(imported, [subscribed(false), submit]).status).toBe('failed');
  });

  it('a title the goal named that is not in the library fails a run that attempted it, whatever else it did', () => {
    const v = judge(facts({ library: inLibrary(false) }), [], [dune] as never[]);
    expect(v.status).toBe('failed');
    expect(v.summary).toContain('tmdb:438631');
  });

  it('a failed change is retried only by a later success about the same subject; a refusal for invalid input by any', () => {
    const failedQuality = effect({
      capabilityId: 'settings.set',
      effect: 'setting',
      outcome: 'failed',
      errorCode: 'HOST_ERROR',
      subject: 'input:quality',
    });
    const language = effect({
      capabilityId: 'settings.set',
      effect: 'setting',
      subject: 'input:language',
      readBack: { confirmed: true, reason: null },
    });
    expect(judge(EMPTY, [failedQuality, language]).status).toBe('failed');
    const quality = { ...language, subject: 'input:quality' };
    expect(judge(EMPTY, [failedQuality, quality]).status).toBe('succeeded');
    const invalid = {
      ...failedQuality,
      outcome: 'not_run' as const,
      errorCode: 'TOOL_ARGS_INVALID',
      subject: 'input:x',
    };
    expect(judge(EMPTY, [invalid, language]).status).toBe('succeeded');
    expect(judge(EMPTY, [invalid])).toMatchObject({ status: 'failed', request: ['setting'] });
  });

  it('no effect attempted but the goal named a title: succeeded only when that title is in the library', () => {
    const named = (present: boolean) =>
      judgeCompletion({
        mode: 'execute',
        facts: facts({ library: inLibrary(present) }),
        effects: [],
        targets: [],
        named: [dune],
      });
    expect(named(false)).toMatchObject({ status: 'failed', request: ['answer'] });
    expect(named(false).summary).toContain('the run made no effect');
    expect(named(true)).toMatchObject({ status: 'succeeded', request: ['answer'] });
    expect(named(true).summary).toContain('already there');
  });

  it('a download the run cancelled does not make its title missing', () => {
    const f = facts({ downloads: [download('removed')], library: inLibrary(false) });
    const v = judge(
      f,
      [
        effect({ capabilityId: 'download.submit', effect: 'download' }),
        effect({ capabilityId: 'task.cancel', effect: 'cancel' }),
      ],
      [dune] as never[],
    );
    expect(v).toMatchObject({ status: 'succeeded', request: ['download', 'cancel'] });
  });

  it('property: any run with an unknown or still-running effect is never succeeded', () => {
    const kinds = ['download', 'organize', 'subscription', 'setting', 'schedule', 'cancel', 'other'] as const;
    const outcomes = ['succeeded', 'pending', 'failed', 'unknown', 'running', 'not_run'] as const;
    const arbEffect = fc.record({
      capabilityId: fc.constantFrom('a.x', 'b.y', 'c.z'),
      effect: fc.constantFrom(...kinds),
      outcome: fc.constantFrom(...outcomes),
      confirmed: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(arbEffect, { minLength: 1, maxLength: 6 }), fc.boolean(), (list, present) => {
        const effects = list.map((e) =>
          effect({
            capabilityId: e.capabilityId,
            effect: e.effect,
            outcome: e.outcome,
            readBack: e.outcome === 'succeeded' ? { confirmed: e.confirmed, reason: null } : null,
          }),
        );
        const v = judge(facts({ library: inLibrary(present) }), effects);
        if (effects.some((e) => e.outcome === 'unknown' || e.outcome === 'running')) return v.status === 'failed';
        return ['succeeded', 'waiting', 'failed'].includes(v.status) && v.request[0] !== 'answer';
      }),
      { numRuns: 300 },
    );
  });
});

// ——— Real runs: a scripted model, the real runtime, a real SQLite file ———

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A host on a real SQLite file with the tiny world plus a subscription and a settings store of its own. */
async function realHost(script: Parameters<typeof startHost>[0]) {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-completion-'));
  dirs.push(dir);
  const started = await startHost(script, { storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }) });
  hosts.push(started.host);
  const subscriptions = new Map<string, number>();
  const settings = new Map<string, string>();
  const host = { loseSubscriptions: false, ignoreSettings: false };
  const find = defineCapability({
    id: 'subscription.find',
    version: 1,
    title: 'Find a subscription',
    description: 'The subscription of a title, or null.',
    kind: 'read',
    replay: 'safe',
    input: Type.Object({ title: Type.String() }),
    output: Type.Object({ id: Type.Union([Type.Integer(), Type.Null()]) }),
    handler: async (input) => ({ id: host.loseSubscriptions ? null : (subscriptions.get(input.title) ?? null) }),
  });
  started.host.capabilities.register(find);
  started.host.capabilities.register(
    defineCapability({
      id: 'subscription.add',
      version: 1,
      title: 'Subscribe to a title',
      description: 'The host downloads new releases of the title by itself.',
      kind: 'execute',
      replay: 'never',
      effect: 'subscription',
      input: Type.Object({ title: Type.String() }),
      output: Type.Object({ id: Type.Integer() }),
      verify: async ({ input, read }) => {
        const found = (await read('subscription.find', { title: input.title })) as { id: number | null };
        return found.id !== null
          ? { status: 'succeeded', output: { id: found.id } }
          : { status: 'failed', reason: `the host has no subscription of ${input.title}` };
      },
      handler: async (input) => {
        const id = subscriptions.size + 1;
        subscriptions.set(input.title, id);
        return { id };
      },
    }),
  );
  started.host.capabilities.register(
    defineCapability({
      id: 'settings.get',
      version: 1,
      title: 'Read a setting',
      description: 'The value of a host setting.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({ name: Type.String() }),
      output: Type.Object({ value: Type.Union([Type.String(), Type.Null()]) }),
      handler: async (input) => ({ value: settings.get(input.name) ?? null }),
    }),
  );
  started.host.capabilities.register(
    defineCapability({
      id: 'settings.set',
      version: 1,
      title: 'Change a setting',
      description: 'Sets a host setting.',
      kind: 'execute',
      replay: 'reconcile',
      effect: 'setting',
      input: Type.Object({ name: Type.String(), value: Type.String() }),
      output: Type.Object({ ok: Type.Boolean() }),
      verify: async ({ input, read }) => {
        const now = (await read('settings.get', { name: input.name })) as { value: string | null };
        return now.value === input.value
          ? { status: 'succeeded', output: { ok: true } }
          : {
              status: 'failed',
              reason: `${input.name} is ${JSON.stringify(now.value)}, not ${JSON.stringify(input.value)}`,
            };
      },
      // A host whose save "succeeds" without storing the value (cht-core#6315, buzz#5400) when told to.
      handler: async (input) => {
        if (!host.ignoreSettings) settings.set(input.name, input.value);
        return { ok: true };
      },
    }),
  );
  for (const action of ['subscription.add', 'settings.set', 'download.submit'])
    await started.host.grants.create({ action, actor: 'user:admin' });
  return { ...started, hostState: host };
}

describe('completion standards on real runs (scripted model, real runtime, SQLite file)', () => {
  it('a plain question ends succeeded as an answer, even when a read it tried failed (agenta#4976)', async () => {
    const { host } = await realHost({
      match: 'library',
      steps: [{ toolCalls: [{ capability: 'inventory.query', input: { wrong: 1 } }] }],
      finalText: 'Your library has Arrival.',
    });
    const run = await host.startRun({ goal: 'What is in my library?', actor: 'user:admin' });
    expect((await waitForStatus(host, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    const report = (await host.getRun(run.id)).report!;
    expect(report).toMatchObject({
      status: 'succeeded',
      request: ['answer'],
      effects: [],
      modelText: { text: 'Your library has Arrival.', verified: false },
    });
  });

  it('a subscription created and read back ends succeeded; one the host lost ends failed', async () => {
    const script = {
      match: 'Subscribe',
      steps: [{ toolCalls: [{ capability: 'subscription.add', input: { title: 'Severance' } }] }],
      finalText: 'Subscribed.',
    };
    const ok = await realHost(script);
    const run = await ok.host.startRun({ goal: 'Subscribe to Severance', actor: 'user:admin' });
    expect((await waitForStatus(ok.host, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    expect((await ok.host.getRun(run.id)).report).toMatchObject({
      request: ['subscription'],
      effects: [{ capabilityId: 'subscription.add', outcome: 'succeeded', readBack: { confirmed: true } }],
    });

    const lost = await realHost(script);
    lost.hostState.loseSubscriptions = true;
    const run2 = await lost.host.startRun({ goal: 'Subscribe to Severance', actor: 'user:admin' });
    expect((await waitForStatus(lost.host, run2.id, ['succeeded', 'failed'])).status).toBe('failed');
    expect((await lost.host.getRun(run2.id)).report?.summary).toContain('no subscription of Severance');
  });

  it('a setting change is succeeded only when a read confirms the new value', async () => {
    const script = {
      match: 'language',
      steps: [{ toolCalls: [{ capability: 'settings.set', input: { name: 'language', value: 'fr' } }] }],
      finalText: 'Language set to French.',
    };
    const ok = await realHost(script);
    const run = await ok.host.startRun({ goal: 'Set the language to French', actor: 'user:admin' });
    expect((await waitForStatus(ok.host, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');

    const ignored = await realHost(script);
    ignored.hostState.ignoreSettings = true;
    const run2 = await ignored.host.startRun({ goal: 'Set the language to French', actor: 'user:admin' });
    expect((await waitForStatus(ignored.host, run2.id, ['succeeded', 'failed'])).status).toBe('failed');
    expect((await ignored.host.getRun(run2.id)).report?.summary).toContain('language is null, not "fr"');
  });

  it('a download submitted keeps the run waiting until imported (MoviePilot#4073), then succeeded', async () => {
    const { host, clock } = await realHost({
      match: 'Dune',
      steps: [
        { toolCalls: [{ capability: 'inventory.query', input: { title: 'Dune' } }] },
        { toolCalls: [{ capability: 'download.submit', input: { title: 'Dune' } }] },
      ],
      finalText: 'Submitted Dune.',
    });
    const run = await host.startRun({ goal: 'Add Dune', actor: 'user:admin' });
    const waiting = await waitForStatus(host, run.id, ['waiting', 'succeeded', 'failed']);
    expect(waiting.status).toBe('waiting');
    const report = (await host.getRun(run.id)).report!;
    expect(report.status).toBe('waiting');
    expect(report.summary).toMatch(/^submitted is not imported/);
    // This host's download.submit declares no effect kind (`other`); its downloads in the facts make it a download.
    expect(report.request).toEqual(['download', 'other']);
    clock.advance(61_000);
    expect((await waitForStatus(host, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
  });
});
