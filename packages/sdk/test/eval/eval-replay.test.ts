import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  defineScenario,
  longContext,
  parseTrajectory,
  replayTrajectory,
  rules,
  runLive,
  runScenario,
  ScriptedProvider,
  STANDARD_SCENARIOS,
  trajectoryScripts,
  type EvalAgent,
  type Trajectory,
} from '../../src/testing';

const dir = fileURLToPath(new URL('../../../../eval/trajectories/', import.meta.url));
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const load = (file: string): Trajectory => parseTrajectory(readFileSync(join(dir, file), 'utf8'), file);

describe('the shipped trajectories replay through the real runtime to their expected verdicts', () => {
  it('every scenario has a passing and a failing trajectory', () => {
    const byScenario = new Map<string, Set<string>>();
    for (const f of files) {
      const t = load(f);
      byScenario.set(t.scenario, (byScenario.get(t.scenario) ?? new Set()).add(t.expect!.verdict));
    }
    expect([...byScenario.keys()].sort()).toEqual(Object.keys(STANDARD_SCENARIOS).sort());
    for (const verdicts of byScenario.values()) expect([...verdicts].sort()).toEqual(['fail', 'pass']);
  });

  it.each(files)('%s', async (file) => {
    const t = load(file);
    const result = await replayTrajectory(t, STANDARD_SCENARIOS, { source: file });
    expect({ verdict: result.verdict, code: result.code }).toEqual({
      verdict: t.expect!.verdict,
      code: t.expect!.code ?? null,
    });
    // Every run keeps its events, from the first status to the end.
    expect(result.events[0]).toMatchObject({ type: 'run_status', data: { status: 'queued' } });
    expect(result.events.some((e) => e.type === 'tool_call')).toBe(t.turns.some((turn) => turn.calls.length > 0));
  });
});

describe('replay bad input', () => {
  const base = JSON.parse(readFileSync(join(dir, 'dedup_existing.pass.json'), 'utf8')) as Trajectory;

  it('a call of a capability the host does not offer is refused before the run', async () => {
    const t = { ...base, turns: [{ calls: [{ capability: 'library.nuke', input: {} }] }] };
    await expect(replayTrajectory(t, STANDARD_SCENARIOS)).rejects.toMatchObject({
      code: 'EVAL_TRAJECTORY_INVALID',
      message: expect.stringContaining('calls unknown capabilities: library.nuke'),
    });
  });

  it('a final report naming ids that do not exist is invalid input, not a verdict', async () => {
    const t = { ...base, finalReport: { outcome: 'already_present', ids: ['tmdb:693134', 'dl-77'] } };
    await expect(replayTrajectory(t, STANDARD_SCENARIOS)).rejects.toMatchObject({
      code: 'EVAL_TRAJECTORY_INVALID',
      message: expect.stringContaining('ids that do not exist: dl-77'),
    });
  });

  it('an unknown scenario is named', async () => {
    await expect(replayTrajectory({ ...base, scenario: 'nope' }, STANDARD_SCENARIOS)).rejects.toMatchObject({
      code: 'EVAL_SCENARIO_UNKNOWN',
    });
  });

  it('an oracle that throws is reported as an oracle error, never a pass', async () => {
    const throwing = defineScenario({
      id: 'dedup_existing',
      title: 'a broken oracle',
      goal: 'Add Dune: Part Two to the library.',
      setup: ({ world }) => world.addToLibrary('tmdb:693134'),
      rules: [
        rules.finalReport(),
        () => {
          throw new Error('rule bug');
        },
      ],
    });
    const result = await replayTrajectory(base, { dedup_existing: throwing });
    expect(result).toMatchObject({
      verdict: 'oracle_error',
      code: 'oracle_error',
      reason: expect.stringContaining('rule bug'),
    });
  });
});

describe('long_context', () => {
  it('the conversation is compacted on the way to page 6, and the run still passes', async () => {
    const t = load('long_context.pass.json');
    const provider = new ScriptedProvider({ scripts: trajectoryScripts(t) });
    const result = await runScenario(longContext, { provider, seed: 0 });
    expect(result.verdict).toBe('pass');
    const summarized = provider.requests.some((r) =>
      r.messages.some(
        (m) => m.role === 'user' && typeof m.content === 'string' && m.content.startsWith('[context summary]'),
      ),
    );
    expect(summarized).toBe(true);
  });
});

describe('live and paired runs (a scripted stand-in for the model, the same seeds on both sides)', () => {
  it('runs each scenario N times per agent and pairs the verdicts by seed', async () => {
    const ids = ['dedup_existing', 'ambiguous_title', 'subagent_status'];
    const agent = (label: string, kind: 'pass' | 'fail'): EvalAgent => ({
      label,
      provider: new ScriptedProvider({
        scripts: ids.flatMap((id) => {
          const file = kind === 'pass' ? `${id}.pass.json` : files.find((f) => f.startsWith(`${id}.fail`))!;
          const goal = STANDARD_SCENARIOS[id]!.goal as string;
          return trajectoryScripts(load(file), goal);
        }),
      }),
    });
    const results = await runLive(
      ids.map((id) => STANDARD_SCENARIOS[id]!),
      [agent('good', 'pass'), agent('bad', 'fail')],
      { repetitions: 1 },
    );
    expect(results.map((r) => `${r.scenario}/${r.label}/${r.verdict}`)).toEqual([
      'dedup_existing/good/pass',
      'dedup_existing/bad/fail',
      'ambiguous_title/good/pass',
      'ambiguous_title/bad/fail',
      'subagent_status/good/pass',
      'subagent_status/bad/fail',
    ]);
    expect(results.every((r) => r.inputTokens > 0)).toBe(true);
  });
});
