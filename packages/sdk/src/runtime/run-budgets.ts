import type { RunUsage } from '../core/run-records';

/**
 * Limits of one run.
 * @public
 */
export interface RunBudgets {
  /** Tool calls per run (default 40). */
  maxToolCalls: number;
  /** Wall time of the drive in seconds, from the run's start (default 900). */
  maxDurationSec: number;
  /** Model input + output tokens per run, or null for none (default null). */
  maxTokensPerRun: number | null;
  /** Model cost per run in USD, or null for none (default null). */
  maxCostUsdPerRun: number | null;
  /**
   * Model calls per run, subagents included (default 90). A run whose model keeps answering with
   * calls that are refused or fail spends model calls without spending tool calls; this bounds it.
   * Absent on runs stored by older versions: the default applies.
   */
  maxModelCalls?: number;
}

/**
 * Limits per UTC day across runs.
 * @public
 */
export interface DailyBudgets {
  /** Runs started per UTC day (default 50). */
  agentMaxRunsPerDay: number;
  /** Model cost in USD per UTC day (default 5). */
  agentMaxCostUsdPerDay: number;
}

/**
 * defaults, plus 90 model calls per run (more than twice the default 40 tool calls, so a
 * normal run never meets it).
 * @public
 */
export const DEFAULT_RUN_BUDGETS: Readonly<Required<RunBudgets>> = Object.freeze({
  maxToolCalls: 40,
  maxDurationSec: 900,
  maxTokensPerRun: null,
  maxCostUsdPerRun: null,
  maxModelCalls: 90,
});

/** defaults. @public */
export const DEFAULT_DAILY_BUDGETS: Readonly<DailyBudgets> = Object.freeze({
  agentMaxRunsPerDay: 50,
  agentMaxCostUsdPerDay: 5,
});

/** Which budget was exceeded, its limit and what was used. @public */
export interface BudgetBreach {
  /** Budget name, e.g. `maxToolCalls`. */
  budget: keyof RunBudgets | keyof DailyBudgets;
  /** The configured limit, in the budget's unit (calls, seconds, tokens, USD, runs). */
  limit: number;
  /** What was used, in the same unit, when the breach was found. */
  used: number;
}

/**
 * The per-run budget rule, a pure function: the first of `maxToolCalls`, `maxDurationSec`,
 * `maxTokensPerRun`, `maxCostUsdPerRun` that the usage has passed, or `maxModelCalls` once that many
 * model calls were made (checked before a model call: a run makes at most `maxModelCalls`).
 * @param usage - use so far
 * @param budgets - the run's limits
 * @param elapsedMs - time since the run started, in ms
 * @returns the breach, or null while every budget has room
 * @public
 */
export function checkRunBudgets(usage: RunUsage, budgets: RunBudgets, elapsedMs: number): BudgetBreach | null {
  if (usage.toolCalls > budgets.maxToolCalls)
    return { budget: 'maxToolCalls', limit: budgets.maxToolCalls, used: usage.toolCalls };
  if (elapsedMs > budgets.maxDurationSec * 1000)
    return { budget: 'maxDurationSec', limit: budgets.maxDurationSec, used: Math.floor(elapsedMs / 1000) };
  const tokens = usage.inputTokens + usage.outputTokens;
  if (budgets.maxTokensPerRun !== null && tokens > budgets.maxTokensPerRun)
    return { budget: 'maxTokensPerRun', limit: budgets.maxTokensPerRun, used: tokens };
  if (budgets.maxCostUsdPerRun !== null && usage.costUsd > budgets.maxCostUsdPerRun)
    return { budget: 'maxCostUsdPerRun', limit: budgets.maxCostUsdPerRun, used: usage.costUsd };
  const maxModelCalls = budgets.maxModelCalls ?? DEFAULT_RUN_BUDGETS.maxModelCalls;
  if (usage.modelCalls >= maxModelCalls)
    return { budget: 'maxModelCalls', limit: maxModelCalls, used: usage.modelCalls };
  return null;
}

/**
 * The per-day budget rule, a pure function: may one more run start today?
 * @param today - runs started and their cost in USD in the current UTC day (not counting the new run)
 * @param budgets - the daily limits
 * @returns the breach, or null
 * @public
 */
export function checkDailyBudgets(
  today: { runs: number; costUsd: number },
  budgets: DailyBudgets,
): BudgetBreach | null {
  if (today.runs >= budgets.agentMaxRunsPerDay)
    return { budget: 'agentMaxRunsPerDay', limit: budgets.agentMaxRunsPerDay, used: today.runs };
  if (today.costUsd >= budgets.agentMaxCostUsdPerDay)
    return { budget: 'agentMaxCostUsdPerDay', limit: budgets.agentMaxCostUsdPerDay, used: today.costUsd };
  return null;
}
