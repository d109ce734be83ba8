import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentHost } from '@media-agent/sdk';
import { SqliteStorage } from '@media-agent/sdk/sqlite';
import { ScriptedProvider } from '@media-agent/sdk/testing';
import { MoviePilotV3Simulator } from '@media-agent/host-adapter-v3/testing';
import { MoviePilotV2Simulator } from '@media-agent/host-adapter-v2/testing';
import { defaultDataDir, grantStatus, normalizeHostUrl, parseCommand, parseModel, titleOfGoal, USAGE } from './main';

const root = fileURLToPath(new URL('../..', import.meta.url));
// The tests that run the CLI run concurrently within their describe block (each has its own data
// directory, simulator and working directory): most of their time is spent waiting for the simulated
// downloads and the child processes, not computing. Their blocks allow 60 s per test, as several share
// the CPU. The temporary directories go when the file ends, not after each test.
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = (prefix = 'mp-cli-') => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};

/**
 * The CLI as one ES module, built once for this file from the same sources `npm run cli` runs. Each child
 * then starts in well under a second instead of about two (tsx transforming several hundred TypeScript
 * modules per process). The bundler is the esbuild that tsx itself runs the sources with, and the
 * transform is the same (the repository's tsconfig); each source module keeps its own `import.meta.url`
 * (the V2 simulator finds its OpenAPI contracts next to its sources, `createRequire` resolves from
 * there), except the CLI's entry module, which checks that it is the program being run. Packages stay
 * external: the bundle sits below the repository's node_modules and loads them from there.
 */
let cliBundle: string;
beforeAll(async () => {
  const esbuild = createRequire(join(root, 'node_modules/tsx/package.json'))('esbuild') as typeof import('esbuild');
  const cache = join(root, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const outDir = mkdtempSync(join(cache, 'moviepilot-cli-test-'));
  const entry = join(root, 'examples/moviepilot-cli/main.ts');
  cliBundle = join(outDir, 'main.mjs');
  await esbuild.build({
    entryPoints: [entry],
    outfile: cliBundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    tsconfig: join(root, 'tsconfig.json'),
    logLevel: 'error',
    plugins: [
      {
        name: 'own-import-meta-url',
        setup(build) {
          build.onLoad({ filter: /\.ts$/ }, (args) => {
            const source = readFileSync(args.path, 'utf8');
            if (args.path === entry || !source.includes('import.meta.url')) return undefined;
            const url = JSON.stringify(pathToFileURL(args.path).href);
            return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
          });
        },
      },
    ],
  });
});
afterAll(() => {
  if (cliBundle) rmSync(join(cliBundle, '..'), { recursive: true, force: true });
});

interface CliOptions {
  /** The data directory passed with --data-dir (default: a fresh one; `false`: none, the CLI derives it from the host). */
  dataDir?: string | false;
  /** Working directory of the child (default the repository root). */
  cwd?: string;
  /** Called with everything printed so far on each stdout chunk. */
  onStdout?: (stdout: string, child: ChildProcess) => void;
}

/** Runs the real CLI (its bundle, above) as a child process (stdin not a TTY), by default in a fresh data directory. */
function cli(
  args: string[],
  options: CliOptions = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dataDir = options.dataDir ?? tempDir();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliBundle, ...args, ...(dataDir === false ? [] : ['--data-dir', dataDir])], {
      cwd: options.cwd ?? root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      options.onStdout?.(stdout, child);
    });
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `grants list` output as rows keyed by grant id. */
function grantRows(
  stdout: string,
): Map<string, { action: string; status: string; expires: string; createdBy: string; created: string }> {
  const rows = new Map<
    string,
    { action: string; status: string; expires: string; createdBy: string; created: string }
  >();
  for (const l of stdout.split('\n')) {
    const m = /^(grt_\S+)\s+(\S+)\s+(active|expired|revoked)\s+(\S+)\s+(\S+)\s+(\S+)/.exec(l);
    if (m) rows.set(m[1]!, { action: m[2]!, status: m[3]!, expires: m[4]!, createdBy: m[5]!, created: m[6]! });
  }
  return rows;
}

const realV3 = (sim: MoviePilotV3Simulator) => [
  '--host',
  'v3',
  '--url',
  sim.url,
  '--user',
  'admin',
  '--password',
  'admin-pass',
];
const startSim = async (downloadMs = 1_000) => {
  const sim = new MoviePilotV3Simulator({
    autoTransfer: true,
    durations: { queuedMs: 200, downloadMs, transferMs: 200 },
  });
  await sim.start();
  return sim;
};

describe('moviepilot-cli (real child process, simulator in-process, scripted model)', { timeout: 60_000 }, () => {
  for (const generation of ['v3', 'v2'] as const) {
    it.concurrent(`run --simulate ${generation} with --grant download.submit adds the film and exits 0 with a verified succeeded report`, async () => {
      const r = await cli([
        'run',
        '--simulate',
        generation,
        'add Dune: Part Two to my library',
        '--grant',
        'download.submit',
      ]);
      expect(r.stderr).not.toMatch(/error/i);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`MoviePilot ${generation === 'v3' ? '3' : '2'}.x simulator`);
      expect(r.stdout).toMatch(/→ download\.submit\n {2}← download\.submit: (pending|succeeded)/);
      expect(r.stdout).toContain("Goal report (verified from MoviePilot's records): SUCCEEDED");
      expect(r.stdout).toMatch(/download \S+: Dune: Part Two — imported/);
      expect(r.stdout).toContain('library tmdb:693134: present');
      const id =
        /grant (grt_\w+) created: the agent may download\.submit without asking, for this run only — expires \S+Z/.exec(
          r.stdout,
        )?.[1];
      expect(id).toBeDefined();
      expect(r.stdout).toContain(`authorized by grant ${id} (--grant download.submit): download.submit`);
      expect(r.stdout).toContain(`grant ${id} (download.submit) revoked: the run ended`);
    });
  }

  it.concurrent('run --simulate v3 exactly as the issue writes it (no TTY, no --grant): the simulated administrator approves and the exit code is 0', async () => {
    const r = await cli(['run', '--simulate', 'v3', 'add Dune: Part Two to my library']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/payload hash [0-9a-f]{64}/);
    expect(r.stdout).toContain("the simulated host's console administrator approves");
    expect(r.stdout).toContain('SUCCEEDED');
  });

  it.concurrent('against a real host URL, without a TTY and without --grant the approval is shown (plan, payload hash), denied, and the exit code is 1', async () => {
    const sim = new MoviePilotV3Simulator({
      autoTransfer: true,
      durations: { queuedMs: 200, downloadMs: 1_000, transferMs: 200 },
    });
    await sim.start();
    try {
      const r = await cli([
        'run',
        '--host',
        'v3',
        '--url',
        sim.url,
        '--user',
        'admin',
        '--password',
        'admin-pass',
        'add Dune: Part Two to my library',
      ]);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/\? approval asked for download\.submit on download plan \S+/);
      expect(r.stdout).toMatch(/payload hash [0-9a-f]{64}/);
      expect(r.stdout).toContain('no TTY to ask and no --grant download.submit: denied');
      expect(r.stdout).not.toContain('SUCCEEDED');
      expect(r.stdout).not.toMatch(/grant grt_|authorized by grant/);
      expect(sim.downloads()).toHaveLength(0);
    } finally {
      await sim.close();
    }
  });

  it.concurrent('--host v3 --url with --user/--password (JWT login) against a MoviePilot 3.x the test started: verified succeeded, exit 0, the password never printed', async () => {
    const sim = new MoviePilotV3Simulator({
      autoTransfer: true,
      durations: { queuedMs: 200, downloadMs: 1_000, transferMs: 200 },
    });
    await sim.start();
    try {
      const r = await cli([
        'run',
        '--host',
        'v3',
        '--url',
        sim.url,
        '--user',
        'admin',
        '--password',
        'admin-pass',
        '--grant',
        'download.submit',
        'add Dune: Part Two to my library',
      ]);
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

  it.concurrent('an unknown flag exits 2 with the usage text', async () => {
    const r = await cli(['run', '--simulate', 'v3', '--frobnicate', 'add Dune: Part Two']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Unknown option '--frobnicate'");
    expect(r.stderr).toContain('usage: npm run cli -- run');
    expect(r.stdout).toBe('');
  });

  it.concurrent('--help prints the usage and exits 0', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--simulate v2|v3');
  });
});

describe('moviepilot-cli grants are bound to their run (real child process)', () => {
  it.concurrent('--grant prints the grant (id, action, expiry = start + --timeout + 60 s) and the call it authorizes, revokes it when the run ends, and a second run without --grant asks, is denied and submits nothing', {
    timeout: 90_000,
  }, async () => {
    const sim = await startSim();
    const dataDir = tempDir();
    try {
      const first = await cli(
        ['run', ...realV3(sim), '--timeout', '120', '--grant', 'download.submit', 'add Dune: Part Two to my library'],
        { dataDir },
      );
      expect(first.code).toBe(0);
      const created =
        /grant (grt_\w+) created: the agent may download\.submit without asking, for this run only — expires (\S+Z), revoked when the run ends \(by user:admin\)/.exec(
          first.stdout,
        );
      expect(created).not.toBeNull();
      const id = created![1]!;
      expect(first.stdout).toContain(`authorized by grant ${id} (--grant download.submit): download.submit`);
      expect(first.stdout).toContain(`grant ${id} (download.submit) revoked: the run ended`);
      expect(sim.downloads()).toHaveLength(1);

      const listed = await cli(['grants', 'list'], { dataDir });
      expect(listed.code).toBe(0);
      const row = grantRows(listed.stdout).get(id);
      expect(row).toMatchObject({
        action: 'download.submit',
        status: 'revoked',
        expires: created![2],
        createdBy: 'user:admin',
      });
      const ttl = Date.parse(row!.expires) - Date.parse(row!.created);
      expect(ttl).toBeGreaterThanOrEqual((120 + 60) * 1000 - 1_000);
      expect(ttl).toBeLessThanOrEqual((120 + 60) * 1000);
      // Nothing the CLI granted for the run is still in force.
      for (const g of grantRows(listed.stdout).values()) expect(g.status).not.toBe('active');

      const second = await cli(['run', ...realV3(sim), 'add Blade Runner 2049 to my library'], { dataDir });
      expect(second.code).toBe(1);
      expect(second.stdout).toMatch(/\? approval asked for download\.submit on download plan \S+/);
      expect(second.stdout).toContain('no TTY to ask and no --grant download.submit: denied');
      expect(second.stdout).not.toMatch(/grant grt_|authorized by grant/);
      expect(sim.downloads()).toHaveLength(1);
      sim.assertNoViolations();
    } finally {
      await sim.close();
    }
  });

  it.concurrent("grants an earlier run left active (a killed CLI: an unexpired tagged grant, an older CLI's grant without expiry) are revoked and its unfinished run cancelled before the next run starts, which then does not submit without approval", {
    timeout: 60_000,
  }, async () => {
    const sim = await startSim();
    const dataDir = tempDir();
    const gonePid = spawnSync(process.execPath, ['-e', '']).pid!;
    const tag = `pid=${gonePid} host=${hostname().replace(/\s+/g, '_') || 'localhost'} session=00000000-0000-4000-8000-000000000000`;
    const storage = new SqliteStorage({ path: join(dataDir, 'agent.sqlite') });
    const seed = createAgentHost({ storage, model: { provider: new ScriptedProvider() } }); // the run it leaves is never driven here
    await seed.start({ workers: false });
    const killed = await seed.grants.create({
      action: 'download.submit',
      actor: 'user:admin',
      expiresAt: Date.now() + 3_600_000,
      reason: `moviepilot-cli --grant download.submit, for one run (${tag})`,
      allowUnmatched: true,
    });
    const legacy = await seed.grants.create({
      action: 'download.submit',
      actor: 'user:admin',
      reason: '--grant download.submit on the command line',
      allowUnmatched: true,
    });
    const orphan = await seed.startRun({
      goal: 'add Blade Runner 2049 to my library',
      actor: 'user:admin',
      sessionId: `moviepilot-cli ${tag}`,
    });
    await seed.stop();
    try {
      const r = await cli(['run', ...realV3(sim), 'add Dune: Part Two to my library'], { dataDir });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        `grant ${killed.id} (download.submit) revoked: an earlier run left it active (it would have expired `,
      );
      expect(r.stdout).toContain(
        `grant ${legacy.id} (download.submit) revoked: an earlier run left it active (it had no expiry)`,
      );
      expect(r.stdout).toContain(
        `run ${orphan.id} cancelled: an earlier invocation left it queued ("add Blade Runner 2049 to my library")`,
      );
      expect(r.stdout).toContain('no TTY to ask and no --grant download.submit: denied');
      expect(r.stdout).not.toContain('authorized by grant');
      expect(sim.downloads()).toHaveLength(0);
      const rows = grantRows((await cli(['grants', 'list'], { dataDir })).stdout);
      expect(rows.get(killed.id)?.status).toBe('revoked');
      expect(rows.get(legacy.id)?.status).toBe('revoked');
    } finally {
      await sim.close();
    }
  });

  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it.concurrent(`${signal} while the run waits for the import: the grant is revoked, the run cancelled, exit code ${code}`, {
      timeout: 60_000,
    }, async () => {
      const sim = await startSim(3_600_000); // the download never finishes while the test runs: the run stays waiting
      const dataDir = tempDir();
      try {
        let sent = false;
        const r = await cli(['run', ...realV3(sim), '--grant', 'download.submit', 'add Dune: Part Two to my library'], {
          dataDir,
          onStdout: (out, child) => {
            if (!sent && out.includes('authorized by grant')) {
              sent = true;
              child.kill(signal);
            }
          },
        });
        expect(sent).toBe(true);
        expect(r.code).toBe(code);
        const id = /grant (grt_\w+) created/.exec(r.stdout)![1]!;
        expect(r.stdout).toContain(`! ${signal}: ending`);
        expect(r.stdout).toContain(`grant ${id} (download.submit) revoked: the run ended`);
        expect(r.stdout).toMatch(new RegExp(`run run_\\w+ cancelled \\(${signal}\\)`));
        const rows = grantRows((await cli(['grants', 'list'], { dataDir })).stdout);
        expect(rows.get(id)?.status).toBe('revoked');
        expect([...rows.values()].filter((g) => g.status === 'active')).toEqual([]);
      } finally {
        await sim.close();
      }
    });
  }

  it.concurrent('grants list / grants revoke ID: list shows id, action, status, expiry, creator; revoke as user:admin; an unknown id exits 2 with GRANT_NOT_FOUND', {
    timeout: 60_000,
  }, async () => {
    const dataDir = tempDir();
    const storage = new SqliteStorage({ path: join(dataDir, 'agent.sqlite') });
    const seed = createAgentHost({ storage });
    await seed.start({ workers: false });
    const standing = await seed.grants.create({
      action: 'download.submit',
      actor: 'user:admin',
      reason: 'made by hand',
      allowUnmatched: true,
    });
    await seed.stop();

    const before = await cli(['grants', 'list'], { dataDir });
    expect(before.code).toBe(0);
    expect(before.stdout).toContain(`data directory: ${dataDir}`);
    expect(before.stdout).toMatch(/ID\s+ACTION\s+STATUS\s+EXPIRES\s+CREATED BY/);
    expect(grantRows(before.stdout).get(standing.id)).toMatchObject({
      action: 'download.submit',
      status: 'active',
      expires: 'never',
      createdBy: 'user:admin',
    });

    const revoked = await cli(['grants', 'revoke', standing.id], { dataDir });
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`grant ${standing.id} (download.submit) revoked by user:admin`);
    expect(grantRows((await cli(['grants', 'list'], { dataDir })).stdout).get(standing.id)?.status).toBe('revoked');
    expect((await cli(['grants', 'revoke', standing.id], { dataDir })).stdout).toContain('was already revoked');

    const unknown = await cli(['grants', 'revoke', 'grt_nope'], { dataDir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('error GRANT_NOT_FOUND: no grant with id "grt_nope"');
    expect(unknown.stdout).not.toContain('revoked');
  });
});

describe('moviepilot-cli data directories (real child process)', () => {
  it.concurrent('--simulate v3 and --simulate v2 use their own default data directories (a grant made in one is not in the other); two --url values get two directories; --data-dir wins', {
    timeout: 90_000,
  }, async () => {
    const cwd = tempDir('mp-cli-cwd-');
    const base = join(cwd, '.media-agent', 'cli');
    const v3 = await cli(
      ['run', '--simulate', 'v3', '--grant', 'download.submit', 'add Dune: Part Two to my library'],
      { dataDir: false, cwd },
    );
    expect(v3.code).toBe(0);
    expect(v3.stdout).toContain(`data: ${join(base, 'v3-simulated')}`);
    const v2 = await cli(['run', '--simulate', 'v2', 'add Dune: Part Two to my library'], { dataDir: false, cwd });
    expect(v2.code).toBe(0);
    expect(v2.stdout).toContain(`data: ${join(base, 'v2-simulated')}`);
    expect(existsSync(join(base, 'v3-simulated', 'agent.sqlite'))).toBe(true);
    expect(existsSync(join(base, 'v2-simulated', 'agent.sqlite'))).toBe(true);

    const listV3 = await cli(['grants', 'list', '--simulate', 'v3'], { dataDir: false, cwd });
    expect(listV3.stdout).toContain(`data directory: ${join(base, 'v3-simulated')}`);
    expect([...grantRows(listV3.stdout).values()].map((g) => g.action)).toContain('download.submit');
    const listV2 = await cli(['grants', 'list', '--simulate', 'v2'], { dataDir: false, cwd });
    expect(listV2.stdout).toContain(`data directory: ${join(base, 'v2-simulated')}`);
    expect([...grantRows(listV2.stdout).values()].map((g) => g.action)).not.toContain('download.submit');

    const hash = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 12);
    const a = await cli(['grants', 'list', '--host', 'v3', '--url', 'http://nas:3001'], { dataDir: false, cwd });
    const b = await cli(['grants', 'list', '--host', 'v3', '--url', 'http://nas:3002'], { dataDir: false, cwd });
    expect(a.stdout).toContain(`data directory: ${join(base, `v3-${hash('http://nas:3001')}`)}\nno grants`);
    expect(b.stdout).toContain(`data directory: ${join(base, `v3-${hash('http://nas:3002')}`)}\n`);
    const explicit = tempDir();
    const c = await cli(['grants', 'list', '--simulate', 'v3'], { dataDir: explicit, cwd });
    expect(c.stdout).toContain(`data directory: ${explicit}\nno grants`);
  });

  it.concurrent('grants needs a data directory selection and a grant id; --help documents the data directories, the grants commands and the exit codes', async () => {
    const none = await cli(['grants', 'list'], { dataDir: false });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('"grants" needs the data directory');
    const noId = await cli(['grants', 'revoke']);
    expect(noId.code).toBe(2);
    expect(noId.stderr).toContain('needs exactly one grant id');
    for (const text of [
      'grants list',
      'grants revoke ID',
      'v3-simulated',
      'sha256',
      '--data-dir DIR',
      'GRANT_NOT_FOUND',
      '130',
      'start + --timeout + 60 s',
    ])
      expect(USAGE).toContain(text);
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
    expect(bad(['run', '--host', 'v3', '--api-key', 'k', 'goal'])).toMatchObject({
      code: 'CLI_USAGE',
      message: expect.stringContaining('missing --url'),
    });
    expect(
      bad([
        'run',
        '--host',
        'v3',
        '--url',
        'http://nas:3001',
        '--api-key',
        'k',
        '--user',
        'u',
        '--password',
        'p',
        'goal',
      ]).message,
    ).toContain('not both');
    expect(
      parseCommand([
        'run',
        '--host',
        'v2',
        '--url',
        'http://nas:3000',
        '--api-key',
        'k',
        '--user',
        'u',
        '--password',
        'p',
        'goal',
      ]),
    ).toMatchObject({ auth: { apiKey: 'k', username: 'u', password: 'p' } });
    expect(bad(['run', '--host', 'v2', '--url', 'http://nas:3000', '--user', 'u', 'goal']).message).toContain(
      'go together',
    );
    expect(bad(['run', '--host', 'v2', '--url', 'http://nas:3000', 'goal']).message).toContain('missing credentials');
    expect(bad(['run', '--host', 'v4', '--url', 'http://nas', '--api-key', 'k', 'goal']).message).toContain('v2 or v3');
    expect(bad(['run', '--simulate', 'v3', '--url', 'http://nas', 'goal']).message).toContain(
      'cannot be used with --simulate',
    );
    expect(bad(['run', '--simulate', 'v3', '--model', 'gpt-4o', 'goal'])).toMatchObject({
      code: 'CLI_USAGE',
      message: expect.stringContaining('bad --model'),
    });
    expect(bad(['run', '--simulate', 'v3'])).toMatchObject({ message: expect.stringContaining('missing the goal') });
    expect(bad(['go', 'goal']).message).toContain('unknown command');
  });

  it('parses a real-host command and the model forms', () => {
    expect(
      parseCommand([
        'run',
        '--host',
        'v2',
        '--url',
        'http://nas:3000',
        '--user',
        'admin',
        '--password',
        'pw',
        '--grant',
        'download.submit',
        '--grant',
        'organize.execute',
        'add',
        'Arrival',
      ]),
    ).toMatchObject({
      generation: 'v2',
      simulate: false,
      url: 'http://nas:3000',
      auth: { username: 'admin', password: 'pw' },
      grants: ['download.submit', 'organize.execute'],
      goal: 'add Arrival',
      model: { kind: 'scripted' },
    });
    expect(parseModel('anthropic:claude-sonnet-4-5')).toEqual({ kind: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(parseModel('openai-compatible:http://127.0.0.1:11434/v1:qwen2.5')).toEqual({
      kind: 'openai-compatible',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'qwen2.5',
    });
    expect(parseModel('scripted:./scripts.json')).toEqual({ kind: 'scripted', file: './scripts.json' });
    expect(parseCommand(['--help'])).toBeUndefined();
  });

  it('--dialect chooses the OpenAI-compatible dialect, and is refused for other models or unknown names', () => {
    const cmd = parseCommand([
      'run',
      '--simulate',
      'v3',
      '--model',
      'openai-compatible:http://127.0.0.1:8000/v1:qwen3',
      '--dialect',
      'vllm',
      'add',
      'Heat',
    ]);
    expect(cmd && 'model' in cmd ? cmd.model : undefined).toEqual({
      kind: 'openai-compatible',
      baseUrl: 'http://127.0.0.1:8000/v1',
      model: 'qwen3',
      dialect: 'vllm',
    });
    expect(
      parseCommand([
        'run',
        '--simulate',
        'v3',
        '--model',
        'openai-compatible:https://api.deepseek.com:deepseek-chat',
        'goal',
      ]),
    ).toMatchObject({ command: 'run', model: { kind: 'openai-compatible', model: 'deepseek-chat' } });
    expect(
      parseCommand([
        'run',
        '--simulate',
        'v3',
        '--model',
        'openai-compatible:https://api.deepseek.com:deepseek-chat',
        'goal',
      ]),
    ).not.toHaveProperty('model.dialect');
    expect(
      bad(['run', '--simulate', 'v3', '--model', 'openai-compatible:http://h:1/v1:m', '--dialect', 'gpt', 'goal']),
    ).toMatchObject({ code: 'CLI_USAGE', message: expect.stringContaining('--dialect must be one of') });
    expect(
      bad(['run', '--simulate', 'v3', '--model', 'openai-compatible:http://h:1/v1:m', '--dialect', 'toString', 'goal'])
        .message,
    ).toContain('--dialect must be one of');
    expect(bad(['run', '--simulate', 'v3', '--dialect', 'vllm', 'goal'])).toMatchObject({
      code: 'CLI_USAGE',
      message: expect.stringContaining('only to --model openai-compatible'),
    });
    expect(
      bad(['run', '--simulate', 'v3', '--model', 'anthropic:claude-sonnet-4-5', '--dialect', 'openai', 'goal']).message,
    ).toContain('only to --model openai-compatible');
    expect(USAGE).toContain('--dialect NAME');
    for (const name of ['openai', 'deepseek', 'qwen', 'ollama', 'vllm', 'llamacpp', 'generic'])
      expect(USAGE).toContain(name);
  });

  it('derives the default data directory from the host kind and the sha256 of the normalized URL; --data-dir / --data win', () => {
    const hash = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 12);
    expect(normalizeHostUrl('http://admin:pw@NAS:3001/#x')).toBe('http://nas:3001');
    expect(normalizeHostUrl('https://nas/mp/')).toBe('https://nas/mp');
    expect(defaultDataDir({ generation: 'v3', simulate: true })).toBe(resolve('.media-agent/cli/v3-simulated'));
    expect(defaultDataDir({ generation: 'v2', simulate: false, url: 'http://nas:3000/' })).toBe(
      resolve(`.media-agent/cli/v2-${hash('http://nas:3000')}`),
    );
    const real = (url: string, ...more: string[]) =>
      parseCommand(['run', '--host', 'v3', '--url', url, '--api-key', 'k', ...more, 'goal']);
    expect(real('http://nas:3001')).toMatchObject({
      dataDir: resolve(`.media-agent/cli/v3-${hash('http://nas:3001')}`),
    });
    expect(real('http://nas:3001/')?.dataDir).toBe(real('http://nas:3001')?.dataDir);
    expect(real('http://nas:3001')?.dataDir).not.toBe(real('http://nas:3002')?.dataDir);
    expect(parseCommand(['run', '--host', 'v2', '--url', 'http://nas:3001', '--api-key', 'k', 'goal'])?.dataDir).toBe(
      resolve(`.media-agent/cli/v2-${hash('http://nas:3001')}`),
    );
    expect(real('http://nas:3001', '--data', 'here')?.dataDir).toBe(resolve('here'));
    expect(real('http://nas:3001', '--data-dir', 'here')?.dataDir).toBe(resolve('here'));
    expect(bad(['run', '--simulate', 'v3', '--data', 'a', '--data-dir', 'b', 'goal']).message).toContain(
      'name different directories',
    );
    expect(parseCommand(['grants', 'revoke', 'grt_1', '--simulate', 'v2'])).toEqual({
      command: 'grants-revoke',
      id: 'grt_1',
      dataDir: resolve('.media-agent/cli/v2-simulated'),
    });
    expect(bad(['grants', 'list', '--simulate', 'v3', '--grant', 'download.submit']).message).toContain(
      'does not apply to "grants"',
    );
    expect(bad(['grants', 'list', '--url', 'http://nas:3001']).message).toContain('--url needs --host');
    expect(bad(['grants', 'show', '--simulate', 'v3']).message).toContain('unknown grants command');
    expect(grantStatus({ status: 'active', expiresAt: 10 }, 10)).toBe('expired');
    expect(grantStatus({ status: 'active', expiresAt: null }, 10)).toBe('active');
    expect(grantStatus({ status: 'revoked', expiresAt: 20 }, 10)).toBe('revoked');
  });

  it('picks the title a goal names for the scripted model', () => {
    expect(titleOfGoal('add dune: part two to my library', ['Dune', 'Dune: Part Two', 'Arrival'])).toBe(
      'Dune: Part Two',
    );
    expect(titleOfGoal('add "Paprika" to the library', ['Arrival'])).toBe('Paprika');
  });
});

describe('moviepilot-cli on a MoviePilot v2.5.6 host (the simulator in v2.5.6 mode: per-route security as the real server)', {
  timeout: 60_000,
}, () => {
  const durations = { queuedMs: 200, downloadMs: 1_000, transferMs: 200 };
  const goal = 'add Dune: Part Two to my library';
  const withSim = async (
    fn: (sim: MoviePilotV2Simulator) => Promise<void>,
    options: ConstructorParameters<typeof MoviePilotV2Simulator>[0] = {},
  ) => {
    const sim = new MoviePilotV2Simulator({ contract: 'v2.5.6', autoTransfer: true, durations, ...options });
    await sim.start();
    try {
      await fn(sim);
    } finally {
      await sim.close();
    }
  };

  it.concurrent('with the API token only: refused before any request with the fix (add --user/--password), exit 1, no template error', async () => {
    await withSim(async (sim) => {
      const r = await cli([
        'run',
        '--host',
        'v2',
        '--url',
        sim.url,
        '--api-key',
        sim.apiKey,
        '--grant',
        'download.submit',
        goal,
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/error HOST_AUTH_FAILED: .*accept only a login/);
      expect(r.stderr).toContain('--user/--password');
      expect(r.stdout + r.stderr).not.toMatch(/template|\{\{/i);
      expect(r.stdout + r.stderr).not.toContain(sim.apiKey);
      expect(sim.requests.map((x) => x.path)).toEqual(['/api/v1/openapi.json']);
    });
  });

  it.concurrent.each([
    ['a login only', (_sim: MoviePilotV2Simulator) => ['--user', 'admin', '--password', 'password'] as string[]],
    [
      'a login and the API token',
      (sim: MoviePilotV2Simulator) => ['--user', 'admin', '--password', 'password', '--api-key', sim.apiKey],
    ],
  ])(
    'with %s: the film is added, verified succeeded, exit 0, no credential printed',
    { timeout: 60_000 },
    async (_name, creds) => {
      await withSim(async (sim) => {
        const r = await cli([
          'run',
          '--host',
          'v2',
          '--url',
          sim.url,
          ...creds(sim),
          '--grant',
          'download.submit',
          goal,
        ]);
        expect(r.code, r.stdout + r.stderr).toBe(0);
        expect(r.stdout).toContain(`MoviePilot 2.x v2.5.6 at ${sim.url}`);
        expect(r.stdout).toContain("Goal report (verified from MoviePilot's records): SUCCEEDED");
        expect(r.stdout + r.stderr).not.toContain(sim.apiKey);
        expect(r.stdout + r.stderr).not.toMatch(/--password password|"password"/);
        expect(sim.inLibrary(693134)).toBe(true);
        sim.assertNoViolations();
      });
    },
  );

  it.concurrent('a title the host does not find: a clear NOT FOUND outcome, exit 1, nothing downloaded, no template error', {
    timeout: 60_000,
  }, async () => {
    await withSim(async (sim) => {
      const r = await cli([
        'run',
        '--host',
        'v2',
        '--url',
        sim.url,
        '--user',
        'admin',
        '--password',
        'password',
        '--grant',
        'download.submit',
        'add Nonexistent Picture 1999 to my library',
      ]);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/Outcome: NOT FOUND — MoviePilot found no title "Nonexistent Picture 1999"/);
      expect(r.stdout + r.stderr).not.toMatch(/template|\{\{/i);
      expect(sim.downloads()).toHaveLength(0);
    });
  });

  it.concurrent('a host that cannot reach TMDB: the CLI says so and the title is not found because of it', {
    timeout: 60_000,
  }, async () => {
    await withSim(
      async (sim) => {
        const r = await cli([
          'run',
          '--host',
          'v2',
          '--url',
          sim.url,
          '--user',
          'admin',
          '--password',
          'password',
          goal,
        ]);
        expect(r.code).toBe(1);
        expect(r.stdout).toContain('cannot reach TMDB');
        expect(r.stdout).toContain('not found (host metadata source unreachable)');
      },
      { metadataReachable: false },
    );
  });

  // Not concurrent: the port it frees must not be taken by a simulator another test of this block starts meanwhile.
  it('an offline host: error HOST_UNREACHABLE with what to check, exit 1', async () => {
    const sim = new MoviePilotV2Simulator({ contract: 'v2.5.6' });
    const url = await sim.start();
    await sim.close();
    const r = await cli(['run', '--host', 'v2', '--url', url, '--user', 'admin', '--password', 'password', goal]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error HOST_UNREACHABLE: .*offline/);
  });
});

describe('the README and --help agree', () => {
  it('the README shows the approvals section of --help word for word', () => {
    const section = /^approvals \(.*?\n\n/ms.exec(USAGE)?.[0].trimEnd();
    expect(section?.split('\n')).toHaveLength(4);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain(section!);
  });
});

describe('start-up: an unreachable host or refused credentials end the CLI with one line', { timeout: 60_000 }, () => {
  /** Everything the CLI printed, as lines. */
  const lines = (r: { stdout: string; stderr: string }) => `${r.stdout}${r.stderr}`.split('\n').filter((l) => l !== '');

  it.concurrent.each(['v2', 'v3'])(
    '--host %s --url http://127.0.0.1:9 (nothing listens): exit 1, one line HOST_UNREACHABLE naming the URL',
    async (gen) => {
      const r = await cli(['run', '--host', gen, '--url', 'http://127.0.0.1:9', '--api-key', 'k', 'add Heat']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(lines(r)).toHaveLength(1);
      expect(r.stderr).toMatch(
        /^error HOST_UNREACHABLE: .*cannot connect to http:\/\/127\.0\.0\.1:9.* the MoviePilot host is offline or --url is wrong/,
      );
    },
  );

  it.concurrent('--host v3 with a wrong API key: exit 1, one line HOST_AUTH_FAILED, and nothing but the check reached the host', async () => {
    const sim = new MoviePilotV3Simulator();
    await sim.start();
    try {
      const r = await cli(['run', '--host', 'v3', '--url', sim.url, '--api-key', 'wrong-key', 'add Heat']);
      expect(r.code).toBe(1);
      expect(lines(r)).toHaveLength(1);
      expect(r.stderr).toMatch(/^error HOST_AUTH_FAILED: .*HTTP 401.*refused the API token.* check --api-key/);
      expect(sim.requests.map((q) => [q.operationId, q.status])).toEqual([['download.clients', 401]]);
    } finally {
      await sim.close();
    }
  });

  it.concurrent('--host v3 against a MoviePilot 2.x host (the v2.5.6 simulator): exit 1, one line HOST_GENERATION_MISMATCH naming MoviePilot v2.5.6, never "MoviePilot 3.x" or "found no title"', async () => {
    const sim = new MoviePilotV2Simulator({ contract: 'v2.5.6' });
    await sim.start();
    try {
      const r = await cli(['run', '--host', 'v3', '--url', sim.url, '--api-key', sim.apiKey, 'add Heat']);
      expect(r.code).toBe(1);
      expect(lines(r)).toHaveLength(1);
      expect(r.stderr).toMatch(
        /^error HOST_GENERATION_MISMATCH: .* is MoviePilot v2\.5\.6 \(a 2\.x host\), not MoviePilot 3\.x.* use --host v2/,
      );
      expect(r.stdout).not.toMatch(/MoviePilot 3\.x at|found no title/);
      expect(r.stderr).not.toMatch(/check the API token/);
    } finally {
      await sim.close();
    }
  });

  it.concurrent("--host v2 with a wrong API key (a 2.x host whose routes accept it): exit 1, one line HOST_AUTH_FAILED from the host's 401", async () => {
    const sim = new MoviePilotV2Simulator({ contract: 'newer' });
    await sim.start();
    try {
      const r = await cli(['run', '--host', 'v2', '--url', sim.url, '--api-key', 'wrong-key', 'add Heat']);
      expect(r.code).toBe(1);
      expect(lines(r)).toHaveLength(1);
      expect(r.stderr).toMatch(
        /^error HOST_AUTH_FAILED: MoviePilot refused the API token for system\.status \(HTTP 401: API_KEY校验不通过\).* check --api-key/,
      );
      expect(sim.requests.map((q) => `${q.method} ${q.path} ${q.status}`)).toEqual([
        'GET /api/v1/openapi.json 200',
        'GET /api/v3/system/status 401',
      ]);
    } finally {
      await sim.close();
    }
  });

  it.concurrent('--host v2 with a wrong password: exit 1, one line HOST_AUTH_FAILED, and the login was sent once', async () => {
    const sim = new MoviePilotV2Simulator({ contract: 'v2.5.6' });
    await sim.start();
    try {
      const r = await cli([
        'run',
        '--host',
        'v2',
        '--url',
        sim.url,
        '--user',
        'admin',
        '--password',
        'wrong',
        'add Heat',
      ]);
      expect(r.code).toBe(1);
      expect(lines(r)).toHaveLength(1);
      expect(r.stderr).toMatch(
        /^error HOST_AUTH_FAILED: .*refused the login of user "admin" \(HTTP 401.*check --api-key or --user\/--password/,
      );
      expect(sim.requestCount('POST /api/v1/login/access-token')).toBe(1);
      expect(
        sim.requests.filter((q) => !['/api/v1/openapi.json', '/api/v1/login/access-token'].includes(q.path)),
      ).toEqual([]);
    } finally {
      await sim.close();
    }
  });
});
