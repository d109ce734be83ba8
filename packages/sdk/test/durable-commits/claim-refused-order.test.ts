// Regression guard, found in review of the commit changes — A side-effecting call whose ledger claim is refused (LEDGER_CALL_ID_CONFLICT: the call id already holds a
// different call): the claim's transaction rolls back with the turn's writes riding on it; the loop must then
// commit them itself, exactly once and in order (assistant message before the result, `started` before the
// call's settled event), and the handler must not run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, defineCapability, type AgentHost } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { waitForStatus } from '../runtime/harness';
import { noteModel, noteWrite } from './note-write';

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it('a refused claim: the turn is committed once, in event order, and the handler does not run', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'trial34-refused-'));
  dirs.push(dir);
  const path = join(dir, 'agent.sqlite');
  let handled = 0;
  const note = defineCapability({
    ...noteWrite,
    handler: async () => {
      handled++;
      return { saved: true };
    },
  });
  const make = () => {
    const host = createAgentHost({
      storage: new SqliteStorage({ path }),
      logger: new ConsoleLogger('silent'),
      model: { provider: noteModel('mine', 'Done.') },
      runs: { pollMs: 5, concurrency: 1 },
    });
    hosts.push(host);
    host.capabilities.register(note);
    return host;
  };
  // A process that drives nothing: the run is queued, and its first call id is taken by another call.
  const first = make();
  await first.start({ workers: false });
  await first.grants.create({ action: 'note.write', actor: 'user:admin' });
  const run = await first.startRun({ goal: 'write a note', mode: 'plan_only', actor: 'user:admin' });
  const seeded = await first.invoke(
    'note.write',
    { text: 'someone else' },
    { actor: `agent:${run.id}`, runId: run.id, callId: 'call_1_0' },
  );
  expect(seeded.status).toBe('succeeded');
  await first.stop();
  handled = 0;

  const host = make();
  await host.start();
  expect((await waitForStatus(host, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
  expect(handled).toBe(0);
  const { events } = await host.getRun(run.id, { afterSeq: 0, limit: 500 });
  const calls = events
    .filter((e) => e.type === 'tool_call')
    .map((e) => ({ seq: e.seq, ...(e.data as { phase: string; callId: string }) }));
  const mine = calls.filter((c) => c.callId === 'call_1_0');
  expect(mine.map((c) => c.phase)).toEqual(['started', 'failed']);
  expect(mine[0]!.seq).toBeLessThan(mine[1]!.seq);
  const seqs = events.map((e) => e.seq);
  expect(new Set(seqs).size).toBe(seqs.length);
  const messages = (await new SqliteStorage({ path }).messages.list(run.id)).map(
    (m) => (m.message as { role: string }).role,
  );
  expect(messages).toEqual(['user', 'assistant', 'tool', 'assistant']);
});
