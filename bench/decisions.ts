/**
 * Benchmark `decisions`: what a host pays for decisions, on memory storage and on SQLite (a real file in
 * `os.tmpdir()`, deleted afterwards), each row time-boxed (1 s) after a warm-up.
 *
 * - `bare insert`: `storage.decisions.insert(record)` alone, one transaction each: the storage work's floor.
 * - `raise`: `host.raiseDecision(…)` of a new occurrence — validation, the subject check (a `run` subject is read
 *   from storage), insert and its `decision.created` event in one transaction, then `resolveDecision` (automatic
 *   investigation off: one read). Divided by `bare insert`.
 * - `raise, same key (event storm)`: the same occurrence raised again: validation, the subject read, an insert
 *   that finds the key, one read of the stored decision; nothing is written.
 * - `choose (invokes a capability)`: `host.chooseDecisionOption` of an option naming an `execute` capability, as an
 *   administrator: a compare-and-set with its event, the invocation (claim, handler, settle, audit), a second
 *   compare-and-set with its event.
 *
 * Figures are from one run on the machine that printed them; compare rows, not machines.
 * Run with `npm run bench -- decisions`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Type from 'typebox';
import {
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  type AgentHost,
  type DecisionRecord,
  type StorageAdapter,
} from '../packages/sdk/src/index';
import { MemoryStorage } from '../packages/sdk/src/storage';
import { createSqliteStorage } from '../packages/sdk/src/sqlite';
import { runRecord } from '../packages/sdk/test/storage/run-record';
import { printMachine, printTable } from './_report';

const fix = defineCapability({
  id: 'bench.fix',
  version: 1,
  title: 'Fix a thing',
  description: 'Fixes a thing (benchmark).',
  kind: 'execute',
  replay: 'reconcile',
  input: Type.Object({ n: Type.Number() }),
  output: Type.Object({ ok: Type.Boolean() }),
  handler: async () => ({ ok: true }),
});

async function timed(fn: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 50; i++) await fn(-1 - i); // warm-up
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < 1000) await fn(n++);
  return n / ((performance.now() - start) / 1000);
}

function record(id: string, now: number): DecisionRecord {
  return {
    id,
    kind: 'download_failed',
    dedupeKey: `bare:${id}`,
    subjectType: 'run',
    subjectId: 'run-bench',
    rootCause: null,
    status: 'open',
    reason: 'bench',
    evidence: { state: 'missingFiles' },
    options: [],
    raisedBy: 'system:bench',
    resolvedBy: null,
    resolution: null,
    revision: 1,
    createdAt: now,
    updatedAt: now,
    resolvedAt: null,
  };
}

async function measure(label: string, storage: StorageAdapter): Promise<string[][]> {
  const host: AgentHost = createAgentHost({ storage, logger: new ConsoleLogger('silent') });
  host.capabilities.register(fix);
  await host.start({ workers: false });
  // A run to be the subject (raised decisions about a run are checked against storage).
  await storage.runs.insert(runRecord('run-bench'));
  const bare = await timed((i) => storage.transaction((s) => s.decisions.insert(record(`b${i}`, Date.now()))));
  const raise = (key: string) =>
    host.raiseDecision({
      kind: 'download_failed',
      subject: { type: 'run', id: 'run-bench' },
      reason: 'bench',
      raisedBy: 'system:bench',
      evidence: { state: 'missingFiles' },
      options: [{ id: 'fix', label: 'Fix it', capabilityId: 'bench.fix', input: { n: 1 } }],
      dedupeKey: key,
    });
  const raised = await timed((i) => raise(`r${i}`));
  const storm = await timed(() => raise('r0'));
  const ids: string[] = [];
  for (let i = 0; i < 5000; i++) ids.push((await raise(`c${i}`)).id);
  let next = 0;
  // Each choice resolves a decision of its own (a second choice of one decision would only read).
  const chosen = await timed(() => host.chooseDecisionOption(ids[next++ % ids.length]!, 'fix', 'user:admin'));
  await host.stop();
  const row = (name: string, perSec: number, ratio: boolean) => [
    label,
    name,
    perSec.toFixed(0),
    (1e6 / perSec).toFixed(0),
    ratio ? (perSec / bare).toFixed(2) : '',
  ];
  return [
    row('bare insert', bare, false),
    row('raise', raised, true),
    row('raise, same key (event storm)', storm, true),
    row('choose (invokes a capability)', chosen, true),
  ];
}

export async function run(): Promise<void> {
  printMachine();
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-bench-decisions-'));
  try {
    const rows = [
      ...(await measure('memory', new MemoryStorage())),
      ...(await measure('sqlite', createSqliteStorage({ path: join(dir, 'bench.sqlite') }))),
    ];
    printTable(['store', 'operation', 'ops/s', 'µs/op', '÷ bare insert'], rows, new Set([2, 3, 4]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
