import { describe, expect, it } from 'vitest';
import { buildGoalReport, factsSettled } from '../../src/runtime/goal-report';
import {
  checkDailyBudgets,
  checkRunBudgets,
  DEFAULT_DAILY_BUDGETS,
  DEFAULT_RUN_BUDGETS,
} from '../../src/runtime/run-budgets';
import { toolResultMessage } from '../../src/runtime/tool-result';
import { validateChecklist } from '../../src/runtime/checklist';
import type { GoalFactsSnapshot } from '../../src/index';

const usage = { toolCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, modelCalls: 0 };
const empty: GoalFactsSnapshot = { plans: [], downloads: [], organizes: [], library: [] };
const download = (status: GoalFactsSnapshot['downloads'][number]['status']) => ({
  id: 'dl-1',
  mediaEntityId: 'tmdb:1',
  title: 'Dune',
  status,
});

describe('run budget rules (seed 004 defaults)', () => {
  it('defaults are 40 tool calls, 900 s, 90 model calls, no token or cost limit; 50 runs and 5 USD per day', () => {
    expect(DEFAULT_RUN_BUDGETS).toEqual({
      maxToolCalls: 40,
      maxDurationSec: 900,
      maxTokensPerRun: null,
      maxCostUsdPerRun: null,
      maxModelCalls: 90,
    });
    expect(DEFAULT_DAILY_BUDGETS).toEqual({ agentMaxRunsPerDay: 50, agentMaxCostUsdPerDay: 5 });
  });
  it('each per-run budget is breached only when exceeded', () => {
    const budgets = { maxToolCalls: 2, maxDurationSec: 10, maxTokensPerRun: 100, maxCostUsdPerRun: 0.5 };
    expect(checkRunBudgets({ ...usage, toolCalls: 2 }, budgets, 10_000)).toBeNull();
    expect(checkRunBudgets({ ...usage, toolCalls: 3 }, budgets, 0)).toMatchObject({
      budget: 'maxToolCalls',
      limit: 2,
      used: 3,
    });
    expect(checkRunBudgets(usage, budgets, 10_001)).toMatchObject({ budget: 'maxDurationSec', limit: 10 });
    expect(checkRunBudgets({ ...usage, inputTokens: 60, outputTokens: 41 }, budgets, 0)).toMatchObject({
      budget: 'maxTokensPerRun',
      used: 101,
    });
    expect(checkRunBudgets({ ...usage, costUsd: 0.51 }, budgets, 0)).toMatchObject({ budget: 'maxCostUsdPerRun' });
    expect(checkRunBudgets({ ...usage, inputTokens: 1e9, costUsd: 1e9 }, DEFAULT_RUN_BUDGETS, 0)).toBeNull();
  });
  it('a new run is refused when the day already has the maximum runs or cost', () => {
    expect(checkDailyBudgets({ runs: 49, costUsd: 4.99 }, DEFAULT_DAILY_BUDGETS)).toBeNull();
    expect(checkDailyBudgets({ runs: 50, costUsd: 0 }, DEFAULT_DAILY_BUDGETS)).toMatchObject({
      budget: 'agentMaxRunsPerDay',
    });
    expect(checkDailyBudgets({ runs: 0, costUsd: 5 }, DEFAULT_DAILY_BUDGETS)).toMatchObject({
      budget: 'agentMaxCostUsdPerDay',
    });
  });
});

describe('goal report rules (seed 004, finalize)', () => {
  const report = (
    facts: GoalFactsSnapshot,
    mode: 'execute' | 'plan_only' = 'execute',
    finalText: string | null = 'I did it',
  ) => buildGoalReport({ runId: 'r', mode, facts, finalText, at: 1 });
  it('submitted is not imported: a download still moving makes the report waiting', () => {
    for (const s of ['queued', 'downloading', 'completed'] as const) {
      expect(factsSettled({ ...empty, downloads: [download(s)] })).toBe(false);
      expect(
        report({
          ...empty,
          downloads: [download(s)],
          library: [{ mediaEntityId: 'tmdb:1', title: 'Dune', present: false }],
        }).status,
      ).toBe('waiting');
    }
  });
  it('an imported download of a touched entity makes it succeeded', () => {
    expect(
      report({
        ...empty,
        downloads: [download('imported')],
        library: [{ mediaEntityId: 'tmdb:1', title: 'Dune', present: true }],
      }).status,
    ).toBe('succeeded');
  });
  it('a failed, stalled or removed download or a failed organize makes it failed', () => {
    for (const s of ['failed', 'stalled', 'removed'] as const)
      expect(report({ ...empty, downloads: [download(s)] }).status).toBe('failed');
    expect(
      report({
        ...empty,
        organizes: [{ id: 'o', downloadId: null, mediaEntityId: 'tmdb:1', status: 'failed', libraryPath: null }],
      }).status,
    ).toBe('failed');
  });
  it('a run that attempted no effect is an answer: succeeded, saying no effect was made; the model text is attached unverified', () => {
    const r = report(empty, 'execute', 'Dune is in your library!');
    expect(r).toMatchObject({
      status: 'succeeded',
      request: ['answer'],
      verified: true,
      modelText: { text: 'Dune is in your library!', verified: false },
    });
    expect(r.summary).toMatch(/^no effect was made/);
  });
  it('plan_only runs succeed when the drive ended: the plan is the outcome', () => {
    expect(report(empty, 'plan_only').status).toBe('succeeded');
  });
});

describe('plan rule (seed 000, 任务计划)', () => {
  it('completed and blocked steps need evidence; statuses are pending, in_progress, completed, blocked', () => {
    expect(
      validateChecklist({
        goal: 'g',
        steps: [
          { title: 'a', status: 'pending' },
          { title: 'b', status: 'completed', evidence: 'tool said so' },
        ],
      }),
    ).toEqual([]);
    expect(validateChecklist({ goal: 'g', steps: [{ title: 'a', status: 'completed' }] })).toEqual([
      '/steps/0: a completed step needs evidence',
    ]);
    expect(validateChecklist({ goal: 'g', steps: [{ title: 'a', status: 'blocked', evidence: '  ' }] })).toHaveLength(
      1,
    );
    expect(validateChecklist({ goal: 'g', steps: [{ title: 'a', status: 'done' }] }).length).toBeGreaterThan(0);
    expect(validateChecklist({ steps: [] }).length).toBeGreaterThan(0);
  });
});

describe('tool results as the model sees them', () => {
  it('carry the status and what it means: pending is not done, unknown must be verified', () => {
    const pending = JSON.parse(
      toolResultMessage('c1', 'download.submit', { status: 'pending', output: { id: 1 } }).content as string,
    );
    expect(pending).toMatchObject({ status: 'pending', output: { id: 1 } });
    expect(pending.note).toMatch(/NOT done/);
    const unknown = toolResultMessage('c2', 'download.submit', {
      status: 'unknown',
      error: { code: 'OUTCOME_UNKNOWN', message: 'timeout' },
    });
    expect(unknown.status).toBe('unknown');
    expect(JSON.parse(unknown.content as string).note).toMatch(/Verify with a read before retrying/);
    expect(
      toolResultMessage('c3', 'x', { status: 'denied', error: { code: 'AUTH_NO_AUTHORIZATION', message: 'no' } })
        .status,
    ).toBe('error');
  });
});
