// A worker killed with SIGKILL inside a read whose turn also made calls that never ran (a tool that was not
// offered, invalid arguments): after the resume those calls get their typed failure again, never "outcome
// unknown"; only the read, which may have reached its handler, is. Real child process, SQLite file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost } from '../../src/index';
import type { AssistantMessage, ModelMessage, ToolCallPart, ToolResultMessage } from '../../src/models';
import { SqliteStorage } from '../../src/sqlite';
import { ScriptedProvider } from '../../src/testing';
import { neverRanScript, notesFind } from './fixtures/never-ran-crash-worker';
import { notesRead } from './fixtures/step-crash-scripts';
import { runEvents, waitForStatus } from './harness';
import { killWorkerWhen } from './kill-worker';

const worker = fileURLToPath(new URL('./fixtures/never-ran-crash-worker.ts', import.meta.url));
const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const messagesOf = async (storage: SqliteStorage, runId: string) =>
  (await storage.messages.list(runId)).map((m) => m.message as unknown as ModelMessage);

describe('SIGKILL inside a read, after calls of its turn that never ran (real child process, SQLite file)', () => {
  it('the calls refused before the invocation path get their typed failure again; only the read that was running is unknown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-never-ran-'));
    dirs.push(dir);
    const dbFile = join(dir, 'agent.sqlite');
    const effectsFile = join(dir, 'effects.txt');
    const { value: runId, signal } = await killWorkerWhen(worker, [dbFile, effectsFile], (out) => {
      const id = /"runId":"([^"]+)"/.exec(out)?.[1];
      return id && out.includes('in-read\n') ? id : undefined;
    });
    expect(signal).toBe('SIGKILL');

    // The killed process left the turn (committed before its first call, which names no read) and no result:
    // the refused calls never reached the invocation path, and a read is not claimed in the ledger.
    const before = new SqliteStorage({ path: dbFile });
    await before.migrate();
    const stored = await messagesOf(before, runId);
    const turn = stored.find((m): m is AssistantMessage => m.role === 'assistant')!;
    const calls = turn.content.filter((p): p is ToolCallPart => p.type === 'tool_call');
    expect(calls.map((c) => c.name)).toEqual(['notes.purge', 'notes.find', 'notes.read']);
    const [unknownTool, invalidArgs, read] = calls as [ToolCallPart, ToolCallPart, ToolCallPart];
    expect(await before.ledger.findByCall(runId, unknownTool.id)).toBeUndefined();
    expect(await before.ledger.findByCall(runId, invalidArgs.id)).toBeUndefined();
    expect(await before.ledger.findByCall(runId, read.id)).toBeUndefined();
    expect(stored.filter((m) => m.role === 'tool')).toEqual([]);
    // Why the two never ran was committed with the turn (its run patch, in the same transaction).
    const state = (await before.runs.get(runId))!.runtimeState as Record<string, unknown>;
    expect(Object.keys(state.turn_failures as object)).toEqual([unknownTool.id, invalidArgs.id]);
    await before.close();

    const provider = new ScriptedProvider({ scripts: neverRanScript });
    const host = createAgentHost({
      storage: new SqliteStorage({ path: dbFile }),
      logger: new ConsoleLogger('silent'),
      model: { provider },
      runs: { pollMs: 5, leaseMs: 300, concurrency: 1 },
    });
    host.capabilities.register(notesFind);
    host.capabilities.register(notesRead(effectsFile));
    hosts.push(host);
    expect((await host.start()).recovered).toEqual([]);
    const done = await waitForStatus(host, runId, ['succeeded', 'failed', 'cancelled', 'budget_exceeded'], {
      timeoutMs: 15_000,
    });
    expect(done.status).toBe('succeeded');
    expect(provider.requests).toHaveLength(1); // the turn was committed: only the final answer is asked

    const after = new SqliteStorage({ path: dbFile });
    const messages = await messagesOf(after, runId);
    await after.close();
    const results = new Map(
      messages
        .filter((m): m is ToolResultMessage => m.role === 'tool')
        .map((m) => [m.toolCallId, JSON.parse(m.content as string) as Record<string, unknown>]),
    );
    expect(results.get(unknownTool.id)).toMatchObject({
      status: 'failed',
      error: { code: 'TOOL_UNKNOWN', message: 'no tool named "notes.purge" was offered' },
    });
    expect(results.get(invalidArgs.id)).toMatchObject({ status: 'failed', error: { code: 'TOOL_ARGS_INVALID' } });
    expect(results.get(read.id)).toMatchObject({ status: 'unknown', error: { code: 'OUTCOME_UNKNOWN' } });

    const settled = new Map(
      (await runEvents(host, runId))
        .filter((e) => e.type === 'tool_call')
        .map((e) => e.data as { callId: string; phase: string; error?: { code: string } })
        .filter((d) => d.phase !== 'started')
        .map((d) => [d.callId, `${d.phase} ${d.error?.code ?? ''}`.trim()]),
    );
    expect(Object.fromEntries(settled)).toEqual({
      [unknownTool.id]: 'failed TOOL_UNKNOWN',
      [invalidArgs.id]: 'failed TOOL_ARGS_INVALID',
      [read.id]: 'unknown OUTCOME_UNKNOWN',
    });
  }, 60_000);

  it('the failures of a turn are kept until the next turn with calls, which clears them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-never-ran-'));
    dirs.push(dir);
    const storage = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
    const host = createAgentHost({
      storage,
      logger: new ConsoleLogger('silent'),
      model: {
        provider: new ScriptedProvider({
          scripts: {
            match: 'notes',
            steps: [
              { toolCalls: [{ capability: 'notes.purge', input: {} }] },
              { toolCalls: [{ capability: 'notes.read', input: {} }] },
            ],
            finalText: 'No notes.',
          },
        }),
      },
      runs: { pollMs: 5, leaseMs: 300, concurrency: 1 },
    });
    const notesFile = join(dir, 'notes.txt');
    writeFileSync(notesFile, '');
    host.capabilities.register(notesRead(notesFile));
    hosts.push(host);
    await host.start();
    const run = await host.startRun({ goal: 'list the notes', mode: 'plan_only', actor: 'user:admin' });
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed', 'cancelled', 'budget_exceeded'], {
      timeoutMs: 15_000,
    });
    const phases = (await runEvents(host, run.id))
      .filter((e) => e.type === 'tool_call')
      .map((e) => e.data as { phase: string; error?: { code: string } })
      .map((d) => `${d.phase} ${d.error?.code ?? ''}`.trim());
    expect(phases).toEqual(['started', 'failed TOOL_UNKNOWN', 'started', 'succeeded']);
    expect(done.status).toBe('succeeded');
    expect((done.runtimeState as Record<string, unknown>).turn_failures).toBeNull();
  });
});
