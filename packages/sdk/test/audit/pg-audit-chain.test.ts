// The audit chain on PostgreSQL with many writers. Peer report: LanternOps/breeze#1002 — a hash chain whose
// appenders read the head without serialization forked under concurrent writes (false "tampered" alarms that hide
// real tampering). Here 4 real processes append at once, through every append path, and the chain must verify
// with every row in it; a transaction that waits for the chain's lock while holding a row lock another appender
// needs is a deadlock PostgreSQL breaks, and the adapter's retry finishes both.
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import { verifyAuditChain } from '../../src/core/audit-verify';
import type { PostgresStorage } from '../../src/postgres';
import { ledgerEntry } from '../storage/ledger-entry';
import {
  closeAdmin,
  describePostgres,
  dropSchema,
  freshSchemaName,
  PG_URL,
  pgStorage,
} from '../storage/postgres-available';
import { spawnFixture } from '../storage/child';
import type { AuditRecord } from '../../src/core/records';

let schema: string;
let stores: PostgresStorage[] = [];
afterAll(closeAdmin);

async function allRows(s: PostgresStorage): Promise<AuditRecord[]> {
  const out: AuditRecord[] = [];
  for (;;) {
    const page = await s.audit.list({ after: out[out.length - 1]?.seq ?? 0, limit: 500 });
    if (page.length === 0) return out;
    out.push(...page);
  }
}

describePostgres('audit chain on PostgreSQL: concurrent appenders', () => {
  beforeEach(async () => {
    schema = freshSchemaName('ma_chain');
    stores = [pgStorage(schema), pgStorage(schema)];
    await stores[0]!.migrate();
  });
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    await dropSchema(schema);
  });

  it('4 processes appending at once (append, appendAuditBatched, in transactions) leave one chain with every row (LanternOps/breeze#1002)', async () => {
    const ROWS = 60;
    const children = Array.from({ length: 4 }, (_, i) =>
      // (spawnFixture resolves names in test/storage/fixtures)
      spawnFixture('../../audit/fixtures/pg-audit-appender.ts', [PG_URL, schema, `p${i}`, String(ROWS)]),
    );
    for (const c of children) expect(await c.nextLine()).toBe('ready');
    for (const c of children) c.send('go');
    for (const c of children) expect(await c.nextLine()).toBe(`done ${ROWS}`);
    for (const c of children) expect(await c.exited).toBe(0);
    const rows = await allRows(stores[0]!);
    expect(rows).toHaveLength(4 * ROWS);
    expect(new Set(rows.map((r) => r.prevHash)).size).toBe(rows.length); // no two rows claim one parent: no fork
    const result = verifyAuditChain(rows);
    expect(result).toMatchObject({ ok: true, rows: 4 * ROWS, breakCount: 0 });
    // every process's rows interleave with the others' (the appends really raced), and a NUL was stored as U+FFFD
    expect(new Set(rows.slice(0, 40).map((r) => r.actor)).size).toBeGreaterThan(1);
    expect(rows.find((r) => r.id === 'p0-3')?.reason).toBe('a\uFFFDb');
  }, 120_000);

  it('a transaction waiting for the chain lock while holding a row the lock holder needs is a deadlock PostgreSQL breaks; the retry commits both', async () => {
    const [a, b] = stores as [PostgresStorage, PostgresStorage];
    await a.ledger.insert(ledgerEntry('k', { capabilityId: 'media.download' }));
    const token = (await a.ledger.get('k'))!.token;
    let aHoldsRow!: () => void;
    const rowHeld = new Promise<void>((r) => (aHoldsRow = r));
    let bHoldsChain!: () => void;
    const chainHeld = new Promise<void>((r) => (bHoldsChain = r));
    const audit = (id: string): AuditRecord => ({
      id,
      seq: 0,
      at: 1,
      action: 'capability.invoke',
      actor: 'system:test',
      capabilityId: 'media.download',
      invocationId: id,
      runId: null,
      taskId: null,
      outcome: 'succeeded',
      approvalId: null,
      grantId: null,
      idempotencyKey: null,
      inputSummary: '{}',
      reason: null,
    });
    let attemptsA = 0;
    let attemptsB = 0;
    const first = a.transaction(async (tx) => {
      attemptsA++;
      await tx.ledger.compareAndSet('k', token, { bytes: 1 }); // row lock on k
      aHoldsRow();
      await chainHeld;
      await tx.audit.append(audit(`a-${attemptsA}`)); // waits for b's chain lock
    });
    const second = b.transaction(async (tx) => {
      attemptsB++;
      await tx.audit.append(audit(`b-${attemptsB}`)); // chain lock
      bHoldsChain();
      await rowHeld;
      await tx.ledger.compareAndSet('k', token, { bytes: 2 }); // waits for a's row lock: a cycle
    });
    await Promise.all([first, second]);
    expect(attemptsA + attemptsB).toBeGreaterThan(2); // one of them was chosen as the deadlock victim and ran again
    const rows = await allRows(a);
    expect(rows).toHaveLength(2);
    expect(verifyAuditChain(rows).ok).toBe(true);
  }, 60_000);
});
