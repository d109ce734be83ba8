import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHost, GoalFacts } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsoleLogger, createAgentHost, RandomIdGenerator } from '../../src/index';
import { ScriptedProvider } from '../../src/testing';
import { runEvents, startHost, waitForStatus } from './harness';

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('run robustness (bad input and odd sequences)', () => {
  it('a model call to a tool that does not exist gets a failed tool result and the run goes on', async () => {
    const { host, provider } = await startHost({
      match: 'ghost',
      steps: [{ toolCalls: [{ capability: 'no.such.tool', input: {} }] }],
      finalText: 'ok then',
    });
    hosts.push(host);
    const run = await host.startRun({ goal: 'ghost tool', mode: 'plan_only', actor: 'user:admin' });
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    const result = provider.requests.at(-1)!.messages.find((m) => m.role === 'tool')!;
    expect(JSON.parse(result.content as string)).toMatchObject({ status: 'failed' });
    const phases = (await runEvents(host, run.id))
      .filter((e) => e.type === 'tool_call')
      .map((e) => (e.data as { phase: string }).phase);
    expect(phases).toEqual(['started', 'failed']);
  });

  it('stop() while host code throws on the aborted signal leaves the run resumable, not failed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-stop-'));
    dirs.push(dir);
    const file = join(dir, 'agent.sqlite');
    let entered!: () => void;
    const inFacts = new Promise<void>((r) => (entered = r));
    const abortingFacts: GoalFacts = {
      forRun: (_runId, signal) =>
        new Promise((_, reject) => {
          entered();
          signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })));
        }),
    };
    const host = createAgentHost({
      storage: new SqliteStorage({ path: file }),
      logger: new ConsoleLogger('silent'),
      model: { provider: new ScriptedProvider({ scripts: { match: 'Dune', finalText: 'done' } }) },
      goalFacts: abortingFacts,
      runs: { pollMs: 5, goalPollSec: 60 },
    });
    await host.start();
    const run = await host.startRun({ goal: 'Dune', actor: 'user:admin' });
    await inFacts;
    await host.stop();
    const b = await startHost(
      { match: 'Dune', finalText: 'done' },
      { storage: new SqliteStorage({ path: file }), ids: new RandomIdGenerator(), workers: false },
    );
    hosts.push(b.host);
    const after = (await b.host.getRun(run.id)).run;
    expect(after.status).not.toBe('failed');
    expect(after.leaseOwner).toBeNull();
  });

  it('a message sent while the run is finishing wakes it once more: nothing is dropped', async () => {
    const { host } = await startHost([
      { match: 'later', finalText: 'second answer' },
      { match: 'first', finalText: 'first answer' },
    ]);
    hosts.push(host);
    const run = await host.startRun({ goal: 'first', mode: 'plan_only', actor: 'user:admin' });
    await host.appendToInbox(run.id, 'later please', 'user:admin');
    const done = await waitForStatus(host, run.id, ['succeeded'], { timeoutMs: 10_000 });
    for (let i = 0; i < 200 && (await host.getRun(run.id)).inbox.length > 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect((await host.getRun(run.id)).inbox).toEqual([]);
    expect(['first answer', 'second answer']).toContain(done.finalText);
  });

  it('paging and filter arguments of the wrong type are RUN_REQUEST_INVALID on every store', async () => {
    const { host } = await startHost({ match: 'x', finalText: 'ok' });
    hosts.push(host);
    const run = await host.startRun({ goal: 'x', mode: 'plan_only', actor: 'user:admin' });
    for (const options of [
      { limit: Number.NaN },
      { limit: 0 },
      { limit: 'abc' },
      { afterSeq: -1 },
      { afterSeq: 1.5 },
      { afterSeq: {} },
    ]) {
      await expect(host.getRun(run.id, options as never)).rejects.toMatchObject({ code: 'RUN_REQUEST_INVALID' });
    }
    await expect(host.listRuns({ limit: -1 })).rejects.toMatchObject({ code: 'RUN_REQUEST_INVALID' });
    expect(() => host.events({ after: Number.NaN })).toThrow(expect.objectContaining({ code: 'RUN_REQUEST_INVALID' }));
    expect((await host.getRun(run.id, null as never)).run.id).toBe(run.id);
  });

  it('startRun refuses a non-string sessionId, unknown budget names and a goal that is not valid Unicode', async () => {
    const { host } = await startHost({ match: 'x', finalText: 'ok' });
    hosts.push(host);
    await expect(host.startRun({ goal: 'x', actor: 'user:admin', sessionId: {} as never })).rejects.toMatchObject({
      code: 'RUN_REQUEST_INVALID',
    });
    await expect(
      host.startRun({ goal: 'x', actor: 'user:admin', budgets: { bogus: 1 } as never }),
    ).rejects.toMatchObject({ code: 'RUN_REQUEST_INVALID' });
    await expect(host.startRun({ goal: 'a\ud800b', actor: 'user:admin' })).rejects.toMatchObject({
      code: 'RUN_REQUEST_INVALID',
    });
  });
});
