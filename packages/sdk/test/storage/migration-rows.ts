import type { DecisionRecord } from '../../src/core/run-records';

/** The values of a decision row as a version 5 store kept it (columns of {@link V5_DECISION_COLUMNS}). */
export const V5_DECISION_VALUES =
  "('d1', 'agent_budget', 'agent_budget:run-1', 'run-1', 'open', 'over budget', '{\"budget\":\"maxToolCalls\"}', 10, NULL)";

/** The columns of the decisions table at version 5 that {@link V5_DECISION_VALUES} fills. */
export const V5_DECISION_COLUMNS = '(id, kind, dedupe_key, subject_id, status, reason, data, created_at, resolved_at)';

/** What the version 5 decision row reads as once the store is migrated to the current version. */
export const V5_DECISION_MIGRATED: DecisionRecord = {
  id: 'd1',
  kind: 'agent_budget',
  dedupeKey: 'agent_budget:run-1',
  subjectType: 'run',
  subjectId: 'run-1',
  rootCause: null,
  status: 'open',
  reason: 'over budget',
  evidence: { budget: 'maxToolCalls' },
  options: [],
  raisedBy: 'agent:run-1',
  resolvedBy: null,
  resolution: null,
  revision: 1,
  createdAt: 10,
  updatedAt: 10,
  resolvedAt: null,
};

/** The schema_migrations rows (version, name) of a SQLite store at the current version. */
export const SQLITE_MIGRATION_ROWS = [
  { version: 1, name: 'initial' },
  { version: 2, name: 'runs' },
  { version: 3, name: 'subagents and runtime state' },
  { version: 4, name: 'grant usage counters' },
  { version: 5, name: 'run checklist' },
  { version: 6, name: 'decisions as records people resolve' },
  { version: 7, name: 'budget counters and reservations' },
  { version: 8, name: 'ledger entries by run' },
  { version: 9, name: 'drop indexes no query uses' },
  { version: 10, name: 'nas operations' },
  { version: 11, name: 'schedules' },
  { version: 12, name: 'approvals a household can trust' },
  { version: 13, name: 'intents' },
  { version: 14, name: 'forks' },
  { version: 15, name: 'channel outbox' },
];

/** The secondary indexes of a store at the current version, by name: the same set in SQLite and PostgreSQL. */
export const SECONDARY_INDEXES = [
  'approvals_plan',
  'approvals_status',
  'budget_reservations_by_run',
  'budget_usage_start',
  'channel_outbox_by_run',
  'channel_outbox_queued',
  'decisions_root_cause',
  'decisions_status_created',
  'decisions_subject_created',
  'grant_usage_day',
  'grants_status',
  'inbox_run_status',
  'intents_by_run',
  'ledger_grant_claimed',
  'ledger_run',
  'ledger_scope_call',
  'ledger_state_settled',
  'plans_updated',
  'policies_kind',
  'runs_by_parent',
  'runs_created',
  'runs_ended',
  'runs_pruned',
  'runs_session_created',
  'runs_status_created',
  'schedules_created',
  'schedules_due',
  'schedules_owner_client',
];
