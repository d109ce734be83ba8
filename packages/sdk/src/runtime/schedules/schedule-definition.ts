// What a schedule does and when, checked and normalized from host.schedules.create / update input. Pure: the timing
// is read by croner (schedule-timing.ts), the time zone by Intl.
import { describeValue } from '../../core/describe-value';
import { parseActor } from '../../core/actor';
import { canonicalJson } from '../../core/canonical-json';
import type { JsonValue } from '../../core/records';
import type { RunMode } from '../../core/run-records';
import type { MissedTickPolicy, ScheduleRecord } from '../../core/schedule-records';
import { checkScheduleBudgets } from './schedule-budgets';
import { ScheduleInvalidError } from './schedule-errors';
import { nextTickAfter, type ScheduleTiming } from './schedule-timing';
import type { ScheduleBudgets } from './schedule-types';

/** A schedule's definition after checks: what {@link CreateScheduleInput} and an update decide. @internal */
export interface ScheduleDefinition {
  /** The cron expression, or null for an interval. */
  cron: string | null;
  /** The interval in ms, or null for a cron expression. */
  everyMs: number | null;
  /** The IANA time zone (default `UTC`). */
  timezone: string;
  /** The goal of each run. */
  goal: string;
  /** The mode of each run (default `execute`). */
  mode: RunMode;
  /** The allowlist of each run, or null (no allowlist). */
  capabilityAllowlist: string[] | null;
  /** The budgets as given (defaults apply when read: see `scheduleDailyCaps`, `scheduleRunBudgets`). */
  budgets: ScheduleBudgets;
  /** The missed-tick policy (default `skip`). */
  missed: MissedTickPolicy;
}

/** A checked create input. @internal */
export interface CheckedScheduleCreate {
  /** Who creates it. */
  actor: string;
  /** Whose it is (default the actor). */
  owner: string;
  /** The client key, or null. */
  clientKey: string | null;
  /** Whether it starts paused. */
  paused: boolean;
  /** The definition. */
  definition: ScheduleDefinition;
}

/** The host's rules a definition is checked against. @internal */
export interface ScheduleDefinitionRules {
  /** The shortest interval between two ticks, in ms (the host option `schedules.minIntervalMs`). */
  minIntervalMs: number;
}

/** Longest goal, in characters (the same as a run's). @internal */
export const MAX_SCHEDULE_GOAL_CHARS = 10_000;
/** Longest interval, in ms: 366 days (a later tick would be a date no host outlives, or no `Date` can hold). @internal */
export const MAX_SCHEDULE_EVERY_MS = 366 * 86_400_000;
/** Longest client key, in characters. @internal */
export const MAX_SCHEDULE_CLIENT_KEY_CHARS = 200;
/** Most capabilities in a schedule's allowlist. @internal */
export const MAX_SCHEDULE_ALLOWLIST = 1_000;

const DEFINITION_FIELDS = [
  'cron',
  'everyMs',
  'timezone',
  'goal',
  'mode',
  'capabilityAllowlist',
  'budgets',
  'missed',
] as const;
const CREATE_FIELDS = ['actor', 'owner', 'clientKey', 'paused', ...DEFINITION_FIELDS] as const;
/** How many gaps between a cron expression's next ticks are compared with the minimum interval. */
const GAPS_CHECKED = 8;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function refuseUnknown(input: Record<string, unknown>, known: readonly string[], what: string): void {
  for (const key of Object.keys(input))
    if (!known.includes(key))
      throw new ScheduleInvalidError(key, `is not a field of ${what}; known: ${known.join(', ')}`);
}

/**
 * Checks the input of `host.schedules.create` and applies the defaults (`timezone` `UTC`, `mode` `execute`, `missed`
 * `skip`, no allowlist, no budgets of its own, active).
 * @param input - the input as given
 * @param rules - the host's minimum interval
 * @param now - the current time (ms): a cron expression with no tick after it is refused
 * @throws {@link ScheduleInvalidError} `SCHEDULE_INVALID` naming the field; `ACTOR_INVALID` for a malformed `actor`
 *   or `owner`
 * @internal
 */
export function checkScheduleCreate(
  input: unknown,
  rules: ScheduleDefinitionRules,
  now: number,
): CheckedScheduleCreate {
  if (!isObject(input))
    throw new ScheduleInvalidError('input', "must be an object such as { actor, cron: '0 3 * * *', goal }");
  refuseUnknown(input, CREATE_FIELDS, 'a schedule');
  const actor = input.actor;
  parseActor(actor);
  const owner = input.owner ?? actor;
  if (parseActor(owner).kind === 'agent')
    throw new ScheduleInvalidError('owner', 'must be a person, an API key or a system actor, not a run (agent:…)');
  const clientKey = input.clientKey ?? null;
  if (
    clientKey !== null &&
    !(typeof clientKey === 'string' && clientKey.length >= 1 && clientKey.length <= MAX_SCHEDULE_CLIENT_KEY_CHARS)
  )
    throw new ScheduleInvalidError('clientKey', `must be a string of 1 to ${MAX_SCHEDULE_CLIENT_KEY_CHARS} characters`);
  const paused = input.paused ?? false;
  if (typeof paused !== 'boolean') throw new ScheduleInvalidError('paused', 'must be true or false');
  const cron = input.cron;
  const everyMs = input.everyMs;
  if ((cron === undefined) === (everyMs === undefined))
    throw new ScheduleInvalidError('cron', 'or everyMs: exactly one of them must be given');
  const definition: ScheduleDefinition = {
    cron: cron === undefined ? null : checkCronText(cron),
    everyMs: everyMs === undefined ? null : checkEveryMs(everyMs, rules),
    timezone: checkTimezone(input.timezone ?? 'UTC'),
    goal: checkGoal(input.goal),
    mode: checkMode(input.mode ?? 'execute'),
    capabilityAllowlist: checkAllowlist(input.capabilityAllowlist),
    budgets: input.budgets === undefined ? {} : checkScheduleBudgets(input.budgets),
    missed: checkMissed(input.missed ?? 'skip'),
  };
  checkTiming(definition, rules, now);
  return { actor: actor as string, owner: owner as string, clientKey: clientKey as string | null, paused, definition };
}

/**
 * Checks a change of `host.schedules.update` and merges it over the current definition. Giving `cron` makes it a
 * cron schedule, giving `everyMs` an interval one (not both).
 * @param change - the change as given
 * @param current - the definition now
 * @param rules - the host's minimum interval
 * @param now - the current time (ms)
 * @returns the new definition, and whether its timing (cron, interval or time zone) changed
 * @throws {@link ScheduleInvalidError} `SCHEDULE_INVALID` naming the field (also for `owner`, `clientKey`, which
 *   never change)
 * @internal
 */
export function checkScheduleChange(
  change: unknown,
  current: ScheduleDefinition,
  rules: ScheduleDefinitionRules,
  now: number,
): { definition: ScheduleDefinition; timingChanged: boolean } {
  if (!isObject(change))
    throw new ScheduleInvalidError('change', "must be an object such as { goal: '…' } or { cron: '0 4 * * *' }");
  refuseUnknown(change, DEFINITION_FIELDS, 'a schedule change (owner and clientKey never change)');
  const given = (name: (typeof DEFINITION_FIELDS)[number]) => change[name] !== undefined;
  if (given('cron') && given('everyMs'))
    throw new ScheduleInvalidError('cron', 'or everyMs: give at most one of them in a change');
  const definition: ScheduleDefinition = { ...current };
  if (given('cron')) {
    definition.cron = checkCronText(change.cron);
    definition.everyMs = null;
  }
  if (given('everyMs')) {
    definition.everyMs = checkEveryMs(change.everyMs, rules);
    definition.cron = null;
  }
  if (given('timezone')) definition.timezone = checkTimezone(change.timezone);
  if (given('goal')) definition.goal = checkGoal(change.goal);
  if (given('mode')) definition.mode = checkMode(change.mode);
  if (given('capabilityAllowlist')) definition.capabilityAllowlist = checkAllowlist(change.capabilityAllowlist);
  if (given('budgets')) definition.budgets = checkScheduleBudgets(change.budgets);
  if (given('missed')) definition.missed = checkMissed(change.missed);
  const timingChanged =
    definition.cron !== current.cron ||
    definition.everyMs !== current.everyMs ||
    definition.timezone !== current.timezone;
  if (timingChanged) checkTiming(definition, rules, now);
  return { definition, timingChanged };
}

/**
 * The definition of a stored schedule.
 * @internal
 */
export function scheduleDefinitionOf(record: ScheduleRecord): ScheduleDefinition {
  return {
    cron: record.cron,
    everyMs: record.everyMs,
    timezone: record.timezone,
    goal: record.goal,
    mode: record.mode,
    capabilityAllowlist: record.capabilityAllowlist ? [...record.capabilityAllowlist] : null,
    budgets: (isObject(record.budgets) ? { ...record.budgets } : {}) as ScheduleBudgets,
    missed: record.missed,
  };
}

/**
 * Whether two definitions are the same (what a repeated create with the same client key must give to be answered
 * with the first schedule); the allowlist's order and the budgets' key order do not matter.
 * @internal
 */
export function sameScheduleDefinition(a: ScheduleDefinition, b: ScheduleDefinition): boolean {
  const key = (d: ScheduleDefinition) =>
    canonicalJson({
      ...d,
      capabilityAllowlist: d.capabilityAllowlist ? [...d.capabilityAllowlist].sort() : null,
      budgets: d.budgets as unknown as JsonValue,
    } as unknown as JsonValue);
  return key(a) === key(b);
}

/**
 * The first tick of a definition strictly after `after` (ms).
 * @param anchorAt - the interval's anchor (ticks at `anchorAt + k · everyMs`)
 * @throws {@link ScheduleInvalidError} `SCHEDULE_INVALID` (`cron`) when a cron expression has no tick after it
 * @internal
 */
export function firstTickAfter(definition: ScheduleDefinition, anchorAt: number, after: number): number {
  const next = nextTickAfter(timingOf(definition, anchorAt), after);
  if (next === null)
    throw new ScheduleInvalidError('cron', `never ticks after ${new Date(after).toISOString()} (no date matches it)`);
  return next;
}

function timingOf(definition: ScheduleDefinition, anchorAt: number): ScheduleTiming {
  return { cron: definition.cron, everyMs: definition.everyMs, timezone: definition.timezone, anchorAt };
}

function checkCronText(cron: unknown): string {
  if (typeof cron !== 'string' || cron.trim() === '' || cron.length > 200)
    throw new ScheduleInvalidError('cron', "must be a cron expression such as '0 3 * * *' (at most 200 characters)");
  return cron.trim();
}

function checkEveryMs(everyMs: unknown, rules: ScheduleDefinitionRules): number {
  if (
    !(
      typeof everyMs === 'number' &&
      Number.isSafeInteger(everyMs) &&
      everyMs >= rules.minIntervalMs &&
      everyMs <= MAX_SCHEDULE_EVERY_MS
    )
  )
    throw new ScheduleInvalidError(
      'everyMs',
      `must be an integer of ms from ${rules.minIntervalMs} (the host's schedules.minIntervalMs) to ${MAX_SCHEDULE_EVERY_MS} (366 days); got ${describeValue(everyMs)}`,
    );
  return everyMs;
}

function checkTimezone(timezone: unknown): string {
  if (typeof timezone !== 'string' || timezone === '' || timezone.length > 100)
    throw new ScheduleInvalidError('timezone', "must be an IANA time zone such as 'Europe/Berlin'");
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw new ScheduleInvalidError('timezone', `is not a time zone this runtime knows: ${JSON.stringify(timezone)}`);
  }
  return timezone;
}

/** How many code points `text` has (its UTF-16 length when that is already within every limit). */
function codePoints(text: string): number {
  return text.length <= MAX_SCHEDULE_GOAL_CHARS ? text.length : [...text].length;
}

function checkGoal(goal: unknown): string {
  // Characters are code points (an emoji is one), as a person counts them.
  if (typeof goal !== 'string' || goal.trim() === '' || codePoints(goal) > MAX_SCHEDULE_GOAL_CHARS)
    throw new ScheduleInvalidError(
      'goal',
      `must be a non-empty string of at most ${MAX_SCHEDULE_GOAL_CHARS} characters`,
    );
  if (UNPAIRED_SURROGATE.test(goal))
    throw new ScheduleInvalidError('goal', 'contains an unpaired surrogate (not valid Unicode text)');
  return goal;
}

function checkMode(mode: unknown): RunMode {
  if (mode !== 'execute' && mode !== 'plan_only')
    throw new ScheduleInvalidError('mode', `must be execute or plan_only; got ${JSON.stringify(mode)}`);
  return mode;
}

function checkMissed(missed: unknown): MissedTickPolicy {
  if (missed !== 'skip' && missed !== 'catch_up_one')
    throw new ScheduleInvalidError('missed', `must be skip or catch_up_one; got ${JSON.stringify(missed)}`);
  return missed;
}

function checkAllowlist(allowlist: unknown): string[] | null {
  if (allowlist === undefined || allowlist === null) return null;
  if (!Array.isArray(allowlist) || allowlist.length > MAX_SCHEDULE_ALLOWLIST)
    throw new ScheduleInvalidError(
      'capabilityAllowlist',
      `must be an array of at most ${MAX_SCHEDULE_ALLOWLIST} capability ids`,
    );
  const seen = new Set<string>();
  for (const [i, id] of allowlist.entries()) {
    if (typeof id !== 'string' || id === '')
      throw new ScheduleInvalidError(`capabilityAllowlist[${i}]`, 'must be a capability id (a non-empty string)');
    if (seen.has(id)) throw new ScheduleInvalidError(`capabilityAllowlist[${i}]`, `repeats ${JSON.stringify(id)}`);
    seen.add(id);
  }
  return [...allowlist] as string[];
}

/**
 * Checks the timing: the time zone as croner reads it, the cron expression (croner's reason when it refuses), a next
 * tick after `now`, and no two of the next ticks closer than the minimum interval.
 */
function checkTiming(definition: ScheduleDefinition, rules: ScheduleDefinitionRules, now: number): void {
  if (definition.cron === null) return;
  const timing = timingOf(definition, now);
  let ticks: number[];
  try {
    ticks = [];
    for (let t = nextTickAfter(timing, now); t !== null && ticks.length <= GAPS_CHECKED; t = nextTickAfter(timing, t))
      ticks.push(t);
  } catch (error) {
    throw new ScheduleInvalidError('cron', `is not a valid cron expression: ${(error as Error).message}`);
  }
  if (ticks.length === 0)
    throw new ScheduleInvalidError('cron', `never ticks after ${new Date(now).toISOString()} (no date matches it)`);
  for (let i = 1; i < ticks.length; i++) {
    const gap = ticks[i]! - ticks[i - 1]!;
    if (gap < rules.minIntervalMs)
      throw new ScheduleInvalidError(
        'cron',
        `ticks ${gap} ms apart, less than the host's schedules.minIntervalMs (${rules.minIntervalMs} ms)`,
      );
  }
}
