// The append rule of channel conversations, as a table: which input is appended to a run under way and which
// starts or queues a conversation of its own.
import { describe, expect, it } from 'vitest';
import { decideAppend, type AppendDecision, type ChatConversation } from '../../src/runtime/channels/append-rule';

const running = (over: Partial<ChatConversation> = {}): ChatConversation => ({
  runId: 'run_a',
  status: 'running',
  pruned: false,
  queued: 0,
  channelId: 'telegram:home',
  chatId: 'group-1',
  person: 'user:mum',
  role: 'admin',
  ...over,
});

const input: { channelId: string; chatId: string; person: string; role: 'admin' | 'user' } = {
  channelId: 'telegram:home',
  chatId: 'group-1',
  person: 'user:mum',
  role: 'admin',
};

const table: Array<[string, Partial<typeof input>, ChatConversation[], AppendDecision]> = [
  ['same person, channel, chat, role; run running', {}, [running()], { kind: 'append', runId: 'run_a' }],
  ['same, run waiting', {}, [running({ status: 'waiting' })], { kind: 'append', runId: 'run_a' }],
  ['same, run queued', {}, [running({ status: 'queued' })], { kind: 'append', runId: 'run_a' }],
  ['no conversation in the chat', {}, [], { kind: 'start', reason: 'new' }],
  ['own run finished', {}, [running({ status: 'succeeded' })], { kind: 'start', reason: 'finished' }],
  ['own run failed', {}, [running({ status: 'failed' })], { kind: 'start', reason: 'finished' }],
  ['own run pruned', {}, [running({ status: 'waiting', pruned: true })], { kind: 'start', reason: 'finished' }],
  ['inbox full', {}, [running({ queued: 16 })], { kind: 'start', reason: 'inbox_full' }],
  ['inbox one short of full', {}, [running({ queued: 15 })], { kind: 'append', runId: 'run_a' }],
  ['role changed since the binding', { role: 'user' }, [running()], { kind: 'queue', reason: 'role_changed' }],
  [
    'another person in the group chat',
    { person: 'user:kid', role: 'user' },
    [running()],
    { kind: 'queue', reason: 'other_person' },
  ],
  [
    'another person, whose own run is under way too',
    { person: 'user:kid', role: 'user' },
    [running(), running({ runId: 'run_k', person: 'user:kid', role: 'user' })],
    { kind: 'append', runId: 'run_k' },
  ],
  [
    'another person; the other run finished',
    { person: 'user:kid', role: 'user' },
    [running({ status: 'succeeded' })],
    { kind: 'start', reason: 'new' },
  ],
  ['same person, another chat', { chatId: 'private-mum' }, [running()], { kind: 'start', reason: 'new' }],
  [
    'same person and chat id, another channel configuration',
    { channelId: 'telegram:work' },
    [running()],
    { kind: 'start', reason: 'new' },
  ],
  [
    'the newest own conversation decides (older one still running)',
    {},
    [running({ runId: 'run_new', status: 'succeeded' }), running({ runId: 'run_old' })],
    { kind: 'start', reason: 'finished' },
  ],
];

describe('decideAppend', () => {
  it.each(table)('%s', (_name, over, conversations, expected) => {
    expect(decideAppend({ input: { ...input, ...over }, conversations, inboxLimit: 16 })).toEqual(expected);
  });

  it('never appends to another person’s run, whatever its state', () => {
    for (const status of ['queued', 'running', 'waiting'] as const)
      expect(
        decideAppend({
          input: { ...input, person: 'user:kid', role: 'admin' },
          conversations: [running({ status })],
          inboxLimit: 16,
        }).kind,
      ).not.toBe('append');
  });
});
