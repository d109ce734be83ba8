// The completion standard of a run: what kind of request it was (from the effects it attempted and the
// titles its goal named) and whether that request is done. A pure rule, tested directly.
import { EFFECT_KINDS, needsReadBack, type EffectKind } from '../core/capability-descriptor';
import type { RunMode } from '../core/run-records';
import type { GoalFactsSnapshot } from './goal-facts';
import type { GoalCandidate } from './goal-target';
import type { RunEffect } from './run-effects';

/**
 * What a run was asked for, as its facts show it: `answer` when it attempted no effect (a question, a
 * greeting, a look at the library), else the kind of each effect it attempted.
 * @public
 */
export type RequestKind = 'answer' | EffectKind;

/** The verdict of the completion rule. @public */
export interface CompletionVerdict {
  /** `succeeded` the request is done; `waiting` what it started is still moving; `failed` otherwise. */
  status: 'succeeded' | 'waiting' | 'failed';
  /** One line: what was done, what is still moving, or what failed. */
  summary: string;
  /** The request's kinds, in the order of `EFFECT_KINDS` (`['answer']` when no effect was attempted). */
  request: RequestKind[];
}

/** What the completion rule reads. @public */
export interface CompletionInput {
  /** The run's mode: `plan_only` runs change nothing and succeed when their drive ended normally. */
  mode: RunMode;
  /** The host's facts about what the run touched. */
  facts: GoalFactsSnapshot;
  /** The side effects the run attempted, in order. */
  effects: readonly RunEffect[];
  /** The titles the goal was resolved to by the side effects the run attempted (checked before each), when any. */
  targets: readonly GoalCandidate[];
  /**
   * The titles the goal and the people's messages name among the run's catalog lookups ("add Dune: Part Two"
   * after a lookup that returned it), when any. They count only for a run that attempted no effect: such a
   * run is an answer only when it names no title, else it is judged by whether those titles are in the library.
   */
  named?: readonly GoalCandidate[];
}

const MOVING_DOWNLOAD = new Set(['queued', 'downloading', 'completed']);

/**
 * Whether everything a run touched has settled: no download still `queued`/`downloading`/`completed`
 * (awaiting import), no organize `running`, and no effect accepted but not done (`pending`, except downloads
 * and organizes, which the facts follow). `stalled` counts as settled: it needs a person, not more waiting.
 * @public
 */
export function runSettled(facts: GoalFactsSnapshot, effects: readonly RunEffect[] = []): boolean {
  return (
    facts.downloads.every((d) => !MOVING_DOWNLOAD.has(d.status)) &&
    facts.organizes.every((o) => o.status !== 'running') &&
    effects.every((e) => e.outcome !== 'pending' || e.effect === 'download' || e.effect === 'organize')
  );
}

/** The kinds of a run's request, in `EFFECT_KINDS` order. */
function requestKinds(input: CompletionInput): RequestKind[] {
  const kinds = new Set<EffectKind>(input.effects.map((e) => e.effect));
  // The host's facts count too: a download or organize the run touched, a plan it drafted.
  if (input.facts.downloads.length > 0 && !kinds.has('cancel')) kinds.add('download');
  if (input.facts.organizes.length > 0) kinds.add('organize');
  for (const plan of input.facts.plans) kinds.add(plan.type);
  const list = EFFECT_KINDS.filter((k) => kinds.has(k));
  return list.length > 0 ? list : ['answer'];
}

/**
 * Refusals whose call could not say what it meant (its input was invalid, its title ambiguous): a later success of
 * the same capability is their retry, whatever its input.
 */
const RETRIED_BY_ANY_SUCCESS = new Set([
  'INPUT_INVALID',
  'INPUT_TOO_LARGE',
  'TOOL_ARGS_INVALID',
  'GOAL_TARGET_AMBIGUOUS',
]);

/**
 * Effects that failed or never ran and were not retried: a later call of the same capability about the same
 * subject (its target, else the same input) that succeeded or was accepted is a retry; so is any later success of
 * the same capability after a call refused for its input. Another change of the same capability is not.
 */
function unrecovered(effects: readonly RunEffect[]): RunEffect[] {
  return effects.filter(
    (e, i) =>
      (e.outcome === 'failed' || e.outcome === 'not_run') &&
      !effects
        .slice(i + 1)
        .some(
          (l) =>
            l.capabilityId === e.capabilityId &&
            (l.outcome === 'succeeded' || l.outcome === 'pending') &&
            (l.subject === e.subject || (e.errorCode !== null && RETRIED_BY_ANY_SUCCESS.has(e.errorCode))),
        ),
  );
}

/**
 * Judges a run's request by its facts (never by the model's text).
 *
 * @remarks
 * The request is first classified from the effects the run attempted and the titles its goal named; then:
 * - no effect attempted and no title named (`answer`): `succeeded` — the reply is the model's (unverified);
 * - no effect attempted but the goal named a title: `succeeded` only when that title is in the library;
 * - an effect whose outcome is `unknown` (or still `running`): never `succeeded` — `failed`, a person must check;
 * - a download failed, stalled or removed (unless the run cancelled it), an organize failed, an effect that
 *   failed or was refused and not retried (a later success of the same capability about the same target or
 *   input, or any later success after a refusal for invalid input or an ambiguous title): `failed`;
 * - a `subscription`, `setting` or `schedule` effect: done only when read back (its verifier confirmed it);
 * - a download not imported yet, an organize still running, an effect accepted but not done: `waiting`;
 * - downloads and organizes: done when the goal's titles (else at least one title touched) are in the library.
 * A mixed run is judged by all its effects: the worst verdict wins (`failed`, then `waiting`).
 * `plan_only` runs change nothing: `succeeded` when their drive ended normally.
 * @param input - the mode, facts, effects and goal targets
 * @returns the status, a one-line summary and the request's kinds
 * @public
 */
export function judgeCompletion(input: CompletionInput): CompletionVerdict {
  const { facts, effects, targets } = input;
  const request = requestKinds(input);
  if (input.mode === 'plan_only')
    return {
      status: 'succeeded',
      summary: `plan only: ${facts.library.length} media ${facts.library.length === 1 ? 'entity' : 'entities'} inspected, nothing executed`,
      request,
    };
  const failures: string[] = [];
  const moving: string[] = [];
  const done: string[] = [];

  for (const e of effects.filter((x) => x.outcome === 'unknown' || x.outcome === 'running'))
    failures.push(
      `${e.capabilityId}: outcome unknown (it may or may not have happened; a person must check${e.idempotencyKey ? `, ledger key ${e.idempotencyKey}` : ''})`,
    );
  const cancelled = effects.some((e) => e.effect === 'cancel' && e.outcome === 'succeeded');
  for (const d of facts.downloads)
    if (d.status === 'failed' || d.status === 'stalled' || (d.status === 'removed' && !cancelled))
      failures.push(`download ${d.id} (${d.title}) ${d.status}`);
  for (const o of facts.organizes) if (o.status === 'failed') failures.push(`organize ${o.id} failed`);
  for (const e of unrecovered(effects))
    failures.push(
      `${e.capabilityId} ${e.outcome === 'failed' ? 'failed' : 'was not run'}${e.errorCode ? ` (${e.errorCode})` : ''}`,
    );

  for (const e of effects.filter((x) => x.outcome === 'succeeded')) {
    if (needsReadBack(e.effect)) {
      if (e.readBack?.confirmed) done.push(`${e.effect} confirmed by reading it back (${e.capabilityId})`);
      else
        failures.push(
          `${e.capabilityId} reported success but reading it back did not confirm it${e.readBack?.reason ? `: ${e.readBack.reason}` : ''}`,
        );
    } else if (e.effect === 'cancel' || e.effect === 'other') done.push(`${e.capabilityId} done`);
  }
  for (const e of effects.filter((x) => x.outcome === 'pending' && x.effect !== 'download' && x.effect !== 'organize'))
    moving.push(`${e.capabilityId} accepted, not done`);
  const movingDownloads = facts.downloads.filter((d) => MOVING_DOWNLOAD.has(d.status));
  if (movingDownloads.length > 0)
    moving.unshift(`submitted is not imported: ${movingDownloads.map((d) => `${d.title} ${d.status}`).join(', ')}`);
  else if (facts.organizes.some((o) => o.status === 'running'))
    moving.unshift('submitted is not imported: organize running');

  // Downloads and organizes are done when their titles are in the library.
  const acquiring = request.includes('download') || request.includes('organize');
  const present = facts.library.filter((l) => l.present);
  // A title whose download this run cancelled is not missing: removing it was the run's own effect.
  const removedByRun = new Set(
    cancelled ? facts.downloads.filter((d) => d.status === 'removed').map((d) => d.mediaEntityId) : [],
  );
  const named = request[0] === 'answer' && targets.length === 0 ? (input.named ?? []) : [];
  const missingTargets = [...targets, ...named].filter(
    (t) => !removedByRun.has(t.mediaEntityId) && !present.some((l) => l.mediaEntityId === t.mediaEntityId),
  );
  const goalTitles = [...targets, ...named];
  const libraryFailures: string[] = [];
  if (acquiring || (goalTitles.length > 0 && request[0] === 'answer')) {
    if (missingTargets.length > 0) {
      const did =
        request[0] === 'answer'
          ? 'the run made no effect'
          : facts.downloads.length > 0
            ? `this run downloaded ${facts.downloads.map((d) => `${d.title} (${d.status})`).join(', ')}`
            : present.length > 0
              ? `in the library: ${present.map((l) => l.title).join(', ')}`
              : 'nothing of it is in the library';
      libraryFailures.push(
        `the goal's ${missingTargets.map((t) => `${t.title} (${t.year ?? '?'}, ${t.mediaEntityId})`).join(', ')} is not in the library; ${did}`,
      );
    } else if (present.length > 0) {
      const imported = facts.downloads.filter((d) => d.status === 'imported');
      done.unshift(
        `in the library: ${present.map((l) => l.title).join(', ')}${imported.length ? ` (imported by this run: ${imported.map((d) => d.title).join(', ')})` : ' (already there; nothing submitted)'}`,
      );
    } else if (removedByRun.size === 0) libraryFailures.push('nothing the run touched is in the library');
  }

  if (failures.length > 0) return { status: 'failed', summary: failures.join('; '), request };
  if (moving.length > 0) return { status: 'waiting', summary: moving.join('; '), request };
  if (libraryFailures.length > 0) return { status: 'failed', summary: libraryFailures.join('; '), request };
  if (request[0] === 'answer' && goalTitles.length === 0) {
    // What the run looked at, as facts (a question about the library is answered by them, not by the model).
    const absent = facts.library.filter((l) => !l.present);
    const seen = [
      present.length > 0
        ? `; in the library: ${present.map((l) => l.title).join(', ')} (already there; nothing submitted)`
        : '',
      absent.length > 0 ? `; not in the library: ${absent.map((l) => l.title).join(', ')}` : '',
    ].join('');
    return {
      status: 'succeeded',
      summary: `no effect was made: the run answered (the reply is the model's own text, unverified)${seen}`,
      request,
    };
  }
  return { status: 'succeeded', summary: done.join('; ') || 'done', request };
}
