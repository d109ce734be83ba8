import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  ManualClock,
  SequentialIdGenerator,
  type AgentHost,
  type DecisionRecord,
  type RunEvent,
  type RunMiddleware,
  type StorageAdapter,
} from '../../src/index';
import type { DecisionOptions } from '../../src/decisions';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../src/sqlite';
import { MemoryStorage } from '../../src/storage';
import {
  registerSandboxCapabilities,
  raiseSandboxDecisions,
  sandboxDecisionInputs,
  sandboxDecisionSubjects,
  SANDBOX_TITLES,
  SandboxWorld,
  ScriptedProvider,
  type FakeScript,
} from '../../src/testing';
import { runEvents, downloadRestart } from './harness';
import { runRecord } from '../storage/run-record';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

const ADMIN = 'user:admin';

/** The download id named in an investigation goal. */
const downloadOf = (goal: string) => /about download (dl-\d+)/.exec(goal)?.[1] ?? 'dl-0';

/** A careful recovery: look at the task, recheck that one download, say what was done. */
const recoverScript: FakeScript = {
  name: 'recover',
  match: /Investigate decision/,
  steps: [
    {
      text: 'Looking at the task. ',
      toolCalls: [{ capability: 'task.inspect', input: (c) => ({ taskId: downloadOf(c.goal) }) }],
    },
    {
      text: 'Files are missing; forcing a recheck. ',
      toolCalls: [{ capability: 'download.recheck', input: (c) => ({ downloadId: downloadOf(c.goal) }) }],
    },
  ],
  finalText: 'Rechecked the download; it should move again.',
};

async function sandboxHost(
  decisions: Omit<DecisionOptions, 'subjects'>,
  options: {
    scripts?: FakeScript | FakeScript[];
    world?: (clock: ManualClock) => SandboxWorld;
    middleware?: RunMiddleware[];
    storage?: StorageAdapter;
  } = {},
) {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const world = options.world?.(clock) ?? new SandboxWorld({ clock });
  const provider = new ScriptedProvider({ scripts: options.scripts ?? recoverScript });
  const storage = options.storage ?? new MemoryStorage();
  const host = createAgentHost({
    storage,
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider },
    goalFacts: world,
    runs: { pollMs: 5, goalPollSec: 10, ...(options.middleware ? { middleware: options.middleware } : {}) },
    decisions: { ...decisions, subjects: sandboxDecisionSubjects(world) },
  });
  registerSandboxCapabilities(host, world);
  await host.start();
  hosts.push(host);
  return { host, clock, world, provider, storage };
}

/** Submits Dune: Part Two as the administrator and lets the downloader fail it (missing files). */
async function failedDownload(host: AgentHost, world: SandboxWorld, clock: ManualClock): Promise<string> {
  world.setFaults({ failDownloads: true });
  const plan = await host.invoke(
    'download.plan',
    { mediaSource: 'tmdb', mediaId: '693134', kind: 'movie', releaseId: 'rel-693134-2' },
    { actor: ADMIN },
  );
  const planId = (plan.output as { plan: { id: string } }).plan.id;
  const submitted = await host.invoke('download.submit', { planId }, { actor: ADMIN });
  expect(submitted.status).toBe('pending');
  clock.advance(1000);
  const [job] = world.downloads();
  expect(job?.phase).toBe('failed');
  return job!.id;
}

/** Waits until the decision is in one of `statuses`, moving the clock by `tickMs` between polls. */
async function waitForDecision(
  host: AgentHost,
  id: string,
  statuses: DecisionRecord['status'][],
  clock?: ManualClock,
  tickMs = 0,
): Promise<DecisionRecord> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const d = await host.getDecision(id);
    if (
      statuses.includes(d.status) &&
      (d.evidence as { agentInvestigation?: unknown }).agentInvestigation !== undefined
    )
      return d;
    if (statuses.includes(d.status) && !(d.evidence as { investigation?: unknown }).investigation) return d;
    if (Date.now() > deadline) throw new Error(`decision ${id} is ${d.status}: ${JSON.stringify(d.evidence)}`);
    if (clock && tickMs) clock.advance(tickMs);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The `decision.*` events of a decision's stream (a decision about a download has a stream named by its id). */
async function decisionEvents(storage: StorageAdapter, streamId: string): Promise<RunEvent[]> {
  return (await storage.events.listByRun(streamId, { afterSeq: 0, limit: 1000 }))
    .map((r) => ({ ...r }) as unknown as RunEvent)
    .filter((e) => e.type.startsWith('decision.'));
}

const evidenceOf = (d: DecisionRecord) => d.evidence as Record<string, any>;

describe('automatic recovery of a failed download (scripted model, sandbox world)', () => {
  it('within a grant: inspect → recheck → verified by the facts → resolved by system:auto-recover; its option never runs again', async () => {
    const { host, clock, world, storage } = await sandboxHost({
      autoInvestigate: true,
      autoInvestigateMode: 'recover',
    });
    await host.grants.create({ action: 'download.recheck', actor: ADMIN, reason: 'recheck failed downloads' });
    const downloadId = await failedDownload(host, world, clock);
    world.setFaults({ failDownloads: false }); // the files are back: a recheck will find them
    const [raised] = await raiseSandboxDecisions(host, world);
    expect(raised).toMatchObject({ kind: 'download_failed', subjectType: 'download', subjectId: downloadId });
    expect(evidenceOf(raised!).investigation).toMatchObject({
      mode: 'recover',
      dedupeKey: `investigate:${raised!.id}`,
    });

    const decision = await waitForDecision(host, raised!.id, ['resolved', 'awaiting_user'], clock, 1000);
    expect(decision.status).toBe('resolved');
    expect(decision.resolvedBy).toBe('system:auto-recover');
    expect(decision.resolution).toMatchObject({
      optionId: null,
      execution: { kind: 'agent_recover', verified: true, runId: evidenceOf(raised!).investigation.runId },
    });
    expect(evidenceOf(decision).autoRecover).toMatchObject({
      attempt: 1,
      recoverAttempted: true,
      outcome: 'verified',
      actions: [{ capabilityId: 'download.recheck', subjectId: downloadId }],
    });
    const runId = evidenceOf(decision).investigation.runId as string;
    const { run, report } = await host.getRun(runId);
    expect(run).toMatchObject({
      mode: 'execute',
      startedBy: 'system:auto-recover',
      origin: 'background',
      status: 'succeeded',
    });
    expect(run.capabilityAllowlist).toEqual(expect.arrayContaining(['task.inspect', 'download.recheck', 'task.retry']));
    expect(run.capabilityAllowlist).not.toContain('download.submit');
    expect(run.budgets).toMatchObject({ maxToolCalls: 8, maxDurationSec: 600 });
    expect(report?.summary).toMatch(/^recovered \(verified by the system\): download\.recheck dl-1/);
    expect(report?.modelText).toEqual({ text: 'Rechecked the download; it should move again.', verified: false });
    expect(['queued', 'downloading', 'completed', 'imported']).toContain(world.downloadStatus(world.downloads()[0]!));

    // Choosing an option of a decision the system resolved runs nothing and returns the first result.
    const choice = await host.chooseDecisionOption(decision.id, 'ignore', ADMIN);
    expect(choice).toMatchObject({ first: false, execution: { kind: 'agent_recover', verified: true } });
    expect((await host.getDecision(decision.id)).revision).toBe(decision.revision);

    const events = [...(await decisionEvents(storage, decision.id)), ...(await runEvents(host, runId))].sort(
      (a, b) => a.globalSeq - b.globalSeq,
    );
    expect(
      events.map((e) =>
        e.type.startsWith('decision.') ? `${e.type}:${(e.data as { change?: string }).change ?? ''}` : e.type,
      ),
    ).toEqual(
      expect.arrayContaining(['decision.created:', 'decision.updated:investigating', 'decision.updated:resolved']),
    );
    if (process.env.PRINT_DECISION_EVENTS)
      for (const e of events)
        console.log(
          JSON.stringify({ globalSeq: e.globalSeq, stream: e.runId, seq: e.seq, type: e.type, data: e.data }),
        );
  });

  it('the same recovery on a SQLite file: the decision, its events and the run are stored durably', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-decisions-'));
    try {
      const storage = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
      const { host, clock, world } = await sandboxHost(
        { autoInvestigate: true, autoInvestigateMode: 'recover' },
        { storage },
      );
      await host.grants.create({ action: 'download.recheck', actor: ADMIN });
      await failedDownload(host, world, clock);
      world.setFaults({ failDownloads: false });
      const [raised] = await raiseSandboxDecisions(host, world);
      const decision = await waitForDecision(host, raised!.id, ['resolved', 'awaiting_user'], clock, 1000);
      expect(decision).toMatchObject({ status: 'resolved', resolvedBy: 'system:auto-recover', revision: 3 });
      expect((await decisionEvents(storage, decision.id)).map((e) => e.type)).toEqual([
        'decision.created',
        'decision.updated',
        'decision.updated',
      ]);
      await host.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('no grant covers the recovery: degraded to investigate, the reason recorded, a ready-to-choose recheck option that a person runs once', async () => {
    const { host, clock, world } = await sandboxHost(
      { autoInvestigate: true, autoInvestigateMode: 'recover' },
      {
        scripts: {
          match: /Investigate decision/,
          steps: [{ toolCalls: [{ capability: 'task.inspect', input: (c) => ({ taskId: downloadOf(c.goal) }) }] }],
          finalText: 'The downloader reports missing files; a recheck should find them.',
        },
      },
    );
    const downloadId = await failedDownload(host, world, clock);
    world.setFaults({ failDownloads: false });
    const [raised] = await raiseSandboxDecisions(host, world);
    expect(evidenceOf(raised!).investigation.mode).toBe('investigate');
    expect(evidenceOf(raised!).autoRecover).toMatchObject({
      degraded: { reason: 'no standing grant covers download.recheck or task.retry' },
      suggestion: expect.stringContaining('recheck'),
    });
    expect(evidenceOf(raised!).autoRecover.recoverAttempted).toBeUndefined();
    expect(raised!.options.find((o) => o.id === 'recheck')).toEqual({
      id: 'recheck',
      label: `Force a recheck of download ${downloadId}`,
      capabilityId: 'download.recheck',
      input: { downloadId, action: 'recheck' },
    });
    const decision = await waitForDecision(host, raised!.id, ['awaiting_user'], clock, 1000);
    expect(evidenceOf(decision).agentInvestigation.conclusion).toEqual({
      text: 'The downloader reports missing files; a recheck should find them.',
      verified: false,
    });
    const run = (await host.getRun(evidenceOf(decision).investigation.runId)).run;
    expect(run.mode).toBe('plan_only');
    expect(run.startedBy).toBe('system:auto-investigate');
    expect(world.downloads()[0]!.phase).toBe('failed'); // the investigation changed nothing

    // An API key may not run the recheck: denied, audited, the decision stays with a person.
    const denied = await host.chooseDecisionOption(decision.id, 'recheck', 'apikey:ops');
    expect(denied.decision.status).toBe('awaiting_user');
    expect(denied.execution).toMatchObject({ status: 'denied', error: { code: 'AUTH_NO_AUTHORIZATION' } });
    expect(await host.audit({ action: 'capability.denied', capabilityId: 'download.recheck' })).toHaveLength(1);
    expect(world.downloads()[0]!.phase).toBe('failed');

    // The administrator's choice runs it through the invocation path, once.
    const chosen = await host.chooseDecisionOption(decision.id, 'recheck', ADMIN, 'files restored');
    expect(chosen.first).toBe(true);
    expect(chosen.decision).toMatchObject({ status: 'resolved', resolvedBy: ADMIN });
    expect(chosen.execution).toMatchObject({
      kind: 'capability',
      capabilityId: 'download.recheck',
      status: 'succeeded',
    });
    expect(world.downloads()[0]!.phase).toBe('active');
    const again = await host.chooseDecisionOption(decision.id, 'recheck', ADMIN);
    expect(again).toMatchObject({ first: false, execution: chosen.execution });
    expect(await host.audit({ action: 'capability.invoke', capabilityId: 'download.recheck' })).toHaveLength(1);
  });

  it('a replacement release is refused: the recovery run may not plan or submit another download', async () => {
    const { host, clock, world } = await sandboxHost(
      { autoInvestigate: true, autoInvestigateMode: 'recover' },
      {
        scripts: {
          match: /Investigate decision/,
          steps: [
            {
              toolCalls: [
                {
                  capability: 'download.plan',
                  input: { mediaSource: 'tmdb', mediaId: '693134', kind: 'movie', releaseId: 'rel-693134-3' },
                },
              ],
            },
          ],
          finalText: 'Tried another release.',
        },
      },
    );
    await host.grants.create({ action: '*', actor: ADMIN });
    await failedDownload(host, world, clock);
    const [raised] = await raiseSandboxDecisions(host, world);
    const decision = await waitForDecision(host, raised!.id, ['awaiting_user', 'resolved'], clock, 1000);
    expect(decision.status).toBe('awaiting_user');
    const runId = evidenceOf(decision).investigation.runId as string;
    const refused = (await runEvents(host, runId)).find(
      (e) => e.type === 'tool_call' && e.data.capabilityId === 'download.plan' && e.data.phase !== 'started',
    );
    expect(refused?.data).toMatchObject({ phase: 'denied', error: { code: 'AUTH_NOT_ALLOWED_IN_RUN' } });
    expect(world.plans()).toHaveLength(1);
    expect(world.downloads()).toHaveLength(1);
    expect(evidenceOf(decision).autoRecover).toMatchObject({ outcome: 'no_action', recoverAttempted: true });
  });

  it('a grant revoked mid-run: the recheck is denied, the decision degrades to a person with the recheck option', async () => {
    let grantId = '';
    let hostRef: AgentHost | undefined;
    const revokeBeforeRecheck: RunMiddleware = {
      name: 'revoke-grant',
      async afterModelTurn(ctx) {
        if (ctx.calls.some((c) => c.name === 'download.recheck'))
          await hostRef!.grants.update(grantId, { actor: ADMIN, status: 'revoked' });
      },
    };
    const { host, clock, world } = await sandboxHost(
      { autoInvestigate: true, autoInvestigateMode: 'recover' },
      { middleware: [revokeBeforeRecheck] },
    );
    hostRef = host;
    grantId = (await host.grants.create({ action: 'download.recheck', actor: ADMIN })).id;
    await failedDownload(host, world, clock);
    world.setFaults({ failDownloads: false });
    const [raised] = await raiseSandboxDecisions(host, world);
    const decision = await waitForDecision(host, raised!.id, ['awaiting_user', 'resolved'], clock, 1000);
    expect(decision.status).toBe('awaiting_user');
    expect(evidenceOf(decision).autoRecover).toMatchObject({
      outcome: 'no_action',
      denied: [{ capabilityId: 'download.recheck', code: 'AUTH_GRANT_REVOKED' }],
      degraded: { reason: 'the recovery action was denied' },
    });
    expect(decision.options.map((o) => o.id)).toContain('recheck');
    expect(world.downloads()[0]!.phase).toBe('failed');
  });

  it('attempts are bounded per root cause: after 2 decisions that attempted recovery, the next wakes no model (attempts_exhausted)', async () => {
    const { host, clock, world, provider } = await sandboxHost({
      autoInvestigate: true,
      autoInvestigateMode: 'recover',
      recoverVerifySec: 60,
    });
    await host.grants.create({ action: 'download.recheck', actor: ADMIN });
    const downloadId = await failedDownload(host, world, clock); // the files stay missing: every recheck fails again
    for (const attempt of [1, 2]) {
      const [raised] = await raiseSandboxDecisions(host, world);
      expect(raised!.rootCause).toBe(`download_failed:${downloadId}`);
      const d = await waitForDecision(host, raised!.id, ['awaiting_user', 'resolved'], clock, 2000);
      expect(d.status).toBe('awaiting_user');
      expect(evidenceOf(d).autoRecover).toMatchObject({ attempt, recoverAttempted: true, outcome: 'timed_out' });
      clock.advance(1000);
    }
    const calls = provider.requests.length;
    const [third] = await raiseSandboxDecisions(host, world);
    expect(third).toMatchObject({ status: 'awaiting_user', rootCause: `download_failed:${downloadId}` });
    expect(evidenceOf(third!).autoRecover).toMatchObject({ skipped: 'attempts_exhausted', attempts: 2 });
    expect(evidenceOf(third!).investigation).toBeUndefined();
    await new Promise((r) => setTimeout(r, 50));
    expect(provider.requests.length).toBe(calls);
    expect(await host.decisions({ rootCause: `download_failed:${downloadId}` })).toHaveLength(3);
  });

  it('a recovery run over budget: the decision stays pending for a person, with no automatic retry', async () => {
    const { host, clock, world } = await sandboxHost({
      autoInvestigate: true,
      autoInvestigateMode: 'recover',
      investigateMaxToolCalls: 1,
    });
    await host.grants.create({ action: 'download.recheck', actor: ADMIN });
    await failedDownload(host, world, clock);
    world.setFaults({ failDownloads: false });
    const [raised] = await raiseSandboxDecisions(host, world);
    const decision = await waitForDecision(host, raised!.id, ['awaiting_user', 'resolved'], clock, 1000);
    expect(decision.status).toBe('awaiting_user');
    expect(evidenceOf(decision).autoRecover).toMatchObject({ outcome: 'over_budget', suggestion: expect.any(String) });
    const runId = evidenceOf(decision).investigation.runId as string;
    expect((await host.getRun(runId)).run.status).toBe('budget_exceeded');
    // The run's own budget decision is the agent's: it is never investigated.
    const [budget] = await host.decisions({ kind: 'agent_budget' });
    expect(budget).toMatchObject({ subjectId: runId, raisedBy: `agent:${runId}`, status: 'open' });
    expect(evidenceOf(budget!).investigation).toBeUndefined();
    // Nothing retries it.
    expect(await host.resolveDecision({ type: 'created', decisionId: decision.id })).toMatchObject({
      status: 'awaiting_user',
      revision: decision.revision,
    });
    expect(world.downloads()[0]!.phase).toBe('failed');
  });
});

describe('automatic investigation of an ambiguous identity', () => {
  it('one bounded plan_only run per decision, whatever the storm of events; the conclusion goes to a person; reopening starts nothing', async () => {
    const dune1984 = { ...SANDBOX_TITLES.find((t) => t.title === 'Dune')!, mediaId: '841', year: 1984 };
    const { host, clock, world, provider } = await sandboxHost(
      { autoInvestigate: true },
      {
        world: (clock) => new SandboxWorld({ clock, titles: [...SANDBOX_TITLES, dune1984] }),
        scripts: {
          match: /Investigate decision/,
          steps: [{ toolCalls: [{ capability: 'catalog.lookup', input: { query: 'Dune' } }] }],
          finalText:
            'Two films are called Dune (1984 and 2021); the 2021 one is the likely match given the release year.',
        },
      },
    );
    const input = sandboxDecisionInputs(world).find((i) => i.subject.id === 'rel-438631-1')!;
    expect(input).toMatchObject({ kind: 'identity_ambiguous', subject: { type: 'release' } });
    // A storm: the host's event source delivers the same occurrence many times, and resolveDecision is re-triggered.
    const raised = await Promise.all(Array.from({ length: 8 }, () => host.raiseDecision(input)));
    const id = raised[0]!.id;
    expect(new Set(raised.map((d) => d.id))).toEqual(new Set([id]));
    await Promise.all(Array.from({ length: 8 }, () => host.resolveDecision({ type: 'created', decisionId: id })));
    const decision = await waitForDecision(host, id, ['awaiting_user'], clock, 1000);
    const runs = (await host.listRuns()).filter((r) => r.goal.includes(id));
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ mode: 'plan_only', startedBy: 'system:auto-investigate', status: 'succeeded' });
    expect(runs[0]!.capabilityAllowlist!.every((c) => host.capabilities.get(c).kind === 'read')).toBe(true);
    expect(runs[0]!.budgets).toMatchObject({ maxToolCalls: 8, maxDurationSec: 600 });
    expect(evidenceOf(decision).investigation).toMatchObject({ dedupeKey: `investigate:${id}`, runId: runs[0]!.id });
    expect(evidenceOf(decision).agentInvestigation.conclusion.text).toMatch(/Two films are called Dune/);
    expect(decision.options.map((o) => o.id)).toEqual(['title-438631', 'title-841']);

    // Reopened (raised again, re-triggered): nothing new.
    const modelCalls = provider.requests.length;
    await host.raiseDecision(input);
    await host.resolveDecision({ type: 'created', decisionId: id });
    await new Promise((r) => setTimeout(r, 30));
    expect((await host.listRuns()).filter((r) => r.goal.includes(id))).toHaveLength(1);
    expect(provider.requests.length).toBe(modelCalls);

    // The person picks the 2021 film: identity.resolve runs as the person.
    const chosen = await host.chooseDecisionOption(id, 'title-438631', ADMIN);
    expect(chosen.execution).toMatchObject({ capabilityId: 'identity.resolve', status: 'succeeded' });
    expect(sandboxDecisionInputs(world).some((i) => i.subject.id === 'rel-438631-1')).toBe(false);
  });

  it('decisions raised by a run, of other kinds, or with the switch off get no investigation', async () => {
    const { host, world } = await sandboxHost({ autoInvestigate: false });
    const input = { kind: 'download_stalled', subject: { type: 'release', id: 'rel-693134-1' }, reason: 'stalled' };
    const off = await host.raiseDecision({ ...input, raisedBy: 'system:watch' });
    expect(off.status).toBe('open');
    expect(evidenceOf(off).investigation).toBeUndefined();
    expect(world.releases().length).toBeGreaterThan(0);
    expect(await host.listRuns()).toEqual([]);
  });
});

describe('bad input', () => {
  it('decision options out of range are refused when the host is built', () => {
    for (const decisions of [
      { investigateMaxToolCalls: 0 },
      { investigateMaxAttempts: -1 },
      { recoverVerifySec: 1.5 },
      { autoInvestigate: 'yes' as never },
      { autoInvestigateMode: 'fix-it' as never },
    ])
      expect(() => createAgentHost({ decisions })).toThrow(expect.objectContaining({ code: 'OPTIONS_INVALID' }));
    expect(() => createAgentHost({ decisions: { investigateMaxAttempts: 0 } })).not.toThrow();
  });

  it('a decision for an unknown subject is refused and nothing is stored; malformed decisions are refused', async () => {
    const { host } = await sandboxHost({ autoInvestigate: true });
    const base = { kind: 'download_failed', reason: 'failed', raisedBy: 'system:watch' };
    await expect(host.raiseDecision({ ...base, subject: { type: 'download', id: 'dl-404' } })).rejects.toMatchObject({
      code: 'DECISION_SUBJECT_NOT_FOUND',
    });
    await expect(host.raiseDecision({ ...base, subject: { type: 'run', id: 'run-404' } })).rejects.toMatchObject({
      code: 'DECISION_SUBJECT_NOT_FOUND',
    });
    for (const bad of [
      { ...base, kind: 'Bad Kind', subject: { type: 'download', id: 'x' } },
      { ...base, subject: { type: '', id: 'x' } },
      { ...base, reason: '', subject: { type: 'run', id: 'x' } },
      { ...base, subject: { type: 'run', id: 'x' }, evidence: [] as never },
      {
        ...base,
        subject: { type: 'run', id: 'x' },
        options: [
          { id: 'a', label: 'A' },
          { id: 'a', label: 'B' },
        ],
      },
      { ...base, subject: { type: 'run', id: 'x' }, options: [{ id: 'a', label: 'A', capabilityId: 'no.such' }] },
      // An option whose input its capability would refuse could never run when chosen.
      {
        ...base,
        subject: { type: 'run', id: 'x' },
        options: [{ id: 'a', label: 'A', capabilityId: 'download.recheck', input: { downloadId: 7 } }],
      },
      {
        ...base,
        subject: { type: 'run', id: 'x' },
        options: [{ id: 'a', label: 'A', capabilityId: 'download.recheck' }],
      },
    ])
      await expect(host.raiseDecision(bad)).rejects.toMatchObject({ code: 'DECISION_INVALID' });
    await expect(
      host.raiseDecision({ ...base, raisedBy: 'nobody', subject: { type: 'run', id: 'x' } }),
    ).rejects.toMatchObject({ code: 'ACTOR_INVALID' });
    expect(await host.decisions()).toEqual([]);
    await expect(host.getDecision('dec-404')).rejects.toMatchObject({ code: 'DECISION_NOT_FOUND' });
    await expect(host.resolveDecision({ type: 'created', decisionId: 'dec-404' })).rejects.toMatchObject({
      code: 'DECISION_NOT_FOUND',
    });
  });

  it('choosing an unknown option, or on a dismissed decision, is refused; a dismissed decision stays dismissed', async () => {
    const { host, clock, world, storage } = await sandboxHost({});
    const downloadId = await failedDownload(host, world, clock);
    const [d] = await raiseSandboxDecisions(host, world);
    expect(d!.subjectId).toBe(downloadId);
    await expect(host.chooseDecisionOption(d!.id, 'nope', ADMIN)).rejects.toMatchObject({
      code: 'DECISION_OPTION_NOT_FOUND',
    });
    // Closing without action is for administrators: an API key or an ordinary user is refused, nothing changes.
    await expect(host.dismissDecision(d!.id, 'apikey:ops')).rejects.toMatchObject({ code: 'ADMIN_FORBIDDEN' });
    await expect(host.chooseDecisionOption(d!.id, 'ignore', 'apikey:ops')).rejects.toMatchObject({
      code: 'ADMIN_FORBIDDEN',
    });
    expect((await host.getDecision(d!.id)).revision).toBe(d!.revision);
    const dismissed = await host.dismissDecision(d!.id, ADMIN, 'handled by hand');
    expect(dismissed).toMatchObject({
      status: 'dismissed',
      resolvedBy: ADMIN,
      resolution: { note: 'handled by hand' },
    });
    await expect(host.chooseDecisionOption(d!.id, 'ignore', ADMIN)).rejects.toMatchObject({ code: 'DECISION_CLOSED' });
    const events = await decisionEvents(storage, d!.id);
    expect(events.map((e) => e.type)).toEqual(['decision.created', 'decision.updated']);
    expect(events[1]!.data).toMatchObject({ change: 'dismissed', status: 'dismissed', actor: ADMIN });
  });

  it('a chosen option whose execution failed (it did not take effect) goes back to the person, who can choose again', async () => {
    const { host, clock, world } = await sandboxHost({});
    const downloadId = await failedDownload(host, world, clock);
    let failures = 1;
    const attempts: string[] = [];
    host.capabilities.register(
      defineCapability({
        ...downloadRestart,
        handler: async (input) => {
          attempts.push(input.downloadId);
          if (failures-- > 0) throw new Error('the downloader refused the connection');
          return { restarted: true };
        },
      }),
    );
    const d = await host.raiseDecision({
      kind: 'download_failed',
      reason: 'failed',
      raisedBy: 'system:watch',
      subject: { type: 'download', id: downloadId },
      options: [{ id: 'restart', label: 'Restart it', capabilityId: 'download.restart', input: { downloadId } }],
    });
    const first = await host.chooseDecisionOption(d.id, 'restart', ADMIN);
    expect(first.decision.status).toBe('awaiting_user');
    expect(first.execution).toMatchObject({ status: 'failed', optionId: 'restart' });
    expect(evidenceOf(first.decision).failedChoice).toMatchObject({ status: 'failed' });
    const second = await host.chooseDecisionOption(d.id, 'restart', ADMIN);
    expect(second.decision.status).toBe('resolved');
    expect(second.execution).toMatchObject({ status: 'succeeded', output: { restarted: true } });
    // The failed attempt stays in the evidence, as history.
    expect(evidenceOf(second.decision).failedChoice).toMatchObject({ status: 'failed' });
    expect(attempts).toEqual([downloadId, downloadId]);
  });

  it('a filter with a misspelt status or field is refused, never an empty list', async () => {
    const { host, clock, world } = await sandboxHost({});
    await failedDownload(host, world, clock);
    await raiseSandboxDecisions(host, world);
    expect(await host.decisions({ status: 'open' })).toHaveLength(1);
    for (const filter of [{ status: 'awaiting-user' }, { state: 'open' }, { kind: 5 }, 'open'])
      await expect(host.decisions(filter as never), JSON.stringify(filter)).rejects.toMatchObject({
        code: 'DECISION_INVALID',
      });
  });
});

describe('a host that stopped in the middle', () => {
  it('at start, an investigation whose run ended unconcluded is concluded, and one claimed but never started goes to a person', async () => {
    const storage = new MemoryStorage();
    await storage.migrate();
    const t0 = Date.UTC(2026, 10, 30, 12);
    const base: DecisionRecord = {
      id: 'dec-a',
      kind: 'download_failed',
      dedupeKey: 'download_failed:dl-1:1',
      subjectType: 'download',
      subjectId: 'dl-1',
      rootCause: 'download_failed:dl-1',
      status: 'open',
      reason: 'missing files',
      evidence: {
        investigation: { runId: 'run-ended', mode: 'investigate', dedupeKey: 'investigate:dec-a', startedAt: t0 },
      },
      options: [],
      raisedBy: 'system:watch',
      resolvedBy: null,
      resolution: null,
      revision: 2,
      createdAt: t0,
      updatedAt: t0,
      resolvedAt: null,
    };
    await storage.decisions.insert(base);
    await storage.decisions.insert({
      ...base,
      id: 'dec-b',
      dedupeKey: 'download_failed:dl-2:1',
      evidence: {
        investigation: { runId: 'run-never', mode: 'investigate', dedupeKey: 'investigate:dec-b', startedAt: t0 },
      },
    });
    await storage.runs.insert(
      runRecord('run-ended', {
        status: 'succeeded',
        endedAt: t0 + 5000,
        finalText: 'The files are gone from the disk.',
        runtimeState: { decision: { decisionId: 'dec-a', mode: 'investigate' } },
      }),
    );
    const host = createAgentHost({
      storage,
      clock: new ManualClock(t0 + 120_000),
      logger: new ConsoleLogger('silent'),
      runs: { pollMs: 5 },
    });
    hosts.push(host);
    await host.start();
    expect(await host.getDecision('dec-a')).toMatchObject({
      status: 'awaiting_user',
      evidence: {
        agentInvestigation: {
          runId: 'run-ended',
          conclusion: { text: 'The files are gone from the disk.', verified: false },
        },
      },
    });
    expect(await host.getDecision('dec-b')).toMatchObject({
      status: 'awaiting_user',
      evidence: { agentInvestigation: { runId: 'run-never', runStatus: 'not_started' } },
    });
  });
});
