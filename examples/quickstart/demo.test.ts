import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'media-agent-demo-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs `npm run demo -- …` as the real child process (scripted model: no keys in its environment). */
function demo(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const loader = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', loader, join(root, 'examples/quickstart/main.ts'), ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        MEDIA_AGENT_DATA_DIR: dataDir,
        TSX_TSCONFIG_PATH: join(root, 'tsconfig.json'),
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The index of the first output line matching `pattern` (fails the test when there is none). */
function lineOf(stdout: string, pattern: RegExp): number {
  const index = stdout.split('\n').findIndex((l) => pattern.test(l));
  expect(index, `no line matches ${pattern}:\n${stdout}`).toBeGreaterThan(-1);
  return index;
}

describe('the quickstart demo (child process, SQLite in a temp directory)', () => {
  it('adds a numbered title, and its output tells the story in order: denial, approval asked, run waits, approval granted, run woken, submit', async () => {
    const { code, stdout, stderr } = await demo(['--reset', 'Blade Runner 2049']);
    expect(code, stderr).toBe(0);
    expect(lineOf(stdout, /^reset: /)).toBe(0);
    const denied = lineOf(stdout, /← download\.submit: denied \(AUTH_NO_AUTHORIZATION\)/);
    const asked = lineOf(stdout, /\? approval asked for download plan/);
    const waiting = lineOf(stdout, /· run waiting .*waiting for an approval/);
    const granted = lineOf(stdout, /✓ approval apr_\S+ granted by user:admin/);
    const woken = lineOf(stdout, /· run running .*woken by an approval decision/);
    const submitted = lineOf(stdout, /← download\.submit: pending/);
    const story = [denied, asked, waiting, granted, woken, submitted];
    expect(story).toEqual([...story].sort((a, b) => a - b));
    expect(new Set(story).size).toBe(story.length);
    expect(stdout).toMatch(/checklist: Check the library \[completed\] → Find a release \[in_progress\]/);
    expect(stdout).toContain("Goal report (verified from the media manager's records): SUCCEEDED");
    expect(stdout).toMatch(/library now: .*Blade Runner 2049/);
  }, 60_000);

  it('--reset says what it removed; an unknown title fails naming the lookup that found nothing', async () => {
    const { code, stdout } = await demo(['--reset', 'Xyz Unknown']);
    expect(code).toBe(1);
    expect(stdout.split('\n')[0]).toMatch(
      new RegExp(
        `^reset: removed ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(agent\\.sqlite, world\\.json\\)`,
      ),
    );
    expect(stdout).toContain(
      `run failed (finalize) — no catalog.lookup result matched 'Xyz Unknown': "items" is an empty list`,
    );
    const again = await demo(['--reset', 'Dune: Part Two']);
    expect(again.code).toBe(0);
    expect(again.stdout.split('\n')[0]).toMatch(/^reset: removed .* \(agent\.sqlite, world\.json\)/);
  }, 60_000);
});
