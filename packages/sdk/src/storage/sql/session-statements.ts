/**
 * Every repository of a session, as statements in one dialect: what the SQLite and PostgreSQL sessions bind to
 * their executors.
 * @packageDocumentation
 */
import type { StorageSession } from '../../ports/storage-adapter';
import { approvalStatements } from './approval-sql';
import { auditStatements } from './audit-sql';
import { budgetUsageStatements } from './budget-usage-sql';
import { decisionStatements } from './decision-sql';
import type { SqlDialect } from './dialect';
import { grantStatements } from './grant-sql';
import { grantUsageStatements } from './grant-usage-sql';
import { inboxStatements } from './inbox-sql';
import { intentPrograms } from './intent-sql';
import { ledgerStatements } from './ledger-sql';
import { outboxPrograms } from './outbox-sql';
import { planStatements } from './plan-sql';
import { policyRevisionStatements } from './policy-revision-sql';
import { maintenancePrograms } from './maintenance-sql';
import { perDialect, type Program, type Programs, type Statements } from './query';
import { runEventStatements } from './run-event-sql';
import { runMessageStatements } from './run-message-sql';
import { runStatements } from './run-sql';
import { schedulePrograms } from './schedule-sql';
import { settingsStatements } from './settings-sql';

/** The repositories written as programs (some of their methods take several statements). @internal */
export type ProgramRepository = 'maintenance' | 'schedules' | 'intents' | 'outbox';

/** The names of the {@link ProgramRepository} repositories. @internal */
export const PROGRAM_REPOSITORIES: ReadonlySet<keyof StorageSession> = new Set<ProgramRepository>([
  'maintenance',
  'schedules',
  'intents',
  'outbox',
]);

/**
 * The statements of every repository of a session; maintenance, schedules, intents and the outbox take several statements in some
 * calls, so they are written as programs (see {@link Program}).
 * @internal
 */
export type SessionStatements = {
  readonly [K in Exclude<keyof StorageSession, ProgramRepository>]: Statements<StorageSession[K]>;
} & { readonly [K in ProgramRepository]: Programs<StorageSession[K]> };

/** The statements of every repository of a session in dialect `d`. @internal */
export const sessionStatements = perDialect(
  (d: SqlDialect): SessionStatements => ({
    ledger: ledgerStatements(d),
    approvals: approvalStatements(d),
    grants: grantStatements(d),
    plans: planStatements(d),
    policies: policyRevisionStatements(d),
    audit: auditStatements(d),
    settings: settingsStatements(d),
    runs: runStatements(d),
    events: runEventStatements(d).statements,
    messages: runMessageStatements(d),
    inbox: inboxStatements(d),
    decisions: decisionStatements(d),
    grantUsage: grantUsageStatements(d),
    budgetUsage: budgetUsageStatements(d),
    maintenance: maintenancePrograms(d),
    schedules: schedulePrograms(d),
    intents: intentPrograms(d),
    outbox: outboxPrograms(d),
  }),
);
