// What a durable run costs the disk of a NAS, on a real SQLite file. Public reports this guards against:
// LangGraph checkpointers re-writing the whole state every step (langchain-ai/langgraph#7714, 85 % storage bloat;
// pizza-bot-app/pizza-bot#58, 183 KB per checkpoint row; langchain-ai/openwiki#257, a 2.9 GB checkpoint file) and
// WALs that never shrink after a reader pinned them (BYK/loreai#1221, a 5.4 GB WAL; DeusData/codebase-memory-mcp#1137).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, defineCapability, type AgentHost } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { ScriptedProvider, type FakeScript } from '../../src/testing';
import { waitForStatus } from '../runtime/harness';

const dirs: string[] = [];
const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const capability = (id: string, kind: 'read' | 'propose' | 'execute', output: Record<string, unknown>) =>
  defineCapability({
    id,
    version: 1,
    title: id,
    description: `${id} (fixed answer)`,
    kind,
    replay: kind === 'execute' ? 'never' : 'safe',
    input: Type.Object({}, { additionalProperties: true }),
    output: Type.Object({}, { additionalProperties: true }),
    handler: async () => output,
  });

/** Add a film: two reads, a plan, a submit, a status read, a final answer (6 model turns, 5 tool calls). */
function addAFilm(turns = 0): FakeScript {
  const reads = Array.from({ length: turns }, (_, i) => ({
    text: `Checking shelf ${i}. `,
    toolCalls: [{ capability: 'catalog.lookup', input: { shelf: i } }],
  }));
  return {
    name: 'add a film',
    steps: [
      ...reads,
      { text: 'Looking it up. ', toolCalls: [{ capability: 'catalog.lookup', input: { query: 'Dune' } }] },
      { text: 'Searching releases. ', toolCalls: [{ capability: 'release.search', input: { id: '693134' } }] },
      { text: 'Planning. ', toolCalls: [{ capability: 'download.plan', input: { releaseId: 'r1' } }] },
      { text: 'Submitting. ', toolCalls: [{ capability: 'download.submit', input: { planId: 'p1' } }] },
      { text: 'Checking. ', toolCalls: [{ capability: 'download.status', input: { downloadId: 'd1' } }] },
    ],
    finalText: 'Dune is downloading; it is done once imported.',
  };
}

async function filmHost(path: string, script: FakeScript): Promise<AgentHost> {
  const host = createAgentHost({
    storage: new SqliteStorage({ path }),
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: script }) },
    // A commit window long enough that which steps share a commit does not depend on how loaded this machine is.
    runs: { pollMs: 5, concurrency: 1, budgets: { maxToolCalls: 100 }, commitWindowMs: 60_000 },
    limits: { runStartsPerMinutePerActor: 1000, runStartsPerMinuteTotal: 1000 },
  });
  hosts.push(host);
  host.capabilities.register(capability('catalog.lookup', 'read', { items: [{ mediaId: '693134', title: 'Dune' }] }));
  host.capabilities.register(capability('release.search', 'read', { releases: [{ releaseId: 'r1', size: 58e9 }] }));
  host.capabilities.register(capability('download.plan', 'propose', { planId: 'p1' }));
  host.capabilities.register(capability('download.submit', 'execute', { downloadId: 'd1', status: 'queued' }));
  host.capabilities.register(capability('download.status', 'read', { downloadId: 'd1', progress: 0.1 }));
  await host.start();
  await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
  await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
  return host;
}

async function runOnce(host: AgentHost): Promise<void> {
  const run = await host.startRun({ goal: 'Add Dune to the library.', mode: 'execute', actor: 'user:admin' });
  expect((await waitForStatus(host, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
}

/** Counts `BEGIN IMMEDIATE` (one per commit) of every better-sqlite3 connection while `work` runs. */
async function countCommits(work: () => Promise<void>): Promise<number> {
  const proto = (Database as unknown as { prototype: { prepare: (sql: string) => unknown } }).prototype;
  const prepare = proto.prepare;
  let commits = 0;
  proto.prepare = function (this: unknown, sql: string) {
    const statement = prepare.call(this, sql) as { run: (...a: unknown[]) => unknown };
    if (/^BEGIN/i.test(sql.trim())) {
      const run = statement.run.bind(statement);
      statement.run = (...a: unknown[]) => {
        commits++;
        return run(...a);
      };
    }
    return statement;
  };
  try {
    await work();
  } finally {
    proto.prepare = prepare;
  }
  return commits;
}

const walBytes = (path: string) => statSync(`${path}-wal`).size;

describe('write volume of a durable run (SQLite file)', () => {
  it('an add-a-film run writes at most 160 KiB to the WAL in at most 9 commits (was 852 KiB in 32 commits)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-volume-'));
    dirs.push(dir);
    const path = join(dir, 'agent.sqlite');
    const host = await filmHost(path, addAFilm());
    await runOnce(host); // warm: the counters and grants' first rows
    const runs = 5;
    const before = walBytes(path);
    // A fresh connection per test: the statement cache is empty, so every BEGIN is prepared (and counted) anew.
    await host.stop();
    hosts.splice(0);
    const counted = await filmHost(path, addAFilm());
    const commits = await countCommits(async () => {
      for (let i = 0; i < runs; i++) await runOnce(counted);
    });
    const perRun = (walBytes(path) - before) / runs;
    expect(perRun).toBeLessThanOrEqual(160 * 1024);
    // Starting the host (migrate, recovery, the worker pool) commits too: counted from the runs' share.
    expect(commits / runs).toBeLessThanOrEqual(9);
  });

  it('a step writes about the same whatever the length of the conversation before it (no whole-state snapshots)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-volume-'));
    dirs.push(dir);
    const short = join(dir, 'short.sqlite');
    const long = join(dir, 'long.sqlite');
    const a = await filmHost(short, addAFilm(0));
    await runOnce(a);
    const shortBefore = walBytes(short);
    await runOnce(a);
    const shortRun = walBytes(short) - shortBefore;
    const b = await filmHost(long, addAFilm(30));
    await runOnce(b);
    const longBefore = walBytes(long);
    await runOnce(b);
    const longRun = walBytes(long) - longBefore;
    // 30 more read turns: the run writes more, linearly (≈ one turn's share each), not quadratically.
    const perExtraTurn = (longRun - shortRun) / 30;
    expect(perExtraTurn).toBeLessThan(shortRun / 4);
  });

  it('a WAL that grew while a reader pinned an old snapshot is cut back to 32 MiB once the reader is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-volume-'));
    dirs.push(dir);
    const path = join(dir, 'agent.sqlite');
    const storage = new SqliteStorage({ path });
    await storage.migrate();
    const reader = new Database(path, { readonly: true });
    const value = 'x'.repeat(4000);
    try {
      // A long read transaction pins the WAL: no checkpoint can reset it while it is open.
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM settings').get();
      for (let i = 0; i < 12_000; i++) await storage.settings.set(`k${i}`, `${i}${value}`);
      expect(walBytes(path)).toBeGreaterThan(40 * 1024 * 1024);
      reader.exec('COMMIT');
    } finally {
      reader.close();
    }
    for (let i = 0; i < 6_000; i++) await storage.settings.set(`k${i % 50}`, `${i}${value}`);
    expect(walBytes(path)).toBeLessThanOrEqual(33 * 1024 * 1024);
    await storage.close();
  });
});
