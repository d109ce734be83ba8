/**
 * Several PostgresStorage instances (each its own pool, as several processes would have) racing on one schema:
 * run leases, takeover, ledger claims, approval consumption and grant budgets stay correct.
 */
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import type { LedgerEntry } from '../../src/core/records';
import type { PostgresStorage } from '../../src/postgres';
import { closeAdmin, describePostgres, dropSchema, freshSchemaName, pgStorage } from './postgres-available';
import { ledgerEntry } from './ledger-entry';
import { runRecord } from './run-record';

const PROCESSES = 4;
let schema: string;
let stores: PostgresStorage[] = [];

afterAll(closeAdmin);

const entry = (key: string, overrides: Partial<LedgerEntry> = {}) =>
  ledgerEntry(key, { capabilityId: 'media.download', ...overrides });

describePostgres('PostgresStorage: several processes on one database', () => {
  beforeEach(async () => {
    schema = freshSchemaName('ma_race');
    stores = Array.from({ length: PROCESSES }, () => pgStorage(schema));
    await Promise.all(stores.map((s) => s.migrate()));
  });
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    await dropSchema(schema);
  });

  it('run leases: workers of 4 pools racing lease every queued run exactly once (FOR UPDATE SKIP LOCKED)', async () => {
    const RUNS = 60;
    for (let i = 0; i < RUNS; i++) await stores[0]!.runs.insert(runRecord(`r-${i}`, { createdAt: i }));
    const leased = await Promise.all(
      stores.map(async (s, p) => {
        const mine: string[] = [];
        for (;;) {
          const run = await s.runs.acquireLease(`worker-${p}`, 1_000, 60_000);
          if (!run) return mine;
          mine.push(run.id);
        }
      }),
    );
    const all = leased.flat();
    expect(all).toHaveLength(RUNS);
    expect(new Set(all).size).toBe(RUNS);
    expect(leased.filter((l) => l.length > 0).length).toBeGreaterThan(1); // the work was really shared
    const owners = await stores[0]!.runs.list({ limit: RUNS });
    for (const run of owners) expect(run.leaseOwner).toBe(`worker-${leased.findIndex((l) => l.includes(run.id))}`);
  });

  it('heartbeat and takeover across processes: a renewed lease is kept, an expired one is taken over and the old owner can no longer write', async () => {
    const [a, b] = stores as [PostgresStorage, PostgresStorage];
    await a.runs.insert(runRecord('r', { status: 'running' }));
    expect((await a.runs.acquireLease('A', 1_000, 300))?.id).toBe('r');
    expect(await b.runs.acquireLease('B', 1_200, 300)).toBeUndefined();
    expect(await a.runs.renewLease('r', 'A', 1_200, 300)).toBe(true); // heartbeat: now until 1 500
    expect(await b.runs.acquireLease('B', 1_400, 300)).toBeUndefined();
    // A stops renewing (killed); B takes the run over once the lease expired.
    const taken = await b.runs.acquireLease('B', 1_500, 300);
    expect(taken?.leaseOwner).toBe('B');
    expect(await a.runs.renewLease('r', 'A', 1_500, 300)).toBe(false);
    expect(await a.runs.patch('r', { status: 'failed' }, 'A')).toBeUndefined();
    expect((await b.runs.patch('r', { status: 'succeeded' }, 'B'))?.status).toBe('succeeded');
    expect((await a.runs.get('r'))?.status).toBe('succeeded');
  });

  it('ledger claims: 4 processes claiming the same keys concurrently — each key is claimed by exactly one', async () => {
    const KEYS = 25;
    const wins = await Promise.all(
      stores.map((s, p) =>
        Promise.all(
          Array.from({ length: KEYS }, (_, k) =>
            s.transaction(async (tx) =>
              tx.ledger.insert(entry(`key-${k}`, { token: `tok-${p}`, callId: `call-${k}`, scopeId: 'run:1' })),
            ),
          ),
        ),
      ),
    );
    for (let k = 0; k < KEYS; k++) expect(wins.filter((w) => w[k]).length, `key-${k}`).toBe(1);
    for (let k = 0; k < KEYS; k++) {
      const stored = await stores[0]!.ledger.get(`key-${k}`);
      const winner = wins.findIndex((w) => w[k]);
      expect(stored?.token).toBe(`tok-${winner}`);
    }
  });

  it('approval consumption: 4 processes consuming one approval concurrently — exactly one succeeds', async () => {
    for (let round = 0; round < 5; round++) {
      const id = `appr-${round}`;
      await stores[0]!.approvals.insert({
        id,
        planType: 'download',
        planId: 'plan-1',
        payloadHash: 'ph',
        revision: 1,
        status: 'approved',
        requestedBy: 'agent:run-1',
        reason: null,
        requestedAt: 1,
        expiresAt: 10_000,
        decidedBy: 'user:admin',
        decidedAt: 2,
        consumedBy: null,
        consumedAt: null,
        capabilityId: 'download.submit',
        impact: null,
        steps: [],
        approvedSteps: null,
        proposedPayload: null,
        proposedPayloadHash: 'ph',
        approvedPayload: null,
        executedPayloadHash: null,
      });
      const results = await Promise.all(
        stores.map((s, p) =>
          s.transaction(async (tx) => {
            const approval = await tx.approvals.get(id);
            if (approval?.status !== 'approved') return false;
            return tx.approvals.compareAndSet(id, 'approved', {
              status: 'consumed',
              consumedBy: `inv-${p}`,
              consumedAt: 3,
              executedPayloadHash: `ph-${p}`,
            });
          }),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.findIndex(Boolean);
      const consumed = await stores[1]!.approvals.get(id);
      expect(consumed?.consumedBy).toBe(`inv-${winner}`);
      expect(consumed?.executedPayloadHash).toBe(`ph-${winner}`);
    }
  });

  it('grant budgets: 4 processes charging one grant with a budget of 10 per day — exactly 10 claims are charged', async () => {
    const BUDGET = 10;
    const day = 86_400_000;
    // What the invocation path does in one transaction: read the day's counters (the budget check), then claim
    // and charge — or deny.
    const claim = (s: PostgresStorage, p: number, i: number) =>
      s.transaction(async (tx) => {
        const usage = await tx.grantUsage.get('grant-1', day);
        if (usage.invocations >= BUDGET) return false;
        const inserted = await tx.ledger.insert(entry(`claim-${p}-${i}`, { grantId: 'grant-1', claimedAt: day + 1 }));
        if (inserted) await tx.grantUsage.add('grant-1', day, 1, 100);
        return inserted;
      });
    const results = await Promise.all(
      stores.map((s, p) => Promise.all(Array.from({ length: 8 }, (_, i) => claim(s, p, i)))),
    );
    expect(results.flat().filter(Boolean)).toHaveLength(BUDGET);
    expect(await stores[0]!.grantUsage.get('grant-1', day)).toEqual({
      grantId: 'grant-1',
      day,
      invocations: BUDGET,
      bytes: BUDGET * 100,
    });
    expect(await stores[0]!.ledger.usageForGrant('grant-1', day, 2 * day)).toEqual({
      invocations: BUDGET,
      bytes: 0,
    });
  });
});
