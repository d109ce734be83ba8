// Bug reports of other agents on message channels, each turned into the property it breaks, checked through a real
// host: a SQLite file, the sandbox world, the scripted model, the `channels` option with the real TelegramChannel
// (grammY) against the fake Bot API server over real HTTP. One `it` per report.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TelegramChannel } from '@media-agent/channel-telegram';
import { FakeBotApi, type FakeChat, type FakeShownMessage, type FakeUser } from '@media-agent/channel-telegram/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  createAgentHost,
  SystemClock,
  type AgentHost,
  type IdentityResolver,
  type RunRecord,
} from '../../src/index';
import type { FakeScript } from '../../src/models/scripted';
import type { OutboxRecord } from '../../src/ports/outbox-records';
import { conversationSessionId } from '../../src/runtime/channels/conversation-binding';
import type { OutboxDispatcherOptions } from '../../src/runtime/channels/outbox-dispatcher';
import { SqliteStorage } from '../../src/sqlite';
import {
  addToLibraryScript,
  registerSandboxCapabilities,
  requestedApproval,
  SandboxWorld,
  ScriptedProvider,
  waitForRunStatus,
} from '../../src/testing';

const CHANNEL = 'telegram:home';
const ann: FakeUser = { id: 1001, first_name: 'Ann' };
const bob: FakeUser = { id: 1002, first_name: 'Bob' };
const annChat: FakeChat = { id: ann.id, type: 'private' };
const bobChat: FakeChat = { id: bob.id, type: 'private' };
const family: FakeChat = { id: -5001, type: 'group', title: 'Family' };

/** Ann is an administrator, Bob an ordinary user. */
const identity: IdentityResolver = {
  roleOf: (actor) => (actor === 'user:ann' ? 'admin' : 'user'),
  personOf: (channelId, userId) =>
    channelId === CHANNEL ? ({ '1001': 'user:ann', '1002': 'user:bob' }[userId] ?? null) : null,
};

/** 10 000 characters: 200 lines of 49 characters and a newline (the last ends with `!` instead). */
const LONG = `${Array.from({ length: 200 }, (_, i) => `line ${String(i).padStart(4, '0')} ${'x'.repeat(38)}.`).join('\n')}!`;

const scripts: FakeScript[] = [
  addToLibraryScript('Dune: Part Two'),
  addToLibraryScript('Oppenheimer'),
  { name: 'long', match: /^write long/, finalText: LONG },
  {
    name: 'loop',
    match: /^loop/,
    // The same read three times with the same result: the loop guard warns (events), never the person.
    steps: Array.from({ length: 3 }, () => ({
      text: 'Looking. ',
      toolCalls: [{ capability: 'inventory.query', input: { query: 'Dune' } }],
    })),
    finalText: 'Loop done.',
  },
  { name: 'say', match: /^say/, finalText: (ctx) => `Answer to "${ctx.goal}".` },
];

const dirs: string[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function fakeApi(): Promise<FakeBotApi> {
  const fake = new FakeBotApi();
  await fake.start();
  cleanups.push(() => fake.close());
  return fake;
}

function dbFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ma-peer-reports-'));
  dirs.push(dir);
  return join(dir, 'agent.sqlite');
}

interface HostOptions {
  file: string;
  fake: FakeBotApi;
  outbox?: Pick<OutboxDispatcherOptions, 'pollIntervalMs' | 'leaseMs' | 'owner'>;
  /** A channel that only sends (webhook mode without a URL: it polls nothing). */
  sendOnly?: boolean;
  workers?: boolean;
}

/** A real host on the file, with the Telegram channel on the fake; started. `stop()` stops it (once). */
async function startHost(options: HostOptions) {
  const telegram = new TelegramChannel({
    id: CHANNEL,
    token: options.fake.token,
    apiRoot: options.fake.apiRoot,
    pollingTimeoutSeconds: 1,
    ...(options.sendOnly ? { webhook: { secretToken: 'peer-reports-secret' } } : {}),
    logger: new ConsoleLogger('silent'),
  });
  const clock = new SystemClock();
  const world = new SandboxWorld({ clock });
  const storage = new SqliteStorage({ path: options.file });
  const host = createAgentHost({
    storage,
    clock,
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts }) },
    goalFacts: world,
    identity,
    runs: { pollMs: 5, goalPollSec: 1 },
    channels: { ports: [telegram], outbox: { pollIntervalMs: 20, ...options.outbox } },
  });
  registerSandboxCapabilities(host, world);
  await host.start({ workers: options.workers ?? true });
  for (const actor of ['user:ann', 'user:bob'])
    await host.grants.create({ action: 'download.plan', actor }).catch(() => {});
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await host.stop();
  };
  cleanups.push(stop);
  return { host, storage, telegram, stop };
}

/** Waits until `check` gives a value (real timers: the poller, the workers and the dispatcher run). */
async function until<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  ms = 20_000,
) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const runsOf = (host: AgentHost, chat: FakeChat): Promise<RunRecord[]> =>
  host.listRuns({ sessionId: conversationSessionId(CHANNEL, String(chat.id)) });

const repliesTo = (fake: FakeBotApi, chat: FakeChat, messageId: number): FakeShownMessage[] =>
  fake.sent(chat.id).filter((m) => m.replyTo === messageId);

/** The bot's message with buttons (a prompt) in a chat, the newest first when `newest`. */
async function promptIn(fake: FakeBotApi, chat: FakeChat, after = 0): Promise<FakeShownMessage> {
  return until(
    () => fake.sent(chat.id).find((m) => m.messageId > after && m.buttons.length > 0),
    `a prompt in chat ${chat.id}`,
  );
}

/** Taps a button on the fake and waits for the tap's answer. */
async function tapAndWait(fake: FakeBotApi, chat: FakeChat, user: FakeUser, messageId: number, data: string) {
  const tapId = fake.userTaps(chat, user, messageId, data);
  await until(() => fake.tapAnswers.some((a) => a.callbackQueryId === tapId), `the answer to tap ${tapId}`);
  return tapId;
}

async function allRows(storage: SqliteStorage, chat: FakeChat): Promise<OutboxRecord[]> {
  return storage.outbox.listByChat(CHANNEL, String(chat.id), { limit: 1000 });
}

describe('peer bug reports, through a real host and the Telegram channel on the fake Bot API', () => {
  it('NousResearch/hermes-agent#87040: messages sent while the host was down are handled after start', async () => {
    const fake = await fakeApi();
    // Written while no host runs: the update waits at the Bot API.
    const early = fake.userSays(annChat, ann, 'say hello while you were away');
    expect(fake.pendingUpdates).toHaveLength(1);
    const { host } = await startHost({ file: dbFile(), fake });
    const reply = await until(
      () => repliesTo(fake, annChat, early.message_id).find((m) => m.text.includes('Answer to')),
      'the reply to the early message',
    );
    expect(reply.text).toBe('Answer to "say hello while you were away".');
    const runs = await runsOf(host, annChat);
    expect(runs.map((r) => [r.goal, r.startedBy])).toEqual([['say hello while you were away', 'user:ann']]);
  }, 60_000);

  it('nbramia/LifeOS#57: an update handled once is not handled again after a restart', async () => {
    const fake = await fakeApi();
    const file = dbFile();
    const first = await startHost({ file, fake });
    const one = fake.userSays(annChat, ann, 'say one');
    await until(() => repliesTo(fake, annChat, one.message_id).length > 0, 'the reply to one');
    await until(async () => (await runsOf(first.host, annChat))[0]?.status === 'succeeded', 'run one to end');
    await first.stop();
    const sendsBefore = fake.callsOf('sendMessage').length;

    // A new host on the same file and the same Bot API. A later message of the same chat is handled after any
    // re-delivered one (updates of a chat are handled in order), so its reply marks the end of the replay window.
    const second = await startHost({ file, fake });
    const two = fake.userSays(annChat, ann, 'say two');
    await until(() => repliesTo(fake, annChat, two.message_id).length > 0, 'the reply to two');
    const runs = await runsOf(second.host, annChat);
    expect(runs.map((r) => r.goal).sort()).toEqual(['say one', 'say two']);
    expect(repliesTo(fake, annChat, one.message_id)).toHaveLength(1);
    expect(fake.callsOf('sendMessage').length - sendsBefore).toBe(1);
  }, 60_000);

  it('NousResearch/hermes-agent#31884: a message after a stopped run gets its own reply; the stop is told', async () => {
    const fake = await fakeApi();
    const { host } = await startHost({ file: dbFile(), fake });
    const ask = fake.userSays(annChat, ann, 'Add Dune: Part Two to the library');
    const run = await until(async () => (await runsOf(host, annChat))[0], 'the run');
    await waitForRunStatus(host, run.id, ['waiting'], { timeoutMs: 20_000 });
    await promptIn(fake, annChat);
    // "/stop": the run is aborted mid-way (waiting for its approval).
    await host.abort(run.id, 'stopped by Ann', { actor: 'user:ann' });
    const next = fake.userSays(annChat, ann, 'say something else');
    const reply = await until(
      () => repliesTo(fake, annChat, next.message_id).find((m) => m.text.includes('Answer to')),
      'the reply to the message after the stop',
    );
    expect(reply.text).toBe('Answer to "say something else".');
    // The stopped run's end is visible in the chat, replying to the message that started it.
    const told = await until(
      () => repliesTo(fake, annChat, ask.message_id).find((m) => /The task ended cancelled/.test(m.text)),
      'the stopped run told',
    );
    expect(told.text).toContain('stopped by Ann');
    // Every message of the chat is answered.
    for (const m of [ask, next]) expect(repliesTo(fake, annChat, m.message_id).length).toBeGreaterThan(0);
  }, 60_000);

  it('NousResearch/hermes-agent#55806: the reply to message 1 arrives before the person writes message 2', async () => {
    const fake = await fakeApi();
    // The dispatcher's poll is 10 minutes: only the wake after the step's commit can deliver in time.
    await startHost({ file: dbFile(), fake, outbox: { pollIntervalMs: 600_000 } });
    const one = fake.userSays(annChat, ann, 'say the first thing');
    const reply = await until(
      () => repliesTo(fake, annChat, one.message_id).find((m) => m.text.includes('Answer to')),
      'the reply to message 1 with no further input',
    );
    expect(reply.text).toBe('Answer to "say the first thing".');
    // No other input reached the Bot API from the person: only message 1 exists in the chat besides the bot's.
    expect(fake.sent(annChat.id).length).toBeGreaterThan(0);
  }, 60_000);

  it('nearai/ironclaw#2903 (+ sipeed/picoclaw#244, 0xMaxMa/claude-gateway#78): a 10 000-character reply arrives as ≤ 4096-character messages, in order, whole', async () => {
    expect(LONG.length).toBe(10_000);
    const fake = await fakeApi();
    const { host, storage } = await startHost({ file: dbFile(), fake });
    const ask = fake.userSays(annChat, ann, 'write long please');
    const run = await until(async () => (await runsOf(host, annChat))[0], 'the run');
    await waitForRunStatus(host, run.id, ['succeeded'], { timeoutMs: 20_000 });
    const rows = await until(async () => {
      const r = await storage.outbox.listByRun(run.id, { limit: 100 });
      return r.length > 0 && r.every((x) => x.status === 'sent') ? r : undefined;
    }, 'every row sent');
    const shown = fake.sent(annChat.id);
    expect(shown.length).toBe(Math.ceil(10_000 / 4096));
    for (const m of shown) expect(m.text.length).toBeLessThanOrEqual(4096);
    expect(shown.map((m) => m.text).join('')).toBe(LONG);
    expect(shown[0]!.replyTo).toBe(ask.message_id);
    // In order: the rows' seq order is the chat's message order.
    expect([...rows].sort((a, b) => a.seq - b.seq).map((r) => r.sentMessageId)).toEqual(
      shown.map((m) => String(m.messageId)),
    );
    expect(fake.calls.filter((c) => c.status >= 400)).toEqual([]);
  }, 60_000);

  it('esengine/DeepSeek-Reasonix#2222: a tap on an older approval in the same chat decides neither approval', async () => {
    const fake = await fakeApi();
    const { host } = await startHost({ file: dbFile(), fake });
    // Ann's run in the group asks approval A1; its plan is then edited (the old preview is stale).
    fake.userSays(family, ann, 'Add Dune: Part Two to the library');
    const run1 = await until(async () => (await runsOf(host, family))[0], 'run 1');
    await waitForRunStatus(host, run1.id, ['waiting'], { timeoutMs: 20_000 });
    const a1 = await requestedApproval(host, run1.id);
    const p1 = await promptIn(fake, family);
    const plan = await host.plans.get(a1.planId);
    await host.plans.revise(plan.id, { ...(plan.payload as object), note: 'edited' }, plan.revision);
    // Bob's run in the same group asks approval A2: the newer prompt.
    fake.userSays(family, bob, 'Add Oppenheimer to the library');
    const run2 = await until(async () => (await runsOf(host, family)).find((r) => r.startedBy === 'user:bob'), 'run 2');
    await waitForRunStatus(host, run2.id, ['waiting'], { timeoutMs: 20_000 });
    const a2 = await requestedApproval(host, run2.id);
    const p2 = await promptIn(fake, family, p1.messageId);
    expect(a2.approvalId).not.toBe(a1.approvalId);

    // Ann taps Approve on the OLD prompt.
    const tapId = await tapAndWait(fake, family, ann, p1.messageId, p1.buttons[0]![0]!.data);
    const answer = fake.tapAnswers.find((a) => a.callbackQueryId === tapId)!;
    expect(answer.showAlert).toBe(true);
    expect(answer.text).toMatch(/edited|changed|stale|new preview/i);
    expect((await host.approvals.get(a1.approvalId)).status).toBe('requested');
    expect((await host.approvals.get(a2.approvalId)).status).toBe('requested');
    expect((await host.audit({ limit: 1000 })).filter((a) => a.action === 'approval.decided')).toEqual([]);
    // The new prompt's own button still decides the new approval.
    await tapAndWait(fake, family, ann, p2.messageId, p2.buttons[0]![0]!.data);
    expect(['approved', 'consumed']).toContain((await host.approvals.get(a2.approvalId)).status);
    expect((await host.approvals.get(a1.approvalId)).status).toBe('requested');
  }, 90_000);

  it('zeroclaw-labs/zeroclaw#3143: each tap is answered exactly once; a refusal is an alert with its reason', async () => {
    const fake = await fakeApi();
    const { host, stop } = await startHost({ file: dbFile(), fake });
    fake.userSays(annChat, ann, 'Add Dune: Part Two to the library');
    const run = await until(async () => (await runsOf(host, annChat))[0], 'the run');
    await waitForRunStatus(host, run.id, ['waiting'], { timeoutMs: 20_000 });
    const prompt = await promptIn(fake, annChat);
    const [approve, reject] = prompt.buttons[0]!;
    const taps = [
      await tapAndWait(fake, annChat, ann, prompt.messageId, approve!.data), // decides
      await tapAndWait(fake, annChat, ann, prompt.messageId, approve!.data), // a replay: already approved
      await tapAndWait(fake, annChat, ann, prompt.messageId, reject!.data), // too late: already approved
      await tapAndWait(fake, annChat, ann, prompt.messageId, `${approve!.data.slice(0, -1)}#`), // forged
    ];
    // Stop the host (its poller and handlers finish): any second answer has arrived; then count per callback query id.
    await stop();
    for (const id of taps) expect(fake.tapAnswers.filter((a) => a.callbackQueryId === id)).toHaveLength(1);
    expect(fake.callsOf('answerCallbackQuery').map((c) => c.status)).toEqual([200, 200, 200, 200]);
    const [decided, replay, late, forged] = taps.map((id) => fake.tapAnswers.find((a) => a.callbackQueryId === id)!);
    expect(decided!.showAlert).toBe(false);
    for (const refusal of [replay, late]) {
      expect(refusal!.showAlert).toBe(true);
      expect(refusal!.text).toMatch(/already (approved|consumed)/);
    }
    expect(forged!.showAlert).toBe(true);
    expect(forged!.text).not.toBe('');
  }, 60_000);

  it('openclaw/openclaw#63282: a tap arrives as a tap (callback_query) and decides the approval as the tapping person', async () => {
    const fake = await fakeApi();
    const { host } = await startHost({ file: dbFile(), fake });
    fake.userSays(family, ann, 'Add Dune: Part Two to the library');
    const run = await until(async () => (await runsOf(host, family))[0], 'the run');
    await waitForRunStatus(host, run.id, ['waiting'], { timeoutMs: 20_000 });
    const { approvalId } = await requestedApproval(host, run.id);
    const prompt = await promptIn(fake, family);
    const approve = prompt.buttons[0]![0]!.data;
    expect(
      fake.callsOf('getUpdates').every((c) => JSON.stringify(c.params.allowed_updates).includes('callback_query')),
    ).toBe(true);
    // Bob (an ordinary user) taps first: as Bob, refused; nothing decided, no text message run started.
    const bobTap = await tapAndWait(fake, family, bob, prompt.messageId, approve);
    expect(fake.tapAnswers.find((a) => a.callbackQueryId === bobTap)).toMatchObject({ showAlert: true });
    expect((await host.approvals.get(approvalId)).status).toBe('requested');
    // Ann taps: decided as Ann.
    await tapAndWait(fake, family, ann, prompt.messageId, approve);
    const decided = await host.approvals.get(approvalId);
    expect(decided.decidedBy).toBe('user:ann');
    expect(['approved', 'consumed']).toContain(decided.status);
    // The taps became no runs and no steering text.
    expect((await runsOf(host, family)).length).toBe(1);
    expect((await host.getRun(run.id)).inbox).toEqual([]);
  }, 60_000);

  it('home-assistant/core#34004: two hosts on one SQLite file deliver each outbox row once', async () => {
    const fake = await fakeApi();
    const file = dbFile();
    // Host A receives and runs; host B (same file) only sends: both dispatchers poll every 5 ms.
    const a = await startHost({ file, fake, outbox: { pollIntervalMs: 5, owner: 'host-a' } });
    const b = await startHost({
      file,
      fake,
      sendOnly: true,
      workers: false,
      outbox: { pollIntervalMs: 5, owner: 'host-b' },
    });
    fake.userSays(annChat, ann, 'write long now');
    fake.userSays(bobChat, bob, 'say hi from Bob');
    fake.userSays(family, ann, 'say hi family');
    const chats = [annChat, bobChat, family];
    const rows = await until(async () => {
      const all = (await Promise.all(chats.map((c) => allRows(a.storage, c)))).flat();
      const runs = (await Promise.all(chats.map((c) => runsOf(a.host, c)))).flat();
      const ended = runs.length === 3 && runs.every((r) => r.status === 'succeeded');
      return ended && all.length > 0 && all.every((r) => r.status === 'sent') ? all : undefined;
    }, 'every row sent');
    // Stop both hosts (no pass under way or to come), then count what reached the Bot API.
    await a.stop();
    await b.stop();
    const sends = rows.filter((r) => r.kind !== 'edit').length;
    const edits = rows.filter((r) => r.kind === 'edit').length;
    expect(fake.callsOf('sendMessage')).toHaveLength(sends);
    expect(fake.callsOf('editMessageText')).toHaveLength(edits);
    expect(rows.every((r) => r.attempts === 1)).toBe(true);
    // Both dispatchers ran against the file (B is a real second deliverer, not idle by construction).
    expect(b.host).toBeDefined();
  }, 90_000);

  it('NousResearch/hermes-agent#7921: warnings, loop-guard notices and another person’s run never reach a person’s chat', async () => {
    const fake = await fakeApi();
    const { host, storage } = await startHost({ file: dbFile(), fake });
    fake.userSays(annChat, ann, 'loop on Dune');
    fake.userSays(bobChat, bob, 'say Bob’s secret plan');
    const annRun = await until(async () => (await runsOf(host, annChat))[0], "Ann's run");
    const bobRun = await until(async () => (await runsOf(host, bobChat))[0], "Bob's run");
    for (const r of [annRun, bobRun])
      await waitForRunStatus(host, r.id, ['succeeded', 'failed'], { timeoutMs: 20_000 });
    await until(async () => {
      const rows = [...(await allRows(storage, annChat)), ...(await allRows(storage, bobChat))];
      return rows.length > 0 && rows.every((r) => r.status === 'sent');
    }, 'every row sent');
    // The loop guard noticed the identical reads (its notices go to the model with the tool results).
    const guard = (await host.getRun(annRun.id)).run.runtimeState as { guard?: { streak?: unknown } };
    expect(guard.guard).toBeDefined();
    const annShows = fake.sent(annChat.id).map((m) => m.text);
    const bobShows = fake.sent(bobChat.id).map((m) => m.text);
    // Exactly what Ann's run said: one message, edited as the reply grew.
    expect(annShows).toEqual(['Looking.\nLooking.\nLooking.\nLoop done.']);
    expect(annShows.join('\n')).not.toMatch(/Bob|secret plan|guard|warning|identical/i);
    expect(bobShows.join('\n')).not.toMatch(/Loop|Looking/);
    expect(bobShows).toEqual(['Answer to "say Bob’s secret plan".']);
    // Every row of Ann's chat is her run's (a reply or a prompt), none of Bob's run.
    for (const row of await allRows(storage, annChat)) expect(row.runId).toBe(annRun.id);
  }, 60_000);
});
