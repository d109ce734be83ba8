// SIGTERM to a REAL child process mid-run (inside an effectful handler), on a real SQLite file: the child drains
// through stopOnSignals and exits 0; the next host finds 0 ledger entries `running`, picks the run up at once (its
// lease was given up, not left to expire: the lease is 60 s), finishes it, and the effect ran exactly once.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost, type DrainSummary } from '../../src/index';
import type { ModelMessage, ToolResultMessage } from '../../src/models';
import { SqliteStorage } from '../../src/sqlite';
import { ScriptedProvider } from '../../src/testing';
import { drainScript, noteFile } from './fixtures/drain-scripts';
import { waitForStatus } from './harness';

const worker = fileURLToPath(new URL('./fixtures/drain-worker.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop({ drainMs: 0 }).catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * Starts the drain worker, sends it SIGTERM once its handler runs, and waits for its exit.
 * @returns the run id, the child's exit code and signal, its drain summary, and the ms from SIGTERM to exit
 */
async function sigtermInHandler(
  dbFile: string,
  effectsFile: string,
  drainMs: number,
  handler: { mode: 'honour' | 'ignore'; secondSignal?: boolean } = { mode: 'honour' },
) {
  const args = [worker, dbFile, effectsFile, String(drainMs), handler.mode];
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let sentAt = 0;
  let secondSent = false;
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (sentAt === 0 && /"runId"/.test(out) && out.includes('in-handler\n')) {
        sentAt = performance.now();
        child.kill('SIGTERM');
        resolve();
      }
      // The second signal, once the child got the first one (it prints "sigterm" in `ignore` mode).
      if (handler.secondSignal && !secondSent && out.includes('sigterm\n')) {
        secondSent = true;
        child.kill('SIGTERM');
      }
    });
    void exited.then(() => reject(new Error(`worker exited before its handler ran: ${stderr}`)));
  });
  const { code, signal } = await exited;
  const drainToExitMs = Math.round(performance.now() - sentAt);
  const runId = /"runId":"([^"]+)"/.exec(out)![1]!;
  const line = out.split('\n').find((l) => l.startsWith('{"drained"'));
  const reported = line ? (JSON.parse(line) as { drained: DrainSummary | null; error: string | null }) : undefined;
  return { runId, code, signal, reported, drainToExitMs, stderr, secondSent };
}

/** What a drained child left on its SQLite file: the run's ledger states and the run row. */
async function leftBy(dbFile: string, runId: string) {
  const left = new SqliteStorage({ path: dbFile });
  await left.migrate();
  try {
    return { states: (await left.ledger.listByRun(runId)).map((e) => e.state), run: await left.runs.get(runId) };
  } finally {
    await left.close();
  }
}

describe('SIGTERM mid-run: a clean drain of a real child process (SQLite file)', () => {
  it('the child drains and exits 0; the next process finds no `running` ledger entry, picks the run up at once, and the effect ran exactly once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-drain-sigterm-'));
    dirs.push(dir);
    const dbFile = join(dir, 'agent.sqlite');
    const effectsFile = join(dir, 'effects.txt');

    const child = await sigtermInHandler(dbFile, effectsFile, 8_000);
    expect(child.stderr).toBe('');
    expect({ code: child.code, signal: child.signal }).toEqual({ code: 0, signal: null });
    expect(child.reported).toMatchObject({ error: null, drained: { drained: 1, released: 1, aborted: 0 } });

    // What the drained process left: the call's step committed, its ledger entry settled, the lease given up.
    const left = new SqliteStorage({ path: dbFile });
    await left.migrate();
    const entries = await left.ledger.listByRun(child.runId);
    expect(entries.filter((e) => e.state === 'running')).toEqual([]);
    expect(entries.map((e) => e.state)).toEqual(['succeeded']);
    expect(await left.runs.get(child.runId)).toMatchObject({
      status: 'running',
      leaseOwner: null,
      leaseExpiresAt: null,
    });
    await left.close();
    expect(readFileSync(effectsFile, 'utf8')).toBe('note 1\n');

    // The next process: the same lease length (60 s). The run is taken on its first lease query.
    const provider = new ScriptedProvider({ scripts: [drainScript] });
    const next = createAgentHost({
      storage: new SqliteStorage({ path: dbFile }),
      logger: new ConsoleLogger('silent'),
      model: { provider },
      runs: { pollMs: 5, leaseMs: 60_000, concurrency: 1 },
    });
    next.capabilities.register(
      noteFile(effectsFile, {
        entered: () => {
          throw new Error('note.file must not run again after the drain');
        },
        proceed: async () => undefined,
      }),
    );
    hosts.push(next);
    const startingAt = performance.now();
    expect((await next.start()).recovered).toEqual([]); // nothing was left `running` to recover
    const startMs = Math.round(performance.now() - startingAt);
    const startedAt = performance.now();
    // Picked up: its first model call (the final answer) is asked.
    await vi.waitFor(() => expect(provider.requests.length).toBeGreaterThan(0), { timeout: 30_000, interval: 1 });
    const pickUpMs = Math.round(performance.now() - startedAt);
    const done = await waitForStatus(next, child.runId, ['succeeded', 'failed', 'cancelled', 'budget_exceeded'], {
      timeoutMs: 30_000,
    });
    const pickUpToEndMs = Math.round(performance.now() - startedAt);
    expect(done.status).toBe('succeeded');
    expect(provider.requests).toHaveLength(1); // the final answer only: the committed call was not asked again
    const after = new SqliteStorage({ path: dbFile });
    const messages = (await after.messages.list(child.runId)).map((m) => m.message as unknown as ModelMessage);
    await after.close();
    const results = messages
      .filter((m): m is ToolResultMessage => m.role === 'tool')
      .map((m) => JSON.parse(m.content as string) as Record<string, unknown>);
    // One result, committed by the drained process (a recovered one would say so).
    expect(results).toEqual([expect.objectContaining({ status: 'succeeded', output: { filed: 1 } })]);
    expect(results[0]).not.toHaveProperty('recovered');
    expect(existsSync(effectsFile) && readFileSync(effectsFile, 'utf8')).toBe('note 1\n'); // exactly once
    // The figures of the drain (reported, not asserted against the clock).
    console.info(
      `drain figures: SIGTERM → exit ${child.drainToExitMs} ms (drain ${child.reported?.drained?.ms} ms); next process start() ${startMs} ms, then run picked up (first model call) ${pickUpMs} ms, succeeded ${pickUpToEndMs} ms (lease 60 000 ms)`,
    );
  }, 120_000);

  it('trial 35 #1: a handler that ignores its signal does not hold the drain: with drainMs 500 the child exits 0 once the drain time is over (not at the 120 s capability deadline), the summary says aborted, the call is `unknown`', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-drain-sigterm-'));
    dirs.push(dir);
    const dbFile = join(dir, 'agent.sqlite');
    const effectsFile = join(dir, 'effects.txt');
    // The handler never returns by itself: the child exiting at all shows the drain ended the call.
    const child = await sigtermInHandler(dbFile, effectsFile, 500, { mode: 'ignore' });
    expect(child.stderr).toBe('');
    expect({ code: child.code, signal: child.signal }).toEqual({ code: 0, signal: null });
    expect(child.reported).toMatchObject({ error: null, drained: { drained: 0, released: 1, aborted: 1 } });
    expect(child.reported!.drained!.ms).toBeGreaterThanOrEqual(499); // the step was let run on for drainMs
    const left = await leftBy(dbFile, child.runId);
    expect(left.states).toEqual(['unknown']); // never `succeeded` for a call the drain cut, never `running`
    expect(left.run).toMatchObject({ status: 'running', leaseOwner: null, leaseExpiresAt: null });
    expect(existsSync(effectsFile)).toBe(false);
    console.info(
      `ignoring handler, drainMs 500: SIGTERM → exit ${child.drainToExitMs} ms (drain ${child.reported?.drained?.ms} ms)`,
    );
  }, 120_000);

  it('trial 35 #1: the second SIGTERM ends a long drain (drainMs 60 000) at once although the handler ignores its signal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-drain-sigterm-'));
    dirs.push(dir);
    const dbFile = join(dir, 'agent.sqlite');
    const effectsFile = join(dir, 'effects.txt');
    const child = await sigtermInHandler(dbFile, effectsFile, 60_000, { mode: 'ignore', secondSignal: true });
    expect(child.secondSent).toBe(true);
    expect(child.stderr).toBe('');
    expect({ code: child.code, signal: child.signal }).toEqual({ code: 0, signal: null });
    expect(child.reported).toMatchObject({ error: null, drained: { drained: 0, released: 1, aborted: 1 } });
    // Cut by the second signal: the first one's drain time (60 s) did not run out.
    expect(child.reported!.drained!.ms).toBeLessThan(60_000);
    expect((await leftBy(dbFile, child.runId)).states).toEqual(['unknown']);
    console.info(
      `ignoring handler, drainMs 60 000, second SIGTERM: first SIGTERM → exit ${child.drainToExitMs} ms (drain ${child.reported?.drained?.ms} ms)`,
    );
  }, 120_000);
});
