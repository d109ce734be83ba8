// A worker killed with SIGKILL inside the commit window (real child process, SQLite file): a replay-safe proposal
// whose result and settlement waited through the next model call is resumed as a crash during its handler is — its
// claim was committed before it ran, so the resumed run is told its outcome is unknown and runs nothing twice.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost } from '../../src/index';
import type { ModelMessage } from '../../src/models';
import { SqliteStorage } from '../../src/sqlite';
import { ScriptedProvider } from '../../src/testing';
import { noteWrite, planSafe, windowCrashScript } from './fixtures/step-crash-scripts';
import { runEvents, waitForStatus } from './harness';
import { killWorkerWhen } from './kill-worker';

const worker = fileURLToPath(new URL('./fixtures/window-crash-worker.ts', import.meta.url));
const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('SIGKILL inside the commit window (real child process, SQLite file)', () => {
  it('the claim was committed before the handler; the waiting result was lost: the call is answered unknown, as after a crash in its handler, and nothing runs twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-window-crash-'));
    dirs.push(dir);
    const dbFile = join(dir, 'agent.sqlite');
    const effectsFile = join(dir, 'effects.txt');
    const { value: runId, signal } = await killWorkerWhen(worker, [dbFile, effectsFile], (out) => {
      const id = /"runId":"([^"]+)"/.exec(out)?.[1];
      return id && out.includes('in-turn-2\n') ? id : undefined;
    });
    expect(signal).toBe('SIGKILL');
    expect(readFileSync(effectsFile, 'utf8')).toBe('plan 1\n');

    // As the killed process left it: the turn that opened the proposal, committed with its claim; its result and
    // settlement waited through the second model call and died with the process.
    const before = new SqliteStorage({ path: dbFile });
    await before.migrate();
    const stored = (await before.messages.list(runId)).map((m) => (m.message as unknown as ModelMessage).role);
    expect(stored).toEqual(['user', 'assistant']);
    const entries = await before.ledger.listByRun(runId, { limit: 10 });
    expect(entries.map((e) => [e.capabilityId, e.state])).toEqual([['plan.safe', 'running']]);
    await before.close();

    const provider = new ScriptedProvider({ scripts: windowCrashScript });
    const host = createAgentHost({
      storage: new SqliteStorage({ path: dbFile }),
      logger: new ConsoleLogger('silent'),
      model: { provider },
      runs: { pollMs: 5, leaseMs: 300, concurrency: 1 },
    });
    host.capabilities.register(planSafe(effectsFile));
    host.capabilities.register(noteWrite(effectsFile));
    hosts.push(host);
    await host.start();
    const done = await waitForStatus(host, runId, ['succeeded', 'failed', 'cancelled', 'budget_exceeded'], {
      timeoutMs: 15_000,
    });
    expect(done.status).toBe('succeeded');
    // The proposal did not run again: the resumed run was told its outcome is unknown (the model went on); the note
    // ran once.
    expect(readFileSync(effectsFile, 'utf8')).toBe('plan 1\nnote 2\n');
    const events = await runEvents(host, runId);
    const calls = events
      .filter((e) => e.type === 'tool_call' && (e.data as { phase: string }).phase !== 'started')
      .map((e) => [
        (e.data as { capabilityId: string }).capabilityId,
        (e.data as { phase: string }).phase,
        (e.data as { error?: { code: string } }).error?.code ?? null,
      ]);
    expect(calls).toEqual([
      ['plan.safe', 'unknown', 'OUTCOME_UNKNOWN'],
      ['note.write', 'succeeded', null],
    ]);
    const after = new SqliteStorage({ path: dbFile });
    const settled = await after.ledger.listByRun(runId, { limit: 10 });
    await after.close();
    expect(settled.map((e) => [e.capabilityId, e.state])).toEqual([
      ['plan.safe', 'unknown'],
      ['note.write', 'succeeded'],
    ]);
  });
});
