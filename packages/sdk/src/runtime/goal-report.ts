import type { RunMode } from '../core/run-records';
import type { GoalFactsSnapshot } from './goal-facts';
import type { GoalCandidate } from './goal-target';
import { judgeCompletion, runSettled, type RequestKind } from './completion-rule';
import type { RunEffect } from './run-effects';

/**
 * The verified goal report of a run. Its
 * status comes from business facts only; the model's final text is attached and marked unverified.
 * @public
 */
export interface AgentGoalReport {
  /** Run id. */
  runId: string;
  /**
   * `succeeded` the request is done (by its kind: imported, organized, read back, or no effect asked for);
   * `waiting` what it started is still moving (submitted ≠ imported); `failed` otherwise.
   */
  status: 'succeeded' | 'waiting' | 'failed';
  /** Always true: built from facts, not from model text. */
  verified: true;
  /** One-line summary of the facts. */
  summary: string;
  /** What the run was asked for, from its facts: `['answer']` when it attempted no effect, else each effect kind. */
  request: RequestKind[];
  /** The facts the status was decided from. */
  facts: GoalFactsSnapshot;
  /** The side effects the run attempted, with how each ended and its read-back. */
  effects: RunEffect[];
  /** The titles the goal was resolved to (from catalog lookups and the people's words), when any: the status is about them. */
  targets?: Array<{ mediaEntityId: string; title: string; year: number | null }>;
  /** The model's final text, never used to decide the status. */
  modelText: { text: string; verified: false } | null;
  /** Time the report was built (ms). */
  at: number;
}

/**
 * Whether everything a run touched has settled: no download still `queued`/`downloading`/`completed`
 * (awaiting import) and no organize `running`. `stalled` counts as settled:
 * it needs a person, not more waiting.
 * @public
 */
export function factsSettled(facts: GoalFactsSnapshot): boolean {
  return runSettled(facts);
}

/**
 * Builds the report from facts (a pure function): the completion rule (`judgeCompletion`) decides the status.
 *
 * @remarks
 * The request is classified from the effects the run attempted and the titles its goal named: a run that
 * attempted no effect (a question, a greeting) `succeeded` when its drive ended normally, and the report says
 * no effect was made; a download is done when imported, an organize when finished, a subscription, setting or
 * schedule when read back; an `unknown` effect never succeeds. See docs/architecture.md#the-goal-report.
 * @public
 */
export function buildGoalReport(input: {
  runId: string;
  mode: RunMode;
  facts: GoalFactsSnapshot;
  finalText: string | null;
  at: number;
  targets?: ReadonlyArray<GoalCandidate>;
  effects?: ReadonlyArray<RunEffect>;
  named?: ReadonlyArray<GoalCandidate>;
}): AgentGoalReport {
  const targets = input.targets ?? [];
  const effects = input.effects ?? [];
  const verdict = judgeCompletion({
    mode: input.mode,
    facts: input.facts,
    effects,
    targets,
    ...(input.named ? { named: input.named } : {}),
  });
  // A run that attempted no effect is about the titles its goal named, when any.
  const shown = targets.length === 0 && verdict.request[0] === 'answer' ? (input.named ?? []) : targets;
  return {
    runId: input.runId,
    status: verdict.status,
    verified: true,
    summary: verdict.summary,
    request: verdict.request,
    facts: input.facts,
    effects: [...effects],
    ...(shown.length > 0
      ? { targets: shown.map((t) => ({ mediaEntityId: t.mediaEntityId, title: t.title, year: t.year })) }
      : {}),
    modelText: input.finalText ? { text: input.finalText, verified: false } : null,
    at: input.at,
  };
}
