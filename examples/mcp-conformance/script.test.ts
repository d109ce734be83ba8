// scripts/conformance-mcp.ts: the page it writes is the same for the same results (no date, so a run in CI leaves
// the tree clean), and its time limits — a per-scenario timeout and a deadline for the whole run — end a run as
// failed, naming the timeout or the scenarios that did not run. The script runs as a real child process.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { conformancePage } from './page';
import { findNode22, type ResultRow, scenariosToRun } from './runner';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const toolDir = join(root, 'tools', 'mcp-conformance');
// The script installs the pinned suite and its Node.js 22 itself when they are missing (linux-x64), as in a fresh clone
// before CI's own install; elsewhere it runs only under a Node.js >= 22 and otherwise says it skips.
const suiteHere = !('skip' in findNode22(toolDir, process)) || `${process.platform}-${process.arch}` === 'linux-x64';

function script(...args: string[]) {
  const run = spawnSync(process.execPath, ['--import', tsx, join(root, 'scripts', 'conformance-mcp.ts'), ...args], {
    encoding: 'utf8',
    cwd: root,
    // The first run may install the pinned suite and Node.js 22 (npm, then extract): on a loaded machine that took
    // more than 60 s, so the script was killed (status null) before it reached the time limit under test.
    timeout: 300_000,
  });
  return { status: run.status, out: run.stdout + run.stderr };
}

const rows: ResultRow[] = [
  { scenario: 'server-initialize', target: 'http', verdict: { kind: 'pass' } },
  { scenario: 'tools-call-error', target: 'stdio', verdict: { kind: 'expected-failure', failures: ['x: y'] } },
  { scenario: 'sse-retry', target: 'client', verdict: { kind: 'n/a', reason: 'no reconnect' } },
];

describe('the conformance page', () => {
  afterEach(() => vi.useRealTimers());

  it('is byte-identical for the same results on different days, and names the suite version', () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T10:00:00Z') });
    const first = conformancePage(rows, '0.1.16');
    vi.setSystemTime(new Date('2027-06-30T23:59:00Z'));
    const second = conformancePage(structuredClone(rows), '0.1.16');
    expect(second).toBe(first);
    expect(first).toContain('`@modelcontextprotocol/conformance` 0.1.16');
    expect(first).not.toMatch(/20(26|27)-\d{2}-\d{2}/);
    expect(conformancePage(rows, '0.1.17')).not.toBe(first);
  });
});

describe('the time limits of a run', () => {
  it('fails a scenario past the per-scenario timeout, naming the timeout', () => {
    const { status, out } = script('--only', 'client', '--scenario-timeout', '0.001');
    if (!suiteHere) return void expect([status, out]).toEqual([0, expect.stringContaining('skipped (exit 0)')]);
    expect(status).toBe(1);
    for (const scenario of scenariosToRun('client'))
      expect(out).toContain(`${scenario}`.padEnd(38) + ' FAIL: timed out: killed at the 0.001 s per-scenario timeout');
  }, 320_000);

  it('stops past the deadline and fails, naming the scenarios that did not run', () => {
    const { status, out } = script('--only', 'http', '--deadline', '0.001');
    if (!suiteHere) return void expect([status, out]).toEqual([0, expect.stringContaining('skipped (exit 0)')]);
    expect(status).toBe(1);
    expect(out).toContain('the 0.001 s deadline passed');
    expect(out).toContain(
      `not run: ${scenariosToRun('http')
        .map((s) => `http ${s}`)
        .join(', ')}`,
    );
    expect(out).not.toContain(' pass\n');
  }, 320_000);

  it('refuses a time limit that is not a positive number (exit 2)', () => {
    for (const value of ['0', '-3', 'soon']) {
      const { status, out } = script('--deadline', value);
      expect(status, value).toBe(2);
      expect(out).toContain('--deadline (MCP_CONFORMANCE_DEADLINE) must be a positive number of seconds');
    }
  }, 320_000);
});
