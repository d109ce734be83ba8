/**
 * One convention for who acts across the host API: `{ actor }` in an options object (`appendToInbox`,
 * `chooseDecisionOption`, `dismissDecision`, like `abort`, `getRun`, `listRuns`, `events`). The old positional
 * forms still work, with one deprecation warning per method and host.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createAgentHost, type AgentHost, type Logger } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { ScriptedProvider } from '../../src/testing';

const ADMIN = 'user:admin';
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function host(): Promise<{ host: AgentHost; warnings: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-actor-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const warnings: string[] = [];
  const logger: Logger = { debug() {}, info() {}, error() {}, warn: (message) => warnings.push(message) };
  const h = createAgentHost({
    storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
    logger,
    model: { provider: new ScriptedProvider() },
  });
  cleanup.push(() => h.stop().catch(() => undefined));
  await h.start({ workers: false });
  return { host: h, warnings };
}

const raise = (h: AgentHost, id: string) =>
  h.raiseDecision({
    kind: 'download_failed',
    reason: 'missing files',
    raisedBy: 'system:watch',
    subject: { type: 'download', id },
    options: [{ id: 'ignore', label: 'Leave it' }],
  });

it('appendToInbox, chooseDecisionOption and dismissDecision take { actor } like abort; no warning is logged', async () => {
  const { host: h, warnings } = await host();
  const run = await h.startRun({ goal: 'Add Dune', actor: ADMIN });
  const message = await h.appendToInbox(run.id, 'prefer 1080p', { actor: ADMIN });
  expect(message).toMatchObject({ runId: run.id, text: 'prefer 1080p', actor: ADMIN });

  const chosen = await h.chooseDecisionOption((await raise(h, 'dl-1')).id, 'ignore', { actor: ADMIN, note: 'fine' });
  expect(chosen.decision).toMatchObject({ status: 'resolved', resolvedBy: ADMIN, resolution: { note: 'fine' } });
  const dismissed = await h.dismissDecision((await raise(h, 'dl-2')).id, { actor: ADMIN, note: 'by hand' });
  expect(dismissed).toMatchObject({ status: 'dismissed', resolvedBy: ADMIN, resolution: { note: 'by hand' } });
  expect((await h.abort(run.id, 'done', { actor: ADMIN })).status).toBe('cancelled');
  expect(warnings).toEqual([]);
});

it('the deprecated positional forms still work and warn once per method and host', async () => {
  const { host: h, warnings } = await host();
  const run = await h.startRun({ goal: 'Add Dune', actor: ADMIN });
  expect(await h.appendToInbox(run.id, 'one', ADMIN)).toMatchObject({ actor: ADMIN, text: 'one' });
  expect(await h.appendToInbox(run.id, 'two', ADMIN)).toMatchObject({ actor: ADMIN, text: 'two' });
  const chosen = await h.chooseDecisionOption((await raise(h, 'dl-1')).id, 'ignore', ADMIN, 'fine');
  expect(chosen.decision.resolution).toMatchObject({ note: 'fine' });
  expect(await h.dismissDecision((await raise(h, 'dl-2')).id, ADMIN, 'by hand')).toMatchObject({
    status: 'dismissed',
    resolution: { note: 'by hand' },
  });
  expect(warnings).toHaveLength(3);
  expect(warnings[0]).toMatch(/host\.appendToInbox with a positional actor is deprecated: pass \{ actor \}/);
  expect(warnings[1]).toMatch(/host\.chooseDecisionOption/);
  expect(warnings[2]).toMatch(/host\.dismissDecision/);
  // A malformed actor is refused as before, in either form.
  await expect(h.appendToInbox(run.id, 'x', { actor: 'nobody' })).rejects.toMatchObject({ code: 'ACTOR_INVALID' });
  await expect(h.appendToInbox(run.id, 'x', 'nobody')).rejects.toMatchObject({ code: 'ACTOR_INVALID' });
});
