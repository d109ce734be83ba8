// host.replayRun against a changed runtime: a capability removed, a grant revoked, other facts; and on a real SQLite
// file reopened by a new host.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { compareReplay, readRecordedRun, replayRecordedRun, type AgentHost } from '../../src';
import { SqliteStorage } from '../../src/sqlite';
import { MemoryStorage } from '../../src/storage';
import { sandboxCapabilities, ScriptedProvider } from '../../src/testing';
import { recordTrajectory, sandboxHost, type RecordedHost } from './recorded-host';

const dirs: string[] = [];
const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const sqlitePath = () => {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-replay-'));
  dirs.push(dir);
  return join(dir, 'agent.sqlite');
};
const record = async (file: string, storage = new MemoryStorage() as ConstructorParameters<typeof Object>[0]) => {
  const r: RecordedHost = await recordTrajectory(file, storage as never);
  hosts.push(r.host);
  return r;
};

describe('host.replayRun on a real SQLite file, from a new host', () => {
  it('approval_required: run, stop the host, open a new host on the file, replay: same, nothing called', async () => {
    const path = sqlitePath();
    const first = await record('approval_required.pass.json', new SqliteStorage({ path }));
    const runId = first.run.id;
    expect(first.run.status).toBe('succeeded');
    const jobs = first.world.downloads().length;
    await first.host.stop();
    // A new process: new store handle, new world, a scripted model with no script (any call would fail the run).
    const provider = new ScriptedProvider({ scripts: [] });
    const second = await sandboxHost('approval_required.pass.json', new SqliteStorage({ path }), provider);
    hosts.push(second.host);
    const audit = await second.host.audit({ after: 0, limit: 1000 });
    const report = await second.host.replayRun(runId, { actor: 'user:admin' });
    expect(report.divergences).toEqual([]);
    expect(report).toMatchObject({
      status: 'same',
      modelCalls: 0,
      handlerCalls: 0,
      ledgerWrites: 0,
      turns: 7,
      toolCalls: 6,
      storedReport: { status: 'succeeded' },
      replayedReport: { status: 'succeeded' },
      // 7 turns and the final reply, played by the isolated scripted model.
      replayedModelTurns: 8,
    });
    expect(provider.requests).toHaveLength(0);
    expect(second.world.handlerCalls()).toHaveLength(0);
    expect(second.world.downloads()).toHaveLength(0);
    expect(jobs).toBe(1);
    expect(await second.host.audit({ after: 0, limit: 1000 })).toEqual(audit);
  });

  it('the same access rule as reading the run: another person gets RUN_NOT_FOUND; bad options RUN_REQUEST_INVALID', async () => {
    const { host, run } = await record('dedup_existing.pass.json', new SqliteStorage({ path: sqlitePath() }));
    // (Every `user:*` is an administrator with the default identity resolver: an API key is not.)
    await expect(host.replayRun(run.id, { actor: 'apikey:bob' })).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
    await expect(host.replayRun(run.id, { actor: 'user:admin' })).resolves.toMatchObject({ status: 'same' });
    await expect(host.replayRun('run_nope')).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
    await expect(host.replayRun(run.id, { timeoutMs: 0 })).rejects.toMatchObject({ code: 'RUN_REQUEST_INVALID' });
    await expect(host.replayRun(run.id, 'user:admin' as never)).rejects.toMatchObject({ code: 'RUN_REQUEST_INVALID' });
    await expect(host.replayRun(run.id, { actor: 'nobody' })).rejects.toMatchObject({ code: 'ACTOR_INVALID' });
  });
});

describe('replay against a changed runtime reports divergences, never crashes', () => {
  it('a capability the host no longer has: capability_missing, the replay still ends', async () => {
    const path = sqlitePath();
    const first = await record('approval_required.pass.json', new SqliteStorage({ path }));
    await first.host.stop();
    // The new host has every sandbox capability but task.inspect.
    const second = await sandboxHost(
      'approval_required.pass.json',
      new SqliteStorage({ path }),
      new ScriptedProvider({ scripts: [] }),
      {
        capabilities: (host, world) => {
          const all = sandboxCapabilities(world, { plans: host.plans }) as Record<string, unknown>;
          const { 'task.inspect': _gone, ...rest } = all;
          for (const c of Object.values(rest)) host.capabilities.register(c as never);
        },
      },
    );
    hosts.push(second.host);
    expect(second.host.capabilities.has('task.inspect')).toBe(false);
    const report = await second.host.replayRun(first.run.id);
    expect(report.status).toBe('diverged');
    expect(report).toMatchObject({ modelCalls: 0, handlerCalls: 0, ledgerWrites: 0 });
    expect(report.divergences.filter((d) => d.kind === 'capability_missing')).toEqual([
      expect.objectContaining({
        kind: 'capability_missing',
        turn: 6,
        callIndex: 0,
        capabilityId: 'task.inspect',
        stored: { status: 'succeeded' },
      }),
    ]);
    // Only the missing call diverged: the verdicts and the report are the same.
    expect(report.divergences.map((d) => d.kind)).toEqual(['capability_missing']);
  });

  it('a grant revoked after the run: the submit it allowed is now denied — a verdict divergence naming the call', async () => {
    const { host, run } = await record('steering_mid_run.pass.json', new MemoryStorage());
    const submit = (await host.grants.list()).find((g) => g.action === 'download.submit')!;
    await host.grants.update(submit.id, { status: 'revoked', actor: 'user:admin' });
    const report = await host.replayRun(run.id, { timeoutMs: 20_000 });
    expect(report.status).toBe('diverged');
    expect(report).toMatchObject({ modelCalls: 0, handlerCalls: 0, ledgerWrites: 0 });
    const verdicts = report.divergences.filter((d) => d.kind === 'verdict');
    expect(verdicts).toEqual([
      {
        kind: 'verdict',
        turn: 3,
        callIndex: 0,
        capabilityId: 'download.submit',
        stored: { status: 'pending' },
        replayed: { status: 'denied', code: 'AUTH_GRANT_REVOKED' },
        message: 'turn 3 call 0: download.submit was allowed as stored, denied (AUTH_GRANT_REVOKED) in the replay',
      },
    ]);
    expect(report.stopped).toBe('waiting');
    // The scripted model plays the recorded turns on (its later reads answer as recorded); the run then waits for
    // the approval the denial asked for, which nobody recorded: the replay stops it, so it has no goal report.
    expect(report.divergences.map((d) => d.kind)).toEqual(['verdict', 'report']);
    expect(report.divergences[1]).toMatchObject({ stored: { status: 'succeeded' }, replayed: null });
    expect(report.replayedReport).toBeNull();
    // The stored grant stays revoked and the stored run untouched.
    expect((await host.grants.get(submit.id)).status).toBe('revoked');
  });

  it('other facts: the goal report diverges (report), the calls do not', async () => {
    const { host, storage, run } = await record('approval_required.pass.json', new MemoryStorage());
    const recorded = await readRecordedRun(storage, run.id, { capabilities: host.capabilities });
    // The same run, but the world now says the download failed.
    const failed = {
      ...recorded,
      facts: {
        ...recorded.facts!,
        downloads: recorded.facts!.downloads.map((d) => ({ ...d, status: 'failed' as const })),
        organizes: [],
        library: recorded.facts!.library.map((l) => ({ ...l, present: false })),
        plans: recorded.facts!.plans.map((p) => ({ ...p, status: 'failed' as const })),
      },
    };
    const replay = await replayRecordedRun(failed, { capabilities: host.capabilities, authorization: storage });
    const divergences = compareReplay(recorded, replay);
    expect(divergences).toEqual([
      expect.objectContaining({
        kind: 'report',
        stored: expect.objectContaining({ status: 'succeeded' }),
        replayed: expect.objectContaining({ status: 'failed' }),
      }),
    ]);
    // Six calls: the first submit was denied (no handler), the five others answered from the recording.
    expect(replay).toMatchObject({ answered: 5, unanswered: 0, missing: [] });
  });

  it('without a registry every capability is missing (no crash)', async () => {
    const { storage, run } = await record('dedup_existing.pass.json', new MemoryStorage());
    const recorded = await readRecordedRun(storage, run.id);
    const replay = await replayRecordedRun(recorded, { timeoutMs: 10_000 });
    expect(replay.missing.length).toBeGreaterThan(0);
    const divergences = compareReplay(recorded, replay);
    expect(divergences.filter((d) => d.kind === 'capability_missing').map((d) => d.capabilityId)).toEqual(
      replay.missing,
    );
  });
});
