// Trial of the message channels as a new user would use them: a real host (SQLite file, the sandbox world, the
// scripted model, the `channels` option) with the real TelegramChannel (grammY) against the fake Bot API over HTTP.
// Each `it` asserts one promise of docs/channels.md precisely; a failure is a finding.
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
const eve: FakeUser = { id: 1009, first_name: 'Eve' }; // not linked to any person
const annChat: FakeChat = { id: ann.id, type: 'private' };
const bobChat: FakeChat = { id: bob.id, type: 'private' };
const family: FakeChat = { id: -5001, type: 'group', title: 'Family' };

/** Ann is an administrator, Bob an ordinary user; a test may change a role mid-run. */
const roles: Record<string, 'admin' | 'user'> = { 'user:ann': 'admin', 'user:bob': 'user' };
const identity: IdentityResolver = {
  roleOf: (actor) => roles[actor] ?? 'user',
  personOf: (channelId, userId) =>
    channelId === CHANNEL ? ({ '1001': 'user:ann', '1002': 'user:bob' }[userId] ?? null) : null,
};

/** 4095 letters, an emoji (a surrogate pair at code units 4095–4096), then 100 more: no space to cut at. */
const EMOJI_AT_CUT = `${'a'.repeat(4095)}😀${'b'.repeat(100)}`;
const MARKDOWN =
  '**Done**: saved to /media/movies/dune_part_two_2024.mkv\n' +
  'שלום עולם — ‏עברית‏ 👨‍👩‍👧 <b>not html</b> &amp; a * b * c';

/** "add Dune": looks Dune up and plans the second result — the runtime asks which title (a choice). */
const pickSecond: FakeScript = {
  match: 'add Dune',
  steps: [
    { toolCalls: [{ capability: 'catalog.lookup', input: { query: 'Dune' } }] },
    {
      toolCalls: [
        {
          capability: 'release.search',
          input: {
            mediaSource: '{{catalog.lookup.items.1.mediaSource}}',
            mediaId: '{{catalog.lookup.items.1.mediaId}}',
            limit: 5,
          },
        },
      ],
    },
    {
      toolCalls: [
        {
          capability: 'download.plan',
          input: {
            mediaSource: '{{catalog.lookup.items.1.mediaSource}}',
            mediaId: '{{catalog.lookup.items.1.mediaId}}',
            kind: 'movie',
            releaseId: '{{release.search.releases.0.releaseId}}',
          },
        },
      ],
    },
  ],
  finalText: 'Planned.',
};

const scripts: FakeScript[] = [
  addToLibraryScript('Dune: Part Two'),
  addToLibraryScript('Oppenheimer'),
  { name: 'emoji', match: /^emoji cut/, finalText: EMOJI_AT_CUT },
  { name: 'markdown', match: /^markdown/, finalText: MARKDOWN },
  { name: 'long', match: /^write long/, finalText: `${'word '.repeat(2000).trim()}.` },
  pickSecond,
  { name: 'say', match: /./, finalText: (ctx) => `Answer to "${ctx.goal}".` },
];

const dirs: string[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  roles['user:ann'] = 'admin';
});

async function fakeApi(): Promise<FakeBotApi> {
  const fake = new FakeBotApi();
  await fake.start();
  cleanups.push(() => fake.close());
  return fake;
}

interface HostOptions {
  fake: FakeBotApi;
  outbox?: Pick<OutboxDispatcherOptions, 'pollIntervalMs' | 'leaseMs' | 'backoff'>;
  webhookSecret?: string;
}

async function startHost(options: HostOptions) {
  const dir = mkdtempSync(join(tmpdir(), 'ma-channels-trial-'));
  dirs.push(dir);
  const telegram = new TelegramChannel({
    id: CHANNEL,
    token: options.fake.token,
    apiRoot: options.fake.apiRoot,
    pollingTimeoutSeconds: 1,
    ...(options.webhookSecret ? { webhook: { secretToken: options.webhookSecret } } : {}),
    logger: new ConsoleLogger('silent'),
  });
  const clock = new SystemClock();
  const world = new SandboxWorld({ clock });
  const storage = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
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
  await host.start();
  for (const actor of ['user:ann', 'user:bob'])
    await host.grants.create({ action: 'download.plan', actor }).catch(() => {});
  cleanups.push(() => host.stop());
  return { host, storage, telegram };
}

async function until<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  ms = 20_000,
): Promise<T> {
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

const rowsOf = (storage: SqliteStorage, chat: FakeChat): Promise<OutboxRecord[]> =>
  storage.outbox.listByChat(CHANNEL, String(chat.id), { limit: 1000 });

const repliesTo = (fake: FakeBotApi, chat: FakeChat, messageId: number): FakeShownMessage[] =>
  fake.sent(chat.id).filter((m) => m.replyTo === messageId);

async function promptIn(fake: FakeBotApi, chat: FakeChat, after = 0): Promise<FakeShownMessage> {
  return until(
    () => fake.sent(chat.id).find((m) => m.messageId > after && m.buttons.length > 0),
    `a prompt in chat ${chat.id}`,
  );
}

async function tapAndWait(fake: FakeBotApi, chat: FakeChat, user: FakeUser, messageId: number, data: string) {
  const tapId = fake.userTaps(chat, user, messageId, data);
  await until(() => fake.tapAnswers.some((a) => a.callbackQueryId === tapId), `the answer to tap ${tapId}`);
  return fake.tapAnswers.find((a) => a.callbackQueryId === tapId)!;
}

/** Ann asks to add Dune: Part Two in `chat`; resolves once the run waits and its prompt is shown. */
async function annWaitsForApproval(host: AgentHost, fake: FakeBotApi, chat: FakeChat) {
  const ask = fake.userSays(chat, ann, 'Add Dune: Part Two to the library');
  const run = await until(async () => (await runsOf(host, chat)).find((r) => r.startedBy === 'user:ann'), 'the run');
  await waitForRunStatus(host, run.id, ['waiting'], { timeoutMs: 20_000 });
  const asked = await requestedApproval(host, run.id);
  const prompt = await promptIn(fake, chat);
  return { ask, run, asked, prompt };
}

const appliedIds = async (host: AgentHost, runId: string): Promise<string[]> =>
  (await host.getRun(runId, { limit: 1000 })).events
    .filter((e) => e.type === 'inbox_applied')
    .flatMap((e) => (e.data as { inboxIds: string[] }).inboxIds);

describe('append rules through Telegram', () => {
  it('two people writing at once in a group each get their own run and their own reply; nothing is dropped', async () => {
    const fake = await fakeApi();
    const { host } = await startHost({ fake });
    const a = fake.userSays(family, ann, 'say hello from Ann');
    const b = fake.userSays(family, bob, 'say hello from Bob');
    const replyA = await until(
      () => repliesTo(fake, family, a.message_id).find((m) => m.text.includes('Answer to')),
      "Ann's reply",
    );
    const replyB = await until(
      () => repliesTo(fake, family, b.message_id).find((m) => m.text.includes('Answer to')),
      "Bob's reply",
    );
    expect(replyA.text).toBe('Answer to "say hello from Ann".');
    expect(replyB.text).toBe('Answer to "say hello from Bob".');
    const runs = await runsOf(host, family);
    expect(runs.map((r) => [r.startedBy, r.goal]).sort()).toEqual([
      ['user:ann', 'say hello from Ann'],
      ['user:bob', 'say hello from Bob'],
    ]);
  }, 60_000);

  it('a person whose role changes mid-run gets a run of their own, never appended; her tap counts with her new role', async () => {
    const fake = await fakeApi();
    const { host } = await startHost({ fake });
    const { run, asked, prompt } = await annWaitsForApproval(host, fake, family);
    roles['user:ann'] = 'user';
    const later = fake.userSays(family, ann, 'say as an ordinary user now');
    const second = await until(
      async () => (await runsOf(host, family)).find((r) => r.id !== run.id),
      'a second run for the message after the role change',
    );
    expect(second.goal).toBe('say as an ordinary user now');
    expect((await host.getRun(run.id)).inbox).toEqual([]);
    expect(await appliedIds(host, run.id)).toEqual([]);
    await until(() => repliesTo(fake, family, later.message_id).length > 0, 'the reply to the later message');
    // Ann, now an ordinary user, taps Approve on the prompt she was shown as an administrator: refused.
    const refused = await tapAndWait(fake, family, ann, prompt.messageId, prompt.buttons[0]![0]!.data);
    expect(refused.showAlert).toBe(true);
    expect((await host.approvals.get(asked.approvalId)).status).toBe('requested');
    roles['user:ann'] = 'admin';
    const ok = await tapAndWait(fake, family, ann, prompt.messageId, prompt.buttons[0]![0]!.data);
    expect(ok.showAlert).toBe(false);
    expect((await host.approvals.get(asked.approvalId)).decidedBy).toBe('user:ann');
  }, 60_000);

  // Finding (fails): the messages queued while the step that applied the first one ran stay in the inbox while the
  // run goes back to waiting for its approval; they reach the model only after the approval is decided.
  it('many steering messages in a row on an edit-capable channel: all reach the one run, none dropped; the rest of the answer replies to a steering message', async () => {
    const fake = await fakeApi();
    const { host, storage } = await startHost({ fake });
    const { run } = await annWaitsForApproval(host, fake, annChat);
    const steers = Array.from({ length: 6 }, (_, i) => fake.userSays(annChat, ann, `steer number ${i + 1}`));
    const steerIds = new Set(steers.map((s) => s.message_id));
    await until(async () => {
      const r = await host.getRun(run.id);
      return (await appliedIds(host, run.id)).length === 6 && r.inbox.length === 0;
    }, 'all six steering messages applied');
    expect((await runsOf(host, annChat)).map((r) => r.id)).toEqual([run.id]);
    const answer = await until(
      () => fake.sent(annChat.id).find((m) => m.replyTo !== undefined && steerIds.has(m.replyTo)),
      'a message replying to a steering message',
    );
    expect(answer.text.length).toBeGreaterThan(0);
    await until(async () => (await rowsOf(storage, annChat)).every((r) => r.status !== 'queued'), 'all rows delivered');
    expect((await rowsOf(storage, annChat)).filter((r) => r.status === 'failed')).toEqual([]);
    for (const m of fake.sent(annChat.id)) expect(m.text.length).toBeLessThanOrEqual(4096);
  }, 60_000);
});

describe('buttons and taps through Telegram', () => {
  it('a tap on a choice button answers the question as the tapping person; the same tap again is stale', async () => {
    const fake = await fakeApi();
    const { host } = await startHost({ fake });
    fake.userSays(annChat, ann, 'add Dune to my library');
    const run = await until(async () => (await runsOf(host, annChat))[0], 'the run');
    await waitForRunStatus(host, run.id, ['waiting'], { timeoutMs: 20_000 });
    const asked = (await host.getRun(run.id, { limit: 1000 })).events.find((e) => e.type === 'input_requested');
    expect(asked).toBeDefined();
    const prompt = await promptIn(fake, annChat);
    const options = prompt.buttons.flat();
    expect(options.length).toBeGreaterThanOrEqual(2);
    const partTwo = options.find((o) => /Part Two/.test(o.text))!;
    expect(partTwo).toBeDefined();
    const answer = await tapAndWait(fake, annChat, ann, prompt.messageId, partTwo.data);
    expect(answer.showAlert).toBe(false);
    // The option's text reached the run as Ann's message (appended or applied), in this run, not a new one.
    await until(async () => {
      const r = await host.getRun(run.id, { limit: 1000 });
      return r.inbox.some((m) => /Part Two/.test(m.text)) || (await appliedIds(host, run.id)).length > 0;
    }, 'the choice reaching the run');
    expect((await runsOf(host, annChat)).length).toBe(1);
    const replay = await tapAndWait(fake, annChat, ann, prompt.messageId, partTwo.data);
    expect(replay.showAlert).toBe(true);
  }, 60_000);

  it("another person's tap on a choice in a group is that person's message: it never steers the asker's run", async () => {
    const fake = await fakeApi();
    const { host } = await startHost({ fake });
    fake.userSays(family, ann, 'add Dune to my library');
    const run = await until(async () => (await runsOf(host, family))[0], 'the run');
    await waitForRunStatus(host, run.id, ['waiting'], { timeoutMs: 20_000 });
    const prompt = await promptIn(fake, family);
    const partTwo = prompt.buttons.flat().find((o) => /Part Two/.test(o.text))!;
    await tapAndWait(fake, family, bob, prompt.messageId, partTwo.data);
    // Bob's answer is his message under the append rules: a run of his own (other_person), not Ann's inbox.
    const bobs = await until(
      async () => (await runsOf(host, family)).find((r) => r.startedBy === 'user:bob'),
      "Bob's own run",
    );
    expect(bobs.id).not.toBe(run.id);
    expect((await host.getRun(run.id)).inbox).toEqual([]);
    expect(await appliedIds(host, run.id)).toEqual([]);
    expect((await host.getRun(run.id)).run.status).toBe('waiting');
  }, 60_000);

  it('a button tapped in another chat than the one it was signed for is refused as forged', async () => {
    const fake = await fakeApi();
    const { host } = await startHost({ fake });
    const { asked, prompt } = await annWaitsForApproval(host, fake, family);
    // Ann forwards/copies the button data into her private chat and taps it there.
    const answer = await tapAndWait(fake, annChat, ann, prompt.messageId, prompt.buttons[0]![0]!.data);
    expect(answer.showAlert).toBe(true);
    expect((await host.approvals.get(asked.approvalId)).status).toBe('requested');
    const refused = (await host.audit({ limit: 1000 })).filter((a) => a.action === 'channel.tap_refused');
    expect(refused.map((a) => a.reason)).toEqual(['CHANNEL_TAP_FORGED']);
  }, 60_000);

  it('a tap from an unknown Telegram user decides nothing, is answered visibly, audited each time and told once', async () => {
    const fake = await fakeApi();
    const { host, storage } = await startHost({ fake });
    const { asked, prompt } = await annWaitsForApproval(host, fake, family);
    const approve = prompt.buttons[0]![0]!.data;
    const first = await tapAndWait(fake, family, eve, prompt.messageId, approve);
    const second = await tapAndWait(fake, family, eve, prompt.messageId, approve);
    for (const a of [first, second]) {
      expect(a.showAlert).toBe(true);
      expect(a.text ?? '').not.toBe('');
    }
    expect((await host.approvals.get(asked.approvalId)).status).toBe('requested');
    const audit = (await host.audit({ limit: 1000 })).filter((a) => a.action === 'channel.unknown_user');
    expect(audit).toHaveLength(2);
    const told = (await rowsOf(storage, family)).filter((r) => /not linked/.test(r.payload.text ?? ''));
    expect(told).toHaveLength(1);
  }, 60_000);

  it('callback data altered by one byte anywhere is refused as forged, visibly, and decides nothing', async () => {
    const fake = await fakeApi();
    const { host } = await startHost({ fake });
    const { asked, prompt } = await annWaitsForApproval(host, fake, annChat);
    const approve = prompt.buttons[0]![0]!.data;
    const flip = (s: string, i: number) =>
      s.slice(0, i) + (s[i] === 'a' ? 'b' : s[i] === '.' ? ',' : 'a') + s.slice(i + 1);
    const positions = [0, 3, approve.indexOf('.') + 1, Math.floor(approve.length / 2), approve.length - 1];
    const altered = [...new Set(positions.map((i) => flip(approve, i)))].filter((d) => d !== approve);
    // Approve → reject, keeping the Approve button's MAC.
    altered.push(approve.replace(/^a\./, 'r.'));
    expect(altered.at(-1)).not.toBe(approve);
    for (const data of altered) {
      const answer = await tapAndWait(fake, annChat, ann, prompt.messageId, data);
      expect({ data, alert: answer.showAlert }).toEqual({ data, alert: true });
    }
    expect((await host.approvals.get(asked.approvalId)).status).toBe('requested');
    const refused = (await host.audit({ limit: 1000 })).filter((a) => a.action === 'channel.tap_refused');
    expect(refused.map((a) => a.reason)).toEqual(altered.map(() => 'CHANNEL_TAP_FORGED'));
    expect((await host.audit({ limit: 1000 })).filter((a) => a.action === 'approval.decided')).toEqual([]);
  }, 60_000);
});

describe('text on Telegram', () => {
  it('a reply longer than 4096 with an emoji at the cut arrives whole, never splitting the surrogate pair', async () => {
    const fake = await fakeApi();
    const { host, storage } = await startHost({ fake });
    const ask = fake.userSays(annChat, ann, 'emoji cut please');
    const run = await until(async () => (await runsOf(host, annChat))[0], 'the run');
    await waitForRunStatus(host, run.id, ['succeeded'], { timeoutMs: 20_000 });
    await until(async () => {
      const rows = await storage.outbox.listByRun(run.id, { limit: 100 });
      return rows.length > 0 && rows.every((r) => r.status === 'sent');
    }, 'every row sent');
    const shown = fake.sent(annChat.id);
    expect(shown.map((m) => m.text).join('')).toBe(EMOJI_AT_CUT);
    for (const m of shown) {
      expect(m.text.length).toBeLessThanOrEqual(4096);
      const last = m.text.charCodeAt(m.text.length - 1);
      expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
      const first = m.text.charCodeAt(0);
      expect(first >= 0xdc00 && first <= 0xdfff).toBe(false);
    }
    expect(shown[0]!.replyTo).toBe(ask.message_id);
  }, 60_000);

  it('markdown is removed on the plain channel while file names, RTL text, emoji and angle brackets show as written', async () => {
    const fake = await fakeApi();
    const { host } = await startHost({ fake });
    const ask = fake.userSays(annChat, ann, 'markdown please');
    const reply = await until(() => repliesTo(fake, annChat, ask.message_id)[0], 'the reply');
    const run = (await runsOf(host, annChat))[0]!;
    await waitForRunStatus(host, run.id, ['succeeded'], { timeoutMs: 20_000 });
    const text = await until(() => {
      const t = fake.sent(annChat.id).find((m) => m.messageId === reply.messageId)!.text;
      return t.includes('a * b') || t.includes('c') ? t : undefined;
    }, 'the final text');
    expect(text).not.toContain('**');
    expect(text).toContain('Done: saved to /media/movies/dune_part_two_2024.mkv');
    expect(text).toContain('שלום עולם — ‏עברית‏ 👨‍👩‍👧 <b>not html</b> &amp; a * b * c');
  }, 60_000);
});

describe('the outbox against a failing Bot API', () => {
  it('a 429 with retry_after on one chat pauses that chat only; another chat keeps flowing; the paused reply comes after retry_after', async () => {
    const fake = await fakeApi();
    await startHost({ fake });
    fake.failNext('sendMessage', { kind: 'rate_limit', retryAfter: 2 });
    const a = fake.userSays(annChat, ann, 'say A first');
    await until(() => fake.calls.find((c) => c.method === 'sendMessage' && c.status === 429), 'the 429');
    const limitedAt = Date.now();
    const b = fake.userSays(bobChat, bob, 'say B meanwhile');
    await until(() => repliesTo(fake, bobChat, b.message_id).length > 0, "Bob's reply");
    expect(repliesTo(fake, annChat, a.message_id)).toEqual([]);
    const replyA = await until(() => repliesTo(fake, annChat, a.message_id)[0], "Ann's reply after the pause");
    expect(Date.now() - limitedAt).toBeGreaterThanOrEqual(1900);
    expect(replyA.text).toBe('Answer to "say A first".');
    // The rate-limited chat was not retried before retry_after.
    const annSends = fake.callsOf('sendMessage').filter((c) => String(c.params.chat_id) === String(annChat.id));
    expect(annSends.map((c) => c.status)).toEqual([429, 200]);
  }, 60_000);

  it('sends failing for a while, then the Bot API down entirely, then back: every message arrives, once, in order', async () => {
    const fake = await fakeApi();
    const { host, storage } = await startHost({ fake, outbox: { backoff: { baseMs: 20, maxMs: 100 } } });
    // Phase 1: the first ten sendMessage calls are reset; a three-part reply queues behind its head row.
    fake.failNext('sendMessage', { kind: 'reset' }, 10);
    const ask = fake.userSays(annChat, ann, 'write long please');
    const run = await until(async () => (await runsOf(host, annChat))[0], 'the long run');
    await waitForRunStatus(host, run.id, ['succeeded'], { timeoutMs: 20_000 });
    const rows = await until(async () => {
      const r = await storage.outbox.listByRun(run.id, { limit: 100 });
      return r.length > 0 && r.every((x) => x.status === 'sent') ? r : undefined;
    }, 'the long reply delivered after the resets');
    const shown = fake.sent(annChat.id);
    expect(shown.map((m) => m.text).join('')).toBe(`${'word '.repeat(2000).trim()}.`);
    expect(shown[0]!.replyTo).toBe(ask.message_id);
    expect([...rows].sort((x, y) => x.seq - y.seq).map((r) => r.sentMessageId)).toEqual(
      shown.map((m) => String(m.messageId)),
    );
    expect(rows.find((r) => r.seq === Math.min(...rows.map((x) => x.seq)))!.attempts).toBe(11);

    // Phase 2: Bob's run waits for approval; the Bot API goes down entirely (polling and sending); Bob steers the
    // run from the web (host.appendToInbox), so the run writes rows during the outage.
    fake.userSays(bobChat, bob, 'Add Oppenheimer to the library');
    const bobRun = await until(async () => (await runsOf(host, bobChat))[0], "Bob's run");
    await waitForRunStatus(host, bobRun.id, ['waiting'], { timeoutMs: 20_000 });
    await promptIn(fake, bobChat);
    await until(async () => (await rowsOf(storage, bobChat)).every((r) => r.status === 'sent'), 'bob rows sent');
    const before = (await rowsOf(storage, bobChat)).length;
    fake.down = true;
    await host.appendToInbox(bobRun.id, 'prefer the smaller file', 'user:bob');
    await until(async () => {
      const queued = (await rowsOf(storage, bobChat)).filter((r) => r.status === 'queued');
      return queued.length > 0 && queued.some((r) => r.attempts >= 5);
    }, 'rows retried during the outage');
    fake.down = false;
    const bobRows = await until(async () => {
      const r = await rowsOf(storage, bobChat);
      return r.length > before && r.every((x) => x.status === 'sent') ? r : undefined;
    }, 'every bob row sent after the outage');
    expect(bobRows.filter((r) => r.status === 'failed')).toEqual([]);
    // In order: sends (not edits) in seq order got increasing message ids; what the chat shows is what was written.
    const sends = [...bobRows].filter((r) => r.kind !== 'edit').sort((x, y) => x.seq - y.seq);
    const sentIds = sends.map((r) => Number(r.sentMessageId));
    expect(sentIds).toEqual([...sentIds].sort((x, y) => x - y));
    expect(fake.sent(bobChat.id).map((m) => m.messageId)).toEqual(sentIds);
    // Once: every accepted sendMessage is one row's message.
    const allRows = [...(await rowsOf(storage, annChat)), ...bobRows];
    expect(fake.callsOf('sendMessage').filter((c) => c.status === 200)).toHaveLength(
      allRows.filter((r) => r.kind !== 'edit').length,
    );
    // Receiving resumed too: a new message after the outage is answered.
    const after = fake.userSays(bobChat, bob, 'say back again');
    await until(() => repliesTo(fake, bobChat, after.message_id).length > 0, 'a reply after the outage');
  }, 90_000);
});

describe('run end notices', () => {
  // Finding (fails): no notice row is written when the run is aborted (within 10 s, no further input).
  it('a run aborted while it waits for an approval tells its chat, without any further message from the person', async () => {
    const fake = await fakeApi();
    const { host, storage } = await startHost({ fake });
    const { ask, run } = await annWaitsForApproval(host, fake, annChat);
    await host.abort(run.id, 'stopped from the web console', { actor: 'user:ann' });
    expect((await host.getRun(run.id)).run.status).toBe('cancelled');
    const told = await until(
      () => repliesTo(fake, annChat, ask.message_id).find((m) => /cancelled/.test(m.text)),
      'the cancellation told in the chat',
      10_000,
    );
    expect(told.text).toContain('stopped from the web console');
  }, 60_000);
});

describe('webhook mode', () => {
  it('a request with a wrong or missing secret answers 401 and handles nothing; the right secret is handled', async () => {
    const fake = await fakeApi();
    fake.addChat(annChat, ann);
    const { host, storage, telegram } = await startHost({ fake, webhookSecret: 'trial-webhook-secret-1' });
    const handler = telegram.webhookFetchHandler();
    const update = (id: number, text: string) => ({
      update_id: id,
      message: {
        message_id: 900 + id,
        date: Math.floor(Date.now() / 1000),
        chat: { id: annChat.id, type: 'private', first_name: 'Ann' },
        from: { id: ann.id, is_bot: false, first_name: 'Ann' },
        text,
      },
    });
    const post = (body: unknown, secret?: string) =>
      handler(
        new Request('http://127.0.0.1/telegram', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(secret !== undefined ? { 'X-Telegram-Bot-Api-Secret-Token': secret } : {}),
          },
          body: JSON.stringify(body),
        }),
      );
    expect((await post(update(1, 'say wrong secret'), 'trial-webhook-secret-2')).status).toBe(401);
    expect((await post(update(2, 'say no secret'))).status).toBe(401);
    expect((await post(update(3, 'say empty secret'), '')).status).toBe(401);
    expect(await runsOf(host, annChat)).toEqual([]);
    expect((await post(update(4, 'say right secret'), 'trial-webhook-secret-1')).status).toBe(200);
    const runs = await until(async () => {
      const r = await runsOf(host, annChat);
      return r.length > 0 ? r : undefined;
    }, 'the run of the right request');
    expect(runs.map((r) => r.goal)).toEqual(['say right secret']);
    await until(
      () =>
        fake
          .callsOf('sendMessage')
          .some((c) => (c.params.reply_parameters as { message_id?: number } | undefined)?.message_id === 904),
      'the reply to the webhook message',
    );
  }, 60_000);
});
