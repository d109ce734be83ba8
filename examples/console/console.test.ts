// The web console in a real browser: headless Chromium (Debian's `chromium` package) driven by
// playwright-core, against examples/console run as a real child process on a SQLite file. Starts a run
// from the page, watches it stream, kills the server (SIGKILL) mid-run and restarts it (the page resumes
// the stream by sequence), kills it again while the stream is unreachable (the page polls), approves from
// the page with the payload hash, and sees the verified report; the page shows every event exactly once.
// Screenshots go to examples/console/screenshots/ (not committed).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const shots = join(root, 'examples/console/screenshots');
const dataDir = mkdtempSync(join(tmpdir(), 'media-agent-console-'));
const TOKEN = 'console-test-token';
const WAIT = 60_000;

/** A free local port. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Starts `npm run console` as a real child process; resolves once it listens. */
function startConsole(port: number): Promise<ChildProcess> {
  const loader = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', loader, join(root, 'examples/console/main.ts')], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        MEDIA_AGENT_DATA_DIR: dataDir,
        PORT: String(port),
        CONSOLE_TOKEN: TOKEN,
        TSX_TSCONFIG_PATH: join(root, 'tsconfig.json'),
      },
    });
    let output = '';
    const onData = (b: Buffer) => {
      output += b.toString();
      if (output.includes('media-agent console: http://')) resolve(child);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the console exited (${code}) before listening:\n${output}`)));
  });
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

type RunEventLike = { type: string; seq: number; data: Record<string, unknown> };

/** The run's stored events, read through the API with the page's own session. */
async function storedEvents(page: Page, runId: string): Promise<RunEventLike[]> {
  return page.evaluate(async (id) => {
    const res = await fetch(`api/runs/${encodeURIComponent(id)}?limit=1000`);
    return ((await res.json()) as { events: RunEventLike[] }).events;
  }, runId);
}

// Skipped on a developer machine without chromium; in CI (where .ci/run installs it) a missing browser fails.
describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('the web console in headless Chromium', () => {
  let browser: Browser;
  let server: ChildProcess | undefined;
  let port: number;

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    port = await freePort();
    server = await startConsole(port);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  }, WAIT);

  afterAll(async () => {
    await browser?.close();
    if (server) await kill(server);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts a run, streams it, survives a server crash without losing or repeating events, approves with the hash, shows the verified report', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT);
    // The page's content security policy must let the console itself run: no violation is reported.
    const violations: string[] = [];
    page.on('console', (m) => {
      if (m.text().includes('Content Security Policy')) violations.push(m.text());
    });
    const base = `http://127.0.0.1:${port}`;

    // Sign in (the example host's own session cookie), then the runs page.
    await page.goto(`${base}/login?token=${TOKEN}`);
    await page.getByRole('heading', { name: 'Start a run' }).waitFor();
    await page.getByText('No runs yet.').waitFor();
    await page.screenshot({ path: join(shots, '1-runs-empty.png'), fullPage: true });

    // Start a run from the page.
    await page.getByLabel('Goal').fill('Add Dune: Part Two to the library');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/#\/runs\/run_/);
    const runId = decodeURIComponent(new URL(page.url()).hash.slice('#/runs/'.length));

    // It streams: the model's text and a tool call appear while the run is running.
    await page.locator('#transcript li.text').first().waitFor();
    await page.locator('#transcript li.tool').first().waitFor();
    await page.screenshot({ path: join(shots, '2-run-streaming.png'), fullPage: true });

    // Kill the server mid-run (SIGKILL, no cleanup), see the page notice, restart it on the same data.
    await kill(server!);
    await page.locator('#connection', { hasText: 'reconnecting' }).waitFor();
    server = await startConsole(port);
    await page.locator('#connection', { hasText: 'live' }).waitFor();

    // The run goes on after the restart and asks for approval: the card shows the payload and its hash.
    const card = page.locator('section.approval').first();
    await card.getByRole('button', { name: 'Approve' }).waitFor();
    const shownHash = (await card.locator('code.hash').textContent())!.trim();
    expect(shownHash).toMatch(/^[0-9a-f]{16,}$|^[A-Za-z0-9_-]{16,}$/);
    await expect(card.locator('pre').textContent()).resolves.toContain('"');
    await page.screenshot({ path: join(shots, '3-run-approval.png'), fullPage: true });

    // From here the event stream is unreachable (as behind a proxy that drops it) and the server dies once
    // more: the page falls back to polling the run by sequence, and stays correct.
    const isStream = (url: URL) => url.pathname.endsWith('/api/events');
    await page.route(isStream, (route) => route.abort('connectionrefused'));
    await kill(server!);
    await page.locator('#connection', { hasText: 'polling' }).waitFor();
    server = await startConsole(port);

    // Approve is enabled only after confirming the payload was reviewed.
    expect(await card.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);
    await card.getByLabel(/approve exactly this hash/).check();
    await card.getByRole('button', { name: 'Approve' }).click();
    await card.locator('.status.approved').waitFor();

    // The verified report, delivered by polling (the stream is still unreachable).
    await page.locator('#report-verified', { hasText: /^verified$/ }).waitFor();
    await page.locator('#run-status .status.succeeded').waitFor();
    await expect(page.locator('#connection').textContent()).resolves.toContain('polling');
    // The stream comes back: the page goes live again.
    await page.unroute(isStream);
    await page.locator('#connection', { hasText: 'live' }).waitFor();
    const stored = await storedEvents(page, runId);
    expect(stored.at(-1)).toMatchObject({ type: 'run_status', data: { status: 'succeeded' } });
    await page
      .locator('main[data-last-seq]')
      .and(page.locator(`[data-last-seq="${stored.at(-1)!.seq}"]`))
      .waitFor();
    await page.screenshot({ path: join(shots, '4-run-report.png'), fullPage: true });

    // Every stored event is on the page exactly once: the streamed text, and each tool call's phases.
    const expectedText = stored
      .filter((e) => e.type === 'text_delta')
      .map((e) => String(e.data.text))
      .join('');
    const pageText = (await page.locator('#transcript li.text').allTextContents()).join('');
    expect(pageText).toBe(expectedText);
    const expectedPhases = new Map<string, string[]>();
    for (const e of stored)
      if (e.type === 'tool_call')
        expectedPhases.set(String(e.data.callId), [
          ...(expectedPhases.get(String(e.data.callId)) ?? []),
          String(e.data.phase),
        ]);
    const pagePhases = await page
      .locator('#transcript li.tool')
      .evaluateAll((items) => items.map((i) => [i.getAttribute('data-call-id'), i.getAttribute('data-phases')]));
    expect(new Map(pagePhases.map(([id, phases]) => [id!, phases!.split(' ')]))).toEqual(expectedPhases);
    const notes = await page.locator('#transcript li.note').allTextContents();
    expect(notes.filter((n) => n.startsWith('run succeeded')).length).toBe(1);
    expect(notes.filter((n) => n.startsWith('approval asked')).length).toBe(
      stored.filter((e) => e.type === 'approval_requested').length,
    );

    // The time from a model token (its event written) to its text on the page, per text piece.
    // Only pieces that came by the live stream count (not those read back after a reconnection).
    const latencies = await page.evaluate(() =>
      performance
        .getEntriesByName('media-agent:text_delta')
        .map((m) => ({ m, detail: (m as unknown as { detail: { at: number; via: string } }).detail }))
        .filter(({ detail }) => detail.via === 'stream')
        .map(({ m, detail }) => performance.timeOrigin + m.startTime - detail.at),
    );
    expect(latencies.length).toBeGreaterThan(0);
    const sorted = [...latencies].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    writeFileSync(
      join(shots, 'token-to-page.json'),
      JSON.stringify({ samples: latencies.length, medianMs: median, latenciesMs: latencies }, null, 2),
    );
    console.log(`token → page: median ${median.toFixed(1)} ms over ${latencies.length} text pieces`);

    // The other pages, and the run page on a phone.
    await page.getByRole('link', { name: 'Grants' }).click();
    await page.getByRole('cell', { name: /download\.plan/ }).waitFor();
    await page.screenshot({ path: join(shots, '5-grants.png'), fullPage: true });
    await page.getByRole('link', { name: 'Approvals' }).click();
    await page.getByText('Nothing waits for approval.').waitFor();
    await page.getByRole('link', { name: 'Decisions' }).click();
    await page.getByText('No decisions.').waitFor();
    await page.getByRole('link', { name: 'Runs' }).click();
    await page.getByRole('link', { name: 'Add Dune: Part Two to the library' }).waitFor();
    await page.screenshot({ path: join(shots, '6-runs.png'), fullPage: true });
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await phone.addCookies(await context.cookies());
    const mobile = await phone.newPage();
    mobile.setDefaultTimeout(WAIT);
    await mobile.goto(`${base}/#/runs/${encodeURIComponent(runId)}`);
    await mobile.locator('#report-verified', { hasText: /^verified$/ }).waitFor();
    // Readable on a phone: nothing wider than the screen.
    expect(await mobile.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await mobile.screenshot({ path: join(shots, '7-run-phone.png'), fullPage: true });
    await phone.close();
    await context.close();
    expect(violations).toEqual([]);
  }, 240_000);
});
