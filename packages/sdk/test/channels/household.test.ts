// A household on message channels, through a real host (SQLite file, the sandbox world, the scripted model): two
// people — an administrator and an ordinary user — in one group chat and private chats, on two channel
// configurations. Their messages are appended or queued by the append rules; replies are written to the outbox in
// the step's transaction and split at the applied steering message; approvals are decided by a tap (once), by a
// text code on a channel without buttons; forged, replayed, stale and unauthorized taps are refused and told.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Type from 'typebox';
import {
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  ManualClock,
  type AgentHost,
  type IdentityResolver,
  type RunRecord,
} from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import {
  addToLibraryScript,
  registerSandboxCapabilities,
  requestedApproval,
  SandboxWorld,
  ScriptedProvider,
  waitForRunStatus,
} from '../../src/testing';
import type { ChannelCapabilities, ChannelInput } from '../../src/ports/channel';
import type { DefaultAgentHost } from '../../src/runtime/agent-host';
import type { OutboxRecord } from '../../src/ports/outbox-records';
import { conversationOf, conversationSessionId } from '../../src/runtime/channels/conversation-binding';
import type { ChannelInputOutcome } from '../../src/runtime/channels/channel-router';
import { confirmCode } from '../../src/runtime/channels/confirm-code';
import { TestChannel } from './test-channel';
import { signTap } from '../../src/runtime/channels/tap-data';

/** The test channel, plus what a real one does with input and taps: hands input to onInput, answers taps. */
class HouseChannel extends TestChannel {
  onInput: ((input: ChannelInput) => Promise<void>) | undefined;
  readonly answers: Array<{ tapId: string; text: string; alert: boolean }> = [];
  override async start(onInput: (input: ChannelInput) => Promise<void>): Promise<void> {
    this.onInput = onInput;
  }
  async answerTap(tapId: string, text: string, alert: boolean): Promise<void> {
    this.answers.push({ tapId, text, alert });
  }
}

const SMS_LIKE: ChannelCapabilities = {
  edit: false,
  buttons: false,
  maxLength: 1000,
  formatting: 'plain',
  dedupe: 'none',
};

/** Channel users → people; mum is an administrator, the kid an ordinary user (roles can change in a test). */
const people: Record<string, string> = { '100': 'user:mum', '200': 'user:kid' };
const roles: Record<string, 'admin' | 'user'> = { 'user:mum': 'admin', 'user:kid': 'user' };
const identity: IdentityResolver = {
  roleOf: (actor) => roles[actor] ?? 'user',
  personOf: (_channelId, userId) => people[userId] ?? null,
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  roles['user:mum'] = 'admin';
});

async function household(options: { workers: boolean; inboxLimit?: number }) {
  const dir = mkdtempSync(join(tmpdir(), 'ma-channels-'));
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const world = new SandboxWorld({ clock });
  const home = new HouseChannel('tg:home');
  const work = new HouseChannel('tg:work');
  const sms = new HouseChannel('sms:home', SMS_LIKE);
  const storage = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
  const host = createAgentHost({
    storage,
    clock,
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: [addToLibraryScript('Dune: Part Two')] }) },
    goalFacts: world,
    identity,
    runs: { pollMs: 5, goalPollSec: 1 },
    channels: {
      ports: [home, work, sms],
      ...(options.inboxLimit ? { inboxLimit: options.inboxLimit } : {}),
      outbox: { pollIntervalMs: 10 },
    },
  });
  registerSandboxCapabilities(host, world);
  await host.start({ workers: options.workers });
  cleanups.push(async () => {
    await host.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  await host.grants.create({ action: 'download.plan', actor: 'user:mum' });
  return { host, storage, clock, world, home, work, sms };
}

let seq = 0;
const text = (channelId: string, chatId: string, userId: string, body: string): ChannelInput => ({
  kind: 'text',
  channelId,
  chatId,
  chatType: chatId.startsWith('g') ? 'group' : 'private',
  userId,
  messageId: `in-${++seq}`,
  text: body,
  attachments: [],
});

/** What the router made of an input (the port's onInput logs instead of returning it). */
async function send(host: AgentHost, input: ChannelInput): Promise<ChannelInputOutcome> {
  return (host as DefaultAgentHost).channelRouter!.handle(input);
}

async function channelRuns(host: AgentHost, channelId: string, chatId: string): Promise<RunRecord[]> {
  return host.listRuns({ sessionId: conversationSessionId(channelId, chatId) });
}

async function queuedTexts(host: AgentHost, runId: string): Promise<string[]> {
  return (await host.getRun(runId)).inbox.map((m) => m.text);
}

describe('the append rules in a household (no workers: runs stay queued, so every input meets a run under way)', () => {
  it('same person, channel configuration, chat and role → appended; anything else → its own run', async () => {
    const { host } = await household({ workers: false, inboxLimit: 2 });
    const table: Array<[string, ChannelInput, ChannelInputOutcome['kind'], string?]> = [
      ['mum starts in the group', text('tg:home', 'g1', '100', 'Add Dune: Part Two'), 'started', 'new'],
      ['mum again in the group', text('tg:home', 'g1', '100', 'the 4K one please'), 'appended'],
      ['the kid in the same group', text('tg:home', 'g1', '200', 'and Paddington 2'), 'queued', 'other_person'],
      ['the kid again', text('tg:home', 'g1', '200', 'in French'), 'appended'],
      ['mum in her private chat', text('tg:home', 'p-mum', '100', 'anything new?'), 'started', 'new'],
      ['mum, same chat id on another configuration', text('tg:work', 'g1', '100', 'report'), 'started', 'new'],
      ['mum in the group: inbox at 1 of 2', text('tg:home', 'g1', '100', 'no HDR'), 'appended'],
      ['mum in the group: inbox full (2 of 2)', text('tg:home', 'g1', '100', 'and subtitles'), 'started', 'inbox_full'],
    ];
    const outcomes: ChannelInputOutcome[] = [];
    for (const [name, input, kind, reason] of table) {
      const outcome = await send(host, input);
      outcomes.push(outcome);
      expect({ name, kind: outcome.kind, reason: (outcome as { reason?: string }).reason }).toEqual({
        name,
        kind,
        reason,
      });
    }
    const [mumRun, , kidRun, , privateRun, workRun, , fullRun] = outcomes.map((o) => (o as { runId: string }).runId);
    expect(await queuedTexts(host, mumRun!)).toEqual(['the 4K one please', 'no HDR']);
    expect(await queuedTexts(host, kidRun!)).toEqual(['in French']);
    expect(await queuedTexts(host, privateRun!)).toEqual([]);
    expect(await queuedTexts(host, workRun!)).toEqual([]);
    expect((await host.getRun(fullRun!)).run.goal).toBe('and subtitles');
    expect((await channelRuns(host, 'tg:home', 'g1')).length).toBe(3);
    expect((await channelRuns(host, 'tg:home', 'p-mum')).length).toBe(1);
    expect((await channelRuns(host, 'tg:work', 'g1')).length).toBe(1);
    // Each run is bound to its conversation, owned by its person, origin channel.
    const kid = (await host.getRun(kidRun!)).run;
    expect(kid).toMatchObject({ origin: 'channel', startedBy: 'user:kid' });
    expect(conversationOf(kid)).toMatchObject({ channelId: 'tg:home', chatId: 'g1', person: 'user:kid', role: 'user' });

    // The newest of mum's group runs takes her next message; her role changes → her own run, never appended.
    expect(await send(host, text('tg:home', 'g1', '100', 'also Dune 1'))).toMatchObject({
      kind: 'appended',
      runId: fullRun,
    });
    roles['user:mum'] = 'user';
    expect(await send(host, text('tg:home', 'g1', '100', 'as a user now'))).toMatchObject({
      kind: 'queued',
      reason: 'role_changed',
    });
    expect(await queuedTexts(host, fullRun!)).toEqual(['also Dune 1']);
    roles['user:mum'] = 'admin';

    // A finished run takes nothing more: the message starts a run of its own.
    await host.abort(privateRun!, 'done', { actor: 'user:mum' });
    expect(await send(host, text('tg:home', 'p-mum', '100', 'one more thing'))).toMatchObject({
      kind: 'started',
      reason: 'finished',
    });
    expect(await queuedTexts(host, privateRun!)).toEqual([]);
  });

  it('an unknown channel user is refused, audited each time, and told once', async () => {
    const { host, storage } = await household({ workers: false });
    const first = await send(host, text('tg:home', 'g1', '999', 'hello?'));
    const second = await send(host, text('tg:home', 'g1', '999', 'hello??'));
    expect(first).toMatchObject({ kind: 'refused', error: { code: 'CHANNEL_UNKNOWN_USER' } });
    expect(second).toMatchObject({ kind: 'refused', error: { code: 'CHANNEL_UNKNOWN_USER' } });
    expect((await host.listRuns({})).length).toBe(0);
    const audit = (await host.audit({ limit: 1000 })).filter((a) => a.action === 'channel.unknown_user');
    expect(audit).toHaveLength(2);
    const rows = await storage.outbox.listByChat('tg:home', 'g1');
    expect(rows.map((r) => [r.kind, r.payload.text])).toEqual([
      ['notice', 'This chat account is not linked to a person of this household; ask an administrator to link it.'],
    ]);
  });
});

/** Waits until `check` holds, polling (the dispatcher and the workers run on real timers). */
async function until<T>(check: () => Promise<T | undefined | false>, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const tap = (
  channelId: string,
  chatId: string,
  userId: string,
  data: string,
  messageId = 'm-prompt',
): ChannelInput => ({
  kind: 'tap',
  channelId,
  chatId,
  chatType: 'private',
  userId,
  messageId,
  tapId: `tap-${++seq}`,
  data,
});

async function rowsOf(storage: SqliteStorage, runId: string): Promise<OutboxRecord[]> {
  return storage.outbox.listByRun(runId, { limit: 1000 });
}

describe('replies, steering and approvals on a channel (workers on, the outbox dispatcher delivering)', () => {
  it('the reply grows one message, the steering message closes it; Approve by tap decides once; forged, replayed, ordinary-user and stale taps are refused', async () => {
    const { host, storage, home } = await household({ workers: true });
    const started = await send(host, text('tg:home', 'p-mum', '100', 'Add Dune: Part Two to the library'));
    expect(started).toMatchObject({ kind: 'started' });
    const runId = (started as { runId: string }).runId;
    await waitForRunStatus(host, runId, ['waiting'], { timeoutMs: 15_000 });
    const asked = await requestedApproval(host, runId);

    // The reply so far: one text row, then edits of it; the approval prompt with signed buttons.
    const before = await rowsOf(storage, runId);
    const firstText = before.find((r) => r.kind === 'text')!;
    expect(firstText.payload.replyTo).toBe(`in-${seq}`);
    expect(before.filter((r) => r.kind === 'edit').every((r) => r.payload.editOf === firstText.id)).toBe(true);
    const prompt = before.find((r) => r.kind === 'approval')!;
    expect(prompt.payload.text).toContain('Approval needed: download.submit');
    const [approve, reject] = prompt.payload.buttons![0]!;
    expect([approve!.label, reject!.label]).toEqual(['Approve', 'Reject']);
    // Delivered by the dispatcher, in order.
    await until(async () => home.texts('p-mum').some((t) => t.includes('Approval needed')), 'the prompt delivered');

    // Steering: the reply so far is closed (an edit, buttons removed) and the rest answers the steering message.
    const steer = text('tg:home', 'p-mum', '100', 'prefer the smaller file');
    expect(await send(host, steer)).toMatchObject({ kind: 'appended', runId });
    const after = await until(async () => {
      const rows = await rowsOf(storage, runId);
      const events = (await host.getRun(runId, { limit: 1000 })).events;
      return events.some((e) => e.type === 'inbox_applied') && rows.some((r) => r.payload.replyTo === steer.messageId)
        ? rows
        : undefined;
    }, 'text after the steering message');
    const newer = after.slice(before.length);
    // The reply open at the boundary ("Waiting for a person …", written after the prompt) is closed by an edit with
    // its final text and no buttons; the next text is a new message answering the steering message.
    const open = before.filter((r) => r.kind === 'text').at(-1)!;
    expect(open.payload.text).toMatch(/Waiting for a person/);
    const closing = newer.find((r) => r.kind === 'edit' && r.payload.buttons === null)!;
    expect(closing.payload).toMatchObject({ editOf: open.id, text: open.payload.text });
    const answer = newer.find((r) => r.kind === 'text')!;
    expect(answer.payload.replyTo).toBe(steer.messageId);
    expect(newer.indexOf(closing)).toBeLessThan(newer.indexOf(answer));

    // A forged button: refused, audited, nothing decided.
    const forged = await send(
      host,
      tap(
        'tg:home',
        'p-mum',
        '100',
        approve!.data.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
      ),
    );
    expect(forged).toMatchObject({ kind: 'refused', error: { code: 'CHANNEL_TAP_FORGED' } });
    // The ordinary user taps Approve (say, on mum's phone): refused, told, audited by the approval service.
    const kidTap = await send(host, tap('tg:home', 'p-mum', '200', approve!.data));
    expect(kidTap).toMatchObject({ kind: 'refused', error: { code: 'ADMIN_FORBIDDEN' } });
    expect((await host.approvals.get(asked.approvalId)).status).toBe('requested');
    // Mum taps Approve: decided once; the same tap again (a replay) is refused as already decided.
    expect(await send(host, tap('tg:home', 'p-mum', '100', approve!.data))).toEqual({
      kind: 'decided',
      approvalId: asked.approvalId,
      status: 'approved',
    });
    const replay = await send(host, tap('tg:home', 'p-mum', '100', approve!.data));
    expect(replay).toMatchObject({ kind: 'refused', error: { code: 'CHANNEL_TAP_STALE' } });
    expect((replay as { error: Error }).error.message).toMatch(/already (approved|consumed)/);
    expect(await send(host, tap('tg:home', 'p-mum', '100', reject!.data))).toMatchObject({
      kind: 'refused',
      error: { code: 'CHANNEL_TAP_STALE' },
    });
    const audit = await host.audit({ limit: 1000 });
    expect(audit.filter((a) => a.action === 'approval.decided')).toHaveLength(1);
    expect(audit.filter((a) => a.action === 'channel.tap_refused').map((a) => a.reason)).toEqual([
      'CHANNEL_TAP_FORGED',
    ]);
    expect(audit.some((a) => a.action === 'approval.refused' && a.actor === 'user:kid')).toBe(true);
    // Each refused tap was answered visibly (an alert) and told in the chat.
    expect(home.answers.filter((a) => a.alert).length).toBeGreaterThanOrEqual(4);
    const notices = (await storage.outbox.listByChat('tg:home', 'p-mum', { limit: 1000 })).filter(
      (r) => r.kind === 'notice',
    );
    expect(notices.map((r) => r.payload.text).join('\n')).toMatch(/already/);
  });

  it('on a channel without buttons the prompt asks for a code; a wrong code, a code from another chat and a code after the plan was edited decide nothing', async () => {
    const { host, storage, sms, home } = await household({ workers: true });
    // On the button-less channel: the prompt asks for YES <code>.
    const started = await send(host, text('sms:home', 'p-mum', '100', 'Add Dune: Part Two to the library'));
    const runId = (started as { runId: string }).runId;
    await waitForRunStatus(host, runId, ['waiting'], { timeoutMs: 15_000 });
    const asked = await requestedApproval(host, runId);
    const approval = await host.approvals.get(asked.approvalId);
    const prompt = (await rowsOf(storage, runId)).find((r) => r.kind === 'approval')!;
    const code = confirmCode(await storage.settings.get('channels.secret').then(String), 'sms:home', 'p-mum', {
      id: approval.id,
      payloadHash: approval.payloadHash,
    });
    expect(prompt.payload.buttons).toBeUndefined();
    expect(prompt.payload.text).toContain(`Reply YES ${code} to approve or NO ${code} to reject.`);
    // Each text of the reply was its own message (the channel cannot edit).
    expect((await rowsOf(storage, runId)).some((r) => r.kind === 'edit')).toBe(false);
    // A wrong code, and the right code in another chat, decide nothing.
    expect(await send(host, text('sms:home', 'p-mum', '100', 'YES AAAAAA'))).toMatchObject({
      kind: 'refused',
      error: { code: 'CHANNEL_TAP_STALE' },
    });
    expect(await send(host, text('sms:home', 'p-other', '100', `YES ${code}`))).toMatchObject({ kind: 'refused' });
    // The plan is edited: the old code is stale and needs a new preview.
    const plan = await host.plans.get(asked.planId);
    await host.plans.revise(plan.id, { ...(plan.payload as object), note: 'edited' }, plan.revision);
    const stale = await send(host, text('sms:home', 'p-mum', '100', `yes ${code}`));
    expect(stale).toMatchObject({ kind: 'refused', error: { code: 'CHANNEL_TAP_STALE' } });
    expect((stale as { error: Error }).error.message).toMatch(/edited since this preview; a new preview is needed/);
    expect((await host.approvals.get(approval.id)).status).toBe('requested');
    // Nothing was edited on the channel that cannot edit; what was said went out as messages.
    await until(async () => sms.texts('p-mum').some((t) => t.includes(`Reply YES ${code}`)), 'the prompt by sms');
    expect(sms.delivered.some((d) => d.kind === 'edit')).toBe(false);
    expect(home.delivered).toEqual([]);
  });

  it('a code decides as the person who typed it, once', async () => {
    const { host, storage } = await household({ workers: true });
    const started = await send(host, text('sms:home', 'p-mum', '100', 'Add Dune: Part Two to the library'));
    const runId = (started as { runId: string }).runId;
    await waitForRunStatus(host, runId, ['waiting'], { timeoutMs: 15_000 });
    const approval = await host.approvals.get((await requestedApproval(host, runId)).approvalId);
    const secret = String(await storage.settings.get('channels.secret'));
    const code = confirmCode(secret, 'sms:home', 'p-mum', { id: approval.id, payloadHash: approval.payloadHash });
    expect(await send(host, text('sms:home', 'p-mum', '200', `YES ${code}`))).toMatchObject({
      kind: 'refused',
      error: { code: 'ADMIN_FORBIDDEN' },
    });
    expect(await send(host, text('sms:home', 'p-mum', '100', `YES ${code}`))).toMatchObject({
      kind: 'decided',
      status: 'approved',
    });
    expect(await send(host, text('sms:home', 'p-mum', '100', `YES ${code}`))).toMatchObject({ kind: 'refused' });
    expect((await host.approvals.get(approval.id)).decidedBy).toBe('user:mum');
  });
});

describe('an approval of an admin-only capability', () => {
  it("an ordinary user's tap is refused AUTH_ADMIN_ONLY, told in the chat and audited; a stale tap after a plan edit is refused", async () => {
    const { host, storage, home } = await household({ workers: false });
    host.capabilities.register(
      defineCapability({
        id: 'library.purge',
        version: 1,
        title: 'Purge a library folder',
        description: 'Deletes a folder (administrators only).',
        kind: 'execute',
        replay: 'never',
        adminOnly: true,
        input: Type.Object({ planId: Type.String() }),
        output: Type.Object({}),
        target: (input) => ({ planType: 'purge', planId: input.planId }),
        handler: async () => ({}),
      }),
    );
    const plan = await host.plans.create({ type: 'purge', payload: { folder: '/media/old' }, actor: 'user:mum' });
    const approval = await host.approvals.request({
      planType: 'purge',
      planId: plan.id,
      actor: 'system:test',
      capabilityId: 'library.purge',
    });
    const secret = String(await storage.settings.get('channels.secret'));
    const data = signTap(secret, 'tg:home', 'g1', { kind: 'approve', ref: approval.id, hash: approval.payloadHash })!;
    const kid = tap('tg:home', 'g1', '200', data);
    expect(await send(host, kid)).toMatchObject({ kind: 'refused', error: { code: 'AUTH_ADMIN_ONLY' } });
    expect(home.answers.at(-1)).toMatchObject({ tapId: kid.kind === 'tap' ? kid.tapId : '', alert: true });
    expect(home.answers.at(-1)!.text).toMatch(/administrators only/);
    const audit = (await host.audit({ limit: 1000 })).filter((a) => a.action === 'channel.tap_refused');
    expect(audit.map((a) => [a.actor, a.reason, a.approvalId])).toEqual([['user:kid', 'AUTH_ADMIN_ONLY', approval.id]]);
    expect((await storage.outbox.listByChat('tg:home', 'g1')).map((r) => r.payload.text)).toEqual([
      expect.stringMatching(/administrators only/),
    ]);
    // The plan is edited after the preview: mum's tap on the old buttons is stale; nothing is decided.
    await host.plans.revise(plan.id, { folder: '/media/older' }, plan.revision);
    const stale = await send(host, tap('tg:home', 'g1', '100', data));
    expect(stale).toMatchObject({ kind: 'refused', error: { code: 'CHANNEL_TAP_STALE' } });
    expect((await host.approvals.get(approval.id)).status).toBe('requested');
  });
});
