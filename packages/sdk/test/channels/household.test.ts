// A household on message channels, through a real host (SQLite file, the sandbox world, the scripted model): two
// people — an administrator and an ordinary user — in one group chat and private chats, on two channel
// configurations. Their messages are appended or queued by the append rules; replies are written to the outbox in
// the step's transaction and split at the applied steering message; approvals are decided by a tap (once), by a
// text code on a channel without buttons; forged, replayed, stale and unauthorized taps are refused and told.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  createAgentHost,
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
import { TELEGRAM_LIKE, TestChannel } from './test-channel';

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
