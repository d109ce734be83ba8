/**
 * The repositories of one PostgreSQL job (a transaction, or one call on the adapter) over one pooled client.
 * @packageDocumentation
 */
import { MediaAgentError } from '../../core/errors';
import type { StorageSession } from '../../ports/storage-adapter';
import { StorageError } from '../errors';
import { pgApprovalRepository } from './approval-repository';
import { pgAuditRepository } from './audit-repository';
import { pgDecisionRepository } from './decision-repository';
import { pgGrantRepository } from './grant-repository';
import { pgGrantUsageRepository } from './grant-usage-repository';
import { pgBudgetUsageRepository } from './budget-usage-repository';
import { pgInboxRepository } from './inbox-repository';
import { pgLedgerRepository } from './ledger-repository';
import { pgPlanRepository } from './plan-repository';
import { pgPolicyRevisionRepository } from './policy-revision-repository';
import { pgRunEventRepository } from './run-event-repository';
import { pgRunMessageRepository } from './run-message-repository';
import { pgRunRepository } from './run-repository';
import { pgSettingsRepository } from './settings-repository';
import { createPgQueries, type PgRunner, type SqlCompiler } from './sql-queries';

/** The repository factories, by session property. */
const FACTORIES: { [K in keyof StorageSession]: (q: ReturnType<typeof createPgQueries>) => StorageSession[K] } = {
  ledger: pgLedgerRepository,
  approvals: pgApprovalRepository,
  grants: pgGrantRepository,
  plans: pgPlanRepository,
  policies: pgPolicyRevisionRepository,
  audit: pgAuditRepository,
  settings: pgSettingsRepository,
  runs: pgRunRepository,
  events: pgRunEventRepository,
  messages: pgRunMessageRepository,
  inbox: pgInboxRepository,
  decisions: pgDecisionRepository,
  grantUsage: pgGrantUsageRepository,
  budgetUsage: pgBudgetUsageRepository,
};

/** Repository names of a session. @internal */
export const REPOSITORY_NAMES = Object.keys(FACTORIES) as ReadonlyArray<keyof StorageSession>;

/** Repository methods that only read (safe to run again on another connection). @internal */
export const PG_READ_METHODS: ReadonlySet<string> = new Set([
  'get',
  'getByKey',
  'findByCall',
  'listByState',
  'usageForGrant',
  'list',
  'listByKind',
  'totalsBetween',
  'listByRun',
  'listAfter',
  'listQueued',
  'reservation',
  'reservations',
]);

/** Writes on the adapter that take more than one statement, so they need a transaction of their own. @internal */
export const PG_MULTI_STATEMENT_WRITES: ReadonlySet<string> = new Set(['events.append']);

/** A session and what happened to it. @internal */
export interface PgSessionHandle {
  /** The repositories. */
  readonly session: StorageSession;
  /** The first failed statement of the session (mapped, and as thrown), if any: PostgreSQL then aborted the transaction. */
  readonly failure: { error: MediaAgentError; raw: unknown } | undefined;
  /** Makes every later call on `session` fail (its transaction is over). */
  end(): void;
}

/**
 * Creates the session of one job over `runner`: each repository is made on first use, each call checks that
 * the job is still open and maps driver errors with `mapError` (the first one is kept in `failure`).
 * @param runner - the client
 * @param compiler - the adapter's compiler
 * @param inTransaction - whether the job is `transaction(fn)`
 * @param mapError - maps a driver error to a typed storage error
 * @internal
 */
export function createPgSession(
  runner: PgRunner,
  compiler: SqlCompiler,
  inTransaction: boolean,
  mapError: (error: unknown) => MediaAgentError,
): PgSessionHandle {
  const q = createPgQueries(runner, compiler, inTransaction);
  let active = true;
  let failure: PgSessionHandle['failure'];
  const made: Partial<Record<keyof StorageSession, unknown>> = {};
  const repo = (name: keyof StorageSession): unknown => {
    let wrapped = made[name];
    if (wrapped === undefined) {
      const inner = FACTORIES[name](q) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      const out: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
      for (const method of Object.keys(inner)) {
        const fn = inner[method]!;
        out[method] = async (...args) => {
          if (!active) throw new StorageError('a storage session was used after its transaction ended');
          try {
            return await fn(...args);
          } catch (raw) {
            if (raw instanceof MediaAgentError) throw raw; // the repository's own check: the statement did not fail
            const error = mapError(raw);
            failure ??= { error, raw };
            throw error;
          }
        };
      }
      made[name] = wrapped = out;
    }
    return wrapped;
  };
  const session = {} as StorageSession;
  for (const name of REPOSITORY_NAMES)
    Object.defineProperty(session, name, { get: () => repo(name), enumerable: true });
  return {
    session,
    get failure() {
      return failure;
    },
    end: () => {
      active = false;
    },
  };
}
