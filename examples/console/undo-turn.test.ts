// Undoing the last turn of a conversation in the web console, in headless Chromium (Debian's `chromium`, driven by
// playwright-core): the console host (console-host.ts: SQLite, the sandbox world, the scripted model) runs in this
// process. A person starts a conversation, sends a message, presses "Undo last turn": the page switches to the fork,
// which waits with the message's text back in the box and a "previous branch" link to the original; the person edits
// and sends it in the fork, which answers; the previous branch still reads as it was. Then "Fork from here" on a step
// of the original opens a fork of it. Every wait is on the page's state (text, attributes, values), never a delay.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleHost, startConsoleHost } from './console-host';
import { decodePng, inkOf } from './png';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const shots = join(root, 'examples/console/screenshots');
const WAIT = 30_000;

/** Waits until the element's text contains `text` (the page's state, not a delay). */
async function shows(page: Page, selector: string, text: string): Promise<void> {
  await page.locator(selector, { hasText: text }).first().waitFor({ timeout: WAIT });
}

/** Minimal DOM shapes for the functions evaluated in the page (the tests are type-checked without the DOM library). */
type PageGlobals = {
  document: { querySelector(s: string): { disabled?: boolean; value?: string; textContent: string | null } | null };
  location: { hash: string };
};

/** Waits until the control `selector` is disabled (`true`) or enabled (`false`). */
async function disabled(page: Page, selector: string, value: boolean): Promise<void> {
  await page.waitForFunction(
    ([sel, want]) => {
      const el = (globalThis as unknown as PageGlobals).document.querySelector(sel as string);
      return el !== null && el.disabled === want;
    },
    [selector, value] as const,
    { timeout: WAIT },
  );
}

/** Waits until the text box `selector` holds exactly `value`. */
async function holds(page: Page, selector: string, value: string): Promise<void> {
  await page.waitForFunction(
    ([sel, want]) => (globalThis as unknown as PageGlobals).document.querySelector(sel)?.value === want,
    [selector, value] as const,
    { timeout: WAIT },
  );
}

/**
 * Waits until the page shows a run other than `runIds`, or an error (then fails with its text: a refused undo or fork
 * shows its code in the page).
 */
async function leaves(page: Page, runIds: string[]): Promise<void> {
  await page.waitForFunction(
    (ids) => {
      const g = globalThis as unknown as PageGlobals;
      const moved =
        g.location.hash.startsWith('#/runs/') &&
        !ids.some((id) => g.location.hash === `#/runs/${encodeURIComponent(id)}`);
      return moved || g.document.querySelector('main .error') !== null;
    },
    runIds,
    { timeout: WAIT },
  );
  expect(await page.locator('main .error').allTextContents()).toEqual([]);
}

/** The run id the page shows (from its hash route `#/runs/<id>`). */
const shownRun = (page: Page) => decodeURIComponent(new URL(page.url()).hash.replace(/^#\/runs\//, ''));

// Skipped on a developer machine without chromium; in CI (where .ci/run installs it) a missing browser fails.
describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('undoing the last turn in the web console', () => {
  let browser: Browser;
  let served: ConsoleHost;
  const dataDir = mkdtempSync(join(tmpdir(), 'media-agent-console-undo-'));

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    served = await startConsoleHost({ dataDir, token: 'undo-turn-token', port: 0, scriptedDelayMs: 2 });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  }, WAIT);
  afterAll(async () => {
    await browser?.close();
    await served?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('switches to the fork with the message back in the box and a link to the previous branch', async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(served.loginUrl);

    // A conversation: the goal gets its answer; nothing of the person's to undo yet.
    await page.locator('#goal').fill('hello there');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/#\/runs\/.+/, { timeout: WAIT });
    const original = shownRun(page);
    await shows(page, '#transcript', 'You said: “hello there”');
    expect(await page.locator('#undo-turn').isDisabled()).toBe(true);

    // The person's message is answered; now the turn can be undone.
    const message = 'please answer in French';
    await page.locator('#message').fill(message);
    await page.getByRole('button', { name: 'Send' }).click();
    await shows(page, '#transcript', `You said: “${message}”`);
    await disabled(page, '#undo-turn', false);
    await holds(page, '#message', '');

    // Undo: the page is the fork's, waiting, with the text back in the box and the previous branch linked.
    await page.locator('#undo-turn').click();
    await leaves(page, [original]);
    const fork = shownRun(page);
    expect(fork).not.toBe(original);
    await shows(page, '#transcript', `your last turn was undone: this conversation continues from run ${original}`);
    await shows(page, '#run-status', 'waiting');
    await holds(page, '#message', message);
    const previous = page.locator('#previous-branch');
    await previous.waitFor({ timeout: WAIT });
    expect(await previous.textContent()).toBe('previous branch');
    expect(await previous.getAttribute('href')).toBe(`#/runs/${encodeURIComponent(original)}`);
    // The conversation before the fork (read-only) holds the goal's answer, not the undone message.
    await page.locator('#run-lineage summary').click();
    await shows(page, '#run-lineage', 'You said: “hello there”');
    expect(await page.locator('#run-lineage').textContent()).not.toContain(message);
    // The fork holds no turn of the person: its undo button is off.
    expect(await page.locator('#undo-turn').isDisabled()).toBe(true);
    const png = await page.screenshot({ path: join(shots, 'undo-turn-fork.png'), fullPage: true });
    expect(inkOf(decodePng(png)).colours).toBeGreaterThan(20);

    // The person edits the restored text and sends it: the conversation continues in the fork.
    await page.locator('#message').fill('please answer in German');
    await page.getByRole('button', { name: 'Send' }).click();
    await shows(page, '#transcript', 'You said: “please answer in German”');
    expect(await page.locator('#transcript').textContent()).not.toContain(`You said: “${message}”`);

    // The previous branch is readable as it was.
    await previous.click();
    await page.waitForFunction(
      (id) => (globalThis as unknown as PageGlobals).location.hash.endsWith(encodeURIComponent(id)),
      original,
      {
        timeout: WAIT,
      },
    );
    await shows(page, '#transcript', `You said: “${message}”`);
    expect(await page.locator('#transcript').textContent()).not.toContain('please answer in German');

    // "Fork from here" on the original's first step opens a fork of it.
    await page.locator('#fork-points-section summary').click();
    await page.locator('#fork-points li button', { hasText: 'Fork from here' }).first().click();
    await leaves(page, [original, fork]);
    await shows(page, '#transcript', `forked from run ${original}`);
    await page.locator('#previous-branch').waitFor({ timeout: WAIT });
    expect(await page.locator('#previous-branch').getAttribute('href')).toBe(`#/runs/${encodeURIComponent(original)}`);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
