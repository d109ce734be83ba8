import assert from 'node:assert/strict';
import { isMediaAgentError } from '../errors';
import type { ApprovalRecord, AuditRecord, GrantRecord, JsonValue, LedgerEntry, PlanRecord, PolicyRevisionRecord } from '../storage/records';
import { STORAGE_SCHEMA_VERSION, type StorageAdapter } from '../storage/storage-adapter';

/**
 * The test-framework functions the conformance suite registers its cases with: vitest's, mocha's
 * or `node:test`'s `describe` and `it` fit as they are.
 * @public
 */
export interface ConformanceTestApi {
  /** Declares a group of cases; `fn` registers them synchronously. */
  describe(name: string, fn: () => void): unknown;
  /** Declares one case; `fn` rejects when the case fails. */
  it(name: string, fn: () => Promise<void>): unknown;
}

/**
 * Creates a fresh, empty, not yet migrated adapter for one case.
 * `cleanup` (optional) runs after the case has closed the adapter, e.g. to delete a temp file.
 * @public
 */
export type StorageConformanceFactory = () => Promise<{ storage: StorageAdapter; cleanup?: () => Promise<void> }>;

const SCOPE = 'run:conformance';

/** A complete ledger entry with every nullable field null; override what the case needs. */
function ledgerEntry(overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    key: 'cap.test:v1:run:conformance:hash-0',
    capabilityId: 'cap.test',
    capabilityVersion: 1,
    scopeId: SCOPE,
    callId: null,
    argsHash: 'hash-0',
    state: 'running',
    token: 'token-1',
    actor: 'agent:run-1',
    invocationId: 'inv-1',
    runId: null,
    taskId: null,
    approvalId: null,
    grantId: null,
    bytes: 0,
    output: null,
    error: null,
    inputSummary: '{}',
    attempts: 1,
    claimedAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    settledAt: null,
    ...overrides,
  };
}

function approval(overrides: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return {
    id: 'appr-1',
    planType: 'download',
    planId: 'plan-1',
    payloadHash: 'ph-1',
    revision: 1,
    status: 'requested',
    requestedBy: 'agent:run-1',
    reason: null,
    requestedAt: 1_700_000_000_000,
    expiresAt: 1_700_000_900_000,
    decidedBy: null,
    decidedAt: null,
    consumedBy: null,
    consumedAt: null,
    ...overrides,
  };
}

function grant(overrides: Partial<GrantRecord> = {}): GrantRecord {
  return {
    id: 'grant-1',
    action: 'media.*',
    status: 'active',
    expiresAt: null,
    policyRevisionId: null,
    scope: {},
    budget: {},
    reason: null,
    createdBy: 'console:admin',
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    ...overrides,
  };
}

function plan(overrides: Partial<PlanRecord> = {}): PlanRecord {
  return {
    id: 'plan-1',
    type: 'organize',
    payload: null,
    payloadHash: 'ph-1',
    revision: 1,
    mediaEntityId: null,
    mediaKind: null,
    bytes: 0,
    createdBy: 'agent:run-1',
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    ...overrides,
  };
}

function auditRow(overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    id: 'audit-1',
    seq: 0,
    at: 1_700_000_000_000,
    action: 'capability.invoke',
    actor: 'agent:run-1',
    capabilityId: 'cap.test',
    invocationId: 'inv-1',
    runId: null,
    taskId: null,
    outcome: 'succeeded',
    approvalId: null,
    grantId: null,
    idempotencyKey: null,
    inputSummary: '{}',
    reason: null,
    ...overrides,
  };
}

const UNICODE = '整理 電影 — ünïcödé 🎬 "quotes" \\ back\nslash';

async function rejectsWithCode(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isMediaAgentError(error, code), `expected a MediaAgentError with code ${code}, got ${String((error as { code?: unknown })?.code ?? error)}`);
    return true;
  });
}

/**
 * Registers the storage conformance suite: the rules every {@link StorageAdapter} must satisfy
 * (one case per rule, titled by the rule), asserting with `node:assert/strict`.
 *
 * @remarks
 * Each case asks `factory` for a fresh, empty store, calls `migrate()` (except the migration case),
 * runs, then closes the adapter and calls `cleanup`. Use it from any framework:
 * `describeStorageConformance('sqlite', factory, { describe, it })`.
 *
 * @param name - adapter name, used as the `describe` title
 * @param factory - creates a fresh, empty, not yet migrated adapter per case
 * @param t - the framework's `describe` and `it`
 * @public
 */
export function describeStorageConformance(name: string, factory: StorageConformanceFactory, t: ConformanceTestApi): void {
  const withStorage =
    (body: (storage: StorageAdapter) => Promise<void>, options: { migrate?: boolean } = {}) =>
    async (): Promise<void> => {
      const { storage, cleanup } = await factory();
      try {
        if (options.migrate !== false) await storage.migrate();
        await body(storage);
      } finally {
        try {
          await storage.close();
        } finally {
          await cleanup?.();
        }
      }
    };

  t.describe(`StorageAdapter conformance: ${name}`, () => {
    t.it(
      'migrate() sets schemaVersion() to STORAGE_SCHEMA_VERSION and is idempotent (data survives a second migrate)',
      withStorage(
        async (s) => {
          assert.equal(await s.schemaVersion(), 0);
          await s.migrate();
          assert.equal(await s.schemaVersion(), STORAGE_SCHEMA_VERSION);
          await s.settings.set('k', 'v');
          await s.migrate();
          await s.migrate();
          assert.equal(await s.schemaVersion(), STORAGE_SCHEMA_VERSION);
          assert.equal(await s.settings.get('k'), 'v');
        },
        { migrate: false },
      ),
    );

    t.it(
      'ledger round-trips every field (nulls, JSON output and error, unicode)',
      withStorage(async (s) => {
        const bare = ledgerEntry({ key: 'k-bare' });
        const full = ledgerEntry({
          key: `k-full-${UNICODE}`,
          capabilityId: 'media.organize',
          capabilityVersion: 3,
          scopeId: `task:${UNICODE}`,
          callId: 'call_01',
          argsHash: 'a'.repeat(64),
          state: 'failed',
          token: 'tok-π',
          actor: 'api-key:key-1',
          invocationId: 'inv-full',
          runId: 'run-9',
          taskId: 'task-7',
          approvalId: 'appr-3',
          grantId: 'grant-2',
          bytes: 52_428_800_000,
          output: { files: [{ name: UNICODE, size: 1.5, ok: true, none: null }], count: -3, nested: [[], {}] },
          error: { code: 'HOST_REJECTED', message: UNICODE },
          inputSummary: JSON.stringify({ path: UNICODE, token: '[redacted]' }),
          attempts: 4,
          claimedAt: 1_700_000_000_123,
          updatedAt: 1_700_000_000_456,
          settledAt: 1_700_000_000_789,
        });
        assert.equal(await s.ledger.insert(bare), true);
        assert.equal(await s.ledger.insert(full), true);
        assert.deepEqual(await s.ledger.get(bare.key), bare);
        assert.deepEqual(await s.ledger.get(full.key), full);
        assert.equal(await s.ledger.get('missing'), undefined);
        const primitiveOutput = ledgerEntry({ key: 'k-prim', output: 'just a string', state: 'pending' });
        await s.ledger.insert(primitiveOutput);
        assert.deepEqual(await s.ledger.get('k-prim'), primitiveOutput);
      }),
    );

    t.it(
      'approvals round-trip every field (nulls, unicode)',
      withStorage(async (s) => {
        const bare = approval({ id: 'appr-bare' });
        const full = approval({
          id: 'appr-full',
          planType: 'organize',
          planId: `plan-${UNICODE}`,
          payloadHash: 'f'.repeat(64),
          revision: 7,
          status: 'consumed',
          requestedBy: 'api-key:k',
          reason: UNICODE,
          decidedBy: 'console:admin',
          decidedAt: 1_700_000_000_500,
          consumedBy: 'inv-9',
          consumedAt: 1_700_000_000_600,
        });
        await s.approvals.insert(bare);
        await s.approvals.insert(full);
        assert.deepEqual(await s.approvals.get('appr-bare'), bare);
        assert.deepEqual(await s.approvals.get('appr-full'), full);
        assert.equal(await s.approvals.get('missing'), undefined);
      }),
    );

    t.it(
      'grants round-trip every field (nulls, JSON scope and budget, unicode)',
      withStorage(async (s) => {
        const bare = grant({ id: 'grant-bare' });
        const full = grant({
          id: 'grant-full',
          action: 'policy.acquisition',
          status: 'revoked',
          expiresAt: 1_700_086_400_000,
          policyRevisionId: 'pol-3',
          scope: { mediaEntityIds: ['tmdb:1', UNICODE], mediaKinds: ['movie', 'tv'], capabilities: ['media.*'] },
          budget: { maxInvocationsPerDay: 20, maxBytesPerDay: 107_374_182_400 },
          reason: UNICODE,
        });
        await s.grants.insert(bare);
        await s.grants.insert(full);
        assert.deepEqual(await s.grants.get('grant-bare'), bare);
        assert.deepEqual(await s.grants.get('grant-full'), full);
        assert.equal(await s.grants.get('missing'), undefined);
      }),
    );

    t.it(
      'plans round-trip every field (nulls, JSON payload, unicode)',
      withStorage(async (s) => {
        const bare = plan({ id: 'plan-bare' });
        const full = plan({
          id: 'plan-full',
          type: 'download',
          payload: { title: UNICODE, items: [1, 2.25, 'x', false, null, { deep: { er: [UNICODE] } }] },
          payloadHash: 'c'.repeat(64),
          revision: 2,
          mediaEntityId: 'tmdb:603',
          mediaKind: 'movie',
          bytes: 8_000_000_000,
          createdBy: UNICODE,
        });
        await s.plans.insert(bare);
        await s.plans.insert(full);
        assert.deepEqual(await s.plans.get('plan-bare'), bare);
        assert.deepEqual(await s.plans.get('plan-full'), full);
        assert.equal(await s.plans.get('missing'), undefined);
      }),
    );

    t.it(
      'policies round-trip every field; put replaces; listByKind is oldest first',
      withStorage(async (s) => {
        const a: PolicyRevisionRecord = { id: 'pol-b', kind: UNICODE, status: 'draft', createdAt: 2, updatedAt: 2 };
        const b: PolicyRevisionRecord = { id: 'pol-a', kind: UNICODE, status: 'published', createdAt: 1, updatedAt: 5 };
        const other: PolicyRevisionRecord = { id: 'pol-c', kind: 'automation', status: 'retired', createdAt: 0, updatedAt: 0 };
        await s.policies.put(a);
        await s.policies.put(b);
        await s.policies.put(other);
        assert.deepEqual(await s.policies.get('pol-b'), a);
        assert.equal(await s.policies.get('missing'), undefined);
        assert.deepEqual(await s.policies.listByKind(UNICODE), [b, a]);
        const published = { ...a, status: 'published' as const, updatedAt: 9 };
        await s.policies.put(published);
        assert.deepEqual(await s.policies.get('pol-b'), published);
        assert.deepEqual(await s.policies.listByKind(UNICODE), [b, published]);
        assert.deepEqual(await s.policies.listByKind('nothing'), []);
      }),
    );

    t.it(
      'audit rows round-trip every field (nulls, unicode) with a storage-assigned seq',
      withStorage(async (s) => {
        const full = auditRow({
          id: 'audit-full',
          action: 'capability.denied',
          actor: 'automation:grant-1',
          capabilityId: 'media.download',
          invocationId: 'inv-7',
          runId: 'run-1',
          taskId: 'task-1',
          outcome: 'denied',
          approvalId: 'appr-1',
          grantId: 'grant-1',
          idempotencyKey: 'media.download:v1:run-1:abc',
          inputSummary: JSON.stringify({ title: UNICODE, apiKey: '[redacted]' }),
          reason: UNICODE,
        });
        const bare = auditRow({ id: 'audit-bare' });
        const storedFull = await s.audit.append(full);
        const storedBare = await s.audit.append(bare);
        assert.ok(storedFull.seq > 0);
        assert.deepEqual(storedFull, { ...full, seq: storedFull.seq });
        assert.deepEqual(storedBare, { ...bare, seq: storedBare.seq });
        assert.deepEqual(await s.audit.list(), [storedFull, storedBare]);
      }),
    );

    t.it(
      'settings round-trip any JSON value (null, boolean, number, unicode string, nested) and set overwrites',
      withStorage(async (s) => {
        const values: JsonValue[] = [null, true, false, 0, -12.5, 1e21, UNICODE, [], {}, { a: [1, { b: null, c: UNICODE }], d: { e: false } }];
        for (const [i, v] of values.entries()) await s.settings.set(`key-${i}`, v);
        for (const [i, v] of values.entries()) assert.deepEqual(await s.settings.get(`key-${i}`), v);
        assert.equal(await s.settings.get('missing'), undefined);
        await s.settings.set('key-0', { replaced: true });
        assert.deepEqual(await s.settings.get('key-0'), { replaced: true });
      }),
    );

    t.it(
      'stored records are copies: mutating an inserted or returned object does not change the store',
      withStorage(async (s) => {
        const g = grant({ scope: { mediaKinds: ['movie'] } });
        await s.grants.insert(g);
        g.scope.mediaKinds!.push('tv');
        const read = await s.grants.get(g.id);
        assert.deepEqual(read?.scope, { mediaKinds: ['movie'] });
        read!.scope.mediaKinds!.push('anime');
        assert.deepEqual((await s.grants.get(g.id))?.scope, { mediaKinds: ['movie'] });
      }),
    );

    t.it(
      'inserting an existing id into approvals, grants, plans or audit rejects and keeps the original',
      withStorage(async (s) => {
        await s.approvals.insert(approval());
        await assert.rejects(s.approvals.insert(approval({ reason: 'second' })));
        assert.equal((await s.approvals.get('appr-1'))?.reason, null);
        await s.grants.insert(grant());
        await assert.rejects(s.grants.insert(grant({ reason: 'second' })));
        assert.equal((await s.grants.get('grant-1'))?.reason, null);
        await s.plans.insert(plan());
        await assert.rejects(s.plans.insert(plan({ revision: 9 })));
        assert.equal((await s.plans.get('plan-1'))?.revision, 1);
        await s.audit.append(auditRow());
        await assert.rejects(s.audit.append(auditRow({ outcome: 'failed' })));
        assert.deepEqual(
          (await s.audit.list()).map((r) => r.outcome),
          ['succeeded'],
        );
      }),
    );

    t.it(
      'ledger insert of an existing key returns false and changes nothing',
      withStorage(async (s) => {
        const first = ledgerEntry({ key: 'k', token: 'tok-a', callId: 'call-1' });
        assert.equal(await s.ledger.insert(first), true);
        assert.equal(await s.ledger.insert(ledgerEntry({ key: 'k', token: 'tok-b', state: 'succeeded', callId: 'call-2', attempts: 5 })), false);
        assert.deepEqual(await s.ledger.get('k'), first);
        assert.equal(await s.ledger.findByCall(SCOPE, 'call-2'), undefined);
      }),
    );

    t.it(
      'ledger insert of an existing (scopeId, callId) under another key returns false and changes nothing',
      withStorage(async (s) => {
        const first = ledgerEntry({ key: 'k1', callId: 'call-1' });
        assert.equal(await s.ledger.insert(first), true);
        assert.equal(await s.ledger.insert(ledgerEntry({ key: 'k2', callId: 'call-1', argsHash: 'other' })), false);
        assert.equal(await s.ledger.get('k2'), undefined);
        assert.deepEqual(await s.ledger.findByCall(SCOPE, 'call-1'), first);
        // same call id in another scope, and several entries without a call id, are fine
        assert.equal(await s.ledger.insert(ledgerEntry({ key: 'k3', scopeId: 'run:other', callId: 'call-1' })), true);
        assert.equal(await s.ledger.insert(ledgerEntry({ key: 'k4', callId: null })), true);
        assert.equal(await s.ledger.insert(ledgerEntry({ key: 'k5', callId: null })), true);
      }),
    );

    t.it(
      'ledger compareAndSet refuses a wrong token and a wrong state, and applies with the right ones',
      withStorage(async (s) => {
        const entry = ledgerEntry({ key: 'k', token: 'tok-1' });
        await s.ledger.insert(entry);
        const settle = { state: 'succeeded' as const, output: { ok: UNICODE }, settledAt: 5, updatedAt: 5 };
        assert.equal(await s.ledger.compareAndSet('k', 'tok-stale', settle), false);
        assert.equal(await s.ledger.compareAndSet('k', 'tok-1', settle, ['pending', 'unknown']), false);
        assert.equal(await s.ledger.compareAndSet('missing', 'tok-1', settle), false);
        assert.deepEqual(await s.ledger.get('k'), entry);
        assert.equal(await s.ledger.compareAndSet('k', 'tok-1', settle, ['running']), true);
        assert.deepEqual(await s.ledger.get('k'), { ...entry, ...settle });
        // token rotation: the old token can no longer write
        assert.equal(await s.ledger.compareAndSet('k', 'tok-1', { token: 'tok-2', state: 'unknown', error: { code: 'X', message: 'y' } }), true);
        assert.equal(await s.ledger.compareAndSet('k', 'tok-1', { state: 'failed' }), false);
        assert.equal((await s.ledger.get('k'))?.state, 'unknown');
        // without expectedStates any state matches; undefined patch fields and `key` are ignored
        assert.equal(await s.ledger.compareAndSet('k', 'tok-2', { state: 'failed', output: undefined, key: 'other' }), true);
        const after = await s.ledger.get('k');
        assert.equal(after?.state, 'failed');
        assert.deepEqual(after?.output, { ok: UNICODE });
        assert.deepEqual(after?.error, { code: 'X', message: 'y' });
        assert.equal(await s.ledger.get('other'), undefined);
      }),
    );

    t.it(
      'ledger findByCall finds the entry by (scopeId, callId) only',
      withStorage(async (s) => {
        const a = ledgerEntry({ key: 'ka', callId: 'call-a' });
        const b = ledgerEntry({ key: 'kb', callId: 'call-b', scopeId: 'task:1' });
        await s.ledger.insert(a);
        await s.ledger.insert(b);
        await s.ledger.insert(ledgerEntry({ key: 'kn', callId: null }));
        assert.deepEqual(await s.ledger.findByCall(SCOPE, 'call-a'), a);
        assert.deepEqual(await s.ledger.findByCall('task:1', 'call-b'), b);
        assert.equal(await s.ledger.findByCall('task:1', 'call-a'), undefined);
        assert.equal(await s.ledger.findByCall(SCOPE, 'call-b'), undefined);
        assert.equal(await s.ledger.findByCall(SCOPE, 'missing'), undefined);
      }),
    );

    t.it(
      'ledger listByState returns entries in the given states, oldest claim first, honouring claimedBefore and limit',
      withStorage(async (s) => {
        const rows = [
          ledgerEntry({ key: 'k-3', state: 'running', claimedAt: 300 }),
          ledgerEntry({ key: 'k-1', state: 'unknown', claimedAt: 100, settledAt: 150 }),
          ledgerEntry({ key: 'k-2b', state: 'running', claimedAt: 200 }),
          ledgerEntry({ key: 'k-2a', state: 'running', claimedAt: 200 }),
          ledgerEntry({ key: 'k-4', state: 'succeeded', claimedAt: 50, settledAt: 60 }),
        ];
        for (const r of rows) await s.ledger.insert(r);
        const keys = (list: LedgerEntry[]) => list.map((e) => e.key);
        assert.deepEqual(keys(await s.ledger.listByState(['running'])), ['k-2a', 'k-2b', 'k-3']);
        assert.deepEqual(keys(await s.ledger.listByState(['running', 'unknown'])), ['k-1', 'k-2a', 'k-2b', 'k-3']);
        assert.deepEqual(keys(await s.ledger.listByState(['running', 'unknown'], { claimedBefore: 200 })), ['k-1']);
        assert.deepEqual(keys(await s.ledger.listByState(['running', 'unknown'], { claimedBefore: 201 })), ['k-1', 'k-2a', 'k-2b']);
        assert.deepEqual(keys(await s.ledger.listByState(['running', 'unknown', 'succeeded'], { limit: 2 })), ['k-4', 'k-1']);
        assert.deepEqual(await s.ledger.listByState(['failed']), []);
        assert.deepEqual(await s.ledger.listByState([]), []);
        assert.deepEqual((await s.ledger.listByState(['succeeded']))[0], rows[4]);
      }),
    );

    t.it(
      'ledger usageForGrant counts claims and bytes of that grant with claimedAt in [from, to) only',
      withStorage(async (s) => {
        const day = 86_400_000;
        const rows = [
          ledgerEntry({ key: 'before', grantId: 'g', claimedAt: day - 1, bytes: 1 }),
          ledgerEntry({ key: 'start', grantId: 'g', claimedAt: day, bytes: 10 }),
          ledgerEntry({ key: 'mid', grantId: 'g', claimedAt: day + 5, bytes: 100, state: 'failed', settledAt: day + 6 }),
          ledgerEntry({ key: 'end', grantId: 'g', claimedAt: 2 * day, bytes: 1000 }),
          ledgerEntry({ key: 'other', grantId: 'g2', claimedAt: day + 1, bytes: 10_000 }),
          ledgerEntry({ key: 'none', grantId: null, claimedAt: day + 1, bytes: 100_000 }),
        ];
        for (const r of rows) await s.ledger.insert(r);
        assert.deepEqual(await s.ledger.usageForGrant('g', day, 2 * day), { invocations: 2, bytes: 110 });
        assert.deepEqual(await s.ledger.usageForGrant('g', 0, 3 * day), { invocations: 4, bytes: 1111 });
        assert.deepEqual(await s.ledger.usageForGrant('g2', day, 2 * day), { invocations: 1, bytes: 10_000 });
        assert.deepEqual(await s.ledger.usageForGrant('nobody', 0, 3 * day), { invocations: 0, bytes: 0 });
      }),
    );

    t.it(
      'ledger usageForGrant follows a compare-and-set that changes the grant, deletions and rolled-back writes',
      withStorage(async (s) => {
        await s.ledger.insert(ledgerEntry({ key: 'k', grantId: 'g1', claimedAt: 10, bytes: 5, token: 't1', state: 'failed', settledAt: 11 }));
        assert.ok(await s.ledger.compareAndSet('k', 't1', { grantId: 'g2', token: 't2', state: 'running', settledAt: null }));
        assert.deepEqual(await s.ledger.usageForGrant('g1', 0, 100), { invocations: 0, bytes: 0 });
        assert.deepEqual(await s.ledger.usageForGrant('g2', 0, 100), { invocations: 1, bytes: 5 });
        await assert.rejects(
          s.transaction(async (tx) => {
            await tx.ledger.insert(ledgerEntry({ key: 'rolled-back', grantId: 'g2', claimedAt: 20, bytes: 7 }));
            await tx.ledger.compareAndSet('k', 't2', { grantId: 'g3' });
            throw new Error('boom');
          }),
          /boom/,
        );
        assert.deepEqual(await s.ledger.usageForGrant('g2', 0, 100), { invocations: 1, bytes: 5 });
        assert.deepEqual(await s.ledger.usageForGrant('g3', 0, 100), { invocations: 0, bytes: 0 });
        assert.ok(await s.ledger.compareAndSet('k', 't2', { state: 'succeeded', settledAt: 12 }));
        assert.equal(await s.ledger.deleteSettledBefore(50, ['succeeded']), 1);
        assert.deepEqual(await s.ledger.usageForGrant('g2', 0, 100), { invocations: 0, bytes: 0 });
      }),
    );

    t.it(
      'ledger deleteSettledBefore deletes only settled entries in the given states before the cutoff, never running or unknown',
      withStorage(async (s) => {
        const rows = [
          ledgerEntry({ key: 'ok-old', state: 'succeeded', settledAt: 100, callId: 'c-ok-old' }),
          ledgerEntry({ key: 'ok-new', state: 'succeeded', settledAt: 1000 }),
          ledgerEntry({ key: 'ok-cutoff', state: 'succeeded', settledAt: 500 }),
          ledgerEntry({ key: 'failed-old', state: 'failed', settledAt: 100 }),
          ledgerEntry({ key: 'pending-old', state: 'pending', settledAt: 100 }),
          ledgerEntry({ key: 'unknown-old', state: 'unknown', settledAt: 100 }),
          ledgerEntry({ key: 'running-old', state: 'running', settledAt: null, claimedAt: 1 }),
        ];
        for (const r of rows) await s.ledger.insert(r);
        assert.equal(await s.ledger.deleteSettledBefore(500, ['succeeded', 'running', 'unknown']), 1);
        const left = (await s.ledger.listByState(['running', 'succeeded', 'failed', 'pending', 'unknown'])).map((e) => e.key).sort();
        assert.deepEqual(left, ['failed-old', 'ok-cutoff', 'ok-new', 'pending-old', 'running-old', 'unknown-old']);
        assert.equal(await s.ledger.get('ok-old'), undefined);
        assert.equal(await s.ledger.findByCall(SCOPE, 'c-ok-old'), undefined);
        // the call id is free again once its entry is gone
        assert.equal(await s.ledger.insert(ledgerEntry({ key: 'ok-old-2', callId: 'c-ok-old' })), true);
        assert.equal(await s.ledger.deleteSettledBefore(10_000, ['failed', 'pending', 'unknown', 'running']), 2);
        assert.ok(await s.ledger.get('unknown-old'));
        assert.ok(await s.ledger.get('running-old'));
        assert.equal(await s.ledger.deleteSettledBefore(10_000, []), 0);
      }),
    );

    t.it(
      'approvals compareAndSet applies only on the expected status; list filters by status and plan, newest first, with limit',
      withStorage(async (s) => {
        await s.approvals.insert(approval({ id: 'a1', requestedAt: 1, planId: 'p1' }));
        await s.approvals.insert(approval({ id: 'a2', requestedAt: 3, planId: 'p1' }));
        await s.approvals.insert(approval({ id: 'a3', requestedAt: 2, planId: 'p2' }));
        await s.approvals.insert(approval({ id: 'a0', requestedAt: 3, planId: 'p2' }));
        const decide = { status: 'approved' as const, decidedBy: 'console:admin', decidedAt: 10 };
        assert.equal(await s.approvals.compareAndSet('a1', 'approved', { status: 'consumed' }), false);
        assert.equal(await s.approvals.compareAndSet('missing', 'requested', decide), false);
        assert.equal(await s.approvals.compareAndSet('a1', 'requested', decide), true);
        assert.equal(await s.approvals.compareAndSet('a1', 'requested', { status: 'rejected' }), false);
        assert.deepEqual(await s.approvals.get('a1'), approval({ id: 'a1', requestedAt: 1, planId: 'p1', ...decide }));
        assert.equal(await s.approvals.compareAndSet('a1', 'approved', { status: 'consumed', consumedBy: 'inv-1', consumedAt: 11, id: 'x' }), true);
        assert.equal((await s.approvals.get('a1'))?.status, 'consumed');
        assert.equal(await s.approvals.get('x'), undefined);
        const ids = (list: ApprovalRecord[]) => list.map((a) => a.id);
        assert.deepEqual(ids(await s.approvals.list()), ['a2', 'a0', 'a3', 'a1']);
        assert.deepEqual(ids(await s.approvals.list({ status: 'requested' })), ['a2', 'a0', 'a3']);
        assert.deepEqual(ids(await s.approvals.list({ planId: 'p2' })), ['a0', 'a3']);
        assert.deepEqual(ids(await s.approvals.list({ status: 'consumed', planId: 'p1' })), ['a1']);
        assert.deepEqual(ids(await s.approvals.list({ limit: 2 })), ['a2', 'a0']);
      }),
    );

    t.it(
      'plans compareAndSet replaces the plan only on the expected revision',
      withStorage(async (s) => {
        const v1 = plan({ payload: { step: 1 } });
        await s.plans.insert(v1);
        const v2 = plan({ payload: { step: 2, title: UNICODE }, payloadHash: 'ph-2', revision: 2, updatedAt: 2 });
        assert.equal(await s.plans.compareAndSet('plan-1', 2, v2), false);
        assert.equal(await s.plans.compareAndSet('missing', 1, { ...v2, id: 'missing' }), false);
        assert.deepEqual(await s.plans.get('plan-1'), v1);
        assert.equal(await s.plans.compareAndSet('plan-1', 1, v2), true);
        assert.deepEqual(await s.plans.get('plan-1'), v2);
        assert.equal(await s.plans.compareAndSet('plan-1', 1, plan({ revision: 3 })), false);
        assert.deepEqual(await s.plans.get('plan-1'), v2);
      }),
    );

    t.it(
      'grants update replaces the stored grant, rejects an unknown id; list filters by status, oldest first',
      withStorage(async (s) => {
        await s.grants.insert(grant({ id: 'g2', createdAt: 2 }));
        await s.grants.insert(grant({ id: 'g1', createdAt: 1 }));
        await s.grants.insert(grant({ id: 'g0', createdAt: 2 }));
        const revoked = grant({ id: 'g2', createdAt: 2, status: 'revoked', expiresAt: 50, scope: { mediaKinds: ['tv'] }, updatedAt: 9 });
        await s.grants.update(revoked);
        assert.deepEqual(await s.grants.get('g2'), revoked);
        await assert.rejects(s.grants.update(grant({ id: 'missing' })));
        assert.equal(await s.grants.get('missing'), undefined);
        const ids = (list: GrantRecord[]) => list.map((g) => g.id);
        assert.deepEqual(ids(await s.grants.list()), ['g1', 'g0', 'g2']);
        assert.deepEqual(ids(await s.grants.list({ status: 'active' })), ['g1', 'g0']);
        assert.deepEqual(ids(await s.grants.list({ status: 'revoked' })), ['g2']);
      }),
    );

    t.it(
      'audit seq increases with every append; list honours after, limit (default 100) and the action, capability and invocation filters',
      withStorage(async (s) => {
        const stored: AuditRecord[] = [];
        for (let i = 0; i < 120; i++) {
          stored.push(
            await s.audit.append(
              auditRow({
                id: `audit-${i}`,
                action: i % 3 === 0 ? 'capability.denied' : 'capability.invoke',
                capabilityId: i % 2 === 0 ? 'cap.even' : 'cap.odd',
                invocationId: `inv-${i % 10}`,
              }),
            ),
          );
        }
        for (let i = 1; i < stored.length; i++) assert.ok(stored[i]!.seq > stored[i - 1]!.seq, 'seq must increase');
        const all = await s.audit.list();
        assert.equal(all.length, 100);
        assert.deepEqual(all, stored.slice(0, 100));
        assert.deepEqual(await s.audit.list({ after: stored[99]!.seq }), stored.slice(100));
        assert.deepEqual(await s.audit.list({ after: stored[4]!.seq, limit: 3 }), stored.slice(5, 8));
        const denied = await s.audit.list({ action: 'capability.denied', limit: 1000 });
        assert.deepEqual(denied, stored.filter((_, i) => i % 3 === 0));
        const mixed = await s.audit.list({ action: 'capability.invoke', capabilityId: 'cap.even', invocationId: 'inv-2', limit: 1000 });
        assert.deepEqual(mixed, stored.filter((_, i) => i % 3 !== 0 && i % 2 === 0 && i % 10 === 2));
        assert.deepEqual(await s.audit.list({ after: stored[119]!.seq }), []);
      }),
    );

    t.it(
      'a transaction that throws rolls back every write in it, across repositories, and rethrows the error',
      withStorage(async (s) => {
        await s.ledger.insert(ledgerEntry({ key: 'existing', token: 'tok-1' }));
        await s.approvals.insert(approval());
        const auditBefore = await s.audit.list();
        const boom = new Error('boom');
        await assert.rejects(
          s.transaction(async (tx) => {
            assert.equal(await tx.ledger.insert(ledgerEntry({ key: 'new', callId: 'call-new' })), true);
            assert.equal(await tx.ledger.compareAndSet('existing', 'tok-1', { state: 'succeeded', settledAt: 1 }), true);
            assert.equal(await tx.approvals.compareAndSet('appr-1', 'requested', { status: 'approved' }), true);
            await tx.grants.insert(grant());
            await tx.plans.insert(plan());
            await tx.policies.put({ id: 'pol', kind: 'k', status: 'draft', createdAt: 1, updatedAt: 1 });
            await tx.audit.append(auditRow({ id: 'audit-tx' }));
            await tx.settings.set('automation', { enabled: true });
            // reads inside the transaction see its own writes
            assert.equal((await tx.ledger.get('existing'))?.state, 'succeeded');
            throw boom;
          }),
          (error: unknown) => error === boom,
        );
        assert.equal(await s.ledger.get('new'), undefined);
        assert.equal(await s.ledger.findByCall(SCOPE, 'call-new'), undefined);
        assert.equal((await s.ledger.get('existing'))?.state, 'running');
        assert.equal((await s.approvals.get('appr-1'))?.status, 'requested');
        assert.equal(await s.grants.get('grant-1'), undefined);
        assert.equal(await s.plans.get('plan-1'), undefined);
        assert.equal(await s.policies.get('pol'), undefined);
        assert.deepEqual(await s.audit.list(), auditBefore);
        assert.equal(await s.settings.get('automation'), undefined);
        // the adapter is still usable and a committed transaction keeps its writes and returns fn's value
        const value = await s.transaction(async (tx) => {
          await tx.settings.set('automation', { enabled: false });
          await tx.grants.insert(grant());
          return 42;
        });
        assert.equal(value, 42);
        assert.deepEqual(await s.settings.get('automation'), { enabled: false });
        assert.ok(await s.grants.get('grant-1'));
      }),
    );

    t.it(
      'concurrent transactions are serialized: 50 parallel read-modify-write increments lose no update',
      withStorage(async (s) => {
        await s.settings.set('counter', 0);
        const increment = () =>
          s.transaction(async (tx) => {
            const current = (await tx.settings.get('counter')) as number;
            await new Promise((resolve) => setTimeout(resolve, 0));
            await tx.settings.set('counter', current + 1);
          });
        await Promise.all(Array.from({ length: 50 }, increment));
        assert.equal(await s.settings.get('counter'), 50);
      }),
    );

    t.it(
      'a closed adapter rejects every call with STORAGE_CLOSED',
      withStorage(async (s) => {
        await s.settings.set('k', 1);
        await s.close();
        await rejectsWithCode(s.settings.get('k'), 'STORAGE_CLOSED');
        await rejectsWithCode(s.ledger.insert(ledgerEntry()), 'STORAGE_CLOSED');
        await rejectsWithCode(s.audit.list(), 'STORAGE_CLOSED');
        await rejectsWithCode(
          s.transaction(async () => undefined),
          'STORAGE_CLOSED',
        );
        await rejectsWithCode(s.migrate(), 'STORAGE_CLOSED');
        await rejectsWithCode(s.schemaVersion(), 'STORAGE_CLOSED');
        await s.close();
      }),
    );
  });
}
