// The scale test's oracle (pure): from the schedules' definitions, the scenario's window, when each host process
// was alive and what the store recorded (tick rows and runs), it computes what should have happened and what did:
// expected ticks, fired, skipped, runs, double fires, missed fires, and whether the missed-tick policy held.
//
// Definitions (all times are scenario ms, the shared fast clock):
// - alive: a host process from the moment it began to start its host (its first poll may come before it reports
//   ready) to the moment the controller SIGKILLed it (or stopped it at the end): it cannot have acted outside.
// - polls: the scheduler polls a host process finished, each from the instant it began (it read every due schedule
//   as of then, and judged their ticks on time or late as of then: the runner's rule) to the instant the same
//   process began its next poll (its polls run one after another, so the poll was over by then).
// - decidable tick: a tick in [firstTickAt, window.to − graceMs] — every host had graceMs to handle it.
// - covered tick t: a poll began and finished within [t, t + graceMs], having begun before the schedule's next tick
//   (a poll that sees two due ticks fires only the newer one): it saw the tick due, on time and newest, and handled
//   it — fired it, or lost it to a process that got there first (and fired it, or handled only an older tick; the
//   runner then tries the schedule again before its poll ends). A machine so loaded that no poll of any process
//   fits within the grace may make the tick late — the runner then rightly records it missed — and the tick is not
//   covered.
// - uncovered tick t: no process was alive at any instant of [t, t + graceMs]: it can only be handled late.
// - all-down gap (a, r): no process alive from a to r; a is a kill (or the scenario's start), r a process starting.
//   Its missed ticks are the ticks t with a < t and t + graceMs < r (uncovered). After the gap, `skip` starts
//   nothing for them; `catch_up_one` starts exactly one run at the first poll that handles them: for the newest
//   tick due then (the newest missed one, or a newer one when the processes came back later; every older tick is
//   recorded skipped).
// - double fire: a tick key (schedule, tick) with more than one run or more than one tick row; a run of a schedule
//   that no fired tick row names counts as one too (a run started without a claim).
// - missed fire: a decidable covered tick with no run.
import type { ScheduleRecord, ScheduleTickRecord } from '../../../src/core/schedule-records';
import { nextTickAfter, ticksBetween } from '../../../src/runtime/schedules/schedule-timing';

/** A schedule as the oracle needs it: its timing, policy and first tick (its `nextTickAt` when it was created). */
export type OracleSchedule = Pick<ScheduleRecord, 'id' | 'cron' | 'everyMs' | 'anchorAt' | 'timezone' | 'missed'> & {
  /** The schedule's first tick (ms). */
  firstTickAt: number;
};

/** A span [from, to] of scenario time (ms). */
export interface Span {
  from: number;
  to: number;
}

/** A run a schedule started: its id, schedule, and its tick when the run itself records it (else null). */
export interface OracleRun {
  id: string;
  scheduleId: string;
  tickAt: number | null;
}

/** Input of {@link judgeSchedules}. */
export interface OracleInput {
  schedules: OracleSchedule[];
  /** The scenario: from its start (schedules created) to the moment the last process was stopped. */
  window: { from: number; to: number };
  /** The scheduler's grace: a tick handled within it of its time fires on time. */
  graceMs: number;
  /** Each host process incarnation's alive span (see the header). */
  alive: Span[];
  /** The finished polls of every process (see the header). */
  polls: Span[];
  /** Every tick row of the store. */
  ticks: ScheduleTickRecord[];
  /** Every run the schedules started. */
  runs: OracleRun[];
}

/** What the oracle found. Counts of ticks are over decidable ticks; `runs` and double fires over everything. */
export interface OracleResult {
  /** Decidable ticks (expected). */
  ticks: number;
  /** Of them, fired (a fired tick row). */
  fired: number;
  /** Of them, covered by a skipped tick row (any reason). */
  skipped: number;
  /** Of them, in no tick row (only possible when no process was alive to handle them). */
  unhandled: number;
  /**
   * Of the unhandled, those a finished poll began after (it read the schedule due with the tick unhandled, so it
   * should have recorded it): must be 0. The rest no poll reached — a machine too loaded to poll again before the
   * end.
   */
  unhandledSeen: number;
  /** Runs started by the schedules. */
  runs: number;
  /** Tick keys with more than one run or tick row, plus runs without a fired tick row. */
  doubleFires: number;
  /** Covered decidable ticks with no run. */
  missedFires: number;
  /** Covered decidable ticks (must fire). */
  covered: number;
  /** Uncovered decidable ticks (can only be missed). */
  uncovered: number;
  /** All-down gaps after the first process started (the start-up is not counted) and before the end. */
  gaps: number;
  /** Missed-policy violations and record inconsistencies, one line each (empty when everything held). */
  violations: string[];
  /** Examples: keys of double and missed fires (at most 10 each), `scheduleId@iso`. */
  examples: { doubleFires: string[]; missedFires: string[] };
}

const LIMIT = 10_000_000;
const iso = (t: number): string => new Date(t).toISOString();
const keyOf = (scheduleId: string, tickAt: number): string => `${scheduleId}@${iso(tickAt)}`;

/** The all-down spans of [from, to] given the alive spans: [a, r) with no process alive; r = to when none came back. */
export function allDownSpans(alive: Span[], from: number, to: number): Span[] {
  const spans = alive.filter((s) => s.to > from && s.from < to).sort((a, b) => a.from - b.from);
  const gaps: Span[] = [];
  let cursor = from;
  for (const s of spans) {
    if (s.from > cursor) gaps.push({ from: cursor, to: s.from });
    cursor = Math.max(cursor, s.to);
  }
  if (cursor < to) gaps.push({ from: cursor, to });
  return gaps;
}

/**
 * Whether a poll of `polls` (sorted by start) began and finished within [from, to], having begun by `beganBy`
 * (default `to`).
 */
function pollWithin(polls: readonly Span[], from: number, to: number, beganBy: number = to): boolean {
  let lo = 0;
  let hi = polls.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (polls[mid]!.from < from) lo = mid + 1;
    else hi = mid;
  }
  const last = Math.min(to, beganBy);
  for (let i = lo; i < polls.length && polls[i]!.from <= last; i++) if (polls[i]!.to <= to) return true;
  return false;
}

/** Judges one scenario: see the file header for the definitions. */
export function judgeSchedules(input: OracleInput): OracleResult {
  const { graceMs, alive, window } = input;
  const polls = [...input.polls].sort((a, b) => a.from - b.from);
  const decidableEnd = window.to - graceMs;
  const violations: string[] = [];
  const doubleKeys: string[] = [];
  const missedKeys: string[] = [];
  // A poll that began at or after the next tick saw two due ticks: only the newer one fires (the older is recorded
  // missed in its batch), so only a poll that began before the next tick is counted on to fire this one.
  const covered = (t: number, next: number | null) =>
    pollWithin(polls, t, t + graceMs, next === null ? Number.POSITIVE_INFINITY : next - 1);
  const uncovered = (t: number) => !alive.some((s) => s.to >= t && s.from <= t + graceMs);

  const rowsBy = new Map<string, ScheduleTickRecord[]>();
  for (const row of input.ticks) {
    const list = rowsBy.get(row.scheduleId) ?? [];
    list.push(row);
    rowsBy.set(row.scheduleId, list);
  }
  const runsBy = new Map<string, OracleRun[]>();
  for (const run of input.runs) {
    const list = runsBy.get(run.scheduleId) ?? [];
    list.push(run);
    runsBy.set(run.scheduleId, list);
  }
  const known = new Set(input.schedules.map((s) => s.id));
  for (const id of new Set([...rowsBy.keys(), ...runsBy.keys()]))
    if (!known.has(id)) violations.push(`records of an unknown schedule ${id}`);

  const gaps = allDownSpans(alive, window.from, window.to);
  const firstStart = Math.min(...alive.map((s) => s.from));
  const result: OracleResult = {
    ticks: 0,
    fired: 0,
    skipped: 0,
    unhandled: 0,
    unhandledSeen: 0,
    runs: input.runs.length,
    doubleFires: 0,
    missedFires: 0,
    covered: 0,
    uncovered: 0,
    gaps: gaps.filter((g) => g.from > firstStart && g.to < window.to).length,
    violations,
    examples: { doubleFires: doubleKeys, missedFires: missedKeys },
  };

  for (const schedule of input.schedules) {
    const next = (t: number) => nextTickAfter(schedule, t);
    const rows = rowsBy.get(schedule.id) ?? [];
    const runs = runsBy.get(schedule.id) ?? [];

    // Which record(s) handled each tick: a fired row its tick, a skipped row every tick it covers.
    const handled = new Map<number, ScheduleTickRecord[]>();
    const rowsAt = new Map<number, ScheduleTickRecord[]>();
    for (const row of rows) {
      rowsAt.set(row.tickAt, [...(rowsAt.get(row.tickAt) ?? []), row]);
      const covers =
        row.outcome === 'fired'
          ? [row.tickAt]
          : ticksBetween(schedule, row.firstTickAt, row.tickAt, LIMIT).ticks.filter((t) => t >= schedule.firstTickAt);
      if (row.outcome === 'skipped' && covers.length !== row.ticks)
        violations.push(
          `${keyOf(schedule.id, row.tickAt)}: skipped row says ${row.ticks} ticks from ${iso(row.firstTickAt)}, the timing has ${covers.length}`,
        );
      if (covers[covers.length - 1] !== row.tickAt)
        violations.push(`${keyOf(schedule.id, row.tickAt)}: a tick row at an instant that is no tick`);
      for (const t of covers) handled.set(t, [...(handled.get(t) ?? []), row]);
    }

    // Runs per tick: by the run's own tick, else by the fired row that names it; a run no row names is unclaimed.
    const runOfRow = new Map<string, ScheduleTickRecord>();
    for (const row of rows) if (row.outcome === 'fired' && row.runId !== null) runOfRow.set(row.runId, row);
    const runsAt = new Map<number, string[]>();
    for (const run of runs) {
      const tickAt = run.tickAt ?? runOfRow.get(run.id)?.tickAt ?? null;
      if (tickAt === null || (run.tickAt === null && !runOfRow.has(run.id))) {
        result.doubleFires++;
        if (doubleKeys.length < 10) doubleKeys.push(`${schedule.id}: run ${run.id} without a claimed tick`);
        continue;
      }
      runsAt.set(tickAt, [...(runsAt.get(tickAt) ?? []), run.id]);
    }
    const runIds = new Set(runs.map((r) => r.id));
    for (const row of rows)
      if (row.outcome === 'fired' && (row.runId === null || !runIds.has(row.runId)))
        violations.push(`${keyOf(schedule.id, row.tickAt)}: fired row without its run (${row.runId})`);

    // Double fires: per key, more than one run or more than one tick row (a row at the key, or a tick recorded by
    // two rows).
    const keys = new Set([...runsAt.keys(), ...rowsAt.keys(), ...handled.keys()]);
    for (const t of keys) {
      const n = runsAt.get(t)?.length ?? 0;
      const records = handled.get(t)?.length ?? 0;
      if (n > 1 || records > 1 || (rowsAt.get(t)?.length ?? 0) > 1) {
        result.doubleFires++;
        if (doubleKeys.length < 10) doubleKeys.push(`${keyOf(schedule.id, t)}: ${n} runs, ${records} tick rows`);
      }
      if (n > 0 && !handled.get(t)?.some((r) => r.outcome === 'fired'))
        violations.push(
          `${keyOf(schedule.id, t)}: a run for a tick recorded ${handled.has(t) ? 'skipped' : 'nowhere'}`,
        );
    }

    // Decidable ticks: counts and missed fires.
    const expected = ticksBetween(schedule, schedule.firstTickAt, decidableEnd, LIMIT).ticks;
    for (const t of expected) {
      result.ticks++;
      const records = handled.get(t) ?? [];
      if (records.some((r) => r.outcome === 'fired')) result.fired++;
      else if (records.length > 0) result.skipped++;
      else {
        result.unhandled++;
        if (pollWithin(polls, t, Number.POSITIVE_INFINITY)) {
          result.unhandledSeen++;
          violations.push(`${keyOf(schedule.id, t)}: in no tick record, although a poll that began after it finished`);
        }
      }
      if (covered(t, next(t))) {
        result.covered++;
        if (!runsAt.has(t)) {
          result.missedFires++;
          if (missedKeys.length < 10) missedKeys.push(keyOf(schedule.id, t));
        }
      } else if (uncovered(t)) result.uncovered++;
    }

    // The policy as the rows record it: a late fire only for catch_up_one and only of the newest due tick; a batch
    // skipped as missed only when its newest tick was late or a newer tick fired in the same poll.
    for (const row of rows) {
      const late = row.handledAt - row.tickAt > graceMs;
      const after = next(row.tickAt);
      if (row.outcome === 'fired' && late) {
        if (schedule.missed === 'skip')
          violations.push(`${keyOf(schedule.id, row.tickAt)}: skip policy, but fired late at ${iso(row.handledAt)}`);
        else if (after !== null && after <= row.handledAt)
          violations.push(
            `${keyOf(schedule.id, row.tickAt)}: catch_up_one fired it late although ${iso(after)} was due at ${iso(row.handledAt)}`,
          );
      }
      if (row.outcome === 'skipped' && row.reason === 'missed' && !late) {
        const newer =
          after === null
            ? undefined
            : (rowsAt.get(after) ?? []).find((r) => r.outcome !== 'skipped' || r.reason !== 'missed');
        if (!newer || newer.handledAt !== row.handledAt)
          violations.push(
            `${keyOf(schedule.id, row.tickAt)}: recorded missed although on time and no newer tick fired`,
          );
      }
    }

    // The policy across each all-down gap, from the alive spans alone.
    for (const gap of gaps) {
      if (gap.to >= window.to) continue; // no process came back: nothing to check
      const missed = ticksBetween(
        schedule,
        Math.max(gap.from + 1, schedule.firstTickAt),
        gap.to - graceMs - 1,
        LIMIT,
      ).ticks;
      if (missed.length === 0) continue;
      const newest = missed[missed.length - 1]!;
      const fired = missed.filter((t) => runsAt.has(t));
      if (schedule.missed === 'skip') {
        for (const t of fired)
          violations.push(
            `${keyOf(schedule.id, t)}: skip policy, but the tick missed in the gap from ${iso(gap.from)} fired`,
          );
        continue;
      }
      for (const t of fired)
        if (t !== newest)
          violations.push(
            `${keyOf(schedule.id, t)}: catch_up_one fired a missed tick older than the newest (${iso(newest)})`,
          );
      const record = handled.get(newest)?.[0];
      const after = next(newest);
      if (!record) {
        // Unhandled is wrong only when a finished poll began after the gap (it saw the tick due).
        if (pollWithin(polls, gap.to, Number.POSITIVE_INFINITY))
          violations.push(`${keyOf(schedule.id, newest)}: catch_up_one, the newest missed tick was never handled`);
        continue;
      }
      if (record.outcome === 'fired') {
        if (after !== null && after <= record.handledAt)
          violations.push(`${keyOf(schedule.id, newest)}: catch_up_one fired it although ${iso(after)} was due then`);
        continue;
      }
      // Skipped in a batch (processes came back later than the gap's end, or a newer tick was due): the same poll
      // fired the tick right after the batch, the newest due then.
      const fire = next(record.tickAt);
      const fireRow = fire === null ? undefined : rowsAt.get(fire)?.find((r) => r.outcome === 'fired');
      const newer = fire === null ? null : next(fire);
      if (
        fire === null ||
        !fireRow ||
        fireRow.handledAt !== record.handledAt ||
        !runsAt.has(fire) ||
        (newer !== null && newer <= fireRow.handledAt)
      )
        violations.push(
          `${keyOf(schedule.id, newest)}: catch_up_one, the poll at ${iso(record.handledAt)} after the gap from ${iso(gap.from)} fired not the newest due tick`,
        );
    }
  }
  return result;
}
