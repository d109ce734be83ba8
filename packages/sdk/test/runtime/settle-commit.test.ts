// A side-effecting call's settlement commits with the step that appends its result (runtime/loop/settle-commit.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, defineCapability, type AgentHost } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { ScriptedProvider, type FakeScript } from '../../src/testing';
import { waitForStatus } from './harness';

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const script: FakeScript = {
  match: 'note',
  steps: [{ text: 'Noting it. ', toolCalls: [{ capability: 'note.write', input: { text: 'hello' } }] }],
  finalText: 'Noted.',
};

function storageFile(): SqliteStorage {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-settle-'));
  dirs.push(dir);
  return new SqliteStorage({ path: join(dir, 'agent.sqlite') });
}

async function hostWith(storage: SqliteStorage, handler: (runId: string) => Promise<{ saved: boolean }>) {
  const host = createAgentHost({
    storage,
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: [script] }) },
    runs: { pollMs: 5, concurrency: 1 },
  });
  hosts.push(host);
  host.capabilities.register(
    defineCapability({
      id: 'note.write',
      version: 1,
      title: 'Write a note',
      description: 'A side effect, claimed in the ledger.',
      kind: 'execute',
      replay: 'never',
      input: Type.Object({ text: Type.String() }),
      output: Type.Object({ saved: Type.Boolean() }),
      handler: async (_input, ctx) => handler(ctx.runId!),
    }),
  );
  await host.start();
  await host.grants.create({ action: 'note.write', actor: 'user:admin' });
  return host;
}

describe('a call settlement rides on the step that appends its result (SQLite file)', () => {
  it('the claim is committed before the handler runs; the settlement, its audit row and the result commit together', async () => {
    const storage = storageFile();
    const seen: string[] = [];
    const host = await hostWith(storage, async (runId) => {
      const entries = await storage.ledger.listByRun(runId, { limit: 10 });
      seen.push(...entries.map((e) => e.state));
      return { saved: true };
    });
    const run = await host.startRun({ goal: 'write a note', mode: 'execute', actor: 'user:admin' });
    expect((await waitForStatus(host, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    // Inside the handler the claim was already stored, running.
    expect(seen).toEqual(['running']);
    const [entry] = await storage.ledger.listByRun(run.id, { limit: 10 });
    expect(entry!.state).toBe('succeeded');
    expect(entry!.output).toEqual({ saved: true });
    const audit = (await storage.audit.list({ limit: 50 })).filter(
      (a) => a.action === 'capability.invoke' && a.capabilityId === 'note.write',
    );
    expect(audit.map((a) => a.outcome)).toEqual(['succeeded']);
    // The tool result the model saw and the settled entry agree.
    const messages = await storage.messages.list(run.id);
    expect(JSON.stringify(messages)).toContain('saved');
  });

  it('a lease lost while the handler ran drops the step, but the settlement is still written on its own (never left running)', async () => {
    const storage = storageFile();
    const host = await hostWith(storage, async (runId) => {
      // Another worker takes the run over while the effect runs.
      await storage.runs.patch(runId, { leaseOwner: 'another-worker', leaseExpiresAt: Date.now() + 60_000 });
      return { saved: true };
    });
    const run = await host.startRun({ goal: 'write a note', mode: 'execute', actor: 'user:admin' });
    let entry: Awaited<ReturnType<typeof storage.ledger.listByRun>>[number] | undefined;
    for (let i = 0; i < 500 && entry?.state !== 'succeeded'; i++) {
      [entry] = await storage.ledger.listByRun(run.id, { limit: 10 });
      if (entry?.state !== 'succeeded') await new Promise((resolve) => setImmediate(resolve));
    }
    expect(entry!.state).toBe('succeeded');
    expect(entry!.output).toEqual({ saved: true });
    // The step that would have appended the result was not written: the other worker owns the run.
    const stored = await storage.runs.get(run.id);
    expect(stored!.leaseOwner).toBe('another-worker');
    const messages = await storage.messages.list(run.id);
    expect(JSON.stringify(messages)).not.toContain('"saved"');
  });
});
