// Crash recovery when the restarted process gets the same pid: each host process runs as PID 1 of a
// fresh PID namespace (`unshare -p -f --mount-proc`), as an app does in a container.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const crashWorker = fileURLToPath(new URL('./fixtures/crash-worker.ts', import.meta.url));
const restartWorker = fileURLToPath(new URL('./fixtures/restart-worker.ts', import.meta.url));
/** Fresh PID namespaces need root or user namespaces; this machine kind and CI have them. */
const canUnshare =
  process.platform === 'linux' && spawnSync('unshare', ['-p', '-f', '--mount-proc', 'true']).status === 0;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Starts `script` as PID 1 of a new PID namespace; resolves with its first stdout line. */
function inNamespace(script: string, args: string[]) {
  const child = spawn('unshare', ['-p', '-f', '--mount-proc', process.execPath, '--import', 'tsx', script, ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    void exited.then(() => reject(new Error(`process exited without output: ${stderr}`)));
  });
  return { line, exited, kill: () => process.kill(-child.pid!, 'SIGKILL') };
}

describe.runIf(canUnshare)(
  'ledger recovery across a container-style restart (real processes, fresh PID namespaces)',
  () => {
    it('a host restarted as PID 1 again turns the claim its predecessor (also PID 1) left running into unknown; the retry is unknown, never LEDGER_IN_PROGRESS', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'media-agent-pidns-'));
      dirs.push(dir);
      const dbFile = join(dir, 'agent.sqlite');
      const downloaderFile = join(dir, 'downloader.jsonl');

      const first = inNamespace(crashWorker, [dbFile, downloaderFile]);
      const { key } = JSON.parse(await first.line) as { key: string };
      first.kill();
      await first.exited;
      expect(readFileSync(downloaderFile, 'utf8').trim().split('\n')).toHaveLength(1);

      const second = inNamespace(restartWorker, [dbFile]);
      const report = JSON.parse(await second.line) as { pid: number; recovered: string[]; retry: string };
      await second.exited;
      expect(report.pid).toBe(1);
      expect(report.recovered).toEqual([key]);
      expect(report.retry).toBe('unknown');
      expect(readFileSync(downloaderFile, 'utf8').trim().split('\n')).toHaveLength(1);
    });
  },
);
