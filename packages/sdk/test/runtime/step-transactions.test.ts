// One storage transaction per step of the run loop, counted with a wrapper around the real adapters.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  type AgentHost,
  type ModelProvider,
  type StorageAdapter,
} from '../../src/index';
import { MemoryStorage } from '../../src/storage';
import type { ModelEvent, ModelRequest } from '../../src/models';
import type { StorageSession } from '../../src/storage';
import { SqliteStorage } from '../../src/sqlite';
import { ScriptedProvider, type FakeScript } from '../../src/testing';
import { runEvents, waitForStatus } from './harness';
import { REPOSITORY_NAMES } from '../../src/storage/repository-methods';

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const REPOSITORIES = new Set<string>(REPOSITORY_NAMES);
/**
 * The spending budgets' own transactions (docs/budgets.md): a run's start is counted, each model call is reserved
 * before it is sent and settled after, each in a transaction of its own — like the ledger's claims, not a step.
 */
const spendingOwn = (calls: readonly string[]) => calls.length > 0 && calls.every((c) => c.startsWith('budgetUsage.'));
/** The worker pool's own: the lease of the next run, with the release of the one it drove before. */
const leaseOwn = (calls: readonly string[]) =>
  calls.length > 0 && calls.every((c) => c === 'runs.acquireLease' || c === 'runs.releaseLease');
const steps = (transactions: string[][]) => transactions.filter((calls) => !spendingOwn(calls) && !leaseOwn(calls));
/** Writes of the run loop (the worker pool's lease calls are not the loop's). */
const WRITES = /^(insert|patch|append|enqueue|markApplied|compareAndSet|update|put|set|delete\w*|charge\w*|add\w*)$/;

/** What went through the adapter: each `transaction` with the repository calls made in it, and calls made on the adapter directly. */
interface StorageLog {
  transactions: string[][];
  direct: string[];
}

/** Wraps an adapter so every `transaction` (with the calls inside it) and every direct repository call is recorded. */
function recording(inner: StorageAdapter, log: StorageLog): StorageAdapter {
  const repo = (name: string, target: object, sink: string[]) =>
    new Proxy(target, {
      get(t, prop) {
        const value: unknown = Reflect.get(t, prop);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          sink.push(`${name}.${String(prop)}`);
          return (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  const session = (s: StorageSession, sink: string[]) =>
    new Proxy(s, {
      get(t, prop) {
        const value: unknown = Reflect.get(t, prop);
        if (typeof prop === 'string' && REPOSITORIES.has(prop) && value && typeof value === 'object')
          return repo(prop, value, sink);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
      },
    });
  return new Proxy(inner, {
    get(t, prop) {
      if (prop === 'transaction') {
        return <T>(fn: (s: StorageSession) => Promise<T>) => {
          const calls: string[] = [];
          log.transactions.push(calls);
          return t.transaction((s) => fn(session(s, calls)));
        };
      }
      const value: unknown = Reflect.get(t, prop);
      if (typeof prop === 'string' && REPOSITORIES.has(prop) && value && typeof value === 'object')
        return repo(prop, value, log.direct);
      if (prop === 'appendAuditBatched') {
        return (...args: unknown[]) => {
          log.direct.push('appendAuditBatched');
          return (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
    },
  });
}

/** A provider that notes where the storage log was when each model call began. */
class MarkingProvider implements ModelProvider {
  readonly id = 'marking';
  readonly marks: Array<{ transactions: number; direct: number }> = [];
  constructor(
    private readonly inner: ModelProvider,
    private readonly log: StorageLog,
  ) {}
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent> {
    this.marks.push({ transactions: this.log.transactions.length, direct: this.log.direct.length });
    return this.inner.stream(request, signal);
  }
}

const lookup = defineCapability({
  id: 'bench.lookup',
  version: 1,
  title: 'Look up a release',
  description: 'What the library knows about a release.',
  kind: 'read',
  replay: 'safe',
  input: Type.Object({ releaseId: Type.String() }),
  output: Type.Object({ releaseId: Type.String(), present: Type.Boolean() }),
  handler: async (input) => ({ releaseId: input.releaseId, present: true }),
});

const note = defineCapability({
  id: 'note.write',
  version: 1,
  title: 'Write a note',
  description: 'A proposal (a side effect, claimed in the ledger).',
  kind: 'propose',
  replay: 'never',
  input: Type.Object({ text: Type.String() }),
  output: Type.Object({ saved: Type.Boolean() }),
  handler: async () => ({ saved: true }),
});

const TURNS = 5;
const script: FakeScript = {
  match: 'releases',
  steps: [
    ...Array.from({ length: TURNS }, (_, i) => ({
      text: `Looking up r${i}. `,
      toolCalls: [{ capability: 'bench.lookup', input: { releaseId: `r${i}` } }],
    })),
    {
      text: 'Two more. ',
      toolCalls: [
        { capability: 'bench.lookup', input: { releaseId: 'x' } },
        { capability: 'bench.lookup', input: { releaseId: 'y' } },
      ],
    },
    { text: 'Noting it. ', toolCalls: [{ capability: 'note.write', input: { text: 'all found' } }] },
  ],
  finalText: 'All found.',
};

/**
 * A commit window long enough that the grouping of steps does not depend on how fast this machine runs them (the
 * window's timer is exercised by the slow-read case, with the default window).
 */
const LONG_WINDOW_MS = 60_000;

async function driveOnce(
  storage: StorageAdapter,
  scripts: FakeScript = script,
  extra: ReadonlyArray<ReturnType<typeof defineCapability>> = [],
  commitWindowMs: number | null = LONG_WINDOW_MS,
) {
  const log: StorageLog = { transactions: [], direct: [] };
  const provider = new MarkingProvider(new ScriptedProvider({ scripts }), log);
  const host = createAgentHost({
    storage: recording(storage, log),
    logger: new ConsoleLogger('silent'),
    model: { provider },
    runs: { pollMs: 5, concurrency: 1, ...(commitWindowMs !== null ? { commitWindowMs } : {}) },
  });
  hosts.push(host);
  host.capabilities.register(lookup);
  host.capabilities.register(note);
  for (const capability of extra) host.capabilities.register(capability);
  await host.start();
  await host.grants.create({ action: 'note.write', actor: 'user:admin' });
  // Counted from here: the run, not the host's start (migration, ledger recovery).
  log.transactions.length = 0;
  log.direct.length = 0;
  const run = await host.startRun({ goal: 'look up the releases', mode: 'plan_only', actor: 'user:admin' });
  expect((await waitForStatus(host, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
  const events = await runEvents(host, run.id);
  await host.stop();
  hosts.splice(hosts.indexOf(host), 1);
  return { log, marks: provider.marks, events };
}

const stores: Array<[string, () => StorageAdapter]> = [
  ['MemoryStorage', () => new MemoryStorage()],
  [
    'SqliteStorage (file)',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'media-agent-steps-'));
      dirs.push(dir);
      return new SqliteStorage({ path: join(dir, 'agent.sqlite') });
    },
  ],
];

describe.each(stores)('one storage transaction per step (%s)', (_name, make) => {
  it('each step commits once; a turn whose calls only read commits with their results; nothing else writes in between but the invocation path’s own writes', async () => {
    const { log, marks } = await driveOnce(make());
    expect(marks).toHaveLength(TURNS + 3);
    const between = (from: number, to: number) => ({
      transactions: steps(
        log.transactions.slice(marks[from]!.transactions, to < marks.length ? marks[to]!.transactions : undefined),
      ),
      direct: log.direct
        .slice(marks[from]!.direct, to < marks.length ? marks[to]!.direct : undefined)
        .filter((c) => WRITES.test(c.split('.')[1] ?? c) || c === 'appendAuditBatched'),
    });
    // Before the first model call: the run with its `queued` event (startRun), then one step (the run's start
    // with the drive's start: status, goal message, and the start's charge against the runs caps, checked in it).
    const opening = steps(log.transactions.slice(0, marks[0]!.transactions));
    expect(opening).toHaveLength(2);
    expect(opening[0]).toEqual(['runs.insert', 'events.append']);
    expect(opening[1]![0]).toBe('runs.patch');
    expect(opening[1]).toContain('messages.append');
    expect(opening[1]!.some((c) => c.startsWith('budgetUsage.'))).toBe(true);
    // The spending budgets' own: none. The start is charged in the start's step; no cap limits what a call of this
    // (unpriced) model may cost, so no call is reserved before it is sent; its cost is recorded in the step that used it.
    const spending = (from: number, to?: number) => log.transactions.slice(from, to).filter(spendingOwn).length;
    expect(spending(0, marks[0]!.transactions)).toBe(0);
    for (let k = 0; k + 1 < marks.length; k++)
      expect(spending(marks[k]!.transactions, marks[k + 1]!.transactions)).toBe(0);
    expect(spending(marks.at(-1)!.transactions)).toBe(0);
    // A model turn with one read: the turn's step waits for the call's step, and both wait through the next model
    // call (it changes nothing outside the run); they commit with the next turn's step, before its read runs — what a
    // turn's calls returned is durable before another handler runs. One commit per turn.
    expect(between(0, 1).transactions, 'turn 1').toHaveLength(0);
    expect(between(0, 1).direct, 'turn 1').toEqual(['appendAuditBatched']);
    for (let k = 1; k < TURNS; k++) {
      const { transactions, direct } = between(k, k + 1);
      expect(transactions, `turn ${k + 1}`).toHaveLength(1);
      const calls = transactions[0]!;
      expect(calls[0]).toBe('runs.patch'); // the lease-checked run patch opens every step
      expect(calls.filter((c) => c === 'runs.patch')).toHaveLength(1);
      // What waited through the model call — the first turn's assistant message and its read's result; from the
      // second turn on, the read's result (its assistant message committed before the read ran) — then this turn's
      // assistant message.
      expect(calls.filter((c) => c === 'messages.append')).toHaveLength(k === 1 ? 3 : 2);
      // The read's succeeded event (and the first turn's text and started); this turn's text and started.
      expect(calls.filter((c) => c === 'events.append').length).toBeGreaterThanOrEqual(k === 1 ? 5 : 3);
      expect(direct, `turn ${k + 1}`).toEqual(['appendAuditBatched']);
    }
    // A turn with two reads: the turn before, this turn and both calls, one transaction.
    expect(between(TURNS, TURNS + 1).transactions).toHaveLength(1);
    // A turn with a side effect: its step commits in the transaction that claims the call in the ledger, before
    // the handler runs (one commit, not two); then the call's step, which carries the ledger's settlement of the
    // call with its result (one commit, not two).
    const write = between(TURNS + 1, TURNS + 2).transactions;
    expect(write).toHaveLength(2);
    const [claim, callStep] = write;
    expect(claim![0]).toBe('runs.patch'); // the turn, lease-checked, first
    expect(claim).toContain('messages.append'); // its assistant message
    expect(claim).toContain('events.append'); // the call's `started` event
    expect(claim!.some((c) => c.startsWith('ledger.'))).toBe(true); // and the claim
    expect(claim!.indexOf('events.append')).toBeLessThan(claim!.findIndex((c) => c.startsWith('ledger.')));
    expect(callStep![0]).toBe('runs.patch'); // lease-checked first
    expect(callStep).toContain('messages.append'); // the result
    expect(callStep).toContain('ledger.compareAndSet'); // the settlement, after the run patch
    expect(callStep!.indexOf('ledger.compareAndSet')).toBeGreaterThan(0);
    expect(callStep).toContain('audit.append'); // the settled call's audit row
    // The final reply's step commits with the run's end (nothing slow ran between them).
    expect(between(TURNS + 2, TURNS + 3).transactions).toHaveLength(1);
  });

  it('a read that runs longer than the deferral does not hide the turn: its step commits on its own while the call runs', async () => {
    const storage = make();
    let sawStarted = false;
    const slow = defineCapability({
      id: 'slow.lookup',
      version: 1,
      title: 'Look up slowly',
      description: 'A read that waits until its own `started` event is stored.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({ releaseId: Type.String() }),
      output: Type.Object({ releaseId: Type.String(), present: Type.Boolean() }),
      handler: async (input, ctx) => {
        for (let i = 0; i < 200 && !sawStarted; i++) {
          const events = await storage.events.listByRun(ctx.runId!);
          sawStarted = events.some((e) => e.type === 'tool_call' && (e.data as { phase?: string }).phase === 'started');
          if (!sawStarted) await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return { releaseId: input.releaseId, present: true };
      },
    });
    const { log, marks } = await driveOnce(
      storage,
      {
        match: 'releases',
        steps: [{ text: 'Looking slowly. ', toolCalls: [{ capability: 'slow.lookup', input: { releaseId: 'r' } }] }],
        finalText: 'done',
      },
      [slow],
      null, // the default window (50 ms): its timer commits the turn while the call runs
    );
    expect(sawStarted).toBe(true);
    // The turn's step, committed by the timer while the call ran; the call's step waits through the next model call.
    expect(steps(log.transactions.slice(marks[0]!.transactions, marks[1]!.transactions))).toHaveLength(1);
    expect(steps(log.transactions.slice(marks[1]!.transactions))).toHaveLength(1);
  });

  it('text longer than one streamed piece is the only thing written outside its step, as a log of the stream', async () => {
    const long = 'A long answer streamed in pieces: '.repeat(6); // 204 characters: three live pieces, the rest with the step
    const { log, marks } = await driveOnce(make(), {
      match: 'releases',
      steps: [{ text: long, toolCalls: [{ capability: 'bench.lookup', input: { releaseId: 'r' } }] }],
      finalText: 'done',
    });
    const transactions = steps(log.transactions.slice(marks[0]!.transactions, marks[1]!.transactions));
    const direct = log.direct
      .slice(marks[0]!.direct, marks[1]!.direct)
      .filter((c) => WRITES.test(c.split('.')[1] ?? ''));
    expect(transactions).toHaveLength(0); // the turn with its read's result: with the next step
    expect(direct).toEqual(['events.append', 'events.append', 'events.append']);
  });

  it('with commitWindowMs 0 every step commits before the next begins: a turn, then its read’s result', async () => {
    const { log, marks } = await driveOnce(make(), script, [], 0);
    for (let k = 0; k < TURNS; k++) {
      const transactions = steps(log.transactions.slice(marks[k]!.transactions, marks[k + 1]!.transactions));
      expect(transactions, `turn ${k + 1}`).toHaveLength(2);
      expect(transactions[0]!.filter((c) => c === 'messages.append')).toHaveLength(1); // the assistant message
      expect(transactions[1]!.filter((c) => c === 'messages.append')).toHaveLength(1); // the result
    }
  });

  it('writes waiting through a model call commit before it streams text on its own: the run’s events keep their order', async () => {
    const long = 'A long answer streamed in pieces: '.repeat(6);
    const { log, marks, events } = await driveOnce(make(), {
      match: 'releases',
      steps: [
        { text: 'First. ', toolCalls: [{ capability: 'bench.lookup', input: { releaseId: 'a' } }] },
        { text: long, toolCalls: [{ capability: 'bench.lookup', input: { releaseId: 'b' } }] },
      ],
      finalText: 'done',
    });
    // The first turn and its result waited through the second model call until its first streamed piece.
    expect(steps(log.transactions.slice(marks[0]!.transactions, marks[1]!.transactions))).toHaveLength(0);
    const during = steps(log.transactions.slice(marks[1]!.transactions, marks[2]!.transactions));
    expect(during.length).toBeGreaterThanOrEqual(1);
    expect(during[0]!.filter((c) => c === 'messages.append')).toHaveLength(2); // the first turn and its result
    const firstResult = events.find(
      (e) => e.type === 'tool_call' && (e.data as { phase?: string }).phase === 'succeeded',
    )!;
    const firstLivePiece = events.find(
      (e) => e.type === 'text_delta' && (e.data as { text: string }).text.startsWith('A long answer'),
    )!;
    expect(firstResult.seq).toBeLessThan(firstLivePiece.seq);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });
});
