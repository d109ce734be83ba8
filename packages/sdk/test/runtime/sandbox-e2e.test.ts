import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  createAgentHost,
  ManualClock,
  SequentialIdGenerator,
  SystemClock,
  type AgentHost,
} from '../../src/index';
import { MemoryStorage } from '../../src/storage';
import { SqliteStorage } from '../../src/sqlite';
import {
  addToLibraryScript,
  registerSandboxCapabilities,
  SandboxWorld,
  ScriptedProvider,
  approveRequested,
  requestedApproval,
} from '../../src/testing';
import { waitForStatus } from './harness';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function sandboxHost(options: { world?: SandboxWorld } = {}) {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const world = options.world ?? new SandboxWorld({ clock });
  const provider = new ScriptedProvider({ scripts: addToLibraryScript('Dune: Part Two') });
  const host = createAgentHost({
    storage: new MemoryStorage(),
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider },
    goalFacts: world,
    runs: { pollMs: 5, goalPollSec: 1 },
  });
  registerSandboxCapabilities(host, world);
  await host.start();
  hosts.push(host);
  await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
  return { host, clock, world, provider };
}

describe('the sandbox world end to end (scripted model, real runtime)', () => {
  it('adds a film: plan, approval asked and granted, submit, import over time; the run ends succeeded with a verified report', async () => {
    const { host, clock, world } = await sandboxHost();
    const run = await host.startRun({ goal: 'Add Dune: Part Two to the library', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['waiting']);
    await approveRequested(host, await requestedApproval(host, run.id));
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed', 'cancelled', 'budget_exceeded'], {
      clock,
      tickMs: 1000,
      timeoutMs: 15_000,
    });
    expect(done.status).toBe('succeeded');
    expect(world.downloads()).toHaveLength(1);
    const detail = await host.getRun(run.id);
    expect(detail.report).toMatchObject({ status: 'succeeded', verified: true });
    expect(detail.report!.facts.library).toEqual([
      expect.objectContaining({ mediaEntityId: 'tmdb:693134', present: true }),
    ]);
    expect(detail.checklist).toMatchObject({ goal: 'Add Dune: Part Two to the library' });
  });

  it('a film already in the library: the run submits nothing and ends succeeded', async () => {
    const { host, world } = await sandboxHost();
    world.addToLibrary('tmdb:693134');
    const run = await host.startRun({ goal: 'Add Dune: Part Two to the library', actor: 'user:admin' });
    expect((await waitForStatus(host, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    expect(world.downloads()).toHaveLength(0);
    expect((await host.getRun(run.id)).report?.summary).toMatch(/already there/);
  });

  it('a download that stalls ends the run failed with the stall in the report', async () => {
    const { host, clock, world } = await sandboxHost();
    world.setFaults({ stallDownloads: true });
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'Add Dune: Part Two to the library', actor: 'user:admin' });
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed'], { clock, tickMs: 2000, timeoutMs: 15_000 });
    expect(done.status).toBe('failed');
    expect((await host.getRun(run.id)).report?.summary).toMatch(/stalled/);
  });
});

describe('crash resume (real child process, SIGKILL inside download.submit, real SQLite and world files)', () => {
  it('a worker killed after the downloader accepted the job; a new process resumes the run; the downloader has exactly one job; the run ends succeeded with a verified report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-run-crash-'));
    dirs.push(dir);
    const dbFile = join(dir, 'agent.sqlite');
    const worldFile = join(dir, 'world.json');
    const worker = fileURLToPath(new URL('./fixtures/crash-run-worker.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', worker, dbFile, worldFile], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_c, signal) => resolve(signal)));
    const lines: string[] = [];
    await new Promise<void>((resolve, reject) => {
      let buffer = '';
      child.stdout.on('data', (d: Buffer) => {
        buffer += d.toString();
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          lines.push(buffer.slice(0, nl));
          buffer = buffer.slice(nl + 1);
          if (lines.some((l) => l.includes('"accepted"'))) resolve();
        }
      });
      void exited.then(() => reject(new Error(`worker exited early: ${stderr}`)));
    });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const runId = (JSON.parse(lines.find((l) => l.includes('runId'))!) as { runId: string }).runId;

    const clock = new SystemClock();
    const world = new SandboxWorld({
      clock,
      filePath: worldFile,
      durations: { queuedMs: 50, downloadMs: 200, importMs: 50 },
    });
    expect(world.downloads()).toHaveLength(1);
    const storage = new SqliteStorage({ path: dbFile });
    const host = createAgentHost({
      storage,
      clock,
      logger: new ConsoleLogger('silent'),
      model: { provider: new ScriptedProvider({ scripts: addToLibraryScript('Dune: Part Two') }) },
      goalFacts: world,
      runs: { leaseMs: 1000, pollMs: 20, goalPollSec: 0.05 },
    });
    registerSandboxCapabilities(host, world);
    const started = await host.start();
    hosts.push(host);
    expect(started.recovered.map((e) => e.capabilityId)).toEqual(['download.submit']);
    const done = await waitForStatus(host, runId, ['succeeded', 'failed', 'cancelled', 'budget_exceeded'], {
      timeoutMs: 15_000,
    });
    expect(done.status).toBe('succeeded');
    expect(world.downloads()).toHaveLength(1);
    const detail = await host.getRun(runId, { limit: 1000 });
    expect(detail.report).toMatchObject({ status: 'succeeded', verified: true });
    const submits = detail.events
      .filter((e) => e.type === 'tool_call' && (e.data as { capabilityId: string }).capabilityId === 'download.submit')
      .map((e) => (e.data as { phase: string }).phase);
    expect(submits).toEqual(['started', 'unknown', 'started', 'succeeded']);
  });
});
