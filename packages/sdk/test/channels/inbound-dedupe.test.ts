// Inbound de-duplication: a channel redelivers a message when the process died before the update offset was
// confirmed (Telegram getUpdates) or when a webhook delivery is retried. The router handles one (channel, chat,
// channel message id) at most once, across restarts on the same SQLite file: the input's once key is claimed in the
// transaction of the run or inbox message it makes (docs/channels.md#inbound-de-duplication).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, ManualClock, type AgentHost, type IdentityResolver } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { addToLibraryScript, registerSandboxCapabilities, SandboxWorld, ScriptedProvider } from '../../src/testing';
import type { ChannelInput } from '../../src/ports/channel';
import type { DefaultAgentHost } from '../../src/runtime/agent-host';
import type { ChannelInputOutcome } from '../../src/runtime/channels/channel-router';
import { inputOnceKey } from '../../src/runtime/channels/channel-router';
import { conversationSessionId } from '../../src/runtime/channels/conversation-binding';
import { TestChannel } from './test-channel';

class InputChannel extends TestChannel {
  override async start(): Promise<void> {}
}

const identity: IdentityResolver = {
  roleOf: () => 'admin',
  personOf: (_channelId, userId) => (userId === '100' ? 'user:mum' : null),
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ma-dedupe-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'agent.sqlite');
}

/** A host on `file` with one channel, no workers (runs stay queued: every message meets the run under way). */
async function hostOn(file: string) {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const world = new SandboxWorld({ clock });
  const host = createAgentHost({
    storage: new SqliteStorage({ path: file }),
    clock,
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: [addToLibraryScript('Dune: Part Two')] }) },
    goalFacts: world,
    identity,
    channels: { ports: [new InputChannel('tg:home')], outbox: { pollIntervalMs: 10 } },
  });
  registerSandboxCapabilities(host, world);
  await host.start({ workers: false });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await host.stop();
  };
  cleanups.push(stop);
  return { host, stop };
}

const text = (messageId: string, body: string): ChannelInput => ({
  kind: 'text',
  channelId: 'tg:home',
  chatId: 'g1',
  chatType: 'group',
  userId: '100',
  messageId,
  text: body,
  attachments: [],
});

function send(host: AgentHost, input: ChannelInput): Promise<ChannelInputOutcome> {
  return (host as DefaultAgentHost).channelRouter!.handle(input);
}

const chatRuns = (host: AgentHost) => host.listRuns({ sessionId: conversationSessionId('tg:home', 'g1') });

describe('inbound de-duplication', () => {
  it('the same message handed over twice starts one run; a steering message handed over twice is queued once', async () => {
    const { host } = await hostOn(tempFile());
    const first = await send(host, text('m1', 'Add Dune: Part Two'));
    expect(first.kind).toBe('started');
    const runId = (first as { runId: string }).runId;
    expect(await send(host, text('m1', 'Add Dune: Part Two'))).toEqual({
      kind: 'duplicate',
      key: inputOnceKey(text('m1', '')),
      by: runId,
    });
    expect((await chatRuns(host)).map((r) => r.id)).toEqual([runId]);

    const steer = await send(host, text('m2', 'the 4K one'));
    expect(steer.kind).toBe('appended');
    const again = await send(host, text('m2', 'the 4K one'));
    expect(again).toEqual({
      kind: 'duplicate',
      key: inputOnceKey(text('m2', '')),
      by: (steer as { inboxId: string }).inboxId,
    });
    expect((await host.getRun(runId)).inbox.map((m) => m.text)).toEqual(['the 4K one']);
    expect((await chatRuns(host)).length).toBe(1);
    // Another message id is another message.
    expect((await send(host, text('m3', 'no HDR'))).kind).toBe('appended');
    expect((await host.getRun(runId)).inbox.map((m) => m.text)).toEqual(['the 4K one', 'no HDR']);
  }, 30_000);

  it('across a restart on the same SQLite file: a redelivered message does nothing, even when its run ended meanwhile', async () => {
    const file = tempFile();
    const one = await hostOn(file);
    const started = await send(one.host, text('m1', 'Add Dune: Part Two'));
    const runId = (started as { runId: string }).runId;
    expect((await send(one.host, text('m2', 'the 4K one'))).kind).toBe('appended');
    await one.stop();

    const two = await hostOn(file);
    // The process died before the offset was confirmed: both updates come again.
    expect((await send(two.host, text('m1', 'Add Dune: Part Two'))).kind).toBe('duplicate');
    expect((await send(two.host, text('m2', 'the 4K one'))).kind).toBe('duplicate');
    expect((await chatRuns(two.host)).map((r) => r.id)).toEqual([runId]);
    expect((await two.host.getRun(runId)).inbox.map((m) => m.text)).toEqual(['the 4K one']);
    // The run ended: the append rule would now start a new run for m2 — the once key still holds.
    await two.host.abort(runId, 'stopped');
    expect((await send(two.host, text('m2', 'the 4K one'))).kind).toBe('duplicate');
    expect((await chatRuns(two.host)).map((r) => r.id)).toEqual([runId]);
    // A new message after the end starts its own run, as always.
    expect((await send(two.host, text('m4', 'something else'))).kind).toBe('started');
    expect((await chatRuns(two.host)).length).toBe(2);
  }, 30_000);

  it('once keys: message and tap keys differ, a long key is hashed', () => {
    const tap: ChannelInput = {
      kind: 'tap',
      channelId: 'tg:home',
      chatId: 'g1',
      chatType: 'group',
      userId: '100',
      messageId: 'm1',
      tapId: 't1',
      data: 'x',
    };
    expect(inputOnceKey(text('m1', ''))).toBe('channels.input:tg:home:g1:m1');
    expect(inputOnceKey(tap)).toBe('channels.tap:tg:home:g1:t1');
    const long = inputOnceKey({ ...text('m1', ''), chatId: 'c'.repeat(300) });
    expect(long).toMatch(/^channels\.sha256:[0-9a-f]{64}$/);
  });
});
