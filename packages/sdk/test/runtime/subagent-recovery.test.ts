// Subagent runs orphaned by a crash: a real child process killed with SIGKILL while its subagent is
// inside a read, then a new host on the same SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, defineCapability, type AgentHost } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { ScriptedProvider } from '../../src/testing';
import { subagentScripts } from './fixtures/subagent-scripts';
import { runEvents, waitForStatus } from './harness';
import { killWorkerWhen } from './kill-worker';

const worker = fileURLToPath(new URL('./fixtures/subagent-crash-worker.ts', import.meta.url));
const dirs: string[] = [];
const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs the worker until its subagent is inside the slow read, then SIGKILLs it; returns the parent run id. */
async function crashInsideSubagent(dbFile: string): Promise<string> {
  const { value, signal } = await killWorkerWhen(worker, [dbFile], (out) => {
    const id = /run (\S+)\n/.exec(out)?.[1];
    return id && out.includes('in-scan\n') ? id : undefined;
  });
  expect(signal).toBe('SIGKILL');
  return value;
}

function newHost(dbFile: string): AgentHost {
  const host = createAgentHost({
    storage: new SqliteStorage({ path: dbFile }),
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: subagentScripts }) },
    runs: { pollMs: 5, leaseMs: 300, concurrency: 1 },
  });
  host.capabilities.register(
    defineCapability({
      id: 'inventory.query',
      version: 1,
      title: 'Query the library',
      description: 'Is a title in the library?',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({ title: Type.String() }),
      output: Type.Object({ present: Type.Boolean(), note: Type.String() }),
      handler: async () => {
        throw new Error('the resumed parent must not read again what its child already read');
      },
    }),
  );
  host.capabilities.register(
    defineCapability({
      id: 'indexer.scan',
      version: 1,
      title: 'Scan the indexer',
      description: 'A slow read.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({}),
      output: Type.Object({}),
      handler: async () => ({}),
    }),
  );
  hosts.push(host);
  return host;
}

describe('subagents orphaned by a crash', () => {
  it('the resumed parent ends its running child and receives the child’s findings so far; nothing stays running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-subagent-'));
    dirs.push(dir);
    const dbFile = join(dir, 'agent.sqlite');
    const parentId = await crashInsideSubagent(dbFile);

    const host = newHost(dbFile);
    await host.start();
    const parent = await waitForStatus(host, parentId, ['succeeded', 'failed', 'cancelled'], { timeoutMs: 15_000 });
    expect(parent.status).toBe('succeeded');
    const child = (await host.listRuns()).find((r) => r.parentRunId === parentId)!;
    expect(child.status).toBe('cancelled');
    expect(child.leaseOwner).toBeNull();
    const running = await host.listRuns({ status: 'running' });
    expect(running).toEqual([]);

    // The parent's delegate result carries what the child had read: the library answer, not just "unknown".
    const delegated = (await runEvents(host, parentId)).filter(
      (e) => e.type === 'tool_call' && (e.data as { capabilityId: string }).capabilityId === 'delegate',
    );
    expect(delegated.at(-1)!.data).toMatchObject({ phase: 'failed', error: { code: 'SUBAGENT_CANCELLED' } });
    const storage = new SqliteStorage({ path: dbFile });
    const messages = (await storage.messages.list(parentId)).map(
      (m) => m.message as { role: string; name?: string; content: string },
    );
    await storage.close();
    const result = JSON.parse(messages.find((m) => m.role === 'tool' && m.name === 'delegate')!.content) as {
      output: { findings: Array<{ capability: string; result: string }> };
      recovered: boolean;
    };
    expect(result.recovered).toBe(true);
    expect(result.output.findings).toHaveLength(1);
    expect(result.output.findings[0]).toMatchObject({ capability: 'inventory.query' });
    expect(result.output.findings[0]!.result).toContain('3 releases on the indexer');
  });

  it('abort ends an orphaned running subagent at once, even with no worker running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-subagent-'));
    dirs.push(dir);
    const dbFile = join(dir, 'agent.sqlite');
    const parentId = await crashInsideSubagent(dbFile);
    const host = newHost(dbFile);
    await host.start({ workers: false });
    const child = (await host.listRuns()).find((r) => r.parentRunId === parentId)!;
    expect(child.status).toBe('running');
    // The crashed process's lease expires (300 ms); the lease is a real one, not "forever".
    expect(child.leaseExpiresAt).not.toBeNull();
    expect(child.leaseExpiresAt!).toBeLessThan(Date.now() + 60_000);
    await new Promise((r) => setTimeout(r, Math.max(0, child.leaseExpiresAt! - Date.now() + 20)));
    const aborted = await host.abort(child.id, 'user gave up');
    expect(aborted.status).toBe('cancelled');
    expect(aborted.abortRequested).toBe(false);
    const parentAborted = await host.abort(parentId);
    expect(parentAborted.status).toBe('cancelled');
  });
});
