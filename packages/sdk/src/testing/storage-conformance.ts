import assert from 'node:assert/strict';
import type { ErrorCode } from '../core/error-codes';
import { isMediaAgentError } from '../core/errors';
import type {
  ApprovalRecord,
  AuditRecord,
  GrantRecord,
  JsonValue,
  LedgerEntry,
  PlanRecord,
  PolicyRevisionRecord,
} from '../core/records';
import type { DecisionRecord, InboxRecord, RunEventRecord, RunRecord } from '../core/run-records';
import type { BudgetReservation } from '../core/budget-records';
import { STORAGE_SCHEMA_VERSION, type StorageAdapter } from '../ports/storage-adapter';

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

function runRecord(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    id: 'run-1',
    goal: 'add a film',
    mode: 'execute',
    status: 'queued',
    step: 'drive',
    startedBy: 'user:alice',
    origin: 'interactive',
    parentRunId: null,
    depth: 0,
    runtimeState: null,
    sessionId: null,
    capabilityAllowlist: null,
    budgets: {},
    usage: { toolCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, modelCalls: 0 },
    checklist: null,
    report: null,
    finalText: null,
    error: null,
    abortRequested: false,
    abortReason: null,
    wakeRequested: false,
    leaseOwner: null,
    leaseExpiresAt: null,
    notBefore: null,
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    startedAt: null,
    endedAt: null,
    ...overrides,
  };
}

function inboxRecord(overrides: Partial<InboxRecord> = {}): InboxRecord {
  return {
    id: 'msg-1',
    runId: 'run-1',
    text: 'also get subtitles',
    actor: 'user:alice',
    status: 'queued',
    createdAt: 10,
    appliedAt: null,
    ...overrides,
  };
}

function decision(overrides: Partial<DecisionRecord> = {}): DecisionRecord {
  return {
    id: 'dec-1',
    kind: 'agent_budget',
    dedupeKey: 'agent_budget:run-1',
    subjectId: 'run-1',
    status: 'open',
    reason: 'maxToolCalls exceeded',
    evidence: {},
    subjectType: 'run',
    rootCause: null,
    options: [],
    raisedBy: 'agent:run-1',
    resolvedBy: null,
    resolution: null,
    revision: 1,
    createdAt: 10,
    updatedAt: 10,
    resolvedAt: null,
    ...overrides,
  };
}

const UNICODE = '整理 電影 — ünïcödé 🎬 "quotes" \\ back\nslash';

async function rejectsWithCode(promise: Promise<unknown>, code: ErrorCode): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(
      isMediaAgentError(error, code),
      `expected a MediaAgentError with code ${code}, got ${String((error as { code?: unknown })?.code ?? error)}`,
    );
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
export function describeStorageConformance(
  name: string,
  factory: StorageConformanceFactory,
  t: ConformanceTestApi,
): void {
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
        const other: PolicyRevisionRecord = {
          id: 'pol-c',
          kind: 'automation',
          status: 'retired',
          createdAt: 0,
          updatedAt: 0,
        };
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
        const values: JsonValue[] = [
          null,
          true,
          false,
          0,
          -12.5,
          1e21,
          UNICODE,
          [],
          {},
          { a: [1, { b: null, c: UNICODE }], d: { e: false } },
        ];
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
        assert.equal(
          await s.ledger.insert(
            ledgerEntry({ key: 'k', token: 'tok-b', state: 'succeeded', callId: 'call-2', attempts: 5 }),
          ),
          false,
        );
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
        assert.equal(
          await s.ledger.compareAndSet('k', 'tok-1', {
            token: 'tok-2',
            state: 'unknown',
            error: { code: 'X', message: 'y' },
          }),
          true,
        );
        assert.equal(await s.ledger.compareAndSet('k', 'tok-1', { state: 'failed' }), false);
        assert.equal((await s.ledger.get('k'))?.state, 'unknown');
        // without expectedStates any state matches; undefined patch fields and `key` are ignored
        assert.equal(
          await s.ledger.compareAndSet('k', 'tok-2', { state: 'failed', output: undefined, key: 'other' }),
          true,
        );
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
        assert.deepEqual(keys(await s.ledger.listByState(['running', 'unknown'], { claimedBefore: 201 })), [
          'k-1',
          'k-2a',
          'k-2b',
        ]);
        assert.deepEqual(keys(await s.ledger.listByState(['running', 'unknown', 'succeeded'], { limit: 2 })), [
          'k-4',
          'k-1',
        ]);
        assert.deepEqual(await s.ledger.listByState(['failed']), []);
        assert.deepEqual(await s.ledger.listByState([]), []);
        assert.deepEqual((await s.ledger.listByState(['succeeded']))[0], rows[4]);
      }),
    );

    t.it(
      'ledger listByRun returns the entries one run claimed, oldest claim first, honouring limit (default 100)',
      withStorage(async (s) => {
        const rows = [
          ledgerEntry({ key: 'r-2', runId: 'run-a', callId: 'c2', claimedAt: 200 }),
          ledgerEntry({ key: 'r-1', runId: 'run-a', callId: 'c1', claimedAt: 100, state: 'unknown' }),
          ledgerEntry({ key: 'r-x', runId: 'run-b', callId: 'cx', claimedAt: 50 }),
          ledgerEntry({ key: 'r-n', runId: null, callId: 'cn', claimedAt: 10 }),
        ];
        for (const r of rows) await s.ledger.insert(r);
        const keys = (list: LedgerEntry[]) => list.map((e) => e.key);
        assert.deepEqual(keys(await s.ledger.listByRun('run-a')), ['r-1', 'r-2']);
        assert.deepEqual(keys(await s.ledger.listByRun('run-a', { limit: 1 })), ['r-1']);
        assert.deepEqual(await s.ledger.listByRun('run-b'), [rows[2]]);
        assert.deepEqual(await s.ledger.listByRun('run-none'), []);
        for (let i = 0; i < 101; i++)
          await s.ledger.insert(
            ledgerEntry({ key: `m-${i}`, runId: 'run-many', callId: `m${i}`, claimedAt: 1000 + i }),
          );
        assert.equal((await s.ledger.listByRun('run-many')).length, 100);
      }),
    );

    t.it(
      'ledger usageForGrant counts claims and bytes of that grant with claimedAt in [from, to) only',
      withStorage(async (s) => {
        const day = 86_400_000;
        const rows = [
          ledgerEntry({ key: 'before', grantId: 'g', claimedAt: day - 1, bytes: 1 }),
          ledgerEntry({ key: 'start', grantId: 'g', claimedAt: day, bytes: 10 }),
          ledgerEntry({
            key: 'mid',
            grantId: 'g',
            claimedAt: day + 5,
            bytes: 100,
            state: 'failed',
            settledAt: day + 6,
          }),
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
        await s.ledger.insert(
          ledgerEntry({
            key: 'k',
            grantId: 'g1',
            claimedAt: 10,
            bytes: 5,
            token: 't1',
            state: 'failed',
            settledAt: 11,
          }),
        );
        assert.ok(
          await s.ledger.compareAndSet('k', 't1', { grantId: 'g2', token: 't2', state: 'running', settledAt: null }),
        );
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
        const left = (await s.ledger.listByState(['running', 'succeeded', 'failed', 'pending', 'unknown']))
          .map((e) => e.key)
          .sort();
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
        assert.equal(
          await s.approvals.compareAndSet('a1', 'approved', {
            status: 'consumed',
            consumedBy: 'inv-1',
            consumedAt: 11,
            id: 'x',
          }),
          true,
        );
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
        const revoked = grant({
          id: 'g2',
          createdAt: 2,
          status: 'revoked',
          expiresAt: 50,
          scope: { mediaKinds: ['tv'] },
          updatedAt: 9,
        });
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
        assert.deepEqual(
          denied,
          stored.filter((_, i) => i % 3 === 0),
        );
        const mixed = await s.audit.list({
          action: 'capability.invoke',
          capabilityId: 'cap.even',
          invocationId: 'inv-2',
          limit: 1000,
        });
        assert.deepEqual(
          mixed,
          stored.filter((_, i) => i % 3 !== 0 && i % 2 === 0 && i % 10 === 2),
        );
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
            assert.equal(
              await tx.ledger.compareAndSet('existing', 'tok-1', { state: 'succeeded', settledAt: 1 }),
              true,
            );
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
      'runs round-trip every field (nulls, JSON budgets, usage, plan, report and error, booleans, unicode); stored runs are copies',
      withStorage(async (s) => {
        const bare = runRecord({ id: 'run-bare' });
        const full = runRecord({
          id: `run-${UNICODE}`,
          goal: UNICODE,
          mode: 'plan_only',
          status: 'budget_exceeded',
          step: 'finalize',
          startedBy: 'apikey:key-1',
          sessionId: `session-${UNICODE}`,
          capabilityAllowlist: ['media.search', UNICODE],
          budgets: { maxToolCalls: 20, maxCostUsdPerRun: 0.75, maxDurationSec: null },
          usage: { toolCalls: 21, inputTokens: 12_345, outputTokens: 678, costUsd: 0.8125, modelCalls: 9 },
          checklist: {
            goal: UNICODE,
            steps: [
              { title: 'search', status: 'completed', evidence: 'found 3' },
              { title: 'x', status: 'blocked', evidence: null },
            ],
          },
          report: { outcome: 'failed', facts: [1, 2.5, true, null, { deep: [UNICODE] }] },
          finalText: UNICODE,
          error: { code: 'BUDGET_EXCEEDED', message: UNICODE },
          abortRequested: true,
          abortReason: UNICODE,
          wakeRequested: true,
          leaseOwner: 'worker-π',
          leaseExpiresAt: 1_700_000_030_000,
          notBefore: 1_700_000_060_000,
          createdAt: 1_700_000_000_001,
          updatedAt: 1_700_000_000_002,
          startedAt: 1_700_000_000_003,
          endedAt: 1_700_000_000_004,
        });
        await s.runs.insert(bare);
        await s.runs.insert(full);
        assert.deepEqual(await s.runs.get('run-bare'), bare);
        assert.deepEqual(await s.runs.get(full.id), full);
        assert.equal(await s.runs.get('missing'), undefined);
        const primitives = runRecord({ id: 'run-prim', budgets: 'none', checklist: 'just text', report: 42 });
        await s.runs.insert(primitives);
        assert.deepEqual(await s.runs.get('run-prim'), primitives);
        full.capabilityAllowlist!.push('mutated');
        const read = await s.runs.get(`run-${UNICODE}`);
        assert.deepEqual(read?.capabilityAllowlist, ['media.search', UNICODE]);
        read!.usage.toolCalls = 999;
        assert.equal((await s.runs.get(`run-${UNICODE}`))?.usage.toolCalls, 21);
      }),
    );

    t.it(
      'runs insert of an existing id rejects and keeps the original',
      withStorage(async (s) => {
        await s.runs.insert(runRecord());
        await assert.rejects(s.runs.insert(runRecord({ goal: 'second' })));
        assert.equal((await s.runs.get('run-1'))?.goal, 'add a film');
      }),
    );

    t.it(
      'runs patch applies only the given fields (undefined fields and id ignored) and returns the updated run; a missing run gives undefined',
      withStorage(async (s) => {
        const run = runRecord({ sessionId: 's1', finalText: 'keep' });
        await s.runs.insert(run);
        const patch = {
          status: 'running' as const,
          startedAt: 5,
          updatedAt: 5,
          usage: { ...run.usage, toolCalls: 2, costUsd: 0.25 },
          checklist: { goal: UNICODE },
          wakeRequested: true,
        };
        const updated = await s.runs.patch('run-1', {
          ...patch,
          finalText: undefined,
          id: 'other',
        } as Partial<RunRecord>);
        const expected = { ...run, ...patch };
        assert.deepEqual(updated, expected);
        assert.deepEqual(await s.runs.get('run-1'), expected);
        assert.equal(await s.runs.get('other'), undefined);
        // null is a value: it clears the field
        assert.deepEqual(await s.runs.patch('run-1', { sessionId: null, checklist: null, wakeRequested: false }), {
          ...expected,
          sessionId: null,
          checklist: null,
          wakeRequested: false,
        });
        assert.deepEqual(await s.runs.patch('run-1', {}), {
          ...expected,
          sessionId: null,
          checklist: null,
          wakeRequested: false,
        });
        assert.equal(await s.runs.patch('missing', { status: 'failed' }), undefined);
        assert.equal(await s.runs.get('missing'), undefined);
      }),
    );

    t.it(
      'runs patch with expectLeaseOwner applies only while that worker holds the lease',
      withStorage(async (s) => {
        await s.runs.insert(runRecord());
        assert.equal(await s.runs.patch('run-1', { status: 'running' }, 'w1'), undefined);
        assert.equal((await s.runs.get('run-1'))?.status, 'queued');
        assert.equal((await s.runs.acquireLease('w1', 100, 1_000))?.id, 'run-1');
        assert.equal(await s.runs.patch('run-1', { status: 'running' }, 'w2'), undefined);
        assert.equal(
          (await s.runs.patch('run-1', { status: 'running', step: 'goal_settled' }, 'w1'))?.step,
          'goal_settled',
        );
        // once another worker took over, the old owner can no longer write
        assert.equal((await s.runs.acquireLease('w2', 1_100, 1_000))?.leaseOwner, 'w2');
        assert.equal(await s.runs.patch('run-1', { status: 'failed' }, 'w1'), undefined);
        assert.equal((await s.runs.get('run-1'))?.status, 'running');
        assert.equal((await s.runs.patch('run-1', { status: 'succeeded', endedAt: 9 }, 'w2'))?.status, 'succeeded');
        assert.equal(await s.runs.patch('missing', { status: 'failed' }, 'w2'), undefined);
      }),
    );

    t.it(
      'runs list is newest first (createdAt, then id), filters by status, session and starter, and honours limit',
      withStorage(async (s) => {
        await s.runs.insert(runRecord({ id: 'r1', createdAt: 1, sessionId: 'a' }));
        await s.runs.insert(runRecord({ id: 'r3', createdAt: 3, status: 'succeeded', sessionId: 'b' }));
        await s.runs.insert(runRecord({ id: 'r2b', createdAt: 2, sessionId: 'a' }));
        await s.runs.insert(runRecord({ id: 'r2a', createdAt: 2, status: 'waiting' }));
        const ids = (list: RunRecord[]) => list.map((r) => r.id);
        assert.deepEqual(ids(await s.runs.list()), ['r3', 'r2b', 'r2a', 'r1']);
        assert.deepEqual(ids(await s.runs.list({ status: 'queued' })), ['r2b', 'r1']);
        assert.deepEqual(ids(await s.runs.list({ sessionId: 'a' })), ['r2b', 'r1']);
        assert.deepEqual(ids(await s.runs.list({ sessionId: 'a', status: 'succeeded' })), []);
        assert.deepEqual(ids(await s.runs.list({ limit: 2 })), ['r3', 'r2b']);
        await s.runs.insert(runRecord({ id: 'r4', createdAt: 4, startedBy: 'user:bob' }));
        assert.deepEqual(ids(await s.runs.list({ startedBy: 'user:bob' })), ['r4']);
        assert.deepEqual(ids(await s.runs.list({ startedBy: 'user:bob', status: 'succeeded' })), []);
        assert.deepEqual(ids(await s.runs.list({ startedBy: 'user:carol' })), []);
        assert.deepEqual(
          (await s.runs.list({ status: 'succeeded' }))[0],
          runRecord({ id: 'r3', createdAt: 3, status: 'succeeded', sessionId: 'b' }),
        );
      }),
    );

    t.it(
      'acquireLease leases queued runs first-come (createdAt, then id), setting leaseOwner and leaseExpiresAt = now + leaseMs',
      withStorage(async (s) => {
        await s.runs.insert(runRecord({ id: 'r-late', createdAt: 30 }));
        await s.runs.insert(runRecord({ id: 'r-b', createdAt: 20 }));
        await s.runs.insert(runRecord({ id: 'r-a', createdAt: 20 }));
        await s.runs.insert(runRecord({ id: 'r-first', createdAt: 10 }));
        const first = await s.runs.acquireLease('w1', 1_000, 500);
        assert.deepEqual(first, runRecord({ id: 'r-first', createdAt: 10, leaseOwner: 'w1', leaseExpiresAt: 1_500 }));
        assert.deepEqual(await s.runs.get('r-first'), first);
        const order = [
          (await s.runs.acquireLease('w2', 1_000, 500))?.id,
          (await s.runs.acquireLease('w1', 1_000, 500))?.id,
          (await s.runs.acquireLease('w3', 1_000, 500))?.id,
        ];
        assert.deepEqual(order, ['r-a', 'r-b', 'r-late']);
        assert.equal(await s.runs.acquireLease('w4', 1_000, 500), undefined);
      }),
    );

    t.it(
      'acquireLease does not lease a run with a live lease, and leases it once the lease has expired (leaseExpiresAt <= now)',
      withStorage(async (s) => {
        await s.runs.insert(runRecord({ id: 'queued-live', createdAt: 1, leaseOwner: 'w0', leaseExpiresAt: 2_000 }));
        await s.runs.insert(
          runRecord({ id: 'running-live', createdAt: 2, status: 'running', leaseOwner: 'w0', leaseExpiresAt: 2_000 }),
        );
        await s.runs.insert(
          runRecord({
            id: 'waiting-live',
            createdAt: 3,
            status: 'waiting',
            wakeRequested: true,
            leaseOwner: 'w0',
            leaseExpiresAt: 2_000,
          }),
        );
        assert.equal(await s.runs.acquireLease('w1', 1_999, 100), undefined);
        assert.equal((await s.runs.get('queued-live'))?.leaseOwner, 'w0');
        const taken = [
          (await s.runs.acquireLease('w1', 2_000, 100))?.id,
          (await s.runs.acquireLease('w1', 2_000, 100))?.id,
          (await s.runs.acquireLease('w1', 2_000, 100))?.id,
        ];
        assert.deepEqual(taken, ['queued-live', 'running-live', 'waiting-live']);
        // the new leases are live in turn
        assert.equal(await s.runs.acquireLease('w2', 2_099, 100), undefined);
      }),
    );

    t.it(
      'acquireLease takes over a running run whose lease expired (or that has no lease)',
      withStorage(async (s) => {
        await s.runs.insert(
          runRecord({
            id: 'crashed',
            createdAt: 1,
            status: 'running',
            leaseOwner: 'dead',
            leaseExpiresAt: 500,
            startedAt: 1,
          }),
        );
        await s.runs.insert(runRecord({ id: 'orphan', createdAt: 2, status: 'running', startedAt: 2 }));
        const taken = await s.runs.acquireLease('w1', 1_000, 100);
        assert.deepEqual(
          taken,
          runRecord({
            id: 'crashed',
            createdAt: 1,
            status: 'running',
            leaseOwner: 'w1',
            leaseExpiresAt: 1_100,
            startedAt: 1,
          }),
        );
        assert.equal((await s.runs.acquireLease('w2', 1_000, 100))?.id, 'orphan');
        assert.equal(await s.runs.acquireLease('w3', 1_000, 100), undefined);
        assert.equal(await s.runs.renewLease('crashed', 'dead', 1_000, 100), false);
      }),
    );

    t.it(
      'acquireLease wakes a waiting run only by wakeRequested, abortRequested or a due notBefore (notBefore <= now)',
      withStorage(async (s) => {
        await s.runs.insert(runRecord({ id: 'idle', createdAt: 1, status: 'waiting' }));
        await s.runs.insert(runRecord({ id: 'not-yet', createdAt: 2, status: 'waiting', notBefore: 1_001 }));
        assert.equal(await s.runs.acquireLease('w', 1_000, 100), undefined);
        await s.runs.insert(runRecord({ id: 'woken', createdAt: 3, status: 'waiting', wakeRequested: true }));
        await s.runs.insert(
          runRecord({ id: 'aborted', createdAt: 4, status: 'waiting', abortRequested: true, abortReason: 'user' }),
        );
        await s.runs.insert(runRecord({ id: 'due', createdAt: 5, status: 'waiting', notBefore: 1_000 }));
        const taken: Array<string | undefined> = [];
        for (let i = 0; i < 4; i++) taken.push((await s.runs.acquireLease('w', 1_000, 100))?.id);
        assert.deepEqual(taken, ['woken', 'aborted', 'due', undefined]);
        assert.equal((await s.runs.acquireLease('w', 1_001, 100))?.id, 'not-yet');
        assert.equal(await s.runs.acquireLease('w', 1_001, 100), undefined);
        assert.equal((await s.runs.get('idle'))?.leaseOwner, null);
      }),
    );

    t.it(
      'acquireLease never leases a terminal run, whatever its flags',
      withStorage(async (s) => {
        for (const [i, status] of (['succeeded', 'failed', 'cancelled', 'budget_exceeded'] as const).entries()) {
          await s.runs.insert(
            runRecord({
              id: `t-${status}`,
              createdAt: i,
              status,
              wakeRequested: true,
              abortRequested: true,
              notBefore: 0,
              leaseOwner: 'old',
              leaseExpiresAt: 0,
            }),
          );
        }
        assert.equal(await s.runs.acquireLease('w', 10_000, 100), undefined);
        assert.equal((await s.runs.get('t-succeeded'))?.leaseOwner, 'old');
      }),
    );

    t.it(
      'renewLease and releaseLease act only for the lease owner',
      withStorage(async (s) => {
        await s.runs.insert(runRecord());
        assert.equal(await s.runs.renewLease('run-1', 'w1', 100, 1_000), false);
        assert.equal(await s.runs.releaseLease('run-1', 'w1'), false);
        await s.runs.acquireLease('w1', 100, 1_000);
        assert.equal(await s.runs.renewLease('run-1', 'w2', 500, 1_000), false);
        assert.equal(await s.runs.releaseLease('run-1', 'w2'), false);
        assert.equal((await s.runs.get('run-1'))?.leaseExpiresAt, 1_100);
        assert.equal(await s.runs.renewLease('run-1', 'w1', 500, 1_000), true);
        assert.equal((await s.runs.get('run-1'))?.leaseExpiresAt, 1_500);
        assert.equal(await s.runs.acquireLease('w2', 1_400, 1_000), undefined);
        assert.equal(await s.runs.renewLease('missing', 'w1', 500, 1_000), false);
        assert.equal(await s.runs.releaseLease('run-1', 'w1'), true);
        const released = await s.runs.get('run-1');
        assert.equal(released?.leaseOwner, null);
        assert.equal(released?.leaseExpiresAt, null);
        assert.equal(await s.runs.releaseLease('run-1', 'w1'), false);
        assert.equal(await s.runs.renewLease('run-1', 'w1', 600, 1_000), false);
        // a released queued run is leasable again at once
        assert.equal((await s.runs.acquireLease('w2', 600, 1_000))?.leaseOwner, 'w2');
      }),
    );

    t.it(
      'totalsBetween counts runs created in [from, to) and sums their usage.costUsd',
      withStorage(async (s) => {
        const day = 86_400_000;
        const usage = (costUsd: number) => ({ toolCalls: 1, inputTokens: 1, outputTokens: 1, costUsd, modelCalls: 1 });
        await s.runs.insert(runRecord({ id: 'before', createdAt: day - 1, usage: usage(100) }));
        await s.runs.insert(runRecord({ id: 'start', createdAt: day, usage: usage(0.25), status: 'succeeded' }));
        await s.runs.insert(runRecord({ id: 'mid', createdAt: day + 5, usage: usage(1.5), status: 'running' }));
        await s.runs.insert(runRecord({ id: 'free', createdAt: day + 6, usage: usage(0) }));
        await s.runs.insert(runRecord({ id: 'end', createdAt: 2 * day, usage: usage(1_000) }));
        assert.deepEqual(await s.runs.totalsBetween(day, 2 * day), { runs: 3, costUsd: 1.75 });
        assert.deepEqual(await s.runs.totalsBetween(0, 3 * day), { runs: 5, costUsd: 1_101.75 });
        assert.deepEqual(await s.runs.totalsBetween(3 * day, 4 * day), { runs: 0, costUsd: 0 });
        await s.runs.patch('mid', { usage: usage(2.5) });
        assert.deepEqual(await s.runs.totalsBetween(day, 2 * day), { runs: 3, costUsd: 2.75 });
      }),
    );

    t.it(
      'events round-trip every field; seq counts per run from 1 and globalSeq increases across runs',
      withStorage(async (s) => {
        const data: JsonValue = { phase: 'succeeded', text: UNICODE, n: [1, 2.5, null, true], nested: { a: {} } };
        const stored: RunEventRecord[] = [];
        stored.push(await s.events.append({ runId: 'run-a', type: 'run_status', at: 10, data: { status: 'running' } }));
        stored.push(await s.events.append({ runId: 'run-b', type: 'tool_call', at: 11, data }));
        stored.push(await s.events.append({ runId: 'run-a', type: 'text_delta', at: 12, data: UNICODE }));
        stored.push(await s.events.append({ runId: `run-${UNICODE}`, type: 'report', at: 13, data: null }));
        stored.push(await s.events.append({ runId: 'run-b', type: 'inbox_applied', at: 14, data: [] }));
        assert.deepEqual(
          stored.map((e) => [e.runId, e.seq]),
          [
            ['run-a', 1],
            ['run-b', 1],
            ['run-a', 2],
            [`run-${UNICODE}`, 1],
            ['run-b', 2],
          ],
        );
        assert.ok(stored[0]!.globalSeq > 0);
        for (let i = 1; i < stored.length; i++)
          assert.ok(stored[i]!.globalSeq > stored[i - 1]!.globalSeq, 'globalSeq must increase');
        assert.deepEqual(stored[1], {
          runId: 'run-b',
          type: 'tool_call',
          at: 11,
          data,
          seq: 1,
          globalSeq: stored[1]!.globalSeq,
        });
        assert.deepEqual(await s.events.listByRun('run-b'), [stored[1], stored[4]]);
        assert.deepEqual(await s.events.listByRun(`run-${UNICODE}`), [stored[3]]);
        assert.deepEqual(await s.events.listAfter(), stored);
        assert.deepEqual(await s.events.listByRun('nobody'), []);
      }),
    );

    t.it(
      'events listByRun pages by afterSeq and limit (default 100) and sees every event of the run exactly once',
      withStorage(async (s) => {
        const mine: RunEventRecord[] = [];
        for (let i = 0; i < 130; i++) {
          mine.push(await s.events.append({ runId: 'run-a', type: 'text_delta', at: i, data: { i } }));
          if (i % 3 === 0) await s.events.append({ runId: 'run-b', type: 'text_delta', at: i, data: { i } });
        }
        const firstPage = await s.events.listByRun('run-a');
        assert.equal(firstPage.length, 100);
        assert.deepEqual(firstPage, mine.slice(0, 100));
        assert.deepEqual(await s.events.listByRun('run-a', { afterSeq: 100 }), mine.slice(100));
        assert.deepEqual(await s.events.listByRun('run-a', { afterSeq: 5, limit: 3 }), mine.slice(5, 8));
        assert.deepEqual(await s.events.listByRun('run-a', { afterSeq: 130 }), []);
        const seen: RunEventRecord[] = [];
        for (let after = 0; ; ) {
          const page = await s.events.listByRun('run-a', { afterSeq: after, limit: 7 });
          if (page.length === 0) break;
          seen.push(...page);
          after = page[page.length - 1]!.seq;
        }
        assert.deepEqual(seen, mine);
      }),
    );

    t.it(
      'events listAfter pages by global sequence (default limit 100) and, with appends in between, sees every event of every run exactly once',
      withStorage(async (s) => {
        const all: RunEventRecord[] = [];
        const seen: RunEventRecord[] = [];
        let after = 0;
        for (let round = 0; round < 12; round++) {
          for (let i = 0; i < 11; i++)
            all.push(
              await s.events.append({ runId: `run-${i % 3}`, type: 'text_delta', at: round, data: { round, i } }),
            );
          const page = await s.events.listAfter(after, 5 + round);
          seen.push(...page);
          if (page.length > 0) after = page[page.length - 1]!.globalSeq;
        }
        for (;;) {
          const page = await s.events.listAfter(after, 4);
          if (page.length === 0) break;
          seen.push(...page);
          after = page[page.length - 1]!.globalSeq;
        }
        assert.deepEqual(seen, all);
        const firstPage = await s.events.listAfter();
        assert.equal(firstPage.length, 100);
        assert.deepEqual(firstPage, all.slice(0, 100));
        assert.deepEqual(await s.events.listAfter(all[9]!.globalSeq, 2), all.slice(10, 12));
        assert.deepEqual(await s.events.listAfter(all[all.length - 1]!.globalSeq), []);
      }),
    );

    t.it(
      'messages append with seq from 1 per run and list the conversation in order (any JSON message)',
      withStorage(async (s) => {
        const conversation: JsonValue[] = [
          { role: 'user', content: UNICODE },
          {
            role: 'assistant',
            content: [{ type: 'tool_call', id: 'call_1', name: 'media.search', args: { q: UNICODE } }],
          },
          { role: 'tool', callId: 'call_1', state: 'succeeded', output: [1, null, { ok: true }] },
          'a bare string',
        ];
        const stored = [];
        for (const [i, m] of conversation.entries()) {
          stored.push(await s.messages.append('run-a', m, 100 + i));
          if (i === 1) await s.messages.append('run-b', { role: 'user', content: 'other' }, 1);
        }
        assert.deepEqual(
          stored,
          conversation.map((message, i) => ({ runId: 'run-a', seq: i + 1, message, at: 100 + i })),
        );
        assert.deepEqual(await s.messages.list('run-a'), stored);
        assert.deepEqual(await s.messages.list('run-b'), [
          { runId: 'run-b', seq: 1, message: { role: 'user', content: 'other' }, at: 1 },
        ]);
        assert.deepEqual(await s.messages.list('nobody'), []);
      }),
    );

    t.it(
      'inbox round-trips every field; listQueued is per run, oldest first; markApplied moves queued → applied once',
      withStorage(async (s) => {
        const m2 = inboxRecord({ id: 'm2', createdAt: 20, text: UNICODE, actor: `user:${UNICODE}` });
        const m1b = inboxRecord({ id: 'm1b', createdAt: 10 });
        const m1a = inboxRecord({ id: 'm1a', createdAt: 10 });
        const other = inboxRecord({ id: 'm-other', runId: 'run-2', createdAt: 5 });
        const applied = inboxRecord({ id: 'm-old', createdAt: 1, status: 'applied', appliedAt: 2 });
        for (const m of [m2, m1b, m1a, other, applied]) await s.inbox.enqueue(m);
        assert.deepEqual(await s.inbox.listQueued('run-1'), [m1a, m1b, m2]);
        assert.deepEqual(await s.inbox.listQueued('run-2'), [other]);
        await assert.rejects(s.inbox.enqueue(inboxRecord({ id: 'm2', text: 'second' })));
        assert.equal(await s.inbox.markApplied(['m1a', 'm2', 'm-old', 'missing', 'm1a'], 50), 2);
        assert.deepEqual(await s.inbox.listQueued('run-1'), [m1b]);
        assert.equal(await s.inbox.markApplied(['m1a', 'm2'], 60), 0);
        assert.equal(await s.inbox.markApplied([], 60), 0);
        assert.equal(await s.inbox.markApplied(['m1b'], 70), 1);
        assert.deepEqual(await s.inbox.listQueued('run-1'), []);
        assert.deepEqual(await s.inbox.listQueued('run-2'), [other]);
      }),
    );

    t.it(
      'decisions round-trip every field; insert returns false on an existing dedupeKey and keeps the original; list is newest first by status and subject',
      withStorage(async (s) => {
        const full = decision({
          id: 'd-full',
          dedupeKey: `agent_budget:${UNICODE}`,
          subjectId: UNICODE,
          status: 'resolved',
          reason: UNICODE,
          evidence: { budget: 'maxCostUsdPerRun', limit: 0.5, used: 0.75, notes: [UNICODE, null] },
          subjectType: 'download',
          rootCause: `download_failed:${UNICODE}`,
          options: [
            { id: 'recheck', label: UNICODE, capabilityId: 'download.recheck', input: { downloadId: UNICODE } },
            { id: 'ignore', label: 'Ignore' },
          ],
          raisedBy: 'system:watch',
          resolvedBy: 'user:admin',
          resolution: {
            optionId: 'recheck',
            note: UNICODE,
            execution: { kind: 'capability', capabilityId: 'download.recheck', status: 'succeeded' },
          },
          revision: 3,
          createdAt: 30,
          updatedAt: 35,
          resolvedAt: 40,
        });
        const d1 = decision({ id: 'd1', createdAt: 10 });
        const d2 = decision({ id: 'd2', dedupeKey: 'agent_budget:run-2', subjectId: 'run-2', createdAt: 20 });
        assert.equal(await s.decisions.insert(full), true);
        assert.equal(await s.decisions.insert(d1), true);
        assert.equal(await s.decisions.insert(d2), true);
        assert.equal(await s.decisions.insert(decision({ id: 'd-dup', reason: 'second', createdAt: 99 })), false);
        const ids = (list: DecisionRecord[]) => list.map((d) => d.id);
        assert.deepEqual(await s.decisions.list(), [full, d2, d1]);
        assert.deepEqual(ids(await s.decisions.list({ status: 'open' })), ['d2', 'd1']);
        assert.deepEqual(ids(await s.decisions.list({ subjectId: 'run-1' })), ['d1']);
        assert.deepEqual(ids(await s.decisions.list({ status: 'resolved', subjectId: UNICODE })), ['d-full']);
        assert.deepEqual(await s.decisions.list({ subjectId: 'nobody' }), []);
        assert.deepEqual(await s.decisions.get('d-full'), full);
        assert.deepEqual(await s.decisions.getByKey(`agent_budget:${UNICODE}`), full);
        assert.equal(await s.decisions.get('missing'), undefined);
        assert.equal(await s.decisions.getByKey('missing'), undefined);
      }),
    );

    t.it(
      'decisions change by compare-and-set on the revision; the dedupe key never changes; list filters by kind and root cause',
      withStorage(async (s) => {
        const d1 = decision({
          id: 'd1',
          kind: 'download_failed',
          dedupeKey: 'df:1',
          rootCause: 'download_failed:dl-1',
        });
        const d2 = decision({
          id: 'd2',
          kind: 'download_failed',
          dedupeKey: 'df:2',
          rootCause: 'download_failed:dl-1',
          createdAt: 20,
        });
        const d3 = decision({
          id: 'd3',
          kind: 'download_stalled',
          dedupeKey: 'ds:1',
          rootCause: 'download_stalled:dl-2',
          createdAt: 30,
        });
        for (const d of [d1, d2, d3]) assert.equal(await s.decisions.insert(d), true);
        const changed: DecisionRecord = {
          ...d1,
          dedupeKey: 'ignored',
          status: 'awaiting_user',
          evidence: { agentInvestigation: { conclusion: UNICODE } },
          revision: 2,
          updatedAt: 50,
        };
        assert.equal(await s.decisions.update(changed, 1), true);
        assert.deepEqual(await s.decisions.get('d1'), { ...changed, dedupeKey: 'df:1' });
        // A writer that read revision 1 loses: nothing changes.
        assert.equal(await s.decisions.update({ ...d1, status: 'dismissed', revision: 2 }, 1), false);
        assert.equal((await s.decisions.get('d1'))?.status, 'awaiting_user');
        assert.equal(await s.decisions.update({ ...d1, id: 'missing', revision: 2 }, 1), false);
        const ids = (list: DecisionRecord[]) => list.map((d) => d.id);
        assert.deepEqual(ids(await s.decisions.list({ rootCause: 'download_failed:dl-1' })), ['d2', 'd1']);
        assert.deepEqual(ids(await s.decisions.list({ kind: 'download_stalled' })), ['d3']);
        assert.deepEqual(ids(await s.decisions.list({ kind: 'download_failed', status: 'awaiting_user' })), ['d1']);
        // A rolled-back change leaves the stored revision.
        await assert.rejects(
          s.transaction(async (tx) => {
            assert.equal(await tx.decisions.update({ ...d2, status: 'resolved', revision: 2 }, 1), true);
            throw new Error('boom');
          }),
        );
        assert.deepEqual(await s.decisions.get('d2'), d2);
      }),
    );

    t.it(
      'a transaction that throws rolls back runs, leases, events, messages, inbox and decisions; later events get sequences above every committed one',
      withStorage(async (s) => {
        await s.runs.insert(runRecord());
        const e1 = await s.events.append({ runId: 'run-1', type: 'run_status', at: 1, data: { status: 'queued' } });
        await s.messages.append('run-1', { role: 'user', content: 'hi' }, 1);
        await s.inbox.enqueue(inboxRecord());
        await assert.rejects(
          s.transaction(async (tx) => {
            await tx.runs.insert(runRecord({ id: 'run-2' }));
            assert.equal((await tx.runs.acquireLease('w1', 100, 1_000))?.id, 'run-1');
            await tx.runs.patch('run-1', { status: 'running', checklist: { goal: 'x' } }, 'w1');
            await tx.events.append({ runId: 'run-1', type: 'run_status', at: 2, data: { status: 'running' } });
            await tx.events.append({ runId: 'run-2', type: 'run_status', at: 2, data: null });
            await tx.messages.append('run-1', { role: 'assistant', content: 'partial' }, 2);
            await tx.inbox.enqueue(inboxRecord({ id: 'msg-2' }));
            assert.equal(await tx.inbox.markApplied(['msg-1'], 2), 1);
            assert.equal(await tx.decisions.insert(decision()), true);
            // reads inside the transaction see its own writes
            assert.equal((await tx.events.listByRun('run-1')).length, 2);
            throw new Error('boom');
          }),
          /boom/,
        );
        assert.deepEqual(await s.runs.get('run-1'), runRecord());
        assert.equal(await s.runs.get('run-2'), undefined);
        assert.deepEqual(await s.events.listAfter(), [e1]);
        assert.deepEqual(await s.events.listByRun('run-2'), []);
        assert.deepEqual(
          (await s.messages.list('run-1')).map((m) => m.seq),
          [1],
        );
        assert.deepEqual(await s.inbox.listQueued('run-1'), [inboxRecord()]);
        assert.deepEqual(await s.decisions.list(), []);
        // the dedupe key is free again; per-run seq continues from the committed events. A rolled-back globalSeq was
        // never visible outside its transaction, so an adapter may hand it out again (SQLite does; memory leaves a gap).
        // Events are published only after their transaction commits.
        assert.equal(await s.decisions.insert(decision()), true);
        const e2 = await s.events.append({ runId: 'run-1', type: 'run_status', at: 3, data: null });
        assert.equal(e2.seq, 2);
        assert.ok(e2.globalSeq > e1.globalSeq, 'globalSeq must stay above every committed event');
        assert.equal((await s.messages.append('run-1', 'next', 3)).seq, 2);
        assert.equal((await s.runs.acquireLease('w2', 100, 1_000))?.leaseOwner, 'w2');
      }),
    );

    t.it(
      'concurrent transactions of which some throw: each that throws leaves none of its writes, every other one commits all of its writes',
      withStorage(async (s) => {
        const results = await Promise.allSettled(
          Array.from({ length: 12 }, (_, i) =>
            s.transaction(async (tx) => {
              await tx.settings.set(`k-${i}`, i);
              await tx.audit.append(auditRow({ id: `audit-${i}`, invocationId: `inv-${i}` }));
              if (i % 4 === 0) throw new Error(`boom ${i}`);
              await tx.grantUsage.add('g', 0, 1, i);
              return i;
            }),
          ),
        );
        for (const [i, r] of results.entries()) {
          if (i % 4 === 0) {
            assert.equal(r.status, 'rejected');
            assert.equal(await s.settings.get(`k-${i}`), undefined);
          } else {
            assert.deepEqual(r, { status: 'fulfilled', value: i });
            assert.equal(await s.settings.get(`k-${i}`), i);
          }
        }
        const kept = [1, 2, 3, 5, 6, 7, 9, 10, 11];
        assert.deepEqual(
          (await s.audit.list()).map((a) => a.id),
          kept.map((i) => `audit-${i}`),
        );
        assert.deepEqual(await s.grantUsage.get('g', 0), {
          grantId: 'g',
          day: 0,
          invocations: kept.length,
          bytes: kept.reduce((a, b) => a + b, 0),
        });
      }),
    );

    t.it(
      'grantUsage get is zero for a grant and day never charged; add creates the counters, accumulates per (grant, day) only and returns the totals',
      withStorage(async (s) => {
        const day = 86_400_000;
        assert.deepEqual(await s.grantUsage.get('g1', day), { grantId: 'g1', day, invocations: 0, bytes: 0 });
        assert.deepEqual(await s.grantUsage.add('g1', day, 1, 500), { grantId: 'g1', day, invocations: 1, bytes: 500 });
        assert.deepEqual(await s.grantUsage.add('g1', day, 1, 52_428_800_000), {
          grantId: 'g1',
          day,
          invocations: 2,
          bytes: 52_428_800_500,
        });
        assert.deepEqual(await s.grantUsage.add('g1', 2 * day, 1, 7), {
          grantId: 'g1',
          day: 2 * day,
          invocations: 1,
          bytes: 7,
        });
        assert.deepEqual(await s.grantUsage.add(`g-${UNICODE}`, day, 3, 0), {
          grantId: `g-${UNICODE}`,
          day,
          invocations: 3,
          bytes: 0,
        });
        assert.deepEqual(await s.grantUsage.get('g1', day), {
          grantId: 'g1',
          day,
          invocations: 2,
          bytes: 52_428_800_500,
        });
        assert.deepEqual(await s.grantUsage.get('g1', 2 * day), {
          grantId: 'g1',
          day: 2 * day,
          invocations: 1,
          bytes: 7,
        });
        assert.deepEqual(await s.grantUsage.get(`g-${UNICODE}`, day), {
          grantId: `g-${UNICODE}`,
          day,
          invocations: 3,
          bytes: 0,
        });
        assert.deepEqual(await s.grantUsage.get('g1', 3 * day), {
          grantId: 'g1',
          day: 3 * day,
          invocations: 0,
          bytes: 0,
        });
        // ledger entries alone charge nothing: the invocation path charges the counters with each claim
        await s.ledger.insert(ledgerEntry({ key: 'k', grantId: 'g2', claimedAt: day + 1, bytes: 9 }));
        assert.deepEqual(await s.grantUsage.get('g2', day), { grantId: 'g2', day, invocations: 0, bytes: 0 });
      }),
    );

    t.it(
      'grantUsage add inside a transaction is seen by the transaction and rolled back with it',
      withStorage(async (s) => {
        await s.grantUsage.add('g', 0, 1, 10);
        await assert.rejects(
          s.transaction(async (tx) => {
            assert.deepEqual(await tx.grantUsage.add('g', 0, 1, 5), {
              grantId: 'g',
              day: 0,
              invocations: 2,
              bytes: 15,
            });
            assert.deepEqual(await tx.grantUsage.get('g', 0), { grantId: 'g', day: 0, invocations: 2, bytes: 15 });
            await tx.grantUsage.add('g-new', 0, 1, 1);
            throw new Error('boom');
          }),
          /boom/,
        );
        assert.deepEqual(await s.grantUsage.get('g', 0), { grantId: 'g', day: 0, invocations: 1, bytes: 10 });
        assert.deepEqual(await s.grantUsage.get('g-new', 0), { grantId: 'g-new', day: 0, invocations: 0, bytes: 0 });
      }),
    );

    t.it(
      'appendAuditBatched rows keep call order with other audit rows, are listed by audit.list on the adapter at once, and resolve once stored',
      withStorage(async (s) => {
        const first = s.appendAuditBatched(auditRow({ id: 'batched-1', inputSummary: UNICODE }));
        await s.audit.append(auditRow({ id: 'direct-1' }));
        const second = s.appendAuditBatched(
          auditRow({ id: 'batched-2', action: 'capability.denied', outcome: 'denied' }),
        );
        const third = s.appendAuditBatched(auditRow({ id: 'batched-3' }));
        await s.transaction(async (tx) => {
          await tx.audit.append(auditRow({ id: 'in-tx' }));
        });
        const fourth = s.appendAuditBatched(auditRow({ id: 'batched-4' }));
        const listed = await s.audit.list();
        assert.deepEqual(
          listed.map((a) => a.id),
          ['batched-1', 'direct-1', 'batched-2', 'batched-3', 'in-tx', 'batched-4'],
        );
        for (let i = 1; i < listed.length; i++) assert.ok(listed[i]!.seq > listed[i - 1]!.seq, 'seq must increase');
        assert.deepEqual(listed[0], { ...auditRow({ id: 'batched-1', inputSummary: UNICODE }), seq: listed[0]!.seq });
        assert.equal(listed[2]!.action, 'capability.denied');
        assert.deepEqual(await Promise.all([first, second, third, fourth]), [
          undefined,
          undefined,
          undefined,
          undefined,
        ]);
      }),
    );

    t.it(
      "appendAuditBatched rows pending while a transaction throws are kept; only that transaction's rows are rolled back",
      withStorage(async (s) => {
        const batched = s.appendAuditBatched(auditRow({ id: 'batched-1' }));
        await assert.rejects(
          s.transaction(async (tx) => {
            await tx.audit.append(auditRow({ id: 'rolled-back' }));
            throw new Error('boom');
          }),
          /boom/,
        );
        const after = s.appendAuditBatched(auditRow({ id: 'batched-2' }));
        await Promise.all([batched, after]);
        assert.deepEqual(
          (await s.audit.list()).map((a) => a.id),
          ['batched-1', 'batched-2'],
        );
      }),
    );

    t.it(
      'appendAuditBatched: rows appended before close() are stored (their promises resolve); afterwards it rejects with STORAGE_CLOSED',
      withStorage(async (s) => {
        const rows = Array.from({ length: 300 }, (_, i) =>
          s.appendAuditBatched(auditRow({ id: `batched-${i}`, invocationId: `inv-${i % 7}` })),
        );
        const listed = await s.audit.list({ invocationId: 'inv-3', limit: 1000 });
        assert.deepEqual(
          listed.map((a) => a.id),
          Array.from({ length: 300 }, (_, i) => i)
            .filter((i) => i % 7 === 3)
            .map((i) => `batched-${i}`),
        );
        const last = s.appendAuditBatched(auditRow({ id: 'last' }));
        await s.close();
        await Promise.all([...rows, last]);
        await rejectsWithCode(s.appendAuditBatched(auditRow({ id: 'after-close' })), 'STORAGE_CLOSED');
        await rejectsWithCode(s.grantUsage.get('g', 0), 'STORAGE_CLOSED');
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
        await rejectsWithCode(s.runs.acquireLease('w', 1, 1), 'STORAGE_CLOSED');
        await rejectsWithCode(s.events.listAfter(), 'STORAGE_CLOSED');
        await rejectsWithCode(
          s.transaction(async () => undefined),
          'STORAGE_CLOSED',
        );
        await rejectsWithCode(s.migrate(), 'STORAGE_CLOSED');
        await rejectsWithCode(s.schemaVersion(), 'STORAGE_CLOSED');
        await s.close();
      }),
    );

    // Spending counters and reservations (docs/budgets.md).
    const reservationRow = (overrides: Partial<BudgetReservation> = {}): BudgetReservation => ({
      key: 'run-1:call:1:0',
      subject: 'user:alice',
      runId: 'run-1',
      state: 'reserved',
      day: 86_400_000,
      month: 0,
      runs: 0,
      modelCalls: 1,
      tokens: 4_096,
      costUsd: 0.125,
      createdAt: 10,
      updatedAt: 10,
      ...overrides,
    });

    t.it(
      'budgetUsage get is zero for a subject and period never charged; add accumulates per (subject, period, start), negative amounts included, and returns the totals',
      withStorage(async (s) => {
        const zero = { runs: 0, modelCalls: 0, tokens: 0, costUsd: 0 };
        assert.deepEqual(await s.budgetUsage.get('user:alice', 'day', 0), {
          subject: 'user:alice',
          period: 'day',
          start: 0,
          ...zero,
        });
        await s.budgetUsage.add('user:alice', 'day', 0, { runs: 1, modelCalls: 2, tokens: 300, costUsd: 0.25 });
        const after = await s.budgetUsage.add('user:alice', 'day', 0, {
          runs: 0,
          modelCalls: 1,
          tokens: -100,
          costUsd: -0.125,
        });
        assert.deepEqual(after, {
          subject: 'user:alice',
          period: 'day',
          start: 0,
          runs: 1,
          modelCalls: 3,
          tokens: 200,
          costUsd: 0.125,
        });
        await s.budgetUsage.add(`user:${UNICODE}`, 'month', 0, { runs: 1, modelCalls: 0, tokens: 0, costUsd: 0 });
        assert.deepEqual(await s.budgetUsage.get('user:alice', 'day', 0), after);
        assert.deepEqual(await s.budgetUsage.get('user:alice', 'month', 0), {
          subject: 'user:alice',
          period: 'month',
          start: 0,
          ...zero,
        });
        assert.deepEqual(await s.budgetUsage.get('user:alice', 'day', 86_400_000), {
          subject: 'user:alice',
          period: 'day',
          start: 86_400_000,
          ...zero,
        });
        assert.equal((await s.budgetUsage.get(`user:${UNICODE}`, 'month', 0)).runs, 1);
      }),
    );

    t.it(
      'budgetUsage reserve inserts once per key (a second reserve with the key changes nothing), updateReservation is compare-and-set on the state, reservations lists by state and run, oldest first',
      withStorage(async (s) => {
        const first = reservationRow();
        assert.equal(await s.budgetUsage.reserve(first), true);
        assert.equal(await s.budgetUsage.reserve(reservationRow({ tokens: 1, costUsd: 9 })), false);
        assert.deepEqual(await s.budgetUsage.reservation(first.key), first);
        assert.equal(await s.budgetUsage.reservation('missing'), undefined);
        const settled = {
          state: 'settled' as const,
          runs: 0,
          modelCalls: 1,
          tokens: 120,
          costUsd: 0.0025,
          updatedAt: 20,
        };
        assert.equal(await s.budgetUsage.updateReservation(first.key, 'released', settled), false);
        assert.equal(await s.budgetUsage.updateReservation(first.key, 'reserved', settled), true);
        assert.equal(await s.budgetUsage.updateReservation(first.key, 'reserved', settled), false);
        assert.deepEqual(await s.budgetUsage.reservation(first.key), { ...first, ...settled });
        await s.budgetUsage.reserve(reservationRow({ key: `run-2:call:1:0:${UNICODE}`, runId: 'run-2', createdAt: 5 }));
        await s.budgetUsage.reserve(reservationRow({ key: 'run-1:call:2:0', createdAt: 30 }));
        assert.deepEqual(
          (await s.budgetUsage.reservations({ state: 'reserved' })).map((r) => r.key),
          [`run-2:call:1:0:${UNICODE}`, 'run-1:call:2:0'],
        );
        assert.deepEqual(
          (await s.budgetUsage.reservations({ runId: 'run-1' })).map((r) => r.key),
          ['run-1:call:1:0', 'run-1:call:2:0'],
        );
        assert.deepEqual(
          (await s.budgetUsage.reservations({ limit: 1 })).map((r) => r.key),
          [`run-2:call:1:0:${UNICODE}`],
        );
      }),
    );

    t.it(
      'budgetUsage writes inside a transaction are seen by it and rolled back with it',
      withStorage(async (s) => {
        const one = { runs: 0, modelCalls: 1, tokens: 10, costUsd: 0.5 };
        await s.budgetUsage.add('user:bob', 'day', 0, one);
        await assert.rejects(
          s.transaction(async (tx) => {
            assert.equal((await tx.budgetUsage.get('user:bob', 'day', 0)).modelCalls, 1);
            await tx.budgetUsage.add('user:bob', 'day', 0, one);
            await tx.budgetUsage.reserve(reservationRow({ key: 'rolled-back' }));
            assert.equal((await tx.budgetUsage.get('user:bob', 'day', 0)).modelCalls, 2);
            assert.equal((await tx.budgetUsage.reservation('rolled-back'))?.key, 'rolled-back');
            throw new Error('boom');
          }),
          /boom/,
        );
        assert.equal((await s.budgetUsage.get('user:bob', 'day', 0)).modelCalls, 1);
        assert.equal(await s.budgetUsage.reservation('rolled-back'), undefined);
      }),
    );

    t.it(
      'budgetUsage check-then-charge in concurrent transactions never passes a cap (each reads the charges committed before it)',
      withStorage(async (s) => {
        const cap = 5;
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            s.transaction(async (tx) => {
              const used = await tx.budgetUsage.get('user:carol', 'day', 0);
              if (used.modelCalls + 1 > cap) return false;
              await tx.budgetUsage.reserve(reservationRow({ key: `c-${i}`, subject: 'user:carol' }));
              await tx.budgetUsage.add('user:carol', 'day', 0, { runs: 0, modelCalls: 1, tokens: 0, costUsd: 0 });
              return true;
            }),
          ),
        );
        assert.equal(results.filter(Boolean).length, cap);
        assert.equal((await s.budgetUsage.get('user:carol', 'day', 0)).modelCalls, cap);
      }),
    );
  });
}
