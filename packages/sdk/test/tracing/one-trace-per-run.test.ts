// One run is one trace: the first processing of a run keeps its span context with the run (runtime state,
// stored by the run's store), and every later processing — a resume after an approval in another process
// on the same SQLite file, a wake — starts as its child with a span link to it.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, ManualClock, type AgentHost } from '../../src/index';
import type { TracingOptions } from '../../src/loop';
import { SqliteStorage } from '../../src/sqlite';
import { addToLibraryScript, registerSandboxCapabilities, SandboxWorld, ScriptedProvider } from '../../src/testing';
import { runEvents, waitForStatus } from '../runtime/harness';
import { closeProviderHosts, memoryTracing, op, tempDir, track, violations } from './span-harness';

const TERMINAL = ['succeeded', 'failed', 'cancelled', 'budget_exceeded'] as const;
afterEach(closeProviderHosts);

function hostOn(path: string, tracing: TracingOptions, clock: ManualClock, world: SandboxWorld): AgentHost {
  const host = track(
    createAgentHost({
      storage: new SqliteStorage({ path }),
      clock,
      logger: new ConsoleLogger('silent'),
      model: { provider: new ScriptedProvider({ scripts: addToLibraryScript('Dune: Part Two') }), model: 'scripted-1' },
      goalFacts: world,
      runs: { pollMs: 5, goalPollSec: 1 },
      tracing,
    }),
  );
  registerSandboxCapabilities(host, world);
  return host;
}

describe('one run, one trace', () => {
  // mastra-ai/mastra#17075 (fixed by mastra-ai/mastra#17134): a run resumed after a human approval got an
  // agent span orphaned from the suspended run's trace. Here too, before: the resume's invoke_agent span had
  // no parent, so a backend showed two unrelated traces for one run; after: one trace, linked.
  it('mastra#17075: a run that waits for an approval in one host and is resumed by a second host on the same SQLite file: one trace id, the resume is a child of the first processing and links to it', async () => {
    const file = join(tempDir(), 'agent.sqlite');
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
    const world = new SandboxWorld({ clock });
    const first = memoryTracing();
    const a = hostOn(file, first.options, clock, world);
    await a.start();
    await a.grants.create({ action: 'download.plan', actor: 'user:admin' });
    const run = await a.startRun({ goal: 'Add Dune: Part Two to the library', actor: 'user:admin' });
    await waitForStatus(a, run.id, ['waiting']);
    const asked = (await runEvents(a, run.id)).find((e) => e.type === 'approval_requested')!;
    const { approvalId, planId } = asked.data as { approvalId: string; planId: string };
    const payloadHash = (await a.plans.get(planId)).payloadHash;
    await a.stop();

    // Another process: its own tracer provider and exporter, the same database file.
    const second = memoryTracing();
    const b = hostOn(file, second.options, clock, world);
    await b.start();
    await b.approvals.decide(approvalId, { status: 'approved', actor: 'user:admin', payloadHash });
    expect((await waitForStatus(b, run.id, TERMINAL, { clock, tickMs: 1000, timeoutMs: 15_000 })).status).toBe(
      'succeeded',
    );
    await b.stop();

    const before = first.exporter.getFinishedSpans().filter((s) => op(s) === 'invoke_agent');
    const after = second.exporter.getFinishedSpans().filter((s) => op(s) === 'invoke_agent');
    expect(before.length).toBeGreaterThanOrEqual(1);
    expect(after.length).toBeGreaterThanOrEqual(1);
    const root = before[0]!;
    expect(root.parentSpanContext).toBeUndefined();
    for (const s of [...before.slice(1), ...after]) {
      expect(s.spanContext().traceId).toBe(root.spanContext().traceId);
      expect(s.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
      expect(s.links.map((l) => l.context.spanId)).toEqual([root.spanContext().spanId]);
    }
    // Everything the second host recorded for the run is in the run's trace.
    const traces = new Set(second.exporter.getFinishedSpans().map((s) => s.spanContext().traceId));
    expect(traces).toEqual(new Set([root.spanContext().traceId]));
    expect(violations([...first.exporter.getFinishedSpans(), ...second.exporter.getFinishedSpans()])).toEqual([]);

    // The root is kept with the run, in its runtime state (W3C traceparent).
    const stored = await new SqliteStorage({ path: file }).runs.get(run.id);
    expect((stored!.runtimeState as Record<string, unknown>).trace).toBe(
      `00-${root.spanContext().traceId}-${root.spanContext().spanId}-01`,
    );
  });

  it('without a tracer provider nothing is kept with the run', async () => {
    const file = join(tempDir(), 'agent.sqlite');
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
    const world = new SandboxWorld({ clock });
    const host = hostOn(file, {}, clock, world);
    await host.start();
    await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'Add Dune: Part Two to the library', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['waiting']);
    const stored = await host.getRun(run.id);
    expect((stored.run.runtimeState as Record<string, unknown> | null)?.trace).toBeUndefined();
  });
});
