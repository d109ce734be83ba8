// What a run's origin changes in how it runs when nobody watches it (docs/schedules.md#scheduled-runs-are-background-runs):
// one table of pure rules, read by the loop guard, the learning review, the memory tool and the run's end.
import type { DecisionRecord, RunOrigin, RunRecord } from '../core/run-records';
import type { JsonValue } from '../core/records';

/** How runs of one origin behave. @public */
export interface OriginRules {
  /** A person waits on the run: a guard or middleware stop pauses it for them instead of ending it. */
  attended: boolean;
  /** The learning review may run after the run's last reply (skills and memory learned from it). */
  learningReview: boolean;
  /** The memory tool's writes are background writes (staged for the person, as any write nobody watched). */
  backgroundMemory: boolean;
  /** A top-level run that ends `failed` or `budget_exceeded` raises a `schedule_run_failed` decision. */
  failureDecision: boolean;
}

const RULES: Readonly<Record<RunOrigin, Readonly<OriginRules>>> = Object.freeze({
  interactive: { attended: true, learningReview: true, backgroundMemory: false, failureDecision: false },
  background: { attended: false, learningReview: false, backgroundMemory: true, failureDecision: false },
  channel: { attended: false, learningReview: true, backgroundMemory: false, failureDecision: false },
  schedule: { attended: false, learningReview: false, backgroundMemory: true, failureDecision: true },
});

/**
 * The rules of `origin` (an unknown origin, from a newer version, is treated as `background`).
 * @public
 */
export function originRules(origin: RunOrigin): Readonly<OriginRules> {
  return RULES[origin] ?? RULES.background;
}

/** Decision kind raised when a schedule's run ends `failed` or `budget_exceeded`. @public */
export const SCHEDULE_RUN_FAILED_KIND = 'schedule_run_failed';

/** The key of a scheduled run's runtime state that names its schedule and tick. @public */
export const SCHEDULE_STATE_KEY = 'schedule';

/** The schedule and tick of a scheduled run, from its runtime state (undefined for other runs). @public */
export function scheduleOfRun(
  runtimeState: JsonValue | undefined | null,
): { scheduleId: string; tickAt: number } | undefined {
  if (runtimeState === null || typeof runtimeState !== 'object' || Array.isArray(runtimeState)) return undefined;
  const s = (runtimeState as Record<string, JsonValue>)[SCHEDULE_STATE_KEY];
  if (s === null || typeof s !== 'object' || Array.isArray(s)) return undefined;
  const { scheduleId, tickAt } = s as Record<string, JsonValue>;
  return typeof scheduleId === 'string' && typeof tickAt === 'number' ? { scheduleId, tickAt } : undefined;
}

/**
 * The decision a run that ended with `status` raises because nobody watched it, or null: a top-level run whose
 * origin has {@link OriginRules.failureDecision} (`schedule`) that ends `failed` or `budget_exceeded` gets one
 * `schedule_run_failed` decision about the run (subject `run`, so its owner sees it on the run's stream), whose
 * evidence names the schedule, the tick and the error. One per run (dedupe key `schedule_run_failed:<runId>`).
 * @param run - the run as it ends (its `runtimeState` names the schedule)
 * @param status - the status it ends with
 * @param error - its error, when it failed with one
 * @param context - the decision's id and the time (ms)
 * @public
 */
export function unattendedFailureDecision(
  run: Pick<RunRecord, 'id' | 'origin' | 'depth' | 'goal' | 'startedBy'> & { runtimeState?: JsonValue | null },
  status: string,
  error: { code: string; message: string } | null,
  context: { id: string; now: number; reason: string },
): DecisionRecord | null {
  if (!originRules(run.origin).failureDecision || run.depth !== 0) return null;
  if (status !== 'failed' && status !== 'budget_exceeded') return null;
  const schedule = scheduleOfRun(run.runtimeState);
  const evidence: Record<string, JsonValue> = {
    status,
    goal: run.goal,
    owner: run.startedBy,
    reason: context.reason,
    ...(schedule ? { scheduleId: schedule.scheduleId, tickAt: schedule.tickAt } : {}),
    ...(error ? { error: { code: error.code, message: error.message } } : {}),
  };
  return {
    id: context.id,
    kind: SCHEDULE_RUN_FAILED_KIND,
    dedupeKey: `${SCHEDULE_RUN_FAILED_KIND}:${run.id}`,
    subjectType: 'run',
    subjectId: run.id,
    rootCause: `${SCHEDULE_RUN_FAILED_KIND}:${schedule?.scheduleId ?? run.id}`,
    status: 'open',
    reason:
      `the scheduled run ${run.id}${schedule ? ` of schedule ${schedule.scheduleId}` : ''} ended ${status}: ${context.reason}`.slice(
        0,
        2000,
      ),
    evidence,
    options: [],
    raisedBy: `agent:${run.id}`,
    resolvedBy: null,
    resolution: null,
    revision: 1,
    createdAt: context.now,
    updatedAt: context.now,
    resolvedAt: null,
  };
}
