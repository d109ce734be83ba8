// What a handled poll stores besides the run: the schedule advanced past its due ticks, the tick records, the
// per-run budgets of a schedule, and the decisions a skipped tick raises. Pure.
import { utcDayStart } from '../../core/utc-day';
import type { JsonValue } from '../../core/records';
import type { DecisionRecord } from '../../core/run-records';
import type { ScheduleRecord, ScheduleTickRecord } from '../../core/schedule-records';
import type { PlannedTick, TickPlan } from './schedule-tick-plan';
import { nextTickAfter } from './schedule-timing';

/** Decision kind raised (once per schedule and UTC day) when a tick is skipped for the schedule's daily caps. @public */
export const SCHEDULE_BUDGET_KIND = 'schedule_budget';
/** Decision kind raised (once per schedule and UTC day) when a tick's run could not be started. @public */
export const SCHEDULE_REFUSED_KIND = 'schedule_refused';
/** Who raises the scheduler's decisions. @public */
export const SCHEDULER_ACTOR = 'system:scheduler';

/**
 * The schedule as its tick records say it is: when its row names a `nextTickAt` at or before the newest tick already
 * handled (`newestHandled`, the newest tick record's `tickAt`) — a row restored from a backup, or resumed by a process
 * whose clock is behind the one that fired — the next tick moves to the first one after that record, so the handled
 * ticks are not planned again (their claims would fail for ever). Otherwise the same object.
 * @param newestHandled - the newest tick record's `tickAt`, or undefined when the schedule has none
 * @public
 */
export function pastHandledTicks(schedule: ScheduleRecord, newestHandled: number | undefined): ScheduleRecord {
  if (newestHandled === undefined || schedule.nextTickAt === null || schedule.nextTickAt > newestHandled)
    return schedule;
  return {
    ...schedule,
    nextTickAt: nextTickAfter(schedule, newestHandled),
    lastTickAt: Math.max(schedule.lastTickAt ?? newestHandled, newestHandled),
  };
}

/**
 * The schedule after a poll handled its due ticks: `nextTickAt` and `lastTickAt` from the plan, `lastRunId` the run
 * started (else unchanged), revision + 1.
 * @public
 */
export function advancedSchedule(
  schedule: ScheduleRecord,
  plan: Pick<TickPlan, 'nextTickAt' | 'lastTickAt'>,
  runId: string | null,
  now: number,
): ScheduleRecord {
  return {
    ...schedule,
    nextTickAt: plan.nextTickAt,
    lastTickAt: plan.lastTickAt,
    lastRunId: runId ?? schedule.lastRunId,
    revision: schedule.revision + 1,
    updatedAt: now,
  };
}

/** The stored record of a planned tick. @public */
export function tickRecord(
  scheduleId: string,
  planned: PlannedTick,
  runId: string | null,
  handled: { at: number; by: string },
): ScheduleTickRecord {
  return {
    scheduleId,
    tickAt: planned.tickAt,
    outcome: planned.outcome,
    runId: planned.outcome === 'fired' ? runId : null,
    reason: planned.reason,
    firstTickAt: planned.firstTickAt,
    ticks: planned.ticks,
    handledAt: handled.at,
    handledBy: handled.by,
  };
}

/**
 * The decision a skipped tick raises for the schedule's owner, or null: `schedule_budget` (a daily cap) or
 * `schedule_refused` (its run could not be started), about the schedule (subject `schedule`, so it goes on the
 * schedule's stream), deduplicated per schedule and UTC day of the tick: one a day, however many ticks are skipped.
 * @param detail - for `daily_budget` the cap (`runs` or `costUsd`), for `refused` why
 * @public
 */
export function skippedTickDecision(
  schedule: Pick<ScheduleRecord, 'id' | 'owner' | 'goal' | 'budgets'>,
  tick: ScheduleTickRecord,
  detail: string,
  context: { id: string; now: number },
): DecisionRecord | null {
  if (tick.reason !== 'daily_budget' && tick.reason !== 'refused') return null;
  const kind = tick.reason === 'daily_budget' ? SCHEDULE_BUDGET_KIND : SCHEDULE_REFUSED_KIND;
  const day = new Date(utcDayStart(tick.tickAt)).toISOString().slice(0, 10);
  const reason =
    tick.reason === 'daily_budget'
      ? `schedule ${schedule.id} reached its daily ${detail === 'runs' ? 'runs' : 'cost'} cap for ${day} (UTC): its ticks start no run until the next UTC day or a raised cap`
      : `schedule ${schedule.id} could not start its run: ${detail}`;
  return {
    id: context.id,
    kind,
    dedupeKey: `${kind}:${schedule.id}:${day}`,
    subjectType: 'schedule',
    subjectId: schedule.id,
    rootCause: `${kind}:${schedule.id}`,
    status: 'open',
    reason: reason.slice(0, 2000),
    evidence: {
      scheduleId: schedule.id,
      owner: schedule.owner,
      goal: schedule.goal,
      tickAt: tick.tickAt,
      day,
      ...(tick.reason === 'daily_budget' ? { cap: detail, budgets: schedule.budgets } : { refused: detail }),
    },
    options: [],
    raisedBy: SCHEDULER_ACTOR,
    resolvedBy: null,
    resolution: null,
    revision: 1,
    createdAt: context.now,
    updatedAt: context.now,
    resolvedAt: null,
  };
}
