import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, defineCapability, type AgentHost } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { downloadSubmit } from './fixtures/download-submit';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const worker = fileURLToPath(new URL('./fixtures/crash-worker.ts', import.meta.url));
const dirs: string[] = [];
const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs the worker in a real child process until it reports the side effect, then kills it with SIGKILL. */
async function crashBetweenClaimAndSettle(
  dbFile: string,
  downloaderFile: string,
): Promise<{ key: string; signal: NodeJS.Signals | null }> {
  const child = spawn(process.execPath, ['--import', 'tsx', worker, dbFile, downloaderFile], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  const line = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      const nl = buffer.indexOf('\n');
      if (nl >= 0) resolve(buffer.slice(0, nl));
    });
    void exited.then(() => reject(new Error(`worker exited early: ${stderr}`)));
  });
  child.kill('SIGKILL');
  const signal = await exited;
  return { key: (JSON.parse(line) as { key: string }).key, signal };
}

function newHost(dbFile: string, _downloaderFile: string): AgentHost {
  const host = createAgentHost({ storage: new SqliteStorage({ path: dbFile }), logger: new ConsoleLogger('silent') });
  hosts.push(host);
  host.capabilities.register(
    defineCapability({
      ...downloadSubmit,
      handler: async () => {
        throw new Error('the handler must not run again after a crash');
      },
    }),
  );
  return host;
}

const jobsIn = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];

describe('crash between claim and settle (real child process, SIGKILL, real SQLite file)', () => {
  it('a process killed between claim and settle leaves running; the next start makes it unknown with a new token; the old token’s settle is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-crash-'));
    dirs.push(dir);
    const dbFile = join(dir, 'agent.sqlite');
    const downloaderFile = join(dir, 'downloader.jsonl');

    const { key, signal } = await crashBetweenClaimAndSettle(dbFile, downloaderFile);
    expect(signal).toBe('SIGKILL');
    expect(jobsIn(downloaderFile)).toHaveLength(1);

    const inspector = new SqliteStorage({ path: dbFile });
    await inspector.migrate();
    const before = await inspector.ledger.get(key);
    expect(before).toMatchObject({ state: 'running', capabilityId: 'download.submit', runId: 'run-crash' });
    const oldToken = before!.token;
    await inspector.close();

    const host = newHost(dbFile, downloaderFile);
    const report = await host.start();
    expect(report.recovered.map((e) => e.key)).toEqual([key]);
    const after = await host.ledger.get(key);
    expect(after?.state).toBe('unknown');
    expect(after?.token).not.toBe(oldToken);

    const storage = new SqliteStorage({ path: dbFile });
    await expect(
      storage.transaction((s) =>
        host.ledger.settle(s, key, oldToken, { state: 'succeeded', output: { jobId: 'late' } }),
      ),
    ).rejects.toMatchObject({
      code: 'LEDGER_STALE_EXECUTOR',
    });
    expect((await storage.ledger.get(key))?.state).toBe('unknown');
    await storage.close();
  });

  it('after the crash the same call is not executed again: without a verifier it stays unknown, with one it settles from a read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-crash-'));
    dirs.push(dir);
    const dbFile = join(dir, 'agent.sqlite');
    const downloaderFile = join(dir, 'downloader.jsonl');
    const { key } = await crashBetweenClaimAndSettle(dbFile, downloaderFile);

    const host = newHost(dbFile, downloaderFile);
    await host.start();
    const input = { release: 'Dune.Part.Two.2024.2160p' };
    const ctx = { actor: 'user:admin' as const, runId: 'run-crash' };
    const unknown = await host.invoke('download.submit', input, ctx);
    expect(unknown).toMatchObject({ status: 'unknown', idempotencyKey: key });

    host.capabilities.register(
      defineCapability({
        id: 'downloader.jobs',
        version: 1,
        title: 'Downloader jobs',
        description: 'Lists jobs.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({}),
        output: Type.Object({ jobs: Type.Array(Type.Object({ release: Type.String(), key: Type.String() })) }),
        handler: async () => ({
          jobs: jobsIn(downloaderFile).map((l) => JSON.parse(l) as { release: string; key: string }),
        }),
      }),
    );
    host.capabilities.registerVerifier('download.submit', async ({ entry, read }) => {
      const { jobs } = (await read('downloader.jobs', {})) as { jobs: Array<{ key: string }> };
      const index = jobs.findIndex((j) => j.key === entry.key);
      return index >= 0
        ? { status: 'succeeded', output: { jobId: `job-${index + 1}` } }
        : { status: 'failed', reason: 'no such job' };
    });
    const verified = await host.invoke('download.submit', input, ctx);
    expect(verified).toMatchObject({ status: 'succeeded', output: { jobId: 'job-1' }, replayed: true });
    expect(jobsIn(downloaderFile)).toHaveLength(1);
  });
});

describe('recovery leaves a live executor alone (real child process, shared SQLite file)', () => {
  it('a second host starting while another process is inside a handler does not take its claim; once that process is dead, the claim is recovered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-live-'));
    dirs.push(dir);
    const dbFile = join(dir, 'agent.sqlite');
    const downloaderFile = join(dir, 'downloader.jsonl');
    const child = spawn(process.execPath, ['--import', 'tsx', worker, dbFile, downloaderFile], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const key = await new Promise<string>((resolve) => {
      let buffer = '';
      child.stdout.on('data', (d: Buffer) => {
        buffer += d.toString();
        const nl = buffer.indexOf('\n');
        if (nl >= 0) resolve((JSON.parse(buffer.slice(0, nl)) as { key: string }).key);
      });
    });
    const host = newHost(dbFile, downloaderFile);
    expect((await host.start()).recovered).toEqual([]);
    expect((await host.ledger.get(key))?.state).toBe('running');
    child.kill('SIGKILL');
    await exited;
    expect((await host.ledger.recover()).map((e) => e.key)).toEqual([key]);
    expect((await host.ledger.get(key))?.state).toBe('unknown');
  });
});
