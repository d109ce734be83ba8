// A worker killed with SIGKILL between two steps of the run loop (real child process, SQLite file):
// what the committed steps wrote is all there, and the resumed run repeats none of them.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost } from '../../src/index';
import type { ModelMessage, ToolResultMessage } from '../../src/models';
import { SqliteStorage } from '../../src/sqlite';
import { ScriptedProvider } from '../../src/testing';
import { noteWrite, notesRead, readCrashScript, stepCrashScript } from './fixtures/step-crash-scripts';
import { runEvents, waitForStatus } from './harness';
import { killWorkerWhen } from './kill-worker';

const worker = fileURLToPath(new URL('./fixtures/step-crash-worker.ts', import.meta.url));
const readWorker = fileURLToPath(new URL('./fixtures/read-crash-worker.ts', import.meta.url));
const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs the worker until it is about to make its third model call, then SIGKILLs it; returns the run id. */
async function killBetweenSteps(dbFile: string, effectsFile: string): Promise<string> {
  const { value, signal } = await killWorkerWhen(worker, [dbFile, effectsFile], (out) => {
    const id = /"runId":"([^"]+)"/.exec(out)?.[1];
    return id && out.includes('in-turn-3\n') ? id : undefined;
  });
  expect(signal).toBe('SIGKILL');
  return value;
}

const messagesOf = async (storage: SqliteStorage, runId: string) =>
  (await storage.messages.list(runId)).map((m) => m.message as unknown as ModelMessage);

describe('SIGKILL between steps (real child process, SQLite file)', () => {
  it('every committed step is kept, and the resumed run repeats no model turn and no tool call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-steps-crash-'));
    dirs.push(dir);
    const dbFile = join(dir, 'agent.sqlite');
    const effectsFile = join(dir, 'effects.txt');
    const runId = await killBetweenSteps(dbFile, effectsFile);

    // What the two committed turns and their calls wrote, as the killed process left it.
    const before = new SqliteStorage({ path: dbFile });
    await before.migrate();
    expect((await messagesOf(before, runId)).map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ]);
    const killed = (await before.runs.get(runId))!;
    expect(killed.status).toBe('running');
    expect(killed.usage).toMatchObject({ modelCalls: 2, toolCalls: 2 });
    await before.close();
    expect(readFileSync(effectsFile, 'utf8')).toBe('note 1\nnote 2\n');

    const provider = new ScriptedProvider({ scripts: stepCrashScript });
    const host = createAgentHost({
      storage: new SqliteStorage({ path: dbFile }),
      logger: new ConsoleLogger('silent'),
      model: { provider },
      runs: { pollMs: 5, leaseMs: 300, concurrency: 1 },
    });
    host.capabilities.register(noteWrite(effectsFile));
    hosts.push(host);
    const started = await host.start();
    expect(started.recovered).toEqual([]); // killed between steps: no call was in flight
    const done = await waitForStatus(host, runId, ['succeeded', 'failed', 'cancelled', 'budget_exceeded'], {
      timeoutMs: 15_000,
    });
    expect(done.status).toBe('succeeded');
    expect(done.finalText).toBe('Wrote three notes.');

    // Nothing repeated: each side effect once, the model asked only for the turns that never committed.
    expect(readFileSync(effectsFile, 'utf8')).toBe('note 1\nnote 2\nnote 3\n');
    expect(provider.requests).toHaveLength(2);
    expect(done.usage).toMatchObject({ modelCalls: 4, toolCalls: 3 });
    const after = new SqliteStorage({ path: dbFile });
    const messages = await messagesOf(after, runId);
    await after.close();
    expect(messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    const results = messages.filter((m): m is ToolResultMessage => m.role === 'tool');
    expect(new Set(results.map((m) => m.toolCallId)).size).toBe(3);
    for (const r of results) expect(JSON.parse(r.content as string)).not.toHaveProperty('recovered');
    const events = await runEvents(host, runId);
    const phases = events.filter((e) => e.type === 'tool_call').map((e) => (e.data as { phase: string }).phase);
    expect(phases).toEqual(['started', 'succeeded', 'started', 'succeeded', 'started', 'succeeded']);
    expect(
      events
        .filter((e) => e.type === 'run_status')
        .map((e) => (e.data as { status: string; reason?: string }).reason ?? (e.data as { status: string }).status),
    ).toContain('resumed');
  });

  it('killed inside a read-only call: the turn that opened it was not yet committed, so the resumed run asks for that turn again and repeats no effect', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-read-crash-'));
    dirs.push(dir);
    const dbFile = join(dir, 'agent.sqlite');
    const effectsFile = join(dir, 'effects.txt');
    const { value: runId, signal } = await killWorkerWhen(readWorker, [dbFile, effectsFile], (out) => {
      const id = /"runId":"([^"]+)"/.exec(out)?.[1];
      return id && out.includes('in-read\n') ? id : undefined;
    });
    expect(signal).toBe('SIGKILL');

    // The note's turn and its call were committed; the read's turn was set aside and died with the process.
    const before = new SqliteStorage({ path: dbFile });
    await before.migrate();
    expect((await messagesOf(before, runId)).map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect((await before.runs.get(runId))!.usage).toMatchObject({ modelCalls: 1, toolCalls: 1 });
    await before.close();

    const provider = new ScriptedProvider({ scripts: readCrashScript });
    const host = createAgentHost({
      storage: new SqliteStorage({ path: dbFile }),
      logger: new ConsoleLogger('silent'),
      model: { provider },
      runs: { pollMs: 5, leaseMs: 300, concurrency: 1 },
    });
    host.capabilities.register(noteWrite(effectsFile));
    host.capabilities.register(notesRead(effectsFile));
    hosts.push(host);
    expect((await host.start()).recovered).toEqual([]);
    const done = await waitForStatus(host, runId, ['succeeded', 'failed', 'cancelled', 'budget_exceeded'], {
      timeoutMs: 15_000,
    });
    expect(done.status).toBe('succeeded');
    expect(readFileSync(effectsFile, 'utf8')).toBe('note 1\n'); // the effect once
    expect(provider.requests).toHaveLength(2); // the read's turn again, then the final answer
    const events = await runEvents(host, runId);
    const phases = events.filter((e) => e.type === 'tool_call').map((e) => (e.data as { phase: string }).phase);
    expect(phases).toEqual(['started', 'succeeded', 'started', 'succeeded']); // no call left started
    const after = new SqliteStorage({ path: dbFile });
    const messages = await messagesOf(after, runId);
    await after.close();
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    const read = messages[4] as ToolResultMessage;
    expect(JSON.parse(read.content as string)).toMatchObject({ status: 'succeeded', output: { notes: ['note 1'] } });
  });
});
