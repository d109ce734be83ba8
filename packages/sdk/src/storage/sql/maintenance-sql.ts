/**
 * Retention and named leases for both SQL stores (the {@link MaintenanceRepository}): each method a {@link Program}
 * of short statements, so a batch is a few indexed reads and deletes inside one transaction. The conditions are
 * those of `../retention-rules.ts`, stated in SQL.
 * @packageDocumentation
 */
import type {
  MaintenanceRepository,
  PruneBatch,
  PruneCount,
  PruneCriteria,
  RetentionKind,
} from '../../ports/maintenance-repository';
import { RETENTION_KINDS } from '../../ports/maintenance-repository';
import {
  auditCheckpoint,
  CLOSED_DECISION_STATUSES,
  DAY_MS,
  LIVE_LEDGER_STATES,
  OPEN_DECISION_STATUSES,
  PRUNABLE_LEDGER_STATES,
  PRUNABLE_RUN_STATUSES,
  RUN_ACTOR_PREFIX,
  RUN_BLOCKING_LEDGER_STATES,
  compareCodePoints,
  scheduleTickFloor,
  scheduleTicksKept,
} from '../retention-rules';
import type { SqlDialect } from './dialect';
import { count, perDialect, type Program, type Programs, type Query, row, rows, SqlTexts } from './query';
import type { Row } from './table-mapping';

type Columns = ReadonlyArray<readonly [string, 't' | 'n']>;
const t = (...names: string[]): Columns => names.map((n) => [n, 't'] as const);
const n = (...names: string[]): Columns => names.map((c) => [c, 'n'] as const);

/** The columns of each table retention measures (SQLite's byte measure reads them one by one). */
const COLUMNS: Readonly<Record<string, Columns>> = {
  runs: [
    ...t('id', 'goal', 'mode', 'status', 'step', 'started_by', 'session_id', 'capability_allowlist', 'budgets'),
    ...t('usage', 'checklist', 'report', 'final_text', 'error', 'abort_reason', 'lease_owner', 'origin'),
    ...t('parent_run_id', 'runtime_state'),
    ...n('abort_requested', 'wake_requested', 'lease_expires_at', 'not_before', 'created_at', 'updated_at'),
    ...n('started_at', 'ended_at', 'depth', 'pruned_at'),
  ],
  run_events: [...t('run_id', 'type', 'data'), ...n('global_seq', 'seq', 'at')],
  run_messages: [...t('run_id', 'message'), ...n('seq', 'at')],
  inbox: [...t('id', 'run_id', 'text', 'actor', 'status'), ...n('created_at', 'applied_at')],
  budget_reservations: [
    ...t('key', 'subject', 'run_id', 'state'),
    ...n('day', 'month', 'runs', 'model_calls', 'tokens', 'cost_usd', 'created_at', 'updated_at'),
  ],
  approvals: [
    ...t('id', 'plan_type', 'plan_id', 'payload_hash', 'status', 'requested_by', 'reason', 'decided_by'),
    ...t('consumed_by', 'capability_id', 'impact', 'steps', 'approved_steps', 'proposed_payload'),
    ...t('proposed_payload_hash', 'approved_payload', 'executed_payload_hash'),
    ...n('revision', 'requested_at', 'expires_at', 'decided_at', 'consumed_at'),
  ],
  plans: [
    ...t('id', 'type', 'payload', 'payload_hash', 'media_entity_id', 'media_kind', 'created_by'),
    ...n('revision', 'bytes', 'created_at', 'updated_at'),
  ],
  decisions: [
    ...t('id', 'kind', 'dedupe_key', 'subject_type', 'subject_id', 'root_cause', 'status', 'reason', 'evidence'),
    ...t('options', 'raised_by', 'resolved_by', 'resolution'),
    ...n('revision', 'created_at', 'updated_at', 'resolved_at'),
  ],
  grant_usage: [...t('grant_id'), ...n('day', 'invocations', 'bytes')],
  budget_usage: [...t('subject', 'period'), ...n('start', 'runs', 'model_calls', 'tokens', 'cost_usd')],
  ledger: [
    ...t('key', 'capability_id', 'scope_id', 'call_id', 'args_hash', 'state', 'token', 'actor', 'invocation_id'),
    ...t('run_id', 'task_id', 'approval_id', 'grant_id', 'output', 'error', 'input_summary'),
    ...n('capability_version', 'bytes', 'attempts', 'claimed_at', 'updated_at', 'settled_at'),
  ],
  audit: [
    ...t('id', 'action', 'actor', 'capability_id', 'invocation_id', 'run_id', 'task_id', 'outcome', 'approval_id'),
    ...t('grant_id', 'idempotency_key', 'input_summary', 'reason', 'prev_hash', 'hash'),
    ...n('seq', 'at'),
  ],
  schedule_ticks: [
    ...t('schedule_id', 'outcome', 'run_id', 'reason', 'handled_by'),
    ...n('tick_at', 'first_tick_at', 'ticks', 'handled_at'),
  ],
};

/** The tables each kind spans, for {@link MaintenanceRepository.usage}. */
const USAGE_TABLES: Readonly<Record<RetentionKind, readonly string[]>> = {
  runs: ['run_events', 'run_messages', 'inbox', 'budget_reservations'],
  runReports: ['runs'],
  audit: ['audit'],
  approvals: ['approvals'],
  plans: ['plans'],
  decisions: ['decisions'],
  grantUsage: ['grant_usage', 'budget_usage'],
  ledger: ['ledger'],
  scheduleTicks: ['schedule_ticks'],
};

const quoted = (values: readonly string[]): string => values.map((v) => `'${v}'`).join(', ');
const TERMINAL = quoted(PRUNABLE_RUN_STATUSES);

/** The key and age of the newest item retention keeps (`keepNewest`): older items may go. */
interface Cut {
  readonly age: number;
  readonly key: string;
}

/** A kind with one table and one key: approvals, plans, decisions, ledger. */
interface TableKind {
  readonly table: string;
  readonly key: string;
  /** The age time of row `x`. */
  readonly age: string;
  /** Whether row `x` may be removed (`@now` is the criteria's now). */
  readonly eligible: string;
}

const none: PruneCount = { rows: 0, bytes: 0 };
const add = (a: PruneCount, b: PruneCount): PruneCount => ({ rows: a.rows + b.rows, bytes: a.bytes + b.bytes });
const countOf = (r: Row | undefined): PruneCount => ({ rows: Number(r?.n ?? 0), bytes: Number(r?.b ?? 0) });
const sumOf = (found: Row[]): PruneCount => ({
  rows: found.length,
  bytes: found.reduce((s, r) => s + Number(r.b ?? 0), 0),
});
/** Largest keepNewest the SQL binds (an OFFSET / LIMIT both engines take); more keeps everything anyway. */
const MAX_KEEP = 2 ** 31 - 1;
const keepOf = (criteria: PruneCriteria): number =>
  criteria.keepNewest === undefined || !(criteria.keepNewest >= 0)
    ? 0
    : Math.min(MAX_KEEP, Math.floor(criteria.keepNewest));

/** A batch size as a positive integer (at least 1). */
const batchOf = (batchSize: number): number => Math.max(1, Math.floor(Number.isFinite(batchSize) ? batchSize : 1));

/**
 * The maintenance repository's programs in dialect `d`.
 * @internal
 */
export const maintenancePrograms = perDialect((d: SqlDialect): Programs<MaintenanceRepository> => {
  const T = (name: string) => d.table(name);
  const bytes = (table: string, alias: string) => d.rowBytes(alias, COLUMNS[table]!);
  const returned = (table: string, alias: string) => d.returnedBytes(alias, COLUMNS[table]!);
  const texts = new SqlTexts();
  const code = (column: string) => d.byCodePoint(column);

  // --- kinds of one table --------------------------------------------------------------------------------------
  const TABLE_KINDS: Readonly<Record<'approvals' | 'plans' | 'decisions' | 'ledger', TableKind>> = {
    approvals: {
      table: 'approvals',
      key: 'id',
      age: 'COALESCE(x.decided_at, x.consumed_at, x.expires_at)',
      eligible:
        `(x.status IN ('rejected', 'revoked', 'consumed') OR (x.status IN ('requested', 'approved') AND x.expires_at < @now))` +
        ` AND NOT EXISTS (SELECT 1 FROM ${T('ledger')} l WHERE l.state IN (${quoted(LIVE_LEDGER_STATES)}) AND l.approval_id = x.id)`,
    },
    plans: {
      table: 'plans',
      key: 'id',
      age: 'x.updated_at',
      eligible:
        `NOT EXISTS (SELECT 1 FROM ${T('approvals')} a WHERE a.plan_id = x.id)` +
        ` AND NOT EXISTS (SELECT 1 FROM ${T('runs')} pr WHERE x.created_by LIKE '${RUN_ACTOR_PREFIX}%' AND pr.id = substr(x.created_by, ${RUN_ACTOR_PREFIX.length + 1}) AND pr.status NOT IN (${TERMINAL}))`,
    },
    decisions: {
      table: 'decisions',
      key: 'id',
      age: 'COALESCE(x.resolved_at, x.updated_at)',
      eligible: `x.status IN (${quoted(CLOSED_DECISION_STATUSES)})`,
    },
    ledger: {
      table: 'ledger',
      key: 'key',
      age: 'x.settled_at',
      eligible:
        `x.state IN (${quoted(PRUNABLE_LEDGER_STATES)}) AND x.settled_at IS NOT NULL` +
        ` AND NOT EXISTS (SELECT 1 FROM ${T('runs')} lr WHERE lr.id = x.run_id AND lr.status NOT IN (${TERMINAL}))`,
    },
  };

  /** The condition selecting what `criteria` remove among the eligible rows `x` (with a cut when keepNewest). */
  const selection = (eligible: string, age: string, key: string, before: boolean, cut: boolean): string =>
    `${eligible}${before ? ` AND ${age} < @before` : ''}${
      cut ? ` AND (${age} < @cutAge OR (${age} = @cutAge AND ${code(key)} < @cutKey))` : ''
    }`;

  const params = (criteria: PruneCriteria, cut: Cut | undefined): Row => {
    const p: Row = { now: criteria.now };
    // Ages are never negative: a `before` below 0 selects nothing, as 0 does (and stays a bindable integer).
    if (criteria.before !== undefined) p.before = Math.max(0, Math.ceil(criteria.before));
    if (cut) {
      p.cutAge = cut.age;
      p.cutKey = cut.key;
    }
    return p;
  };

  /** The newest kept item of one table kind, or 'none' when fewer than keepNewest are eligible. */
  function* tableCut(k: TableKind, criteria: PruneCriteria): Generator<Query<unknown>, Cut | undefined | 'none'> {
    const keep = keepOf(criteria);
    if (keep === 0) return undefined;
    const sql = texts.get(
      `cut|${k.table}`,
      () =>
        `SELECT ${k.age} AS age, x.${k.key} AS k FROM ${T(k.table)} x WHERE ${k.eligible} ORDER BY ${k.age} DESC, ${code(`x.${k.key}`)} DESC LIMIT 1 OFFSET @offset`,
    );
    const found = (yield row(sql, { now: criteria.now, offset: keep - 1 }, (r) => r)) as Row | undefined;
    return found ? { age: Number(found.age), key: String(found.k) } : 'none';
  }

  function* tableEstimate(k: TableKind, criteria: PruneCriteria): Program<PruneCount> {
    const cut = yield* tableCut(k, criteria);
    if (cut === 'none') return none;
    const before = criteria.before !== undefined;
    const sql = texts.get(
      `est|${k.table}|${before}|${!!cut}`,
      () =>
        `SELECT COUNT(*) AS n, COALESCE(SUM(${bytes(k.table, 'x')}), 0) AS b FROM ${T(k.table)} x WHERE ${selection(k.eligible, k.age, `x.${k.key}`, before, !!cut)}`,
    );
    return (yield row(sql, params(criteria, cut), countOf)) as PruneCount;
  }

  function* tablePrune(k: TableKind, criteria: PruneCriteria, batchSize: number): Program<PruneBatch> {
    const cut = yield* tableCut(k, criteria);
    if (cut === 'none') return { ...none, done: true };
    const before = criteria.before !== undefined;
    const where = selection(k.eligible, k.age, `x.${k.key}`, before, !!cut);
    const deleteSql = texts.get(
      `del|${k.table}|${before}|${!!cut}`,
      () =>
        `DELETE FROM ${T(k.table)} AS y WHERE y.${k.key} IN (SELECT x.${k.key} FROM ${T(k.table)} x WHERE ${where} ORDER BY ${k.age}, ${code(`x.${k.key}`)} LIMIT @n${d.skipLocked}) RETURNING ${returned(k.table, 'y')} AS b`,
    );
    const moreSql = texts.get(
      `more|${k.table}|${before}|${!!cut}`,
      () => `SELECT 1 AS one FROM ${T(k.table)} x WHERE ${where} LIMIT 1`,
    );
    const n = batchOf(batchSize);
    const removed = (yield rows(deleteSql, { ...params(criteria, cut), n }, sumOf)) as PruneCount;
    const more = removed.rows === n && (yield row(moreSql, params(criteria, cut), (r) => r !== undefined));
    return { ...removed, done: !more };
  }

  // --- runs and run reports ------------------------------------------------------------------------------------
  /** Run `r` is not live: no `running`/`unknown` ledger entry, no open decision about it, no child still going. */
  const NOT_LIVE =
    `NOT EXISTS (SELECT 1 FROM ${T('ledger')} l WHERE l.run_id = r.id AND l.state IN (${quoted(RUN_BLOCKING_LEDGER_STATES)}))` +
    ` AND NOT EXISTS (SELECT 1 FROM ${T('decisions')} dd WHERE dd.subject_id = r.id AND dd.status IN (${quoted(OPEN_DECISION_STATUSES)}))` +
    ` AND NOT EXISTS (SELECT 1 FROM ${T('runs')} c WHERE c.parent_run_id = r.id AND c.status NOT IN (${TERMINAL}))`;
  /**
   * Terminal runs not pruned yet (index `runs_ended`) and pruned ones (index `runs_pruned`), each by end time. The
   * status is tested as an expression so the planner walks the end-time index, not the status index.
   */
  const BRANCHES = {
    open: `r.ended_at IS NOT NULL AND r.pruned_at IS NULL AND (r.status || '') IN (${TERMINAL}) AND ${NOT_LIVE}`,
    pruned: `r.ended_at IS NOT NULL AND r.pruned_at IS NOT NULL AND (r.status || '') IN (${TERMINAL}) AND ${NOT_LIVE}`,
  } as const;
  type Branch = keyof typeof BRANCHES;
  const branchesOf = (kind: 'runs' | 'runReports'): readonly Branch[] =>
    kind === 'runs' ? ['open'] : ['open', 'pruned'];
  const runWhere = (branch: Branch, before: boolean, cut: boolean) =>
    selection(BRANCHES[branch], 'r.ended_at', 'r.id', before, cut);

  /** What `runs` removes of a run besides its row: each table, and its extra condition. */
  const RUN_TABLES: ReadonlyArray<readonly [table: string, extra: string]> = [
    ['run_events', ''],
    ['run_messages', ''],
    ['inbox', ''],
    ['budget_reservations', ` AND x.state IN ('settled', 'released')`],
  ];

  function* runCut(
    kind: 'runs' | 'runReports',
    criteria: PruneCriteria,
  ): Generator<Query<unknown>, Cut | undefined | 'none'> {
    const keep = keepOf(criteria);
    if (keep === 0) return undefined;
    const newest: Cut[] = [];
    for (const branch of branchesOf(kind)) {
      const sql = texts.get(
        `runcut|${branch}`,
        () =>
          `SELECT r.ended_at AS age, r.id AS k FROM ${T('runs')} r WHERE ${BRANCHES[branch]} ORDER BY r.ended_at DESC, ${code('r.id')} DESC LIMIT @take`,
      );
      const found = (yield rows(sql, { take: keep }, (rs) => rs)) as Row[];
      for (const f of found) newest.push({ age: Number(f.age), key: String(f.k) });
    }
    if (newest.length < keep) return 'none';
    newest.sort((a, b) => (a.age !== b.age ? b.age - a.age : a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
    return newest[keep - 1]!;
  }

  function* runsEstimate(kind: 'runs' | 'runReports', criteria: PruneCriteria): Program<PruneCount> {
    const cut = yield* runCut(kind, criteria);
    if (cut === 'none') return none;
    const before = criteria.before !== undefined;
    let total = none;
    for (const branch of branchesOf(kind)) {
      const where = runWhere(branch, before, !!cut);
      const tables: ReadonlyArray<readonly [string, string]> =
        kind === 'runReports' ? [...RUN_TABLES, ['runs', '']] : RUN_TABLES;
      for (const [table, extra] of tables) {
        const sql = texts.get(`runest|${kind}|${branch}|${table}|${before}|${!!cut}`, () =>
          table === 'runs'
            ? `SELECT COUNT(*) AS n, COALESCE(SUM(${bytes('runs', 'r')}), 0) AS b FROM ${T('runs')} r WHERE ${where}`
            : `SELECT COUNT(*) AS n, COALESCE(SUM(${bytes(table, 'x')}), 0) AS b FROM ${T(table)} x WHERE x.run_id IN (SELECT r.id FROM ${T('runs')} r WHERE ${where})${extra}`,
        );
        total = add(total, (yield row(sql, params(criteria, cut), countOf)) as PruneCount);
      }
    }
    return total;
  }

  function* runsPrune(kind: 'runs' | 'runReports', criteria: PruneCriteria, batchSize: number): Program<PruneBatch> {
    const cut = yield* runCut(kind, criteria);
    if (cut === 'none') return { ...none, done: true };
    const before = criteria.before !== undefined;
    const n = batchOf(batchSize);
    const picked: Array<{ id: string; age: number }> = [];
    for (const branch of branchesOf(kind)) {
      const sql = texts.get(
        `runpick|${branch}|${before}|${!!cut}`,
        () =>
          `SELECT r.id AS id, r.ended_at AS age FROM ${T('runs')} r WHERE ${runWhere(branch, before, !!cut)} ORDER BY r.ended_at, ${code('r.id')} LIMIT @n${d.skipLocked}`,
      );
      const found = (yield rows(sql, { ...params(criteria, cut), n: n + 1 }, (rs) => rs)) as Row[];
      for (const f of found) picked.push({ id: String(f.id), age: Number(f.age) });
    }
    picked.sort((a, b) => (a.age !== b.age ? a.age - b.age : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const ids = picked.slice(0, n).map((p) => p.id);
    const done = picked.length <= n;
    if (ids.length === 0) return { ...none, done: true };
    const list = { ids: d.list(ids), now: criteria.now };
    let total = none;
    for (const [table, extra] of RUN_TABLES) {
      const measure = texts.get(
        `runmeasure|${table}`,
        () =>
          `SELECT COUNT(*) AS n, COALESCE(SUM(${bytes(table, 'x')}), 0) AS b FROM ${T(table)} x WHERE ${d.inList('x.run_id', 'ids')}${extra}`,
      );
      const removed = (yield row(measure, list, countOf)) as PruneCount;
      if (removed.rows === 0) continue;
      total = add(total, removed);
      const remove = texts.get(
        `rundelete|${table}`,
        () => `DELETE FROM ${T(table)} AS x WHERE ${d.inList('x.run_id', 'ids')}${extra}`,
      );
      yield count(remove, list, (c) => c);
    }
    if (kind === 'runs') {
      const mark = texts.get(
        'runmark',
        () =>
          `UPDATE ${T('runs')} SET pruned_at = @now, runtime_state = NULL WHERE ${d.inList('id', 'ids')} AND pruned_at IS NULL`,
      );
      yield count(mark, list, (c) => c);
    } else {
      const remove = texts.get(
        'rundeleterow',
        () => `DELETE FROM ${T('runs')} AS r WHERE ${d.inList('r.id', 'ids')} RETURNING ${returned('runs', 'r')} AS b`,
      );
      total = add(total, (yield rows(remove, list, sumOf)) as PruneCount);
    }
    return { ...total, done, items: ids.length };
  }

  // --- per-day and per-period counters --------------------------------------------------------------------------
  /** The bounds of counters whose period is over by `min(before, now)`: day starts and month starts below them. */
  const counterLimits = (criteria: PruneCriteria) => {
    const limit = Math.max(0, Math.min(criteria.before ?? criteria.now, criteria.now));
    const at = new Date(limit);
    return { dayLimit: limit - DAY_MS, monthLimit: Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1) };
  };
  const GRANT_USAGE_WHERE = 'x.day <= @dayLimit';
  const BUDGET_USAGE_WHERE = `((x.period = 'day' AND x.start <= @dayLimit) OR (x.period = 'month' AND x.start < @monthLimit))`;

  function* countersEstimate(criteria: PruneCriteria): Program<PruneCount> {
    const limits = counterLimits(criteria);
    const g = (yield row(
      `SELECT COUNT(*) AS n, COALESCE(SUM(${bytes('grant_usage', 'x')}), 0) AS b FROM ${T('grant_usage')} x WHERE ${GRANT_USAGE_WHERE}`,
      { dayLimit: limits.dayLimit },
      countOf,
    )) as PruneCount;
    const b = (yield row(
      `SELECT COUNT(*) AS n, COALESCE(SUM(${bytes('budget_usage', 'x')}), 0) AS b FROM ${T('budget_usage')} x WHERE ${BUDGET_USAGE_WHERE}`,
      limits,
      countOf,
    )) as PruneCount;
    return add(g, b);
  }

  function* countersPrune(criteria: PruneCriteria, batchSize: number): Program<PruneBatch> {
    const limits = counterLimits(criteria);
    const n = batchOf(batchSize);
    const g = (yield rows(
      `DELETE FROM ${T('grant_usage')} AS y WHERE (y.grant_id, y.day) IN (SELECT x.grant_id, x.day FROM ${T('grant_usage')} x WHERE ${GRANT_USAGE_WHERE} ORDER BY x.day, ${code('x.grant_id')} LIMIT @n${d.skipLocked}) RETURNING ${returned('grant_usage', 'y')} AS b`,
      { dayLimit: limits.dayLimit, n },
      sumOf,
    )) as PruneCount;
    if (g.rows === n) {
      const more = (yield row(
        `SELECT 1 AS one FROM ${T('grant_usage')} x WHERE ${GRANT_USAGE_WHERE} LIMIT 1`,
        { dayLimit: limits.dayLimit },
        (r) => r !== undefined,
      )) as boolean;
      if (more) return { ...g, done: false };
    }
    const left = n - g.rows;
    if (left === 0) {
      const more = (yield row(
        `SELECT 1 AS one FROM ${T('budget_usage')} x WHERE ${BUDGET_USAGE_WHERE} LIMIT 1`,
        limits,
        (r) => r !== undefined,
      )) as boolean;
      return { ...g, done: !more };
    }
    const b = (yield rows(
      `DELETE FROM ${T('budget_usage')} AS y WHERE (y.subject, y.period, y.start) IN (SELECT x.subject, x.period, x.start FROM ${T('budget_usage')} x WHERE ${BUDGET_USAGE_WHERE} ORDER BY x.start, ${code('x.subject')}, x.period LIMIT @n${d.skipLocked}) RETURNING ${returned('budget_usage', 'y')} AS b`,
      { ...limits, n: left },
      sumOf,
    )) as PruneCount;
    let done = b.rows < left;
    if (!done)
      done = !((yield row(
        `SELECT 1 AS one FROM ${T('budget_usage')} x WHERE ${BUDGET_USAGE_WHERE} LIMIT 1`,
        limits,
        (r) => r !== undefined,
      )) as boolean);
    return { ...add(g, b), done };
  }

  // --- schedule tick records -----------------------------------------------------------------------------------
  // Schedule by schedule on the primary key (schedule_id, tick_at): the schedules are found by a loose index walk
  // (one seek each), then each one's removable range is a seek below its cut, so a batch never scans the table.
  const TICKS = T('schedule_ticks');
  const firstScheduleSql = `SELECT x.schedule_id AS id FROM ${TICKS} x ORDER BY x.schedule_id LIMIT 1`;
  const nextScheduleSql = `SELECT x.schedule_id AS id FROM ${TICKS} x WHERE x.schedule_id > @after ORDER BY x.schedule_id LIMIT 1`;
  /** The tick of the newest record a schedule keeps (`@offset` = kept − 1); no row: it keeps every record. */
  const tickCutSql = `SELECT x.tick_at AS t FROM ${TICKS} x WHERE x.schedule_id = @id ORDER BY x.tick_at DESC LIMIT 1 OFFSET @offset`;
  const tickWhere = (before: boolean) =>
    `x.schedule_id = @id AND x.tick_at < @upTo${before ? ' AND x.handled_at < @before' : ''}`;

  /** Every schedule that has tick records, in code-point order. */
  function* tickSchedules(): Generator<Query<unknown>, string[]> {
    const ids: string[] = [];
    let found = (yield row(firstScheduleSql, {}, (r) => r?.id)) as string | undefined;
    while (found !== undefined) {
      ids.push(String(found));
      found = (yield row(nextScheduleSql, { after: found }, (r) => r?.id)) as string | undefined;
    }
    return ids.sort(compareCodePoints);
  }

  /** The parameters selecting schedule `id`'s removable records, or undefined when it keeps them all. */
  function* tickRange(id: string, criteria: PruneCriteria): Generator<Query<unknown>, Row | undefined> {
    const cut = (yield row(tickCutSql, { id, offset: Math.min(MAX_KEEP, scheduleTicksKept(criteria)) - 1 }, (r) =>
      r === undefined ? undefined : Number(r.t),
    )) as number | undefined;
    if (cut === undefined) return undefined;
    const p: Row = { id, upTo: Math.min(cut, scheduleTickFloor(criteria.now)) };
    if (criteria.before !== undefined) p.before = Math.max(0, Math.ceil(criteria.before));
    return p;
  }

  function* ticksEstimate(criteria: PruneCriteria): Program<PruneCount> {
    const before = criteria.before !== undefined;
    const sql = texts.get(
      `tickest|${before}`,
      () =>
        `SELECT COUNT(*) AS n, COALESCE(SUM(${bytes('schedule_ticks', 'x')}), 0) AS b FROM ${TICKS} x WHERE ${tickWhere(before)}`,
    );
    let total = none;
    for (const id of yield* tickSchedules()) {
      const p = yield* tickRange(id, criteria);
      if (p) total = add(total, (yield row(sql, p, countOf)) as PruneCount);
    }
    return total;
  }

  function* ticksPrune(criteria: PruneCriteria, batchSize: number): Program<PruneBatch> {
    const before = criteria.before !== undefined;
    const deleteSql = texts.get(
      `tickdel|${before}`,
      () =>
        `DELETE FROM ${TICKS} AS y WHERE (y.schedule_id, y.tick_at) IN (SELECT x.schedule_id, x.tick_at FROM ${TICKS} x WHERE ${tickWhere(before)} ORDER BY x.tick_at LIMIT @n${d.skipLocked}) RETURNING ${returned('schedule_ticks', 'y')} AS b`,
    );
    const moreSql = texts.get(
      `tickmore|${before}`,
      () => `SELECT 1 AS one FROM ${TICKS} x WHERE ${tickWhere(before)} LIMIT 1`,
    );
    const n = batchOf(batchSize);
    let total = none;
    for (const id of yield* tickSchedules()) {
      const p = yield* tickRange(id, criteria);
      if (!p) continue;
      if (total.rows === n) {
        // The batch is full: it is done unless some schedule still has a removable record.
        if ((yield row(moreSql, p, (r) => r !== undefined)) as boolean) return { ...total, done: false };
        continue;
      }
      total = add(total, (yield rows(deleteSql, { ...p, n: n - total.rows }, sumOf)) as PruneCount);
      if (total.rows === n && ((yield row(moreSql, p, (r) => r !== undefined)) as boolean))
        return { ...total, done: false };
    }
    return { ...total, done: true };
  }

  // --- audit ---------------------------------------------------------------------------------------------------
  /** Rows at or after this are never removed: `min(before, now)`. */
  const auditLimitAt = (criteria: PruneCriteria) =>
    Math.max(0, Math.ceil(Math.min(criteria.before ?? criteria.now, criteria.now)));

  /** The first seq kept by keepNewest (rows below it may go), undefined without keepNewest, 0 when nothing may go. */
  function* auditUpTo(criteria: PruneCriteria): Generator<Query<unknown>, number> {
    const keep = keepOf(criteria);
    if (keep === 0) return Number.MAX_SAFE_INTEGER;
    const found = (yield row(
      `SELECT x.seq AS seq FROM ${T('audit')} x WHERE x.action <> 'audit.pruned' ORDER BY x.seq DESC LIMIT 1 OFFSET @offset`,
      { offset: keep - 1 },
      (r) => r,
    )) as Row | undefined;
    return found ? Number(found.seq) : 0;
  }

  function* auditEstimate(criteria: PruneCriteria): Program<PruneCount> {
    const upTo = yield* auditUpTo(criteria);
    if (upTo === 0) return none;
    const limitAt = auditLimitAt(criteria);
    const boundary = (yield row(
      `SELECT x.seq AS seq FROM ${T('audit')} x WHERE x.seq < @upTo AND x.at >= @limitAt ORDER BY x.seq LIMIT 1`,
      { upTo, limitAt },
      (r) => (r ? Number(r.seq) : undefined),
    )) as number | undefined;
    return (yield row(
      `SELECT COUNT(*) AS n, COALESCE(SUM(${bytes('audit', 'x')}), 0) AS b FROM ${T('audit')} x WHERE x.seq < @end`,
      { end: boundary ?? upTo },
      countOf,
    )) as PruneCount;
  }

  function* auditPrune(criteria: PruneCriteria, batchSize: number): Program<PruneBatch> {
    const upTo = yield* auditUpTo(criteria);
    if (upTo === 0) return { ...none, done: true };
    const limitAt = auditLimitAt(criteria);
    const n = batchOf(batchSize);
    const head = (yield rows(
      `SELECT x.seq AS seq, x.at AS at, x.hash AS hash FROM ${T('audit')} x WHERE x.seq < @upTo ORDER BY x.seq LIMIT @n${d.skipLocked}`,
      { upTo, n: n + 1 },
      (rs) => rs,
    )) as Row[];
    let taken = 0;
    while (taken < head.length && taken < n && Number(head[taken]!.at) < limitAt) taken++;
    if (taken === 0) return { ...none, done: true };
    const next = head[taken];
    const done = taken < n || next === undefined || Number(next.at) >= limitAt;
    const firstSeq = Number(head[0]!.seq);
    const throughSeq = Number(head[taken - 1]!.seq);
    const headHash = (head[taken - 1]!.hash as string | null | undefined) ?? null;
    const removed = (yield rows(
      `DELETE FROM ${T('audit')} AS y WHERE y.seq >= @first AND y.seq <= @through RETURNING ${returned('audit', 'y')} AS b`,
      { first: firstSeq, through: throughSeq },
      sumOf,
    )) as PruneCount;
    yield {
      appendAudit: auditCheckpoint(firstSeq, throughSeq, removed.rows, headHash, criteria.now, criteria.checkpointKey),
    };
    return { ...removed, done };
  }

  // --- the repository -------------------------------------------------------------------------------------------
  function* estimate(kind: RetentionKind, criteria: PruneCriteria): Program<PruneCount> {
    switch (kind) {
      case 'runs':
      case 'runReports':
        return yield* runsEstimate(kind, criteria);
      case 'audit':
        return yield* auditEstimate(criteria);
      case 'grantUsage':
        return yield* countersEstimate(criteria);
      case 'scheduleTicks':
        return yield* ticksEstimate(criteria);
      default:
        return yield* tableEstimate(TABLE_KINDS[kind], criteria);
    }
  }

  function* prune(kind: RetentionKind, criteria: PruneCriteria, batchSize: number): Program<PruneBatch> {
    switch (kind) {
      case 'runs':
      case 'runReports':
        return yield* runsPrune(kind, criteria, batchSize);
      case 'audit':
        return yield* auditPrune(criteria, batchSize);
      case 'grantUsage':
        return yield* countersPrune(criteria, batchSize);
      case 'scheduleTicks':
        return yield* ticksPrune(criteria, batchSize);
      default:
        return yield* tablePrune(TABLE_KINDS[kind], criteria, batchSize);
    }
  }

  function* usage(): Program<Record<RetentionKind, PruneCount>> {
    const out = {} as Record<RetentionKind, PruneCount>;
    for (const kind of RETENTION_KINDS) {
      let total = none;
      for (const table of USAGE_TABLES[kind])
        total = add(
          total,
          (yield row(
            `SELECT COUNT(*) AS n, COALESCE(SUM(${bytes(table, 'x')}), 0) AS b FROM ${T(table)} x`,
            {},
            countOf,
          )) as PruneCount,
        );
      out[kind] = total;
    }
    return out;
  }

  const acquireSql = `INSERT INTO ${T('leases')} AS le (name, owner, expires_at) VALUES (@name, @owner, @expiresAt) ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at WHERE le.owner = excluded.owner OR le.expires_at <= @now`;
  const releaseSql = `DELETE FROM ${T('leases')} WHERE name = @name AND owner = @owner`;
  return {
    estimate,
    prune,
    usage,
    *acquireLease(name, owner, now, ttlMs) {
      return (yield count(acquireSql, { name, owner, now, expiresAt: now + ttlMs }, (c) => c === 1)) as boolean;
    },
    *releaseLease(name, owner) {
      return (yield count(releaseSql, { name, owner }, (c) => c === 1)) as boolean;
    },
  };
});
