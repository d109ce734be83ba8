// Retention settings of `createAgentHost({ retention })`: how long each record kind is kept, checked and turned into
// the criteria the storage's maintenance repository prunes by. Pure functions; no storage, no clock.
import { MediaAgentError } from '../../core/errors';
import { type PruneCriteria, RETENTION_KINDS, type RetentionKind } from '../../ports/maintenance-repository';

/**
 * How long one record kind is kept: items older than `maxAgeDays`, or beyond the newest `maxCount`, are removed by
 * `host.maintenance.prune()` (never a live one). 0 (or absent) turns that limit off; both off keeps the kind forever.
 * @public
 */
export interface RetentionRule {
  /** Age in days (fractions allowed) after which an item is removed; 0 keeps it whatever its age. */
  maxAgeDays?: number;
  /** At most this many items kept, the newest (an integer): older ones beyond it are removed whatever their age; 0 sets no count limit. */
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

/**
 * The default retention, in days (no count limits): `runs` (a finished run's events, messages and inbox; its row
 * and report stay) 90; `runReports` 0 (kept); `audit` 730 (two years); `approvals`, `plans`, `decisions`,
 * `grantUsage` 180; `ledger` 0 (kept, or `ledgerRetentionMs` when that is set).
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
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function invalid(option: string, message: string): MediaAgentError {
  return new MediaAgentError('OPTIONS_INVALID', `option ${option} ${message}`, { option });
}

/** A limit checked: absent → the default; else a finite number ≥ 0 (an integer for counts). */
function limit(value: unknown, option: string, integer: boolean, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value)))
    throw invalid(
      option,
      `must be a non-negative ${integer ? 'integer' : 'number'} (0 keeps forever); got ${typeof value === 'string' ? `"${value}" (a string)` : String(value)}`,
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
 *   is negative, NaN, infinite or not a number, a count that is not an integer, an unknown kind or field
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
      // A rule given replaces the default as a whole: `{ maxCount: 1000 }` alone sets no age limit.
      out[kind] = {
        maxAgeDays: limit(value.maxAgeDays, `${path}.maxAgeDays`, false, 0),
        maxCount: limit(value.maxCount, `${path}.maxCount`, true, 0),
      };
    } else throw invalid(path, `must be { maxAgeDays?, maxCount? } or a number of days; got ${typeof value}`);
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
