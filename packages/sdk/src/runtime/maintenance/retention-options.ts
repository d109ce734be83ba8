// Retention settings of `createAgentHost({ retention })`: how long each record kind is kept, checked and turned into
// the criteria the storage's maintenance repository prunes by. Pure functions; no storage, no clock.
import { describeValue } from '../../core/describe-value';
import { MediaAgentError } from '../../core/errors';
import { type PruneCriteria, RETENTION_KINDS, type RetentionKind } from '../../ports/maintenance-repository';

/**
 * How long one record kind is kept: items older than `maxAgeDays`, or beyond the newest `maxCount`, are removed by
 * `host.maintenance.prune()` (never a live one). 0 (or absent) turns that limit off; both off keeps the kind forever.
 * @public
 */
export interface RetentionRule {
  /**
   * Age in days (fractions allowed, at most {@link MAX_RETENTION_AGE_DAYS}, 100 years) after which an item is
   * removed; 0 keeps it whatever its age.
   */
  maxAgeDays?: number;
  /**
   * At most this many items kept, the newest (an integer up to {@link MAX_RETENTION_COUNT}): older ones beyond it are
   * removed whatever their age; 0 sets no count limit. Not accepted for `grantUsage`: its counters are per day and
   * per budget period and go only when their period is long over (`maxAgeDays`), never by count. For
   * `scheduleTicks` it counts per schedule: each schedule keeps its newest `maxCount` tick records.
   */
  maxCount?: number;
}

/**
 * The retention of `AgentOptions.retention`, per record kind; a bare number is `maxAgeDays`. Defaults
 * ({@link DEFAULT_RETENTION}) keep a NAS small and the compact run reports forever.
 * @public
 */
export type RetentionOptions = { readonly [K in RetentionKind]?: RetentionRule | number };

/** A rule with both limits resolved (0 = off). @public */
export interface ResolvedRetentionRule {
  /** Age limit in days; 0 = none. */
  maxAgeDays: number;
  /** Count limit; 0 = none. */
  maxCount: number;
}

/** Retention of every kind after defaults. @public */
export type ResolvedRetention = Readonly<Record<RetentionKind, ResolvedRetentionRule>>;

/** One day in ms. */
const DAY_MS = 86_400_000;

/** Largest `maxAgeDays` accepted: 36 500 days (100 years). @public */
export const MAX_RETENTION_AGE_DAYS = 36_500;
/** Largest `maxCount` accepted: 2 147 483 647 (2^31 − 1, what both SQL stores bind as a row count). @public */
export const MAX_RETENTION_COUNT = 2 ** 31 - 1;

/**
 * The default retention, in days (no count limits): `runs` (a finished run's events, messages and inbox; its row
 * and report stay) 90; `runReports` 0 (kept); `audit` 730 (two years); `approvals`, `plans`, `decisions`,
 * `grantUsage` 180; `ledger` 0 (kept, or `ledgerRetentionMs` when that is set); `scheduleTicks` (the record of
 * each handled schedule tick, by its `handledAt`; a schedule's newest record always stays) 90.
 * @public
 */
export const DEFAULT_RETENTION: ResolvedRetention = Object.freeze({
  runs: { maxAgeDays: 90, maxCount: 0 },
  runReports: { maxAgeDays: 0, maxCount: 0 },
  audit: { maxAgeDays: 730, maxCount: 0 },
  approvals: { maxAgeDays: 180, maxCount: 0 },
  plans: { maxAgeDays: 180, maxCount: 0 },
  decisions: { maxAgeDays: 180, maxCount: 0 },
  grantUsage: { maxAgeDays: 180, maxCount: 0 },
  ledger: { maxAgeDays: 0, maxCount: 0 },
  scheduleTicks: { maxAgeDays: 90, maxCount: 0 },
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function invalid(option: string, message: string): MediaAgentError {
  return new MediaAgentError('OPTIONS_INVALID', `option ${option} ${message}`, { option });
}

/** A limit checked: absent → the default; else a number from 0 to `max` (an integer for counts). */
function limit(value: unknown, option: string, integer: boolean, fallback: number): number {
  if (value === undefined) return fallback;
  const max = integer ? MAX_RETENTION_COUNT : MAX_RETENTION_AGE_DAYS;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < 0 ||
    value > max ||
    (integer && !Number.isInteger(value))
  )
    throw invalid(
      option,
      `must be ${integer ? 'an integer' : 'a number'} from 0 to ${max}${integer ? '' : ' (days, 100 years)'} (0 turns the limit off); got ${describeValue(value)}`,
    );
  return value;
}

/**
 * Checks `retention` and applies the defaults.
 * @param options - `retention` as given (undefined: every default)
 * @param ledgerRetentionMs - the older `ledgerRetentionMs` option, which sets the ledger's age limit when
 *   `retention.ledger` is absent (ms, 0 = keep)
 * @returns every kind's rule
 * @throws `MediaAgentError` `OPTIONS_INVALID` naming the path (`retention.audit.maxAgeDays`) for a value that
 *   is negative, NaN, infinite or not a number, a `maxAgeDays` above {@link MAX_RETENTION_AGE_DAYS}, a `maxCount`
 *   that is not an integer or above {@link MAX_RETENTION_COUNT}, a `maxCount` for `grantUsage` (its counters go by
 *   period only), an unknown kind or field
 *   (`retention.history`: history retention is the history store's own `retentionDays`), or `retention.ledger` set
 *   together with a non-zero `ledgerRetentionMs`
 * @public
 */
export function resolveRetention(options?: unknown, ledgerRetentionMs = 0): ResolvedRetention {
  if (options !== undefined && !isObject(options))
    throw invalid('retention', 'must be an object such as { runs: { maxAgeDays: 90 }, audit: 730 }');
  const given = (options ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if ((RETENTION_KINDS as readonly string[]).includes(key)) continue;
    if (key === 'history')
      throw invalid(
        'retention.history',
        "is not a host option: history retention is the history store's own retentionDays (e.g. new SqliteHistoryStore({ retentionDays: 90 })), applied by its maintain()",
      );
    throw invalid(`retention.${key}`, `is not a record kind; known: ${RETENTION_KINDS.join(', ')}`);
  }
  if (given.ledger !== undefined && ledgerRetentionMs > 0)
    throw invalid('retention.ledger', 'and ledgerRetentionMs are both set: keep retention.ledger only');
  const out = {} as Record<RetentionKind, ResolvedRetentionRule>;
  for (const kind of RETENTION_KINDS) {
    const fallback =
      kind === 'ledger' && ledgerRetentionMs > 0
        ? { maxAgeDays: ledgerRetentionMs / DAY_MS, maxCount: 0 }
        : DEFAULT_RETENTION[kind];
    const value = given[kind];
    const path = `retention.${kind}`;
    if (value === undefined) out[kind] = { ...fallback };
    else if (typeof value === 'number')
      out[kind] = { maxAgeDays: limit(value, path, false, fallback.maxAgeDays), maxCount: 0 };
    else if (isObject(value)) {
      for (const field of Object.keys(value))
        if (field !== 'maxAgeDays' && field !== 'maxCount')
          throw invalid(`${path}.${field}`, 'is not a retention field; known: maxAgeDays, maxCount');
      if (kind === 'grantUsage' && value.maxCount !== undefined && value.maxCount !== 0)
        throw invalid(
          `${path}.maxCount`,
          'is not supported: grant usage and budget counters are kept per day and per budget period and go only when their period is over (use maxAgeDays)',
        );
      // A rule given replaces the default as a whole: `{ maxCount: 1000 }` alone sets no age limit.
      out[kind] = {
        maxAgeDays: limit(value.maxAgeDays, `${path}.maxAgeDays`, false, 0),
        maxCount: limit(value.maxCount, `${path}.maxCount`, true, 0),
      };
    } else throw invalid(path, `must be { maxAgeDays?, maxCount? } or a number of days; got ${describeValue(value)}`);
  }
  return Object.freeze(out);
}

/**
 * The criteria one kind is pruned by at `now`, or undefined when the kind is kept forever (both limits 0).
 * @param rule - the kind's resolved rule
 * @param now - the current time (ms since the epoch)
 * @public
 */
export function retentionCriteria(rule: ResolvedRetentionRule, now: number): PruneCriteria | undefined {
  if (rule.maxAgeDays === 0 && rule.maxCount === 0) return undefined;
  return {
    now,
    ...(rule.maxAgeDays > 0 ? { before: now - Math.round(rule.maxAgeDays * DAY_MS) } : {}),
    ...(rule.maxCount > 0 ? { keepNewest: rule.maxCount } : {}),
  };
}
