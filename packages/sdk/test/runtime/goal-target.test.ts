// The goal's target: a run acts on the title the goal names, asks when the goal is ambiguous, and its
// report verifies that title (sandbox world, scripted model, real runtime).
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, ManualClock, SequentialIdGenerator, type AgentHost } from '../../src/index';
import { MemoryStorage } from '../../src/storage';
import { buildGoalReport } from '../../src/runtime/goal-report';
import { ambiguityQuestion, namedInText, resolveGoalTarget, type GoalCandidate } from '../../src/runtime/goal-target';
import { registerSandboxCapabilities, SandboxWorld, ScriptedProvider, type FakeScript } from '../../src/testing';
import { runEvents, waitForStatus } from './harness';

const dune: GoalCandidate = { mediaEntityId: 'tmdb:438631', title: 'Dune', names: ['Dune', '沙丘'], year: 2021 };
const partTwo: GoalCandidate = {
  mediaEntityId: 'tmdb:693134',
  title: 'Dune: Part Two',
  names: ['Dune: Part Two', '沙丘2'],
  year: 2024,
};
const bladeRunner: GoalCandidate = {
  mediaEntityId: 'tmdb:78',
  title: 'Blade Runner',
  names: ['Blade Runner'],
  year: 1982,
};
const br2049: GoalCandidate = {
  mediaEntityId: 'tmdb:335984',
  title: 'Blade Runner 2049',
  names: ['Blade Runner 2049'],
  year: 2017,
};

describe('goal-target rule', () => {
  it('"add Dune" after a lookup that returned Dune (2021) and Dune: Part Two (2024) is ambiguous whichever is picked', () => {
    for (const pick of [dune, partTwo])
      expect(resolveGoalTarget(pick.mediaEntityId, [[dune, partTwo]], 'add Dune to my library')).toEqual({
        kind: 'ambiguous',
        candidates: [dune, partTwo],
      });
  });

  it('a year, a distinguishing word or a person’s reply resolves it; the other title stays ambiguous', () => {
    expect(resolveGoalTarget(dune.mediaEntityId, [[dune, partTwo]], 'add Dune (2021)')).toEqual({
      kind: 'resolved',
      target: dune,
    });
    expect(resolveGoalTarget(partTwo.mediaEntityId, [[dune, partTwo]], 'add Dune: Part Two')).toEqual({
      kind: 'resolved',
      target: partTwo,
    });
    expect(
      resolveGoalTarget(partTwo.mediaEntityId, [[dune, partTwo]], 'add Dune\nthe second one, part two'),
    ).toMatchObject({ kind: 'resolved' });
    expect(resolveGoalTarget(partTwo.mediaEntityId, [[dune, partTwo]], '添加 沙丘2')).toMatchObject({
      kind: 'resolved',
    });
    expect(resolveGoalTarget(dune.mediaEntityId, [[dune, partTwo]], 'add Dune: Part Two')).toMatchObject({
      kind: 'ambiguous',
    });
    expect(resolveGoalTarget(br2049.mediaEntityId, [[bladeRunner, br2049]], 'add Blade Runner 2049')).toMatchObject({
      kind: 'resolved',
    });
    expect(
      resolveGoalTarget(bladeRunner.mediaEntityId, [[bladeRunner, br2049]], 'add Blade Runner 2049'),
    ).toMatchObject({ kind: 'ambiguous' });
  });

  it('a single result answers its lookup; an entity no lookup returned is unrelated; a narrower lookup the model made later does not answer the first', () => {
    expect(resolveGoalTarget(dune.mediaEntityId, [[dune]], 'add Dune')).toEqual({ kind: 'resolved', target: dune });
    expect(resolveGoalTarget('tmdb:1', [[dune, partTwo]], 'add Dune')).toEqual({ kind: 'unrelated' });
    expect(resolveGoalTarget(partTwo.mediaEntityId, [[dune, partTwo], [partTwo]], 'add Dune')).toMatchObject({
      kind: 'ambiguous',
    });
    expect(ambiguityQuestion([dune, partTwo])).toBe(
      'Which title do you mean: Dune (2021, tmdb:438631) or Dune: Part Two (2024, tmdb:693134)?',
    );
  });

  it('a report with resolved targets is succeeded only when they are in the library; importing another title is failed and says what it did', () => {
    const facts = {
      plans: [],
      downloads: [
        { id: 'dl-1', mediaEntityId: partTwo.mediaEntityId, title: partTwo.title, status: 'imported' as const },
      ],
      organizes: [],
      library: [
        { mediaEntityId: partTwo.mediaEntityId, title: partTwo.title, present: true },
        { mediaEntityId: dune.mediaEntityId, title: dune.title, present: false },
      ],
    };
    const wrong = buildGoalReport({
      runId: 'r',
      mode: 'execute',
      facts,
      finalText: 'Added Dune!',
      at: 0,
      targets: [dune],
    });
    expect(wrong.status).toBe('failed');
    expect(wrong.summary).toBe(
      "the goal's Dune (2021, tmdb:438631) is not in the library; this run downloaded Dune: Part Two (imported)",
    );
    expect(wrong.targets).toEqual([{ mediaEntityId: dune.mediaEntityId, title: 'Dune', year: 2021 }]);
    expect(
      buildGoalReport({ runId: 'r', mode: 'execute', facts, finalText: null, at: 0, targets: [partTwo] }).status,
    ).toBe('succeeded');
    expect(buildGoalReport({ runId: 'r', mode: 'execute', facts, finalText: null, at: 0 }).status).toBe('succeeded'); // no target known: as before
  });
});

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

/** Looks "Dune" up and plans the second result (Dune: Part Two) — the model choosing for the user. */
const pickSecond: FakeScript = {
  match: 'add Dune',
  steps: [
    { toolCalls: [{ capability: 'catalog.lookup', input: { query: 'Dune' } }] },
    {
      toolCalls: [
        {
          capability: 'release.search',
          input: {
            mediaSource: '{{catalog.lookup.items.1.mediaSource}}',
            mediaId: '{{catalog.lookup.items.1.mediaId}}',
            limit: 5,
          },
        },
      ],
    },
    {
      toolCalls: [
        {
          capability: 'download.plan',
          input: {
            mediaSource: '{{catalog.lookup.items.1.mediaSource}}',
            mediaId: '{{catalog.lookup.items.1.mediaId}}',
            kind: 'movie',
            releaseId: '{{release.search.releases.0.releaseId}}',
          },
        },
      ],
    },
  ],
  finalText: 'Planned.',
};
/** After the person says which: plan it again. */
const afterReply: FakeScript = {
  match: 'Part Two',
  steps: [
    {
      toolCalls: [
        {
          capability: 'download.plan',
          input: {
            mediaSource: '{{catalog.lookup.items.1.mediaSource}}',
            mediaId: '{{catalog.lookup.items.1.mediaId}}',
            kind: 'movie',
            releaseId: '{{release.search.releases.0.releaseId}}',
          },
        },
      ],
    },
  ],
  finalText: 'Planned Dune: Part Two.',
};

async function sandboxHost() {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const world = new SandboxWorld({ clock });
  const host = createAgentHost({
    storage: new MemoryStorage(),
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: [afterReply, pickSecond] }) },
    goalFacts: world,
    runs: { pollMs: 5, goalPollSec: 1 },
  });
  registerSandboxCapabilities(host, world);
  await host.start();
  hosts.push(host);
  await host.grants.create({ action: '*', actor: 'user:admin' });
  return { host, world };
}

describe('an ambiguous goal through the real runtime', () => {
  it('"add Dune" does not plan Dune: Part Two: the run asks which title and waits; the reply resolves it and the plan records that target', async () => {
    const { host, world } = await sandboxHost();
    const run = await host.startRun({ goal: 'add Dune to my library', actor: 'user:admin' });
    const waiting = await waitForStatus(host, run.id, ['waiting', 'succeeded', 'failed']);
    expect(waiting.status).toBe('waiting');
    expect(world.downloads()).toHaveLength(0);
    const events = await runEvents(host, run.id);
    const plan = events
      .filter((e) => e.type === 'tool_call' && (e.data as { capabilityId: string }).capabilityId === 'download.plan')
      .at(-1)!.data;
    expect(plan).toMatchObject({ phase: 'failed', error: { code: 'GOAL_TARGET_AMBIGUOUS' } });
    const asked = events.find((e) => e.type === 'input_requested')!.data as {
      reason: string;
      question: string;
      options: Array<{ mediaEntityId: string }>;
    };
    expect(asked.reason).toBe('GOAL_TARGET_AMBIGUOUS');
    expect(asked.options.map((o) => o.mediaEntityId).sort()).toEqual(['tmdb:438631', 'tmdb:693134']);
    expect(asked.question).toMatch(/Dune \(2021.*Dune: Part Two \(2024/);
    expect(await host.decisions()).toEqual([]); // an attended run asks its user; no decision

    await host.appendToInbox(run.id, 'I mean Dune: Part Two', 'user:admin');
    const planned = async () =>
      (await runEvents(host, run.id))
        .filter((e) => e.type === 'tool_call' && (e.data as { capabilityId: string }).capabilityId === 'download.plan')
        .at(-1)!.data as { phase: string };
    for (let i = 0; i < 400 && (await planned()).phase !== 'succeeded'; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await planned()).toMatchObject({ phase: 'succeeded' });
    const after = (await host.getRun(run.id)).run;
    expect(after.runtimeState).toMatchObject({
      goal: { targets: [expect.objectContaining({ mediaEntityId: 'tmdb:693134' })] },
    });
  });

  it('a background run with an ambiguous goal raises an identity_ambiguous decision instead of choosing', async () => {
    const { host, world } = await sandboxHost();
    const run = await host.startRun({
      goal: 'add Dune to my library',
      actor: 'system:watchlist',
      origin: 'background',
    });
    await waitForStatus(host, run.id, ['waiting', 'succeeded', 'failed']);
    expect(world.downloads()).toHaveLength(0);
    const [decision] = await host.decisions();
    expect(decision).toMatchObject({ kind: 'identity_ambiguous', subjectId: run.id, status: 'open' });
    const asked = (await runEvents(host, run.id)).find((e) => e.type === 'input_requested')!.data as {
      decisionId?: string;
    };
    expect(asked.decisionId).toBe(decision!.id);
  });
});

describe('namedInText (the titles a goal names among the lookups)', () => {
  it('names the candidate whose whole name the text holds, the longest such name of a lookup only', () => {
    expect(namedInText([[dune, partTwo]], 'add Dune: Part Two to my library')).toEqual([partTwo]);
    expect(namedInText([[dune, partTwo]], 'add Dune')).toEqual([dune]);
    expect(namedInText([[dune, partTwo]], '把沙丘加到片库')).toEqual([dune]); // Chinese is written without spaces
    expect(namedInText([[dune, partTwo]], '沙丘')).toEqual([dune]);
    expect(namedInText([[dune], [bladeRunner]], 'what is new?')).toEqual([]);
    expect(namedInText([], 'add Dune')).toEqual([]);
  });
});
