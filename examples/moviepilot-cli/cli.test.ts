import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { MoviePilotV3Simulator } from '@media-agent/host-adapter-v3/testing';
import { parseCommand, parseModel, titleOfGoal, USAGE } from './main';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs the real CLI as a child process (stdin not a TTY), in a fresh data directory. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mp-cli-'));
  dirs.push(dataDir);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/moviepilot-cli/main.ts', ...args, '--data-dir', dataDir], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('moviepilot-cli (real child process, simulator in-process, scripted model)', () => {
  for (const generation of ['v3', 'v2'] as const) {
    it(`run --simulate ${generation} with --grant download.submit adds the film and exits 0 with a verified succeeded report`, async () => {
      const r = await cli(['run', '--simulate', generation, 'add Dune: Part Two to my library', '--grant', 'download.submit']);
      expect(r.stderr).not.toMatch(/error/i);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`MoviePilot ${generation === 'v3' ? '3' : '2'}.x simulator`);
      expect(r.stdout).toMatch(/→ download\.submit\n {2}← download\.submit: (pending|succeeded)/);
      expect(r.stdout).toContain("Goal report (verified from MoviePilot's records): SUCCEEDED");
      expect(r.stdout).toMatch(/download \S+: Dune: Part Two — imported/);
      expect(r.stdout).toContain('library tmdb:693134: present');
    });
  }

  it('run --simulate v3 exactly as the issue writes it (no TTY, no --grant): the simulated administrator approves and the exit code is 0', async () => {
    const r = await cli(['run', '--simulate', 'v3', 'add Dune: Part Two to my library']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/payload hash [0-9a-f]{64}/);
    expect(r.stdout).toContain("the simulated host's console administrator approves");
    expect(r.stdout).toContain('SUCCEEDED');
  });

  it('against a real host URL, without a TTY and without --grant the approval is shown (plan, payload hash), denied, and the exit code is 1', async () => {
    const sim = new MoviePilotV3Simulator({ autoTransfer: true, durations: { queuedMs: 200, downloadMs: 1_000, transferMs: 200 } });
    await sim.start();
    try {
      const r = await cli(['run', '--host', 'v3', '--url', sim.url, '--user', 'admin', '--password', 'admin-pass', 'add Dune: Part Two to my library']);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/\? approval asked for download\.submit on download plan \S+/);
      expect(r.stdout).toMatch(/payload hash [0-9a-f]{64}/);
      expect(r.stdout).toContain('no TTY to ask and no --grant download.submit: denied');
      expect(r.stdout).not.toContain('SUCCEEDED');
      expect(sim.downloads()).toHaveLength(0);
    } finally {
      await sim.close();
    }
  });

  it('--host v3 --url with --user/--password (JWT login) against a MoviePilot 3.x the test started: verified succeeded, exit 0, the password never printed', async () => {
    const sim = new MoviePilotV3Simulator({ autoTransfer: true, durations: { queuedMs: 200, downloadMs: 1_000, transferMs: 200 } });
    await sim.start();
    try {
      const r = await cli(['run', '--host', 'v3', '--url', sim.url, '--user', 'admin', '--password', 'admin-pass', '--grant', 'download.submit', 'add Dune: Part Two to my library']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`MoviePilot 3.x at ${sim.url}`);
      expect(r.stdout).toContain("Goal report (verified from MoviePilot's records): SUCCEEDED");
      expect(r.stdout + r.stderr).not.toContain('admin-pass');
      expect(sim.downloads()).toHaveLength(1);
      expect(sim.inLibrary('themoviedb:693134')).toBe(true);
      sim.assertNoViolations();
    } finally {
      await sim.close();
    }
  });

  it('an unknown flag exits 2 with the usage text', async () => {
    const r = await cli(['run', '--simulate', 'v3', '--frobnicate', 'add Dune: Part Two']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Unknown option '--frobnicate'");
    expect(r.stderr).toContain('usage: npm run cli -- run');
    expect(r.stdout).toBe('');
  });

  it('--help prints the usage and exits 0', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--simulate v2|v3');
  });
});

describe('moviepilot-cli argument parsing', () => {
  const bad = (argv: string[]) => {
    try {
      parseCommand(argv);
    } catch (error) {
      return error as { code?: string; message: string };
    }
    throw new Error('expected a usage error');
  };

  it('rejects a missing --url, both auth modes, a half user login, a bad --host and a bad --model with CLI_USAGE', () => {
    expect(bad(['run', '--host', 'v3', '--api-key', 'k', 'goal'])).toMatchObject({ code: 'CLI_USAGE', message: expect.stringContaining('missing --url') });
    expect(bad(['run', '--host', 'v3', '--url', 'http://nas:3001', '--api-key', 'k', '--user', 'u', '--password', 'p', 'goal']).message).toContain('not both');
    expect(bad(['run', '--host', 'v2', '--url', 'http://nas:3000', '--user', 'u', 'goal']).message).toContain('go together');
    expect(bad(['run', '--host', 'v2', '--url', 'http://nas:3000', 'goal']).message).toContain('missing credentials');
    expect(bad(['run', '--host', 'v4', '--url', 'http://nas', '--api-key', 'k', 'goal']).message).toContain('v2 or v3');
    expect(bad(['run', '--simulate', 'v3', '--url', 'http://nas', 'goal']).message).toContain('cannot be used with --simulate');
    expect(bad(['run', '--simulate', 'v3', '--model', 'gpt-4o', 'goal'])).toMatchObject({ code: 'CLI_USAGE', message: expect.stringContaining('bad --model') });
    expect(bad(['run', '--simulate', 'v3'])).toMatchObject({ message: expect.stringContaining('missing the goal') });
    expect(bad(['go', 'goal']).message).toContain('unknown command');
  });

  it('parses a real-host command and the model forms', () => {
    expect(parseCommand(['run', '--host', 'v2', '--url', 'http://nas:3000', '--user', 'admin', '--password', 'pw', '--grant', 'download.submit', '--grant', 'organize.execute', 'add', 'Arrival'])).toMatchObject({
      generation: 'v2',
      simulate: false,
      url: 'http://nas:3000',
      auth: { username: 'admin', password: 'pw' },
      grants: ['download.submit', 'organize.execute'],
      goal: 'add Arrival',
      model: { kind: 'scripted' },
    });
    expect(parseModel('anthropic:claude-sonnet-4-5')).toEqual({ kind: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(parseModel('openai-compatible:http://127.0.0.1:11434/v1:qwen2.5')).toEqual({ kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5' });
    expect(parseModel('scripted:./scripts.json')).toEqual({ kind: 'scripted', file: './scripts.json' });
    expect(parseCommand(['--help'])).toBeUndefined();
  });

  it('--dialect chooses the OpenAI-compatible dialect, and is refused for other models or unknown names', () => {
    const cmd = parseCommand(['run', '--simulate', 'v3', '--model', 'openai-compatible:http://127.0.0.1:8000/v1:qwen3', '--dialect', 'vllm', 'add', 'Heat']);
    expect(cmd?.model).toEqual({ kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:8000/v1', model: 'qwen3', dialect: 'vllm' });
    expect(parseCommand(['run', '--simulate', 'v3', '--model', 'openai-compatible:https://api.deepseek.com:deepseek-chat', 'goal'])?.model).not.toHaveProperty('dialect');
    expect(bad(['run', '--simulate', 'v3', '--model', 'openai-compatible:http://h:1/v1:m', '--dialect', 'gpt', 'goal'])).toMatchObject({ code: 'CLI_USAGE', message: expect.stringContaining('--dialect must be one of') });
    expect(bad(['run', '--simulate', 'v3', '--model', 'openai-compatible:http://h:1/v1:m', '--dialect', 'toString', 'goal']).message).toContain('--dialect must be one of');
    expect(bad(['run', '--simulate', 'v3', '--dialect', 'vllm', 'goal'])).toMatchObject({ code: 'CLI_USAGE', message: expect.stringContaining('only to --model openai-compatible') });
    expect(bad(['run', '--simulate', 'v3', '--model', 'anthropic:claude-sonnet-4-5', '--dialect', 'openai', 'goal']).message).toContain('only to --model openai-compatible');
    expect(USAGE).toContain('--dialect NAME');
    for (const name of ['openai', 'deepseek', 'qwen', 'ollama', 'vllm', 'llamacpp', 'generic']) expect(USAGE).toContain(name);
  });

  it('picks the title a goal names for the scripted model', () => {
    expect(titleOfGoal('add dune: part two to my library', ['Dune', 'Dune: Part Two', 'Arrival'])).toBe('Dune: Part Two');
    expect(titleOfGoal('add "Paprika" to the library', ['Arrival'])).toBe('Paprika');
  });
});
