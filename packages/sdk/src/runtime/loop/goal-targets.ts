// A run's goal targets: which titles its side effects may touch (catalog lookups and the people's
// words), and the question put to a person when the goal is ambiguous.
import { isSideEffecting, type CapabilityDescriptor } from '../../core/capability-descriptor';
import type { ModelMessage } from '../../models/types';
import type { IdGenerator } from '../../ports/id-generator';
import type { Clock } from '../../ports/clock';
import type { JsonValue } from '../../core/records';
import type { StorageAdapter } from '../../ports/storage-adapter';
import {
  ambiguityQuestion,
  candidatesFromLookup,
  namedInText,
  resolveGoalTarget,
  type GoalCandidate,
} from '../goal-target';
import type { RunSession } from './run-session';

/** The standard capability whose results say which titles a goal could mean. */
export const CATALOG_LOOKUP = 'catalog.lookup';

/** Key of the goal-target state in a run's runtime state. */
export const GOAL_STATE_KEY = 'goal';

/** A run's goal-target state. */
export interface GoalTargetState {
  /** Candidates of every successful catalog lookup, one array per call. */
  lookups: GoalCandidate[][];
  /** Titles side effects were allowed on: the goal's targets, verified by the report. */
  targets: GoalCandidate[];
}

/** A question for a person: which of these titles does the goal mean? */
export interface GoalTargetQuestion {
  /** The question. */
  question: string;
  /** The titles it could mean. */
  candidates: GoalCandidate[];
}

/** What the people said: the goal and every user message, joined. */
function peopleSaid(session: RunSession): string {
  return [
    session.run.goal,
    ...session.messages.flatMap((m: ModelMessage) =>
      m.role === 'user' && typeof m.content === 'string' ? [m.content] : [],
    ),
  ].join('\n');
}

/** The titles the goal and the people's messages name among the run's catalog lookups (see `namedInText`). */
export function namedTargets(session: RunSession): GoalCandidate[] {
  const state = goalState(session);
  return state.lookups.length === 0 ? [] : namedInText(state.lookups, peopleSaid(session));
}

/** The goal-target state of a run: every lookup result (one array per call) and the targets resolved so far. */
export function goalState(session: RunSession): GoalTargetState {
  return (session.getState(GOAL_STATE_KEY) as unknown as GoalTargetState | undefined) ?? { lookups: [], targets: [] };
}

/** Records the candidates of a successful catalog lookup. */
export function recordLookup(session: RunSession, output: unknown): void {
  const found = candidatesFromLookup(output);
  if (found.length === 0) return;
  const state = goalState(session);
  session.setState(GOAL_STATE_KEY, { ...state, lookups: [...state.lookups, found] } as unknown as JsonValue);
}

/**
 * Before a side effect on a media entity: is it the goal's title? Resolved: remembered as a target
 * the report verifies. Ambiguous: the question to put to a person instead of running the call.
 */
export async function checkGoalTarget(
  storage: StorageAdapter,
  session: RunSession,
  descriptor: CapabilityDescriptor,
  input: unknown,
): Promise<GoalTargetQuestion | undefined> {
  if (!isSideEffecting(descriptor.kind)) return undefined;
  const state = goalState(session);
  if (state.lookups.length === 0) return undefined;
  let entity: string | undefined;
  try {
    const target = descriptor.target?.(input);
    entity =
      target?.mediaEntityId ??
      (target?.planId ? ((await storage.plans.get(target.planId))?.mediaEntityId ?? undefined) : undefined);
  } catch {
    return undefined; // the invocation path reports a failing target()
  }
  if (!entity) return undefined;
  const said = peopleSaid(session);
  const resolution = resolveGoalTarget(entity, state.lookups, said);
  if (resolution.kind === 'ambiguous')
    return { question: ambiguityQuestion(resolution.candidates), candidates: resolution.candidates };
  if (resolution.kind === 'resolved' && !state.targets.some((t) => t.mediaEntityId === entity)) {
    session.setState(GOAL_STATE_KEY, {
      ...state,
      targets: [...state.targets, resolution.target],
    } as unknown as JsonValue);
  }
  return undefined;
}

/** Puts the question to a person: an `input_requested` event, and a decision when the run is not attended (both written with the step). */
export async function askPerson(
  deps: { storage: StorageAdapter; ids: IdGenerator; clock: Clock },
  session: RunSession,
  ask: GoalTargetQuestion,
): Promise<void> {
  const run = session.run;
  let decisionId: string | undefined;
  if (run.origin !== 'interactive') {
    const dedupeKey = `identity_ambiguous:${run.id}:${ask.candidates
      .map((c) => c.mediaEntityId)
      .sort()
      .join(',')}`;
    decisionId = deps.ids.next('dec');
    // One driver per run: a decision with this key exists only if this run raised it before.
    const exists = (await deps.storage.decisions.list({ subjectId: run.id })).some((d) => d.dedupeKey === dedupeKey);
    if (exists) decisionId = undefined;
    else {
      session.writes.decisions.push({
        id: decisionId,
        kind: 'identity_ambiguous',
        dedupeKey,
        subjectId: run.id,
        status: 'open',
        reason: `run ${run.id}: ${ask.question}`,
        evidence: { goal: run.goal, candidates: ask.candidates } as unknown as JsonValue,
        subjectType: 'run',
        rootCause: null,
        options: [],
        raisedBy: `agent:${run.id}`,
        resolvedBy: null,
        resolution: null,
        revision: 1,
        createdAt: deps.clock.now(),
        updatedAt: deps.clock.now(),
        resolvedAt: null,
      });
    }
  }
  session.emit('input_requested', {
    reason: 'GOAL_TARGET_AMBIGUOUS',
    question: ask.question,
    options: ask.candidates as unknown as JsonValue,
    ...(decisionId ? { decisionId } : {}),
  });
}
