// Trial of "fewer commits per run" (CHANGELOG): a side effect's settlement riding on its result's step, the run's start
// charged in the start's step, and the worker pool's lease hand-over — tried with real parts: SQLite files, a real
// child process killed with SIGKILL, real SQLite write locks, two hosts on one file.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  type AgentHost,
  type AgentOptions,
  type StorageAdapter,
} from '../../src/index';
import type { ModelEvent, ModelMessage, ModelRequest, ToolResultMessage } from '../../src/models';
import { SqliteStorage } from '../../src/sqlite';
import type { StorageSession } from '../../src/storage';
import { ScriptedProvider, type FakeScript } from '../../src/testing';
import { runEvents, waitForStatus } from '../runtime/harness';
import { killWorkerWhen } from '../runtime/kill-worker';
import { noteSend, sendScript } from './fixtures/commit-merges-scripts';

const crashWorker = fileURLToPath(new URL('./fixtures/commit-merges-crash-worker.ts', import.meta.url));
const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'commit-merges-trial-'));
  dirs.push(dir);
  return dir;
}

const TERMINAL = ['succeeded', 'failed', 'cancelled', 'budget_exceeded', 'waiting'] as const;

/** Polls `check` (setImmediate between tries, no fixed sleep) until it returns true or `tries` are used. */
async function until(check: () => Promise<boolean> | boolean, tries = 5000): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return check();
}

function makeHost(storage: StorageAdapter, options: Partial<AgentOptions> = {}): AgentHost {
  const host = createAgentHost({
    storage,
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: [sendScript] }) },
    runs: { pollMs: 5, concurrency: 1 },
    ...options,
  });
  hosts.push(host);
  return host;
}

describe('SIGKILL after an execute handler returned, inside the step that appends its result (child process, SQLite file)', () => {
  it('after restart the effect is not run again, the entry ends unknown (not running), the run resumes and ends', async () => {
    const dir = tempDir();
    const dbFile = join(dir, 'agent.sqlite');
    const effectsFile = join(dir, 'effects.txt');
    writeFileSync(effectsFile, '');
    const { value: runId, signal } = await killWorkerWhen(crashWorker, [dbFile, effectsFile], (out) => {
      const id = /"runId":"([^"]+)"/.exec(out)?.[1];
      return id && out.includes('in-settle\n') ? id : undefined;
    });
    expect(signal).toBe('SIGKILL');
    expect(readFileSync(effectsFile, 'utf8')).toBe('hello\n');

    // What the killed process left: the claim (running) and the step that opened the call; no result, no settlement.
    const before = new SqliteStorage({ path: dbFile });
    await before.migrate();
    const [claimed] = await before.ledger.listByRun(runId, { limit: 10 });
    expect(claimed!.state).toBe('running');
    const left = (await before.messages.list(runId)).map((m) => (m.message as unknown as ModelMessage).role);
    expect(left).toEqual(['user', 'assistant']);
    expect(
      (await before.audit.list({ limit: 100 })).filter(
        (a) => a.action === 'capability.invoke' && a.capabilityId === 'note.send',
      ),
    ).toEqual([]);
    await before.close();

    const storage = new SqliteStorage({ path: dbFile });
    const host = makeHost(storage, { runs: { pollMs: 5, leaseMs: 300, concurrency: 1 } });
    host.capabilities.register(noteSend((text) => appendFileSync(effectsFile, `${text}\n`)));
    await host.start();
    const done = await waitForStatus(host, runId, [...TERMINAL], { timeoutMs: 15_000 });
    // Never run twice.
    expect(readFileSync(effectsFile, 'utf8')).toBe('hello\n');
    const entries = await storage.ledger.listByRun(runId, { limit: 10 });
    expect(entries.map((e) => e.state)).toEqual(['unknown']);
    expect(done.status).toBe('succeeded');
    // The model was told the outcome is unknown, once, for the one call.
    const messages = (await storage.messages.list(runId)).map((m) => m.message as unknown as ModelMessage);
    const results = messages.filter((m): m is ToolResultMessage => m.role === 'tool');
    expect(results).toHaveLength(1);
    expect(String(results[0]!.content)).toMatch(/unknown|OUTCOME_UNKNOWN/i);
    expect(await storage.runs.get(runId)).toMatchObject({ leaseOwner: null });
  });
});

/**
 * The real SQLite adapter; once `arm()` was called, the next transaction runs as usual and, however it ends, releases
 * `locker`'s write lock afterwards (so only that transaction meets the lock).
 */
function lockedOnce(inner: StorageAdapter) {
  let armed: (() => void) | undefined;
  const failures: string[] = [];
  const bound = (t: object, value: unknown) =>
    typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
  const storage = new Proxy(inner, {
    get(t, prop) {
      if (prop !== 'transaction') return bound(t, Reflect.get(t, prop));
      return <T>(fn: (s: StorageSession) => Promise<T>) => {
        const release = armed;
        armed = undefined;
        const running = t.transaction(fn);
        if (!release) return running;
        return running
          .catch((error: unknown) => {
            failures.push((error as { code?: string }).code ?? String(error));
            throw error;
          })
          .finally(release);
      };
    },
  });
  return { storage, failures, arm: (release: () => void) => void (armed = release) };
}

describe('the step carrying a settlement fails to commit (a real SQLite write lock held by another connection)', () => {
  it('the call ran and returned: its ledger entry is settled, not left running while the process lives', async () => {
    const dir = tempDir();
    const path = join(dir, 'agent.sqlite');
    const real = new SqliteStorage({ path, busyTimeoutMs: 50 });
    const locked = lockedOnce(real);
    let calls = 0;
    const host = makeHost(locked.storage);
    host.capabilities.register(
      noteSend(() => {
        calls++;
        // Another connection takes the file's write lock; it is released once the next transaction (the step that
        // appends this call's result and carries its settlement) has met it.
        const locker = new Database(path);
        locker.pragma('busy_timeout = 0');
        locker.exec('BEGIN IMMEDIATE');
        locked.arm(() => {
          locker.exec('ROLLBACK');
          locker.close();
        });
      }),
    );
    await host.start();
    await host.grants.create({ action: 'note.send', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'send a note', mode: 'execute', actor: 'user:admin' });
    const done = await waitForStatus(host, run.id, [...TERMINAL], { timeoutMs: 15_000 });
    expect(calls).toBe(1);
    // The lock was met by exactly the step that carried the settlement.
    expect(locked.failures).toEqual(['STORAGE_LOCKED']);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('STORAGE_LOCKED');
    // The lock is gone: the run's end committed after it (a settlement written on its own would have committed too).
    // The handler returned { sent: 'hello' }: its outcome is known. Before the change it was committed on its own right
    // after the handler; now it rode on the step that failed, and nothing writes it again.
    const entries = await real.ledger.listByRun(run.id, { limit: 10 });
    expect(entries.map((e) => e.state)).not.toContain('running');
    expect(entries.map((e) => e.state)).toEqual(['succeeded']);
  });
});

describe('the invoke path outside a run still settles on its own', () => {
  it('host.invoke of an execute: settled and audited when it resolves; the HTTP-style dry run claims nothing', async () => {
    const storage = new SqliteStorage({ path: join(tempDir(), 'agent.sqlite') });
    const host = makeHost(storage);
    let calls = 0;
    host.capabilities.register(noteSend(() => void calls++));
    await host.start({ workers: false });
    await host.grants.create({ action: 'note.send', actor: 'user:admin' });
    const seen: string[] = [];
    host.capabilities.events.on('invocation', (e) => seen.push(`${e.capabilityId}:${e.result.status}`));
    const result = await host.invoke('note.send', { text: 'direct' }, { actor: 'user:admin' });
    expect(result).toMatchObject({ status: 'succeeded', output: { sent: 'direct' } });
    // Resolved means committed: the entry and its audit row are stored, the event was published.
    const entry = await storage.ledger.get(result.idempotencyKey!);
    expect(entry).toMatchObject({ state: 'succeeded', output: { sent: 'direct' } });
    const audit = (await storage.audit.list({ limit: 50 })).filter(
      (a) => a.action === 'capability.invoke' && a.capabilityId === 'note.send',
    );
    expect(audit.map((a) => a.outcome)).toEqual(['succeeded']);
    expect(seen).toEqual(['note.send:succeeded']);
    const dry = await host.invoke('note.send', { text: 'dry' }, { actor: 'user:admin', dryRun: true });
    expect(dry).toMatchObject({ status: 'dry_run' });
    expect(calls).toBe(1);
  });
});

describe('a run refused at a runs cap at its start (SQLite file)', () => {
  it('nothing of the start is stored, it waits budget_reached, and once the cap is raised it runs and is charged once', async () => {
    const storage = new SqliteStorage({ path: join(tempDir(), 'agent.sqlite') });
    const ALICE = 'user:alice';
    const host = makeHost(storage, {
      model: { provider: new ScriptedProvider({ scripts: [{ match: 'look', finalText: 'ok' }] }) },
      runs: { pollMs: 5, concurrency: 1, spending: { people: { [ALICE]: { day: { runs: 1 } } } } },
    });
    await host.start();
    const first = await host.startRun({ goal: 'look once', mode: 'plan_only', actor: ALICE });
    expect((await waitForStatus(host, first.id, [...TERMINAL])).status).toBe('succeeded');
    const second = await host.startRun({ goal: 'look twice', mode: 'plan_only', actor: ALICE });
    const held = await waitForStatus(host, second.id, [...TERMINAL]);
    expect(held.status).toBe('waiting');
    expect(held.startedAt).toBeNull();
    expect(await storage.messages.list(second.id)).toEqual([]);
    const events = await runEvents(host, second.id);
    expect(events.map((e) => e.type)).toContain('budget_reached');
    expect(
      events.filter((e) => e.type === 'run_status').map((e) => (e.data as { status: string }).status),
    ).not.toContain('running');
    const open = await storage.decisions.list({ subjectId: second.id, kind: 'budget_reached', status: 'open' });
    expect(open).toHaveLength(1);
    expect((await host.budgets.usage(ALICE)).used.day.runs).toBe(1);
    // Released: a held run's lease is not kept by the worker.
    expect(await until(async () => (await storage.runs.get(second.id))!.leaseOwner === null)).toBe(true);

    await host.budgets.update('user:admin', { people: { [ALICE]: { day: { runs: 2 } } } });
    const done = await waitForStatus(host, second.id, ['succeeded', 'failed', 'cancelled', 'budget_exceeded']);
    expect(done.status).toBe('succeeded');
    expect(done.startedAt).not.toBeNull();
    expect((await host.budgets.usage(ALICE)).used.day.runs).toBe(2);
    expect(await storage.decisions.list({ subjectId: second.id, kind: 'budget_reached', status: 'open' })).toEqual([]);
    // The goal message stored once.
    const roles = (await storage.messages.list(second.id)).map((m) => (m.message as unknown as ModelMessage).role);
    expect(roles.filter((r) => r === 'user')).toHaveLength(1);
  });
});

/** A model that answers only once the test releases it (a slow provider), or fails when its signal aborts. */
class HangingProvider extends ScriptedProvider {
  calls = 0;
  readonly #pending = new Set<() => void>();
  /** Lets every waiting call answer (its script's reply). */
  release(): void {
    for (const go of this.#pending) go();
  }
  override async *stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent> {
    this.calls++;
    await new Promise<void>((resolve, reject) => {
      this.#pending.add(resolve);
      if (signal?.aborted) reject(signal.reason);
      signal?.addEventListener('abort', () => reject(signal.reason ?? new Error('aborted')), { once: true });
    });
    yield* super.stream(request, signal);
  }
}

describe('host.stop() at the instant a run is started while the only worker is idle (SQLite file)', () => {
  it.each([0, 2])(
    'stop() called %i event-loop turns after startRun(): stop(0) ends at once, the run is not left leased to the stopped worker, another host drives it',
    async (turns) => {
      const path = join(tempDir(), 'agent.sqlite');
      const storage = new SqliteStorage({ path });
      let leaseQueries = 0;
      const counted = new Proxy(storage, {
        get(t, prop) {
          const value: unknown = Reflect.get(t, prop);
          if (prop === 'transaction')
            return <T>(fn: (s: StorageSession) => Promise<T>) => {
              leaseQueries++;
              return t.transaction(fn);
            };
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
        },
      }) as StorageAdapter;
      // Polls only once a minute, leases last a minute: only an explicit release lets another host take the run.
      const slow = new HangingProvider({ scripts: [{ match: 'send a note', finalText: 'Nothing to send.' }] });
      const a = makeHost(counted, {
        model: { provider: slow },
        runs: { pollMs: 60_000, leaseMs: 60_000, concurrency: 1 },
      });
      await a.start();
      await until(() => leaseQueries > 0);
      for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
      const starting = a.startRun({ goal: 'send a note', mode: 'plan_only', actor: 'user:admin' });
      for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
      let stopped = false;
      const stopping = a.stop({ drainMs: 0 }).then((summary) => {
        stopped = true;
        return summary;
      });
      const run = await starting;
      // stop() with no drain time aborts steps in flight at once: it must not wait for a model call to answer.
      const deadline = Date.now() + 2_000;
      await until(() => stopped || Date.now() > deadline, 1e9);
      const stoppedAtOnce = { stopped, modelCallsStartedAfterStop: slow.calls };
      // (Else the stop waits for the model's answer: let it answer so the host can end.)
      slow.release();
      await stopping;
      // The host closed its adapter: read the file anew.
      const reader = new SqliteStorage({ path });
      const stored = (await reader.runs.get(run.id))!;
      await reader.close();
      expect(stored.leaseOwner).toBeNull();
      const b = makeHost(new SqliteStorage({ path }), {
        model: {
          provider: new ScriptedProvider({ scripts: [{ match: 'send a note', finalText: 'Nothing to send.' }] }),
        },
        runs: { pollMs: 5, leaseMs: 60_000, concurrency: 1 },
      });
      await b.start();
      const done = await waitForStatus(b, run.id, [...TERMINAL], { timeoutMs: 10_000 });
      expect(done.status).toBe('succeeded');
      // stop(0) did not wait 2 s for a model call that only ends when aborted (or answered).
      expect(stoppedAtOnce).toMatchObject({ stopped: true });
    },
  );
});

describe('two hosts on one SQLite file racing runs', () => {
  it('every run is driven by one worker at a time: each effect once, each model turn once, no lease left after the drives', async () => {
    const path = join(tempDir(), 'agent.sqlite');
    const effects: string[] = [];
    const inFlight = new Map<string, number>();
    let overlap = 0;
    const providers: ScriptedProvider[] = [];
    const make = (name: string) => {
      const provider = new ScriptedProvider({
        scripts: [
          {
            match: 'send a note',
            steps: [
              { text: 'Sending. ', toolCalls: [{ capability: 'note.send', input: (ctx) => ({ text: ctx.goal }) }] },
            ],
            finalText: 'Sent.',
          },
        ],
      });
      providers.push(provider);
      const host = makeHost(new SqliteStorage({ path }), {
        model: { provider },
        runs: { pollMs: 5, leaseMs: 2_000, concurrency: 2 },
      });
      host.capabilities.register(
        defineCapability({
          id: 'note.send',
          version: 1,
          title: 'Send a note',
          description: 'Sends a note (a recorded side effect).',
          kind: 'execute',
          replay: 'never',
          input: Type.Object({ text: Type.String() }),
          output: Type.Object({ sent: Type.String() }),
          handler: async (input) => {
            const n = (inFlight.get(input.text) ?? 0) + 1;
            inFlight.set(input.text, n);
            if (n > 1) overlap++;
            effects.push(`${name}:${input.text}`);
            for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
            inFlight.set(input.text, n - 1);
            return { sent: input.text };
          },
        }),
      );
      return host;
    };
    const a = make('a');
    const b = make('b');
    await a.start();
    await b.start();
    await a.grants.create({ action: 'note.send', actor: 'user:admin' });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const host = i % 2 === 0 ? a : b;
      ids.push((await host.startRun({ goal: `send a note ${i}`, mode: 'execute', actor: 'user:admin' })).id);
    }
    for (const id of ids)
      expect((await waitForStatus(a, id, [...TERMINAL], { timeoutMs: 20_000 })).status).toBe('succeeded');
    expect(overlap).toBe(0);
    // Each run's effect once, in all.
    const texts = effects.map((e) => e.split(':')[1]);
    expect(texts).toHaveLength(12);
    expect(new Set(texts).size).toBe(12);
    // Two model turns per run, no more (a run driven twice would ask again).
    expect(providers.reduce((n, p) => n + p.requests.length, 0)).toBe(24);
    const reader = new SqliteStorage({ path });
    const leased = async () =>
      (await Promise.all(ids.map((id) => reader.runs.get(id)))).filter((r) => r!.leaseOwner !== null).length;
    expect(await until(async () => (await leased()) === 0)).toBe(true);
    for (const id of ids)
      expect((await reader.ledger.listByRun(id, { limit: 10 })).map((e) => e.state)).toEqual(['succeeded']);
    await reader.close();
  });
});
