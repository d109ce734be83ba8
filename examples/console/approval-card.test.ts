// The console's approval card in headless Chromium (Debian's `chromium`, driven by playwright-core): an approval asked
// for with an impact in real units shows its summary and facts (58.2 GB, the free space after); the card's
// screenshot is taken and checked; a person edits the payload and approves the edit (a refused edit first shows its
// code inline), approves one step of two with the checkboxes, and sees an unknown impact say why. The host is in this
// process (memory storage), the router on a real port, the browser signed in by a session cookie.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Type from 'typebox';
import {
  type AgentHost,
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  describeImpact,
  type Impact,
  type ImpactReport,
} from '@media-agent/sdk';
import { createAgentRouter, toNodeListener } from '@media-agent/sdk/http';
import { canonicalHash } from '@media-agent/sdk/storage';
import { decodePng, inkOf } from './png';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WAIT = 15_000;
const ADMIN = 'user:admin';
const SESSION = 'approval-card-session';

const Step = Type.Object(
  { id: Type.String(), label: Type.String(), bytes: Type.Integer({ minimum: 0 }) },
  { additionalProperties: false },
);
const DownloadPayload = Type.Object(
  { path: Type.String(), steps: Type.Array(Step, { minItems: 1 }) },
  { additionalProperties: false },
);

/** Downloads the releases of a plan into the library: declares its impact and the plan payloads it executes. */
const downloadBatch = defineCapability({
  id: 'download.batch',
  version: 1,
  title: 'Download a batch of releases',
  description: 'Downloads the releases of an approved download plan.',
  kind: 'execute',
  replay: 'never',
  input: Type.Object({ planId: Type.String(), steps: Type.Optional(Type.Array(Type.String())) }),
  output: Type.Object({ started: Type.Array(Type.String()) }),
  target: (input) => ({ planType: 'download', planId: input.planId, ...(input.steps ? { steps: input.steps } : {}) }),
  planPayload: DownloadPayload,
  impact: (_input, ctx) => impactOf(ctx.plan?.payload as PlanPayload),
  handler: async (input) => ({ started: input.steps ?? [] }),
});

type PlanPayload = { path: string; steps: { id: string; label: string; bytes: number }[] };

const FREE_BEFORE = 470.2e9;
function impactOf(payload: PlanPayload): Impact {
  const bytes = payload.steps.reduce((sum, s) => sum + s.bytes, 0);
  return {
    downloadBytes: bytes,
    path: payload.path,
    freeBytesBefore: FREE_BEFORE,
    freeBytesAfter: FREE_BEFORE - bytes,
    reversible: true,
    reversibleBy: 'inverse',
    estimatedDurationMs: 45 * 60_000,
    steps: payload.steps.map((s) => ({ id: s.id, label: s.label, bytes: s.bytes })),
  };
}
const known = (impact: Impact): ImpactReport => ({ status: 'known', impact, summary: describeImpact(impact) });

const proposed: PlanPayload = {
  path: '/media/movies',
  steps: [
    { id: 'dune', label: 'Dune: Part Two (2024) 2160p', bytes: 41_700_000_000 },
    { id: 'arrival', label: 'Arrival (2016) 1080p', bytes: 16_500_000_000 },
  ],
};

/** The whole text of a card as shown (innerText), its runs of white space made one space. */
async function cardText(page: Page, approvalId: string): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: what a person sees is checked, table cells apart.
  const text = await page.locator(`section.approval[data-approval-id="${approvalId}"]`).innerText();
  return text.replace(/\s+/g, ' ');
}

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('the approval card in headless Chromium', () => {
  let browser: Browser;
  let host: AgentHost;
  let server: Server;
  let url: string;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'media-agent-approval-card-'));
    host = createAgentHost({ logger: new ConsoleLogger('silent') });
    host.capabilities.register(downloadBatch);
    await host.start({ workers: false });
    const router = createAgentRouter(host, {
      // The host's sign-in: the session cookie → the console administrator; nothing else is trusted.
      authenticate: (request) => (request.headers.get('cookie')?.includes(`session=${SESSION}`) ? ADMIN : undefined),
    });
    server = createServer(toNodeListener(router));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await host?.stop();
    if (dir && !process.env.KEEP_SHOTS) rmSync(dir, { recursive: true, force: true });
  });

  it('shows the impact in real units, approves an edit and one step of two, and says why an impact is unknown', async () => {
    const ask = async (payload: PlanPayload, impact: ImpactReport) => {
      const plan = await host.plans.create({ type: 'download', payload, actor: 'agent:run_card' });
      const approval = await host.approvals.request({
        planType: 'download',
        planId: plan.id,
        actor: 'agent:run_card',
        capabilityId: 'download.batch',
        impact,
        reason: 'two releases for the weekend',
      });
      return { plan, approval };
    };
    const edited = await ask(proposed, known(impactOf(proposed)));
    const partial = await ask(proposed, known(impactOf(proposed)));
    const unknown = await ask(proposed, {
      status: 'unknown',
      code: 'IMPACT_TIMEOUT',
      reason: 'the impact took longer than 3000 ms',
      summary: 'impact unknown',
    });
    expect(describeImpact(impactOf(proposed))).toBe(
      'downloads 58.2 GB to /media/movies; 412 GB free after; about 45 min; 2 steps; can be undone',
    );

    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    await context.addCookies([{ name: 'session', value: SESSION, url }]);
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT);
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${url}#/approvals`);

    // The impact: its summary line, then each fact with its unit.
    const card = page.locator(`section.approval[data-approval-id="${edited.approval.id}"]`);
    await card.locator('.impact-summary').waitFor();
    const text = await cardText(page, edited.approval.id);
    expect(text).toContain(
      'downloads 58.2 GB to /media/movies; 412 GB free after; about 45 min; 2 steps; can be undone',
    );
    expect(text).toContain('Download 58.2 GB');
    expect(text).toContain('Free before 470 GB');
    expect(text).toContain('Free after 412 GB');
    expect(text).toContain('Duration about 45 min');
    expect(text).toContain('Can be undone yes: by its inverse');
    expect(text).not.toContain('[object ');
    const shot = join(dir, 'approval-card.png');
    const png = await card.screenshot({ path: shot });
    expect(existsSync(shot)).toBe(true);
    const pixels = decodePng(png); // throws for anything but a PNG
    const box = (await card.boundingBox())!;
    expect(pixels.width).toBeGreaterThanOrEqual(Math.floor(box.width));
    expect(pixels.height).toBeGreaterThanOrEqual(Math.floor(box.height));
    const ink = inkOf(pixels);
    expect(ink.colours).toBeGreaterThan(20);
    expect(ink.inkShare).toBeGreaterThan(0.02);
    // The summary line is drawn (not an empty box): its own screenshot has ink.
    expect(inkOf(decodePng(await card.locator('.impact-summary').screenshot())).inkShare).toBeGreaterThan(0.01);

    // An unknown impact says so, and why.
    expect(await cardText(page, unknown.approval.id)).toContain(
      'Impact unknown: the impact took longer than 3000 ms IMPACT_TIMEOUT',
    );

    // Steps: approve only the first of two with the checkboxes.
    const stepsCard = page.locator(`section.approval[data-approval-id="${partial.approval.id}"]`);
    await stepsCard.getByLabel(/approve exactly this hash/).check();
    await stepsCard.getByLabel(/Arrival \(2016\) 1080p/).uncheck();
    await stepsCard.getByRole('button', { name: 'Approve 1 of 2 steps' }).click();
    await stepsCard.locator('.status.approved').waitFor();
    expect(await host.approvals.get(partial.approval.id)).toMatchObject({
      status: 'approved',
      approvedSteps: ['dune'],
      approvedPayload: null,
    });
    expect(await cardText(page, partial.approval.id)).toContain('Approved 1 of 2 steps: dune.');
    // The approved step runs (as an API key, on the approval): the card, read again, shows the executed payload's hash.
    const run = await host.invoke(
      'download.batch',
      { planId: partial.plan.id, steps: ['dune'] },
      { actor: 'apikey:ci', approvalId: partial.approval.id },
    );
    expect(run).toMatchObject({ status: 'succeeded', output: { started: ['dune'] } });
    await stepsCard.evaluate((el) => (el as unknown as { refresh(): Promise<void> }).refresh());
    await stepsCard.locator('.status.consumed').waitFor();
    expect(await cardText(page, partial.approval.id)).toContain(
      `executed ${partial.plan.payloadHash} the approved payload`,
    );
    // Edit: a payload the capability's schema refuses is refused inline with its code; nothing is decided.
    await card.getByRole('button', { name: 'Edit' }).click();
    const editor = card.getByLabel(/Edited payload/);
    await editor.fill(JSON.stringify({ path: '/media/movies', steps: [{ id: 'dune', label: 'Dune' }] }));
    await card.getByRole('button', { name: 'Approve with edits' }).click();
    await card.locator('.error', { hasText: 'APPROVAL_EDIT_INVALID' }).waitFor();
    expect((await host.approvals.get(edited.approval.id)).status).toBe('requested');

    // The edit that is approved: only the 1080p release.
    const edit: PlanPayload = { path: '/media/movies', steps: [proposed.steps[1]!] };
    await editor.fill(JSON.stringify(edit, null, 2));
    await card.getByRole('button', { name: 'Approve with edits' }).click();
    await card.locator('.status.approved').waitFor();
    const approvedEdit = await host.approvals.get(edited.approval.id);
    expect(approvedEdit).toMatchObject({
      status: 'approved',
      approvedPayload: edit,
      payloadHash: canonicalHash(edit),
      proposedPayloadHash: edited.plan.payloadHash,
      revision: edited.plan.revision + 1,
    });
    expect((await host.plans.get(edited.plan.id)).revision).toBe(edited.plan.revision + 1);
    // The proposed and the approved payloads are shown apart, each with its hash.
    const payloads = await cardText(page, edited.approval.id);
    expect(payloads).toContain(`proposed ${edited.plan.payloadHash}`);
    expect(payloads).toContain(`approved (edited) ${canonicalHash(edit)}`);
    expect(payloads).not.toContain('[object ');
    // The proposed payload stays readable apart (folded under its summary).
    await card.getByText('Proposed payload (before the edit)').click();
    expect(await card.getByLabel('Proposed payload', { exact: true }).textContent()).toBe(
      JSON.stringify(proposed, null, 2),
    );
    expect(
      inkOf(decodePng(await card.screenshot({ path: join(dir, 'approval-card-edited.png') }))).colours,
    ).toBeGreaterThan(20);

    // On a phone the cards fit the screen: nothing wider than it (the impact table, the payloads and hashes wrap).
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
