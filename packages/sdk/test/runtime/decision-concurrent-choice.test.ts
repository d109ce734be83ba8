/**
 * Simultaneous choices of one decision: the later callers wait for the first call's result and return it
 * (`first: false`, the same execution), on one host and across hosts sharing one SQLite file (default random ids).
 */
// jcagarcia/grape-idempotency#10: a second request arriving while the first (same key) has not finished must not
// act as if nothing happened; here the later choosers used to get `{ first: false, execution: null }`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, defineCapability, type AgentHost, type DecisionChoice } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { downloadRestart } from './harness';

const ADMIN = 'user:admin';
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** A capability whose handler waits for `release()`: the first choice is in flight until then. */
function gatedRestart() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const calls: string[] = [];
  let entered!: () => void;
  const started = new Promise<void>((r) => (entered = r));
  const capability = defineCapability({
    ...downloadRestart,
    handler: async (input) => {
      calls.push(input.downloadId);
      entered();
      await gate;
      return { restarted: true };
    },
  });
  return { capability, calls, started, release: () => release() };
}

async function hostOn(path: string, choiceWaitMs?: number): Promise<AgentHost> {
  const host = createAgentHost({
    storage: new SqliteStorage({ path }),
    ...(choiceWaitMs !== undefined ? { decisions: { choiceWaitMs } } : {}),
    logger: new ConsoleLogger('silent'),
  });
  cleanup.push(() => host.stop().catch(() => undefined));
  return host;
}

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-choice-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'agent.sqlite');
}

function expectOneExecution(choices: DecisionChoice[]) {
  expect(choices.filter((c) => c.first)).toHaveLength(1);
  const first = choices.find((c) => c.first)!;
  expect(first.execution).toMatchObject({
    kind: 'capability',
    capabilityId: 'download.restart',
    status: 'succeeded',
    output: { restarted: true },
  });
  for (const c of choices) {
    expect(c.decision.status).toBe('resolved');
    expect(c.execution).toEqual(first.execution);
  }
}

it('three simultaneous choices on one host (SQLite file): one runs, the two others wait and return its result', async () => {
  const host = await hostOn(tempFile());
  const gated = gatedRestart();
  host.capabilities.register(gated.capability);
  await host.start({ workers: false });
  const d = await host.raiseDecision({
    kind: 'download_failed',
    reason: 'missing files',
    raisedBy: 'system:watch',
    subject: { type: 'download', id: 'dl-1' },
    options: [{ id: 'restart', label: 'Restart it', capabilityId: 'download.restart', input: { downloadId: 'dl-1' } }],
  });
  const pending = [1, 2, 3].map(() => host.chooseDecisionOption(d.id, 'restart', ADMIN));
  await gated.started;
  // The later callers are still waiting while the first choice runs.
  let settled = 0;
  for (const p of pending) void p.then(() => settled++);
  await new Promise((r) => setTimeout(r, 50));
  expect(settled).toBe(0);
  gated.release();
  const choices = await Promise.all(pending);
  expectOneExecution(choices);
  expect(gated.calls).toEqual(['dl-1']);
  expect(await host.audit({ action: 'capability.invoke', capabilityId: 'download.restart' })).toHaveLength(1);
});

it('simultaneous choices from two hosts on one SQLite file: the other host waits for the stored execution', async () => {
  const path = tempFile();
  const a = await hostOn(path);
  const b = await hostOn(path);
  const gatedA = gatedRestart();
  const gatedB = gatedRestart();
  a.capabilities.register(gatedA.capability);
  b.capabilities.register(gatedB.capability);
  await a.start({ workers: false });
  await b.start({ workers: false });
  const d = await a.raiseDecision({
    kind: 'download_failed',
    reason: 'missing files',
    raisedBy: 'system:watch',
    subject: { type: 'download', id: 'dl-2' },
    options: [{ id: 'restart', label: 'Restart it', capabilityId: 'download.restart', input: { downloadId: 'dl-2' } }],
  });
  const first = a.chooseDecisionOption(d.id, 'restart', ADMIN);
  await gatedA.started;
  const others = [b.chooseDecisionOption(d.id, 'restart', ADMIN), b.chooseDecisionOption(d.id, 'restart', ADMIN)];
  await new Promise((r) => setTimeout(r, 50));
  gatedA.release();
  gatedB.release();
  expectOneExecution([await first, ...(await Promise.all(others))]);
  expect([...gatedA.calls, ...gatedB.calls]).toEqual(['dl-2']);
});

it('a later choice that waited longer than decisions.choiceWaitMs fails DECISION_IN_PROGRESS; afterwards it returns the first result', async () => {
  const host = await hostOn(tempFile(), 100);
  const gated = gatedRestart();
  host.capabilities.register(gated.capability);
  await host.start({ workers: false });
  const d = await host.raiseDecision({
    kind: 'download_failed',
    reason: 'missing files',
    raisedBy: 'system:watch',
    subject: { type: 'download', id: 'dl-3' },
    options: [{ id: 'restart', label: 'Restart it', capabilityId: 'download.restart', input: { downloadId: 'dl-3' } }],
  });
  const first = host.chooseDecisionOption(d.id, 'restart', ADMIN);
  await gated.started;
  await expect(host.chooseDecisionOption(d.id, 'restart', ADMIN)).rejects.toMatchObject({
    code: 'DECISION_IN_PROGRESS',
    details: { decisionId: d.id },
  });
  gated.release();
  const done = await first;
  expect(await host.chooseDecisionOption(d.id, 'restart', ADMIN)).toMatchObject({
    first: false,
    execution: done.execution,
  });
  expect(gated.calls).toEqual(['dl-3']);
});

it('decisions.choiceWaitMs that is not an integer of at least 0 is refused when the host is built', () => {
  expect(() => createAgentHost({ decisions: { choiceWaitMs: -1 } })).toThrow(/decisions\.choiceWaitMs/);
  expect(() => createAgentHost({ decisions: { choiceWaitMs: 1.5 } })).toThrow(/decisions\.choiceWaitMs/);
});
