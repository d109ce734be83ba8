// The storage side of the boundary on a real SQLite file: which writes are redacted (also inside a
// transaction and batched), which stay exact on purpose (plans), and that reads change nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REDACTED_MARKER, SecretRedactor } from '../../src/core/secret-redactor';
import type { ApprovalRecord, AuditRecord, PlanRecord } from '../../src/core/records';
import type { DecisionRecord, RunRecord } from '../../src/core/run-records';
import type { ScheduleRecord } from '../../src/core/schedule-records';
import { SqliteStorage } from '../../src/sqlite';
import { redactingStorage, unredactedStorage } from '../../src/storage/redacting-storage';
import { runRecord } from '../storage/run-record';

const S = 'nas-pass-31415926';
const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function stores() {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-redacting-storage-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const raw = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
  await raw.migrate();
  cleanup.push(() => raw.close());
  return { raw, view: redactingStorage(raw, new SecretRedactor({ secrets: [S] })) };
}

const run = (id: string): RunRecord =>
  runRecord(id, {
    goal: `mount with ${S}`,
    status: 'running',
    startedBy: 'user:alice',
    runtimeState: { note: S },
    startedAt: 1,
  });

const audit = (id: string): AuditRecord => ({
  id,
  seq: 0,
  at: 1,
  action: 'capability.invoke',
  actor: 'user:alice',
  capabilityId: 'nas.login',
  invocationId: `inv-${id}`,
  runId: null,
  taskId: null,
  outcome: 'failed',
  approvalId: null,
  grantId: null,
  idempotencyKey: null,
  inputSummary: JSON.stringify({ url: `https://admin:${S}@nas` }),
  reason: `HANDLER_FAILED: refused ${S}`,
});

describe('redactingStorage', () => {
  it('redacts run, event, message, inbox, audit (direct, batched, in a transaction) and decision writes; reads and plans are exact', async () => {
    const { raw, view } = await stores();
    expect(unredactedStorage(view)).toBe(raw);
    expect(view.kind).toBe(raw.kind);
    expect(view).toBeInstanceOf(SqliteStorage);
    await view.runs.insert(run('run-1'));
    await view.transaction(async (s) => {
      await s.runs.patch('run-1', { error: { code: 'X', message: `failed with ${S}` }, finalText: S });
      await s.events.append({ runId: 'run-1', type: 'run_status', at: 2, data: { status: 'failed', reason: S } });
      await s.messages.append('run-1', { role: 'tool', content: [{ type: 'text', text: `error ${S}` }] }, 2);
      await s.audit.append(audit('audit-1'));
    });
    await view.inbox.enqueue({
      id: 'msg-1',
      runId: 'run-1',
      text: `use ${S}`,
      actor: 'user:alice',
      status: 'queued',
      createdAt: 3,
      appliedAt: null,
    });
    await view.appendAuditBatched(audit('audit-2'));
    const decision: DecisionRecord = {
      id: 'dec-1',
      kind: 'run_failed',
      dedupeKey: 'run_failed:run-1',
      subjectId: 'run-1',
      status: 'open',
      reason: `the run failed: ${S}`,
      evidence: { message: S },
      subjectType: 'run',
      rootCause: null,
      options: [{ id: 'retry', label: 'Retry', capabilityId: 'nas.login', input: { password: S } }],
      raisedBy: 'agent:run-1',
      resolvedBy: null,
      resolution: null,
      revision: 1,
      createdAt: 3,
      updatedAt: 3,
      resolvedAt: null,
    };
    await view.decisions.insert(decision);
    const plan: PlanRecord = {
      id: 'plan-1',
      type: 'organize',
      payload: { source: `smb://admin:${S}@nas/movies` },
      payloadHash: 'ph-1',
      revision: 1,
      mediaEntityId: null,
      mediaKind: null,
      bytes: 0,
      createdBy: 'user:alice',
      createdAt: 3,
      updatedAt: 3,
    };
    await view.plans.insert(plan);

    const { runtimeState: _kept, ...storedRun } = (await raw.runs.get('run-1'))!;
    const stored = JSON.stringify([
      storedRun,
      await raw.events.listByRun('run-1'),
      await raw.messages.list('run-1'),
      await raw.inbox.listQueued('run-1'),
      await raw.audit.list({ limit: 10 } as never),
    ]);
    expect(stored).not.toContain(S);
    expect(stored).toContain(REDACTED_MARKER);
    const storedDecision = await raw.decisions.get('dec-1');
    expect(storedDecision?.reason).toBe(`the run failed: ${REDACTED_MARKER}`);
    expect(storedDecision?.evidence).toEqual({ message: REDACTED_MARKER });
    // Kept exact on purpose: a decision option's input is what choosing it runs; the run's runtime state is the
    // loop's own; a plan is bound to its approvals by hash (docs/secrets.md).
    expect(storedDecision?.options[0]?.input).toEqual({ password: S });
    expect((await raw.runs.get('run-1'))?.runtimeState).toEqual({ note: S });
    expect((await raw.plans.get('plan-1'))?.payload).toEqual(plan.payload);
    // Reads through the view are the store's own.
    expect(await view.runs.get('run-1')).toEqual(await raw.runs.get('run-1'));
  });

  it("redacts a schedule's goal on insert and compare-and-set (direct and in a transaction); reads are exact", async () => {
    const { raw, view } = await stores();
    const schedule: ScheduleRecord = {
      id: 'sch-1',
      owner: 'user:alice',
      createdBy: 'user:alice',
      clientKey: null,
      cron: '0 3 * * *',
      everyMs: null,
      anchorAt: 1,
      timezone: 'Europe/Berlin',
      goal: `check the share with ${S}`,
      mode: 'execute',
      capabilityAllowlist: ['nas.login'],
      budgets: { maxRunsPerDay: 2 },
      missed: 'skip',
      status: 'active',
      nextTickAt: 10,
      lastTickAt: null,
      lastRunId: null,
      revision: 1,
      createdAt: 1,
      updatedAt: 1,
    };
    expect(await view.schedules.insert(schedule)).toBe(true);
    expect((await raw.schedules.get('sch-1'))?.goal).toBe(`check the share with ${REDACTED_MARKER}`);
    await view.transaction(async (s) => {
      expect(await s.schedules.compareAndSet('sch-1', 1, { ...schedule, goal: `now ${S}`, revision: 2 })).toBe(true);
    });
    const stored = await raw.schedules.get('sch-1');
    expect(stored?.goal).toBe(`now ${REDACTED_MARKER}`);
    expect(stored?.revision).toBe(2);
    expect(stored?.capabilityAllowlist).toEqual(['nas.login']);
    expect(await view.schedules.get('sch-1')).toEqual(stored);
  });

  it("redacts an approval's impact on insert and compare-and-set; its proposed and approved payloads stay exact", async () => {
    const { raw, view } = await stores();
    const approval: ApprovalRecord = {
      id: 'appr-1',
      planType: 'organize',
      planId: 'plan-1',
      payloadHash: 'ph-1',
      revision: 1,
      status: 'requested',
      requestedBy: 'agent:run-1',
      reason: null,
      requestedAt: 1,
      expiresAt: 100,
      decidedBy: null,
      decidedAt: null,
      consumedBy: null,
      consumedAt: null,
      capabilityId: 'organize.execute',
      impact: {
        status: 'unknown',
        code: 'IMPACT_FAILED',
        reason: `login with ${S} refused`,
        summary: 'impact unknown',
      },
      steps: [],
      approvedSteps: null,
      proposedPayload: { source: `smb://admin:${S}@nas/movies` },
      proposedPayloadHash: 'ph-1',
      approvedPayload: null,
      executedPayloadHash: null,
    };
    await view.approvals.insert(approval);
    const stored = await raw.approvals.get('appr-1');
    expect(stored?.impact).toEqual({ ...approval.impact, reason: `login with ${REDACTED_MARKER} refused` });
    expect(stored?.proposedPayload).toEqual(approval.proposedPayload);
    await view.transaction(async (s) => {
      const patch: Partial<ApprovalRecord> = {
        status: 'approved',
        approvedPayload: { source: `smb://admin:${S}@nas/films` },
        impact: { status: 'known', impact: { reversible: true, notes: [`share ${S}`] }, summary: 'can be undone' },
      };
      expect(await s.approvals.compareAndSet('appr-1', 'requested', patch)).toBe(true);
    });
    const decided = await raw.approvals.get('appr-1');
    expect(decided?.impact).toEqual({
      status: 'known',
      impact: { reversible: true, notes: [`share ${REDACTED_MARKER}`] },
      summary: 'can be undone',
    });
    expect(decided?.approvedPayload).toEqual({ source: `smb://admin:${S}@nas/films` });
    expect(await view.approvals.get('appr-1')).toEqual(decided);
  });

  it('the same store and redactor give the same view; a view is not wrapped twice', async () => {
    const { raw, view } = await stores();
    const redactor = new SecretRedactor();
    const a = redactingStorage(raw, redactor);
    expect(redactingStorage(raw, redactor)).toBe(a);
    expect(redactingStorage(view, redactor)).toBe(view);
  });
});
