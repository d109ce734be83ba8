/**
 * Benchmark `code`: what `execute_code` costs before the script does any work of its own.
 *
 * Rows (all through `CodeExecution.runCell`, the path a model's `execute_code` call takes: argument
 * check, role check, cell rewrite, kernel lease, run, output and result assembly):
 *
 * - `cell, cold kernel`: `reset: true` on every cell, so each one starts a new kernel (a new
 *   QuickJS WebAssembly instance with its own memory; the WebAssembly code itself is compiled once
 *   per process) and runs `1`.
 * - `cell, warm kernel`: the same cell in the owner's existing kernel.
 * - `RPC round trip`: one `await tools['bench.echo']({ i })` from the script to a bare read
 *   capability and back — the per-call checks (budget, role, enabled set, kind), the one invocation
 *   path (validation, authorization, audit row on a memory store) and the JSON both ways. Measured as
 *   (time of a cell making 50 calls − time of an empty warm cell) / 50.
 * - `host invoke, same capability`: `host.invoke` of the same capability from the host, the
 *   baseline the RPC adds its sandbox crossing to.
 *
 * Figures are from one run on the machine that printed them; compare rows, not machines.
 * Run with `npm run bench -- code`.
 */
import { performance } from 'node:perf_hooks';
import Type from 'typebox';
import { ConsoleLogger, ManualClock, createAgentHost, defineCapability } from '../packages/sdk/src/index';
import type { RunRecord } from '../packages/sdk/src/core/run-records';
import { CodeExecution } from '../packages/sdk/src/runtime/code/code-execution';
import { resolveCodeExecutionOptions } from '../packages/sdk/src/runtime/code/code-options';
import { ToolResultStore } from '../packages/sdk/src/runtime/context/tool-result-store';
import { printMachine, printTable } from './_report';

/** Median and 95th percentile of samples, in µs. */
function stats(samples: number[]): { p50: number; p95: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: s[Math.floor(s.length / 2)]!, p95: s[Math.floor(s.length * 0.95)]! };
}

async function time(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out.push((performance.now() - t) * 1000);
  }
  return out;
}

export async function run(): Promise<void> {
  printMachine();
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const host = createAgentHost({ clock, logger: new ConsoleLogger('silent') });
  host.capabilities.register(
    defineCapability({
      id: 'bench.echo',
      version: 1,
      title: 'Echo',
      description: 'Returns its input.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({ i: Type.Integer() }),
      output: Type.Object({ i: Type.Integer() }),
      handler: async ({ i }) => ({ i }),
    }),
  );
  await host.start({ workers: false });
  const code = new CodeExecution(resolveCodeExecutionOptions({ maxIdleKernels: 4 }), {
    capabilities: host.capabilities,
    results: new ToolResultStore({ clock }),
    roleOf: () => 'admin',
    clock,
  });
  const run = { id: 'bench', startedBy: 'user:admin', depth: 0, mode: 'execute', capabilityAllowlist: null };
  const signal = new AbortController().signal;
  const cell = (source: string, reset = false) =>
    code
      .runCell(
        () => run as unknown as RunRecord,
        () => run.startedBy,
        'call',
        { code: source, reset },
        signal,
      )
      .then((r) => {
        if (!r.success) throw new Error(`bench cell failed: ${JSON.stringify(r.error ?? r.tool_errors)}`);
        return r;
      });

  // Warm-up: load the sandbox, compile the WebAssembly code, let V8 optimise the paths.
  for (let i = 0; i < 20; i++) await cell('1', true);
  for (let i = 0; i < 50; i++) await cell('1');
  await cell("for (let i = 0; i < 50; i++) await tools['bench.echo']({ i })", false);

  const cold = stats(await time(60, () => cell('1', true)));
  const warm = stats(await time(300, () => cell('1')));
  const empty = await time(100, () => cell('let s = 0; for (let i = 0; i < 50; i++) s += i'));
  const calls = await time(100, () => cell("for (let i = 0; i < 50; i++) await tools['bench.echo']({ i })"));
  const rpc = stats(calls.map((c, i) => (c - empty[i]!) / 50));
  const invoke = stats(await time(2_000, () => host.invoke('bench.echo', { i: 1 }, { actor: 'user:admin' })));

  const us = (n: number) => n.toFixed(0);
  printTable(
    ['row', 'p50 µs', 'p95 µs'],
    [
      ['cell, cold kernel', us(cold.p50), us(cold.p95)],
      ['cell, warm kernel', us(warm.p50), us(warm.p95)],
      ['RPC round trip (per call, 50 per cell)', us(rpc.p50), us(rpc.p95)],
      ['host invoke, same capability', us(invoke.p50), us(invoke.p95)],
    ],
    new Set([1, 2]),
  );
  code.close();
  await host.stop();
}
