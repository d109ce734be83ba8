import type { RunMode } from '../core/run-records';
import type { GoalFactsSnapshot } from './goal-facts';
import type { GoalCandidate } from './goal-target';

/**
 * The verified goal report of a run. Its
 * status comes from business facts only; the model's final text is attached and marked unverified.
 * @public
 */
export interface AgentGoalReport {
  /** Run id. */
  runId: string;
  /** `succeeded` the goal's media is in the library; `waiting` facts still moving (submitted ≠ imported); `failed` otherwise. */
  status: 'succeeded' | 'waiting' | 'failed';
  /** Always true: built from facts, not from model text. */
  verified: true;
  /** One-line summary of the facts. */
  summary: string;
  /** The facts the status was decided from. */
  facts: GoalFactsSnapshot;
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
  return (
    facts.downloads.every((d) => !['queued', 'downloading', 'completed'].includes(d.status)) &&
    facts.organizes.every((o) => o.status !== 'running')
  );
}

/**
 * Builds the report from facts (a pure function).
 *
 * @remarks
 * Execute mode: `failed` if a download failed, stalled or was removed, or an organize failed; otherwise
 * `waiting` while facts are not settled; otherwise `succeeded` when at least one media entity the run
 * touched is in the library, else `failed` (nothing was achieved). When the goal was resolved to
 * targets, `succeeded` needs every target in the library: a run that imported another title is
 * `failed`, and the summary says what it did. Plan-only mode: `succeeded` when the drive ended
 * normally (the plan is the outcome), since it may not change anything.
 * @public
 */
export function buildGoalReport(input: {
  runId: string;
  mode: RunMode;
  facts: GoalFactsSnapshot;
  finalText: string | null;
  at: number;
  targets?: ReadonlyArray<GoalCandidate>;
}): AgentGoalReport {
  const { facts } = input;
  const failedDownloads = facts.downloads.filter(
    (d) => d.status === 'failed' || d.status === 'stalled' || d.status === 'removed',
  );
  const failedOrganizes = facts.organizes.filter((o) => o.status === 'failed');
  const present = facts.library.filter((l) => l.present);
  const targets = input.targets ?? [];
  const missingTargets = targets.filter((t) => !present.some((l) => l.mediaEntityId === t.mediaEntityId));
  let status: AgentGoalReport['status'];
  let summary: string;
  if (input.mode === 'plan_only') {
    status = 'succeeded';
    summary = `plan only: ${facts.library.length} media entities inspected, nothing executed`;
  } else if (failedDownloads.length > 0 || failedOrganizes.length > 0) {
    status = 'failed';
    summary = `${failedDownloads
      .map((d) => `download ${d.id} (${d.title}) ${d.status}`)
      .concat(failedOrganizes.map((o) => `organize ${o.id} failed`))
      .join('; ')}`;
  } else if (!factsSettled(facts)) {
    status = 'waiting';
    const moving = facts.downloads.filter((d) => ['queued', 'downloading', 'completed'].includes(d.status));
    summary = `submitted is not imported: ${moving.map((d) => `${d.title} ${d.status}`).join(', ') || 'organize running'}`;
  } else if (missingTargets.length > 0) {
    status = 'failed';
    const did =
      facts.downloads.length > 0
        ? `this run downloaded ${facts.downloads.map((d) => `${d.title} (${d.status})`).join(', ')}`
        : present.length > 0
          ? `in the library: ${present.map((l) => l.title).join(', ')}`
          : 'nothing of it is in the library';
    summary = `the goal's ${missingTargets.map((t) => `${t.title} (${t.year ?? '?'}, ${t.mediaEntityId})`).join(', ')} is not in the library; ${did}`;
  } else if (present.length > 0) {
    status = 'succeeded';
    const imported = facts.downloads.filter((d) => d.status === 'imported');
    summary = `in the library: ${present.map((l) => l.title).join(', ')}${imported.length ? ` (imported by this run: ${imported.map((d) => d.title).join(', ')})` : ' (already there; nothing submitted)'}`;
  } else {
    status = 'failed';
    summary = 'nothing the run touched is in the library';
  }
  return {
    runId: input.runId,
    status,
    verified: true,
    summary,
    facts,
    ...(targets.length > 0
      ? { targets: targets.map((t) => ({ mediaEntityId: t.mediaEntityId, title: t.title, year: t.year })) }
      : {}),
    modelText: input.finalText ? { text: input.finalText, verified: false } : null,
    at: input.at,
  };
}
