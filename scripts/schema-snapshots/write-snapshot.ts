/**
 * Writes the representative data set of a schema snapshot with an OLD version's own code, then reads every row
 * back through that version's repositories into a JSON file (what the snapshot test expects today's code to read).
 * Run by scripts/make-schema-snapshots.ts in a temporary worktree of that version (cwd = the worktree):
 *
 *   node --import tsx write-snapshot.ts --root <worktree> --version N --sqlite <file> --rows <json>
 *   node --import tsx write-snapshot.ts --root <worktree> --version N --pg-url <url> --pg-schema <name> --rows <json>
 *
 * Everything is duck-typed on what the version has: repositories it lacks are skipped, and every record is built
 * with that version's conformance fixture builders, keeping only the overrides whose fields the builder's record
 * has. Times are fixed (far from the conformance suite's), so the data set is the same on every run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// biome-ignore lint/suspicious/noExplicitAny: the old versions' modules are loaded at run time, shapes vary
type Any = any;
type Builder = (overrides?: Record<string, unknown>) => Record<string, unknown>;

const arg = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const root = arg('root')!;
const version = Number(arg('version'));
const rowsFile = arg('rows')!;

const load = (path: string): Promise<Any> => import(pathToFileURL(join(root, path)).href);

/** Base time of the data set (2033-05-18), after every time the conformance suite writes. */
const T = 2_000_000_000_000;
const DAY = 86_400_000;
/** A text of 16 KiB with newlines, quotes and non-ASCII characters. */
const HUGE = `${'line "quoted" \'single\' — ü 🎬\n'.repeat(512)}`.slice(0, 16_384);
/** The largest integer a JSON number carries exactly. */
const MAX_INT = Number.MAX_SAFE_INTEGER;

/** `builder(overrides)` keeping only the overrides whose fields this version's record has. */
function build(builder: Builder, overrides: Record<string, unknown>): Record<string, unknown> {
  const base = builder();
  return builder(Object.fromEntries(Object.entries(overrides).filter(([key]) => key in base)));
}

async function fixtures(): Promise<Any> {
  try {
    return await load('packages/sdk/src/testing/storage-conformance/fixtures.ts');
  } catch {
    return load('packages/sdk/src/testing/snapshot-fixtures.ts');
  }
}

async function open(): Promise<Any> {
  const sqlite = arg('sqlite');
  if (sqlite) {
    const { SqliteStorage } = await load('packages/sdk/src/storage/sqlite/sqlite-storage.ts');
    return new SqliteStorage({ path: sqlite });
  }
  const { PostgresStorage } = await load('packages/sdk/src/storage/postgres/postgres-storage.ts');
  return new PostgresStorage({ connectionString: arg('pg-url'), schema: arg('pg-schema'), poolSize: 2 });
}

const RUN_STATUSES = ['queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled', 'budget_exceeded'];

/** Writes the data set; returns what to read back (ids and keys by kind). */
async function writeAll(s: Any, f: Any): Promise<Any> {
  const written: Any = {
    settings: [],
    ledger: [],
    approvals: [],
    plans: [],
    runs: [],
    grantUsage: [],
    budget: [],
    schedules: [],
    intents: [],
  };
  const UNICODE: string = f.UNICODE;

  // Settings: text with every awkward character, nested JSON, the largest exact integer, null.
  const settings: [string, unknown][] = [
    ['snap.unicode', UNICODE],
    ['snap.nested', { list: [1, 'two', null, true, { deep: UNICODE }], empty: {} }],
    ['snap.max-int', MAX_INT],
    ['snap.null', null],
    ['snap.huge', HUGE],
  ];
  for (const [key, value] of settings) {
    await s.settings.set(key, value);
    written.settings.push(key);
  }

  // Ledger: one entry per state, with and without call ids, runs, grants, approvals; output and error.
  const states = ['running', 'succeeded', 'failed', 'pending', 'unknown'];
  for (const [i, state] of states.entries()) {
    const settled = state === 'succeeded' || state === 'failed';
    const entry = build(f.ledgerEntry, {
      key: `snap.cap:v1:run:snap-run-2:hash-${i}`,
      capabilityId: i % 2 ? 'snap.cap' : 'media.search',
      capabilityVersion: 1 + i,
      scopeId: 'run:snap-run-2',
      callId: i % 2 ? `call-${i}` : null,
      argsHash: `hash-${i}`,
      state,
      token: `token-${i}`,
      actor: i === 0 ? 'user:ünïcödé' : 'agent:snap-run-2',
      invocationId: `snap-inv-${i}`,
      runId: i === 4 ? null : 'snap-run-2',
      taskId: i === 1 ? 'task-1' : null,
      approvalId: i === 2 ? 'snap-appr-approved' : null,
      grantId: i < 3 ? 'snap-grant-active' : null,
      bytes: i === 1 ? MAX_INT : i * 1000,
      output: state === 'succeeded' ? { title: UNICODE, body: HUGE, ids: [1, 2, 3] } : null,
      error: state === 'failed' || state === 'unknown' ? { code: 'HOST_REJECTED', message: UNICODE } : null,
      inputSummary: JSON.stringify({ query: UNICODE }),
      attempts: 1 + i,
      claimedAt: T + i * 1000,
      updatedAt: T + i * 1000 + 500,
      settledAt: settled ? T + i * 1000 + 500 : null,
    });
    await s.ledger.insert(entry);
    written.ledger.push(entry.key);
  }

  // Approvals in every status.
  for (const [i, status] of ['requested', 'approved', 'rejected', 'revoked', 'consumed'].entries()) {
    const decided = status !== 'requested';
    const record = build(f.approval, {
      id: `snap-appr-${status}`,
      planType: 'download',
      planId: i < 2 ? 'snap-plan-1' : `snap-plan-${i}`,
      payloadHash: `ph-${i}`,
      revision: 1 + i,
      status,
      requestedBy: 'agent:snap-run-2',
      reason: i === 2 ? UNICODE : null,
      requestedAt: T + i,
      expiresAt: T + DAY,
      decidedBy: decided ? 'user:alice' : null,
      decidedAt: decided ? T + 100 + i : null,
      consumedBy: status === 'consumed' ? 'agent:snap-run-2' : null,
      consumedAt: status === 'consumed' ? T + 200 : null,
      // From schema 12: the capability, impact, steps and payloads (an edited approval when approved or consumed).
      capabilityId: i === 0 ? null : 'download.submit',
      impact:
        i === 0
          ? null
          : i === 3
            ? { status: 'unknown', code: 'IMPACT_FAILED', reason: UNICODE, summary: 'impact unknown' }
            : {
                status: 'known',
                impact: { downloadBytes: MAX_INT, path: `/media/${UNICODE}`, reversible: true, notes: [UNICODE] },
                summary: `downloads to /media/${UNICODE}`,
              },
      steps:
        i === 0
          ? []
          : [
              { id: 's1', hash: 'a'.repeat(64), label: UNICODE },
              { id: 's2', hash: 'b'.repeat(64), label: 's2' },
            ],
      approvedSteps: status === 'approved' || status === 'consumed' ? ['s1'] : null,
      proposedPayload:
        i === 0 ? null : { steps: [{ id: 's1', title: UNICODE }, { id: 's2' }], nested: { max: MAX_INT } },
      proposedPayloadHash: status === 'approved' || status === 'consumed' ? `ph-proposed-${i}` : `ph-${i}`,
      approvedPayload:
        status === 'approved' || status === 'consumed' ? { steps: [{ id: 's1', title: 'edited' }] } : null,
      executedPayloadHash: status === 'consumed' ? `ph-${i}` : null,
    });
    await s.approvals.insert(record);
    written.approvals.push(record.id);
  }

  // Grants: active with scope, budget and expiry; revoked without.
  for (const record of [
    build(f.grant, {
      id: 'snap-grant-active',
      action: 'media.*',
      status: 'active',
      expiresAt: T + 30 * DAY,
      policyRevisionId: 'snap-policy-published',
      scope: { mediaEntityIds: ['tmdb:1', 'tmdb:2'], mediaKinds: ['movie'], capabilities: ['download.submit'] },
      budget: { maxInvocations: 10, maxBytes: MAX_INT, maxInvocationsPerDay: 3 },
      reason: UNICODE,
      createdBy: 'console:admin',
      createdAt: T,
      updatedAt: T + 1,
    }),
    build(f.grant, { id: 'snap-grant-revoked', action: 'subscribe.*', status: 'revoked', createdAt: T, updatedAt: T }),
  ]) {
    await s.grants.insert(record);
  }

  // Plans: one with a payload and media, one null payload moved to revision 2.
  const plan1 = build(f.plan, {
    id: 'snap-plan-1',
    type: 'download',
    payload: { torrents: [{ title: UNICODE, size: MAX_INT }], note: HUGE.slice(0, 1024) },
    payloadHash: 'ph-0',
    revision: 1,
    mediaEntityId: 'tmdb:603',
    mediaKind: 'movie',
    bytes: 4_000_000_000,
    createdAt: T,
    updatedAt: T,
  });
  await s.plans.insert(plan1);
  const plan2 = build(f.plan, { id: 'snap-plan-2', createdAt: T, updatedAt: T });
  await s.plans.insert(plan2);
  await s.plans.compareAndSet('snap-plan-2', 1, { ...plan2, revision: 2, payloadHash: 'ph-2', updatedAt: T + 5 });
  written.plans.push('snap-plan-1', 'snap-plan-2');

  // Policy revisions in every status.
  for (const status of ['draft', 'published', 'retired'])
    await s.policies.put({ id: `snap-policy-${status}`, kind: 'acquisition', status, createdAt: T, updatedAt: T + 1 });

  // Audit rows: succeeded, failed, denied (with every optional field on one).
  for (const [i, overrides] of [
    { outcome: 'succeeded', runId: 'snap-run-2', idempotencyKey: 'snap.cap:v1:run:snap-run-2:hash-1' },
    { outcome: 'failed', reason: UNICODE, approvalId: 'snap-appr-approved', grantId: 'snap-grant-active' },
    { action: 'capability.denied', outcome: 'denied', reason: 'no grant', actor: 'user:bob', taskId: 'task-1' },
  ].entries()) {
    await s.audit.append(
      build(f.auditRow, {
        id: `snap-audit-${i}`,
        at: T + i,
        capabilityId: 'snap.cap',
        invocationId: `snap-inv-${i}`,
        inputSummary: JSON.stringify({ query: UNICODE }),
        ...overrides,
      }),
    );
  }

  if (s.runs && f.runRecord) await writeRuns(s, f, written);

  // Grant usage counters (schema 4 on).
  if (s.grantUsage) {
    await s.grantUsage.add('snap-grant-active', T - (T % DAY), 3, 4096);
    await s.grantUsage.add('snap-grant-active', T - (T % DAY) - DAY, 1, MAX_INT);
    written.grantUsage.push(['snap-grant-active', T - (T % DAY)], ['snap-grant-active', T - (T % DAY) - DAY]);
  }

  // Spending counters and reservations in every state (schema 7 on).
  if (s.budgetUsage) {
    const day = T - (T % DAY);
    await s.budgetUsage.add('user:alice', 'day', day, { runs: 2, modelCalls: 7, tokens: 12_345, costUsd: 0.125 });
    await s.budgetUsage.add('household', 'month', day - 17 * DAY, {
      runs: 40,
      modelCalls: 900,
      tokens: 4_000_000_000,
      costUsd: 12.5,
    });
    written.budget.push(['user:alice', 'day', day], ['household', 'month', day - 17 * DAY]);
    for (const [i, state] of ['reserved', 'settled', 'released'].entries()) {
      const reservation = {
        key: `snap-run-2:call:${i}:0`,
        subject: 'user:alice',
        runId: 'snap-run-2',
        state: 'reserved',
        day,
        month: day - 17 * DAY,
        runs: i === 0 ? 1 : 0,
        modelCalls: 1,
        tokens: 4096,
        costUsd: 0.0625,
        createdAt: T + i,
        updatedAt: T + i,
      };
      await s.budgetUsage.reserve(reservation);
      if (state !== 'reserved')
        await s.budgetUsage.updateReservation(reservation.key, 'reserved', {
          state,
          runs: 0,
          modelCalls: state === 'settled' ? 1 : 0,
          tokens: state === 'settled' ? 3000 : 0,
          costUsd: state === 'settled' ? 0.05 : 0,
          updatedAt: T + 10 + i,
        });
    }
  }
  return written;
}

/** Runs in every status (a child run among them), their events, messages, inbox and decisions. */
async function writeRuns(s: Any, f: Any, written: Any): Promise<void> {
  const UNICODE: string = f.UNICODE;
  for (const [i, status] of RUN_STATUSES.entries()) {
    const terminal = i >= 3;
    const id = `snap-run-${i}`;
    const record = build(f.runRecord, {
      id,
      goal: i === 0 ? UNICODE : `goal ${i}`,
      mode: i === 2 ? 'plan_only' : 'execute',
      status,
      step: terminal ? 'finalize' : 'drive',
      startedBy: 'user:alice',
      origin: i === 6 ? 'background' : 'interactive',
      parentRunId: i === 4 ? 'snap-run-3' : null,
      depth: i === 4 ? 1 : 0,
      runtimeState: i === 1 ? { turn: 3, pending: [UNICODE] } : null,
      sessionId: i < 4 ? 'snap-session' : null,
      capabilityAllowlist: i === 4 ? ['media.search'] : null,
      budgets: { maxToolCalls: 20, maxCostUsd: 1.5 },
      usage: { toolCalls: i, inputTokens: 1000 * i, outputTokens: 100 * i, costUsd: 0.01 * i, modelCalls: i },
      // The run's step list: `plan` until schema 5 renamed the column to `checklist`.
      plan: i === 3 ? [{ id: 'c1', text: UNICODE, done: true }] : null,
      checklist: i === 3 ? [{ id: 'c1', text: UNICODE, done: true }] : null,
      report: terminal ? { summary: UNICODE, outcome: status, details: HUGE.slice(0, 2048) } : null,
      finalText: status === 'succeeded' ? UNICODE : null,
      error: status === 'failed' ? { code: 'HOST_REJECTED', message: UNICODE } : null,
      abortRequested: status === 'cancelled',
      abortReason: status === 'cancelled' ? 'user asked' : null,
      wakeRequested: status === 'waiting',
      leaseOwner: status === 'running' ? 'worker-1' : null,
      leaseExpiresAt: status === 'running' ? T + 60_000 : null,
      notBefore: status === 'waiting' ? T + 3_600_000 : null,
      createdAt: T + i,
      updatedAt: T + i + 10,
      startedAt: i > 0 ? T + i + 1 : null,
      endedAt: terminal ? T + i + 10 : null,
    });
    await s.runs.insert(record);
    written.runs.push(id);
  }
  // Events and messages of two runs; inbox messages (one applied).
  for (const runId of ['snap-run-1', 'snap-run-3']) {
    await s.events.append({ runId, type: 'run_status', at: T + 20, data: { status: 'running' } });
    await s.events.append({ runId, type: 'tool_call', at: T + 21, data: { name: 'media.search', args: UNICODE } });
    await s.messages.append(runId, { role: 'user', content: UNICODE }, T + 20);
    await s.messages.append(
      runId,
      { role: 'assistant', content: [{ type: 'text', text: HUGE.slice(0, 512) }] },
      T + 22,
    );
  }
  for (const [i, text] of ['also get subtitles', UNICODE].entries())
    await s.inbox.enqueue(
      build(f.inboxRecord, {
        id: `snap-msg-${i}`,
        runId: 'snap-run-1',
        text,
        actor: 'user:alice',
        createdAt: T + 30 + i,
      }),
    );
  await s.inbox.enqueue(build(f.inboxRecord, { id: 'snap-msg-applied', runId: 'snap-run-1', createdAt: T + 29 }));
  await s.inbox.markApplied(['snap-msg-applied'], T + 40);

  // From schema 11: schedules (cron and interval, active and paused) and their ticks (fired and skipped).
  if (s.schedules && f.scheduleRecord) {
    for (const [i, record] of [
      build(f.scheduleRecord, {
        id: 'snap-sch-cron',
        clientKey: UNICODE,
        cron: '0 3 * * 1-5',
        timezone: 'Europe/Berlin',
        goal: UNICODE,
        capabilityAllowlist: ['media.search', 'download.*'],
        budgets: { maxRunsPerDay: 2, maxCostUsdPerDay: 0.5 },
        missed: 'catch_up_one',
        nextTickAt: T + DAY,
        lastTickAt: T,
        lastRunId: 'snap-run-1',
        revision: 3,
        createdAt: T,
        updatedAt: T + 10,
      }),
      build(f.scheduleRecord, {
        id: 'snap-sch-every',
        owner: 'user:bob',
        createdBy: 'user:alice',
        cron: null,
        everyMs: 3_600_000,
        anchorAt: T + 1,
        status: 'paused',
        nextTickAt: null,
        createdAt: T + 1,
        updatedAt: T + 1,
      }),
    ].entries()) {
      await s.schedules.insert(record);
      written.schedules.push(record.id);
      if (i === 0) {
        await s.schedules.claimTick(
          build(f.scheduleTick, { scheduleId: record.id, tickAt: T, runId: 'snap-run-1', handledBy: UNICODE }),
        );
        await s.schedules.claimTick(
          build(f.scheduleTick, {
            scheduleId: record.id,
            tickAt: T - DAY,
            outcome: 'skipped',
            runId: null,
            reason: 'missed',
            firstTickAt: T - 3 * DAY,
            ticks: 3,
            handledAt: T - DAY + 5,
          }),
        );
      }
    }
  }

  // From schema 13: intents, of a run (with a plan) and of a caller outside runs (expired).
  if (s.intents) {
    for (const record of [
      {
        key: `tmdb:438631|download`,
        mediaEntityId: 'tmdb:438631',
        effectClass: 'download',
        holderRunId: 'snap-run-1',
        holderActor: 'user:alice',
        capabilityId: 'download.plan',
        planId: 'snap-plan-1',
        createdAt: T,
        expiresAt: T + 6 * 3_600_000,
      },
      {
        key: `${UNICODE}|organize`,
        mediaEntityId: UNICODE,
        effectClass: 'organize',
        holderRunId: null,
        holderActor: 'user:bob',
        capabilityId: 'organize.execute',
        planId: null,
        createdAt: T + 1,
        expiresAt: T + 2,
      },
    ]) {
      await s.intents.acquire(record, T);
      written.intents.push(record.key);
    }
  }

  // Decisions: before schema 6 open/resolved with `data`; from 6 every status with options and resolutions.
  const modern = 'options' in f.decision();
  const statuses = modern ? ['open', 'awaiting_user', 'resolved', 'dismissed'] : ['open', 'resolved'];
  for (const [i, status] of statuses.entries()) {
    const closed = status === 'resolved' || status === 'dismissed';
    await s.decisions.insert(
      build(f.decision, {
        id: `snap-dec-${status}`,
        kind: i % 2 ? 'host_approval' : 'agent_budget',
        dedupeKey: `snap:${status}`,
        subjectId: `snap-run-${i}`,
        subjectType: 'run',
        status,
        reason: i === 0 ? UNICODE : `reason ${i}`,
        data: { budget: 'maxToolCalls', note: UNICODE },
        evidence: { budget: 'maxToolCalls', note: UNICODE },
        rootCause: i === 1 ? 'snap-dec-open' : null,
        options:
          status === 'awaiting_user'
            ? [
                { id: 'raise', label: UNICODE },
                { id: 'stop', label: 'stop the run' },
              ]
            : [],
        raisedBy: 'agent:snap-run-0',
        resolvedBy: closed ? 'user:alice' : null,
        resolution: status === 'resolved' ? { optionId: 'raise', note: UNICODE } : null,
        revision: 1 + i,
        createdAt: T + 50 + i,
        updatedAt: T + 60 + i,
        resolvedAt: closed ? T + 60 + i : null,
      }),
    );
  }
}

/** Every written row as this version's repositories return it. */
async function readAll(s: Any, w: Any): Promise<Any> {
  const rows: Any = { version, settings: {}, ledger: [], approvals: [], grants: [], plans: [], policies: [] };
  for (const key of w.settings) rows.settings[key] = await s.settings.get(key);
  for (const key of w.ledger) rows.ledger.push(await s.ledger.get(key));
  for (const id of w.approvals) rows.approvals.push(await s.approvals.get(id));
  rows.grants = await s.grants.list();
  for (const id of w.plans) rows.plans.push(await s.plans.get(id));
  rows.policies = await s.policies.listByKind('acquisition');
  rows.audit = await s.audit.list();
  if (s.runs && w.runs.length > 0) {
    rows.runs = [];
    rows.events = [];
    rows.messages = [];
    for (const id of w.runs) rows.runs.push(await s.runs.get(id));
    for (const id of ['snap-run-1', 'snap-run-3']) {
      rows.events.push(...(await s.events.listByRun(id)));
      rows.messages.push(...(await s.messages.list(id)));
    }
    rows.inbox = await s.inbox.listQueued('snap-run-1');
    rows.decisions = await s.decisions.list();
  }
  if (s.grantUsage) {
    rows.grantUsage = [];
    for (const [grantId, day] of w.grantUsage) rows.grantUsage.push(await s.grantUsage.get(grantId, day));
  }
  if (s.budgetUsage) {
    rows.budgetUsage = [];
    for (const [subject, period, start] of w.budget)
      rows.budgetUsage.push(await s.budgetUsage.get(subject, period, start));
    rows.reservations = await s.budgetUsage.reservations();
  }
  if (w.schedules.length > 0) {
    rows.schedules = [];
    rows.scheduleTicks = [];
    for (const id of w.schedules) {
      rows.schedules.push(await s.schedules.get(id));
      rows.scheduleTicks.push(...(await s.schedules.ticks(id)));
    }
  }
  if (w.intents.length > 0) {
    rows.intents = [];
    for (const key of w.intents) rows.intents.push(await s.intents.get(key));
  }
  return rows;
}

const f = await fixtures();
const storage = await open();
try {
  await storage.migrate();
  const got = await storage.schemaVersion();
  if (got !== version) throw new Error(`the code of version ${version} migrated to ${got}`);
  const written = await writeAll(storage, f);
  writeFileSync(rowsFile, `${JSON.stringify(await readAll(storage, written), null, 2)}\n`);
} finally {
  await storage.close();
}
