// A channel run that ends outside a step still tells its chat: a direct cancel (`host.abort` of a run nobody drives:
// queued, waiting, orphaned) and a driver failure write the end notice in the transaction that ends the run, and
// the dispatcher is woken after the commit (docs/channels.md#replies-and-steering).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  createAgentHost,
  SystemClock,
  type AgentHost,
  type IdentityResolver,
  type RunRecord,
} from '../../src/index';
import type { TracingOptions } from '../../src/loop';
import { SqliteStorage } from '../../src/sqlite';
import { registerSandboxCapabilities, SandboxWorld, ScriptedProvider, waitForRunStatus } from '../../src/testing';
import type { ChannelInput } from '../../src/ports/channel';
import type { DefaultAgentHost } from '../../src/runtime/agent-host';
import { conversationOf } from '../../src/runtime/channels/conversation-binding';
import { TestChannel } from './test-channel';

class InputChannel extends TestChannel {
  override async start(): Promise<void> {}
}

const identity: IdentityResolver = {
  roleOf: () => 'admin',
  personOf: (_channelId, userId) => (userId === '100' ? 'user:mum' : null),
};

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A host on a SQLite file with one test channel; `workers` off keeps runs queued (nobody drives them). */
async function hostWith(options: { workers: boolean; tracing?: TracingOptions }) {
  const dir = mkdtempSync(join(tmpdir(), 'ma-end-notice-'));
  const clock = new SystemClock();
  const world = new SandboxWorld({ clock });
  const channel = new InputChannel('tg:home');
  const storage = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
  const host = createAgentHost({
    storage,
    clock,
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: [{ name: 'say', match: /^say/, finalText: 'Said.' }] }) },
    goalFacts: world,
    identity,
    runs: { pollMs: 5 },
    // A 10-minute poll: only the wake after the commit delivers in time.
    channels: { ports: [channel], outbox: { pollIntervalMs: 600_000 } },
    ...(options.tracing ? { tracing: options.tracing } : {}),
  });
  registerSandboxCapabilities(host, world);
  await host.start({ workers: options.workers });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => host.stop());
  return { host, channel, storage };
}

const message = (messageId: string, text: string): ChannelInput => ({
  kind: 'text',
  channelId: 'tg:home',
  chatId: 'p1',
  chatType: 'private',
  userId: '100',
  messageId,
  text,
  attachments: [],
});

async function startFromChat(host: AgentHost, input: ChannelInput): Promise<string> {
  const outcome = await (host as DefaultAgentHost).channelRouter!.handle(input);
  expect(outcome.kind).toBe('started');
  return (outcome as { runId: string }).runId;
}

async function until<T>(check: () => T | undefined | false, what: string, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('end notices of a channel run that ends outside a step', () => {
  it('a queued run cancelled directly: the chat is told, replying to the message that started it, once', async () => {
    const { host, channel, storage } = await hostWith({ workers: false });
    const runId = await startFromChat(host, message('m1', 'say hello'));
    const cancelled: RunRecord = await host.abort(runId, 'stopped by Mum', { actor: 'user:mum' });
    expect(cancelled.status).toBe('cancelled');
    // The binding moved on with the notice (its row count), in the same transaction.
    expect(conversationOf(cancelled)?.rows).toBe(1);
    const told = await until(() => channel.delivered[0], 'the notice');
    expect(told).toMatchObject({
      kind: 'send',
      message: { chatId: 'p1', text: 'The task ended cancelled: stopped by Mum.', replyToMessageId: 'm1' },
    });
    // Aborting again changes nothing and tells nothing more.
    await host.abort(runId, 'again');
    expect((await storage.outbox.listByRun(runId, { limit: 10 })).map((r) => [r.kind, r.status])).toEqual([
      ['notice', 'sent'],
    ]);
    expect((await host.getRun(runId)).run.status).toBe('cancelled');
    expect(channel.texts('p1')).toEqual(['The task ended cancelled: stopped by Mum.']);
  }, 30_000);

  it('a run whose driver fails outside a step (its tracer throws): the chat is told it failed', async () => {
    const tracer = {
      startSpan() {
        throw new Error('tracer broke');
      },
    } as unknown as NonNullable<TracingOptions['tracer']>;
    const { host, channel } = await hostWith({ workers: true, tracing: { tracer } });
    const runId = await startFromChat(host, message('m7', 'say hello'));
    await waitForRunStatus(host, runId, ['failed'], { timeoutMs: 15_000 });
    const told = await until(() => channel.delivered[0], 'the notice');
    expect(told).toMatchObject({
      kind: 'send',
      message: { chatId: 'p1', text: 'The task ended failed: DRIVER_FAILED.', replyToMessageId: 'm7' },
    });
    expect(channel.texts('p1')).toEqual(['The task ended failed: DRIVER_FAILED.']);
  }, 30_000);
});
