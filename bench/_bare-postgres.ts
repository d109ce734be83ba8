// The bare `pg` baselines of the PostgreSQL rows of `npm run bench -- invoke`: the statements
// `PostgresStorage` issues per invocation, by scenario (traced from the adapter), in the same
// transactions, sent with node-postgres directly on one connection — no SDK code. Files starting with
// `_` are not benchmarks.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { RandomIdGenerator } from '../packages/sdk/src/index';
import { utcDayStart } from '../packages/sdk/src/core/utc-day';
import { PostgresStorage } from '../packages/sdk/src/postgres';

/** The invoke scenarios a bare `pg` baseline exists for. */
export type BarePgScenario = 'read' | 'execute' | 'execute, grant without budget' | 'execute, replayed';

/**
 * What each bare scenario sends per call. `read`: the run lookup of authorization, then the audit row on
 * its own (the adapter writes a read's batched audit row before its next statement when the calls come one
 * at a time). `execute`: one transaction with the authorization reads (run, automation settings, grants,
 * the grant's usage counter locked by an upsert), the claim (lookup by call id, by key, insert) and the usage
 * charge; then one with the settle (compare-and-set on the token) and the audit row. `grant without budget`:
 * the same without the usage lock. `replayed`: one transaction with the authorization reads, the lookup by
 * call id (which finds the entry) and the audit row.
 */
export const BARE_PG: Record<BarePgScenario, string> = {
  read: 'SELECT run; INSERT audit (each on its own, autocommit)',
  execute:
    'BEGIN; SELECT run, settings, grants; UPSERT usage (row lock); SELECT ledger by call, by key; INSERT ledger; UPSERT usage; COMMIT; BEGIN; UPDATE ledger; INSERT audit; COMMIT',
  'execute, grant without budget': 'as execute, without the usage lock',
  'execute, replayed':
    'BEGIN; SELECT run, settings, grants; UPSERT usage (row lock); SELECT ledger by call; INSERT audit; COMMIT',
};

/** Creates `schema` with the adapter's migrations (setup, not measured) and closes the adapter. */
export async function createBareSchema(url: string, schema: string): Promise<void> {
  const storage = new PostgresStorage({ connectionString: url, schema, poolSize: 1 });
  try {
    await storage.migrate();
  } finally {
    await storage.close();
  }
}

const LEDGER_COLUMNS =
  '"key", "capability_id", "capability_version", "scope_id", "call_id", "args_hash", "state", "token", "actor", "invocation_id", "run_id", "task_id", "approval_id", "grant_id", "bytes", "output", "error", "input_summary", "attempts", "claimed_at", "updated_at", "settled_at"';
const AUDIT_COLUMNS =
  '"id", "at", "action", "actor", "capability_id", "invocation_id", "run_id", "task_id", "outcome", "approval_id", "grant_id", "idempotency_key", "input_summary", "reason"';

/**
 * One call of `scenario` with bare `pg` on `client`, in `schema` (created by {@link createBareSchema});
 * the grant and, for `replayed`, the entries to replay are inserted first.
 * @param actor - the invoking actor; @param runId - its run; @param summary - the input summary stored per row
 */
export async function barePgOperation(
  client: pg.Client,
  schema: string,
  scenario: BarePgScenario,
  { actor, runId, summary }: { actor: string; runId: string; summary: string },
): Promise<(i: number) => Promise<void>> {
  const t = (table: string) => `"${schema}".${table}`;
  const ids = new RandomIdGenerator();
  const now = Date.now();
  const day = utcDayStart(now);
  const grantId = `grt_bare_${scenario.replace(/\W+/g, '_')}`;
  const budgeted = scenario !== 'execute, grant without budget';
  await client.query(
    `INSERT INTO ${t('grants')} (id, action, status, expires_at, policy_revision_id, scope, budget, reason, created_by, created_at, updated_at) VALUES ($1, 'bench.submit', 'active', NULL, NULL, '{}', $2, NULL, 'user:admin', $3, $3)`,
    [grantId, budgeted ? '{"maxInvocationsPerDay":10000000}' : '{}', now],
  );
  const key = (i: number) => `bench.submit:v1:${runId}:${createHash('sha256').update(String(i)).digest('hex')}`;
  const q = (text: string, values: unknown[] = []) => client.query(text, values);
  const selectRun = () => q(`SELECT * FROM ${t('runs')} WHERE "id" = $1`, [runId]);
  const authorizationReads = async () => {
    await selectRun();
    await q(`SELECT value FROM ${t('settings')} WHERE key = $1`, ['automation']);
    await q(`SELECT * FROM ${t('grants')} WHERE ($1::text IS NULL OR status = $1) ORDER BY created_at, id`, [null]);
    if (budgeted)
      await q(
        `INSERT INTO ${t('grant_usage')} AS u (grant_id, day, invocations, bytes) VALUES ($1, $2, 0, 0) ON CONFLICT (grant_id, day) DO UPDATE SET invocations = u.invocations RETURNING invocations, bytes`,
        [grantId, day],
      );
  };
  const insertLedger = (i: number, token: string) =>
    q(
      `INSERT INTO ${t('ledger')} (${LEDGER_COLUMNS}) VALUES ($1, 'bench.submit', 1, $2, $3, $4, 'running', $5, $6, $7, $2, NULL, NULL, $8, 0, NULL, NULL, $9, 1, $10, $10, NULL) ON CONFLICT DO NOTHING`,
      [key(i), runId, `c${i}`, key(i).slice(-64), token, actor, ids.next('inv'), grantId, summary, now],
    );
  const insertAudit = (capabilityId: string, idempotencyKey: string | null) =>
    q(
      `INSERT INTO ${t('audit')} (${AUDIT_COLUMNS}) VALUES ($1, $2, 'capability.invoke', $3, $4, $5, $6, NULL, 'succeeded', NULL, $7, $8, $9, NULL) RETURNING seq`,
      [
        ids.next('aud'),
        Date.now(),
        actor,
        capabilityId,
        ids.next('inv'),
        runId,
        idempotencyKey ? grantId : null,
        idempotencyKey,
        summary,
      ],
    );
  switch (scenario) {
    case 'read':
      return async () => {
        await selectRun();
        await insertAudit('bench.lookup', null);
      };
    case 'execute':
    case 'execute, grant without budget':
      return async (i) => {
        const k = key(i);
        const token = `executor~${ids.next('tok')}`;
        await q('BEGIN');
        await authorizationReads();
        await q(`SELECT * FROM ${t('ledger')} WHERE scope_id = $1 AND call_id = $2`, [runId, `c${i}`]);
        await q(`SELECT * FROM ${t('ledger')} WHERE "key" = $1`, [k]);
        await insertLedger(i, token);
        await q(
          `INSERT INTO ${t('grant_usage')} AS u (grant_id, day, invocations, bytes) VALUES ($1, $2, $3, $4) ON CONFLICT (grant_id, day) DO UPDATE SET invocations = u.invocations + excluded.invocations, bytes = u.bytes + excluded.bytes RETURNING invocations, bytes`,
          [grantId, day, 1, 0],
        );
        await q('COMMIT');
        await q('BEGIN');
        const settled = await q(
          `UPDATE ${t('ledger')} SET "error" = $1, "output" = $2, "settled_at" = $3, "state" = $4, "updated_at" = $3 WHERE key = $5 AND token = $6 AND state = ANY($7)`,
          [null, JSON.stringify({ jobId: `job-${i}`, accepted: true }), Date.now(), 'succeeded', k, token, ['running']],
        );
        if (settled.rowCount !== 1) throw new Error(`bare pg: settle of ${k} changed ${settled.rowCount} rows`);
        await insertAudit('bench.submit', k);
        await q('COMMIT');
      };
    case 'execute, replayed': {
      // Entries to replay, claimed beforehand.
      const seeded = 1000;
      await q('BEGIN');
      for (let i = 0; i < seeded; i++) await insertLedger(i, `executor~${ids.next('tok')}`);
      await q('COMMIT');
      return async (i) => {
        const n = i % seeded;
        await q('BEGIN');
        await authorizationReads();
        const found = await q(`SELECT * FROM ${t('ledger')} WHERE scope_id = $1 AND call_id = $2`, [runId, `c${n}`]);
        if (found.rowCount !== 1) throw new Error(`bare pg: no ledger entry for call c${n}`);
        await insertAudit('bench.submit', key(n));
        await q('COMMIT');
      };
    }
  }
}
