import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'media-agent-eval-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs `npm run eval -- …` as the script does (node + tsx), in a real child process, without provider keys. */
function evalCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env };
  for (const k of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'EVAL_PROVIDER']) delete env[k];
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/eval.ts', ...args], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('npm run eval (a real child process; exit 0 pass, 1 fail, 2 invalid input)', { timeout: 90_000 }, () => {
  it('--replay of a passing trajectory exits 0 and says intelligence_evaluated: false', async () => {
    const r = await evalCli(['--replay', 'eval/trajectories/dedup_existing.pass.json', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { intelligence_evaluated: boolean; runs: Array<{ verdict: string }> };
    expect(report.intelligence_evaluated).toBe(false);
    expect(report.runs.map((x) => x.verdict)).toEqual(['pass']);
  });

  it('--replay of a failing trajectory exits 1 and prints its code in the table', async () => {
    const r = await evalCli(['--replay', 'eval/trajectories/unknown_download.fail-download_not_verified.json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/unknown_download\s+0\s+\S+\s+fail\s+download_not_verified/);
  });

  it('--replay of every shipped trajectory with --check-expected exits 0 and writes JSON, HTML and each run’s events', async () => {
    const out = join(tmp, 'report');
    const r = await evalCli(['--replay', 'eval/trajectories', '--check-expected', '--out', out]);
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as {
      runs: Array<{ eventsFile: string }>;
    };
    expect(report.runs.length).toBeGreaterThanOrEqual(16);
    for (const run of report.runs) expect(existsSync(join(out, run.eventsFile))).toBe(true);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html.match(/>events<\/a>/g)).toHaveLength(report.runs.length);
  });

  it('a plugin scenario in one file runs the same way', async () => {
    const r = await evalCli([
      '--scenarios',
      'examples/eval-scenario/scenario.ts',
      '--replay',
      'examples/eval-scenario/trajectories/friend_recommendation.pass.json',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/friend_recommendation\s+0\s+\S+\s+pass/);
  });

  it.each([
    ['not JSON', '{"scenario": "dedup_existing",', /is not JSON/],
    [
      'too large',
      JSON.stringify({ scenario: 'dedup_existing', turns: [], pad: 'x'.repeat(300_000) }),
      /more than the 262144/,
    ],
    [
      'unknown capabilities',
      JSON.stringify({ scenario: 'dedup_existing', turns: [{ calls: [{ capability: 'library.nuke' }] }] }),
      /unknown capabilities: library\.nuke/,
    ],
    [
      'ids that do not exist',
      JSON.stringify({
        scenario: 'dedup_existing',
        turns: [{ calls: [{ capability: 'inventory.query', input: { query: 'Dune: Part Two' } }] }],
        finalReport: { outcome: 'already_present', ids: ['tmdb:999999999'] },
      }),
      /ids that do not exist: tmdb:999999999/,
    ],
  ])('a trajectory %s exits 2 with the reason', async (name, text, reason) => {
    const file = join(tmp, `${name.replace(/\W+/g, '-')}.json`);
    writeFileSync(file, text);
    const r = await evalCli(['--replay', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(reason);
  });

  it('an --out folder that cannot be written exits 2 with one line, before any run', async () => {
    const file = join(tmp, 'a-file');
    writeFileSync(file, 'not a folder');
    const r = await evalCli(['--replay', 'eval/trajectories/dedup_existing.pass.json', '--out', join(file, 'report')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^eval: --out .*a-file.*report: cannot be written \(ENOTDIR\)/);
    expect(r.stderr).not.toContain('dedup_existing seed 0'); // no run was made
  });

  it('options that a replay would ignore, and --check-expected on a trajectory without expect, exit 2 before running it', async () => {
    const trajectory = 'eval/trajectories/dedup_existing.pass.json';
    for (const extra of [
      ['--scenario', 'honest_unknown'],
      ['--repetitions', '3'],
    ]) {
      const r = await evalCli(['--replay', trajectory, ...extra]);
      expect(r.code, extra.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^eval: --scenario and --repetitions are for --live and --compare/);
    }
    const bare = JSON.parse(readFileSync(join(repoRoot, trajectory), 'utf8')) as Record<string, unknown>;
    delete bare.expect;
    const file = join(tmp, 'no-expect.json');
    writeFileSync(file, JSON.stringify(bare));
    const r = await evalCli(['--replay', file, '--check-expected']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('eval: no-expect.json: has no "expect" for --check-expected\n');
  });

  it('a --scenarios module that throws while loading exits 2 with one line naming it', async () => {
    const file = join(tmp, 'throws.ts');
    writeFileSync(file, "throw new Error('boom at import');\n");
    const r = await evalCli(['--scenarios', file, '--replay', 'eval/trajectories/dedup_existing.pass.json']);
    expect(r.code).toBe(2);
    expect(r.stderr.startsWith(`eval: --scenarios ${file}: cannot be loaded (boom at import)`)).toBe(true);
  });

  it('--live without credentials prints one clear line and exits 2', async () => {
    const r = await evalCli(['--live', '--scenario', 'dedup_existing']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      'eval: live evaluation needs a model: set ANTHROPIC_API_KEY or OPENAI_API_KEY (and EVAL_MODEL)',
    ]);
  });
});
