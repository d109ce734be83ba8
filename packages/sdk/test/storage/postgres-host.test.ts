/**
 * Agent hosts on PostgresStorage, end to end with the scripted model: one host drives a run to a verified
 * success; with two hosts on one schema, a run started by one is driven by the other's workers, woken by
 * LISTEN/NOTIFY (their poll interval is a minute), and a subscriber of the first sees its events; a storm of one
 * decision's events on two hosts starts one investigation run (compare-and-set on the decision across processes).
 */
import { afterAll, afterEach, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, ManualClock, type AgentHost } from '../../src/index';
import { registerSandboxCapabilities, SandboxWorld, ScriptedProvider } from '../../src/testing';
import { RandomIdGenerator } from '../../src/ports/id-generator';
import type { RunEvent } from '../../src/runtime/events/run-event';
import { runEvents, startHost, waitForStatus } from '../runtime/harness';
import { closeAdmin, describePostgres, dropSchema, freshSchemaName, pgStorage } from './postgres-available';

const hosts: AgentHost[] = [];
const schemas: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  for (const s of schemas.splice(0)) await dropSchema(s);
});
afterAll(closeAdmin);

const addDune = {
  match: 'Dune',
  steps: [
    { text: 'Checking the library. ', toolCalls: [{ capability: 'inventory.query', input: { title: 'Dune' } }] },
    { toolCalls: [{ capability: 'download.submit', input: { title: 'Dune' } }] },
  ],
  finalText: 'Submitted Dune; it will be imported.',
};

async function host(schema: string, options: Parameters<typeof startHost>[1] = {}) {
  const started = await startHost(addDune, {
    storage: pgStorage(schema),
    ids: new RandomIdGenerator(),
    ...options,
  });
  hosts.push(started.host);
  return started;
}

describePostgres('agent hosts on PostgreSQL', () => {
  it('a host on PostgresStorage drives an execute run to a verified success, one download, events in order', async () => {
    const schema = freshSchemaName('ma_host');
    schemas.push(schema);
    const { host: h, clock, world } = await host(schema);
    await h.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const run = await h.startRun({ goal: 'Add Dune to the library', actor: 'user:admin' });
    expect((await waitForStatus(h, run.id, ['waiting', 'succeeded', 'failed'])).status).toBe('waiting');
    clock.advance(61_000);
    const done = await waitForStatus(h, run.id, ['succeeded', 'failed'], { clock, tickMs: 1000 });
    expect(done.status).toBe('succeeded');
    expect(world.jobs).toHaveLength(1);
    const events = await runEvents(h, run.id);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)).toMatchObject({ type: 'run_status', data: { status: 'succeeded' } });
  });

  it('a goal, a model reply and a steering message holding U+0000 are stored (as U+FFFD), never failing the run', async () => {
    const schema = freshSchemaName('ma_host');
    schemas.push(schema);
    const started = await startHost(
      { match: 'Peek', steps: [{ text: 'look\u0000ing ', toolCalls: [] }], finalText: 'saw a\u0000b' },
      { storage: pgStorage(schema), ids: new RandomIdGenerator() },
    );
    hosts.push(started.host);
    const h = started.host;
    const run = await h.startRun({ goal: 'Peek at\u0000the library', actor: 'user:admin', mode: 'plan_only' });
    const ended = await waitForStatus(h, run.id, ['waiting', 'succeeded', 'failed']);
    expect(ended.error ?? null).toBeNull();
    expect((await h.getRun(run.id)).run.goal).toBe('Peek at\uFFFDthe library');
    await h.appendToInbox(run.id, 'one\u0000more', 'user:admin');
    const events = await runEvents(h, run.id);
    expect(events.some((e) => e.type === 'inbox_queued' || e.type === 'inbox_applied')).toBe(true);
  });

  it('two hosts on one schema: a run started on one is driven by the other, woken by NOTIFY, and its events reach a subscriber of the first', async () => {
    const schema = freshSchemaName('ma_hosts');
    schemas.push(schema);
    const front = await host(schema, { workers: false });
    // The worker host polls once a minute: only a notification can make it lease the run within the test.
    const worker = await host(schema, { runs: { pollMs: 60_000 } });
    await front.host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const controller = new AbortController();
    const seen: RunEvent[] = [];
    const run = await front.host.startRun({ goal: 'Add Dune to the library', actor: 'user:admin' });
    const subscription = (async () => {
      for await (const event of front.host.events({
        runId: run.id,
        follow: true,
        signal: controller.signal,
        pollMs: 60_000,
      })) {
        seen.push(event);
        if (event.type === 'run_status' && (event.data as { status: string }).status === 'waiting') return;
      }
    })();
    expect((await waitForStatus(front.host, run.id, ['waiting', 'failed'])).status).toBe('waiting');
    await subscription;
    controller.abort();
    expect(worker.world.jobs).toHaveLength(1);
    expect(front.world.jobs).toHaveLength(0);
    const stored = await runEvents(front.host, run.id);
    expect(seen.map((e) => e.globalSeq)).toEqual(stored.slice(0, seen.length).map((e) => e.globalSeq));
    expect(new Set(seen.map((e) => e.globalSeq)).size).toBe(seen.length);
  });

  it('two hosts on one schema, a storm of the same decision events on both: one investigation run', async () => {
    const schema = freshSchemaName('ma_decisions');
    schemas.push(schema);
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
    const world = new SandboxWorld({ clock });
    const make = async () => {
      const h = createAgentHost({
        storage: pgStorage(schema),
        clock,
        ids: new RandomIdGenerator(),
        logger: new ConsoleLogger('silent'),
        model: { provider: new ScriptedProvider() },
        goalFacts: world,
        decisions: { autoInvestigate: true },
      });
      registerSandboxCapabilities(h, world);
      await h.start({ workers: false });
      hosts.push(h);
      return h;
    };
    const [a, b] = [await make(), await make()];
    const run = await a.startRun({ goal: 'Add Dune to the library', actor: 'user:admin' });
    const input = {
      kind: 'identity_ambiguous',
      subject: { type: 'run', id: run.id },
      reason: 'two titles are called Dune',
      raisedBy: 'system:watch',
    };
    const raised = await Promise.all([
      ...Array.from({ length: 4 }, () => a.raiseDecision(input)),
      ...Array.from({ length: 4 }, () => b.raiseDecision(input)),
    ]);
    const id = raised[0]!.id;
    expect(new Set(raised.map((d) => d.id))).toEqual(new Set([id]));
    await Promise.all([a, b, a, b, a, b].map((h) => h.resolveDecision({ type: 'created', decisionId: id })));
    const investigations = (await a.listRuns()).filter((r) => r.goal.includes(id));
    expect(investigations).toHaveLength(1);
    const decision = await b.getDecision(id);
    expect(decision.evidence).toMatchObject({ investigation: { runId: investigations[0]!.id, mode: 'investigate' } });
    expect(decision.revision).toBe(2);
  });
});
