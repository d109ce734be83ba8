// The reply rule: text grows one message on an edit-capable channel, a steering message closes the reply and the
// rest answers the steering message; prompts carry signed buttons, or a text code without buttons.
import { describe, expect, it } from 'vitest';
import type { ChannelCapabilities } from '../../src/ports/channel';
import { channelInboxId, type ChannelConversation } from '../../src/runtime/channels/conversation-binding';
import { replyRows } from '../../src/runtime/channels/reply-rule';
import { verifyTap } from '../../src/runtime/channels/tap-data';
import { confirmCode } from '../../src/runtime/channels/confirm-code';

const editing: ChannelCapabilities = {
  edit: true,
  buttons: true,
  maxLength: 4096,
  formatting: 'plain',
  dedupe: 'none',
};
const plain: ChannelCapabilities = { edit: false, buttons: false, maxLength: 160, formatting: 'plain', dedupe: 'none' };
const start: ChannelConversation = {
  channelId: 'telegram:home',
  chatId: '42',
  chatType: 'private',
  person: 'user:mum',
  role: 'admin',
  replyTo: 'm1',
  open: null,
  rows: 0,
  choice: null,
};
const ctx = (capabilities: ChannelCapabilities) => ({ runId: 'run_1', capabilities, secret: 's' });
const steering = { type: 'inbox_applied' as const, data: { inboxIds: [channelInboxId('msg_9', 'm7')] } };

describe('replyRows', () => {
  it('edit-capable: one message grows, steering closes it with an edit, the rest answers the steering message', () => {
    let c = start;
    const a = replyRows(c, { texts: ['Looking it up. '], events: [] }, ctx(editing));
    expect(a.rows).toEqual([{ kind: 'text', key: 'ch1', text: 'Looking it up.', replyTo: 'm1' }]);
    c = a.conversation;
    const b = replyRows(c, { texts: ['Found two.'], events: [] }, ctx(editing));
    expect(b.rows).toEqual([
      { kind: 'edit', key: 'ch2', text: 'Looking it up.\nFound two.', replyTo: null, edits: 'ch1' },
    ]);
    c = b.conversation;
    const s = replyRows(c, { texts: [], events: [steering] }, ctx(editing));
    expect(s.rows).toEqual([
      {
        kind: 'edit',
        key: 'ch3',
        text: 'Looking it up.\nFound two.',
        replyTo: null,
        edits: 'ch1',
        buttons: null,
      },
    ]);
    expect(s.conversation).toMatchObject({ open: null, replyTo: 'm7', rows: 3 });
    const d = replyRows(s.conversation, { texts: ['The 4K one, then.'], events: [] }, ctx(editing));
    expect(d.rows).toEqual([{ kind: 'text', key: 'ch4', text: 'The 4K one, then.', replyTo: 'm7' }]);
  });

  it('no edit: each text is a message; steering writes nothing but moves the reply target', () => {
    const a = replyRows(start, { texts: ['One.', 'Two.'], events: [] }, ctx(plain));
    expect(a.rows.map((r) => [r.kind, r.text, r.replyTo])).toEqual([
      ['text', 'One.', 'm1'],
      ['text', 'Two.', 'm1'],
    ]);
    const s = replyRows(a.conversation, { texts: [], events: [steering] }, ctx(plain));
    expect(s.rows).toEqual([]);
    expect(s.conversation.replyTo).toBe('m7');
  });

  it('a reply that would pass maxLength continues in a new message', () => {
    const caps = { ...editing, maxLength: 20 };
    const a = replyRows(start, { texts: ['0123456789', '0123456789'], events: [] }, ctx(caps));
    expect(a.rows.map((r) => r.kind)).toEqual(['text', 'text']);
  });

  const requested = {
    type: 'approval_requested' as const,
    data: {
      approvalId: 'apr_1',
      planType: 'download',
      planId: 'pln_1',
      payloadHash: 'ab'.repeat(32),
      capabilityId: 'download.submit',
      impact: {
        status: 'unknown' as const,
        code: 'IMPACT_NOT_DECLARED' as never,
        reason: 'r',
        summary: 'downloads 58.2 GB',
      },
      steps: [{ id: 's1', label: 'Dune: Part Two 2160p' }],
    },
  };

  it('an approval with buttons: preview and signed Approve / Reject', () => {
    const { rows } = replyRows(start, { texts: [], events: [requested] }, ctx(editing));
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row!.kind).toBe('approval');
    expect(row!.text).toContain('Impact: downloads 58.2 GB');
    expect(row!.text).toContain('- Dune: Part Two 2160p');
    const [approve, reject] = row!.buttons![0]!;
    expect(verifyTap('s', 'telegram:home', '42', approve!.data)).toEqual({
      kind: 'approve',
      ref: 'apr_1',
      hash: 'abababab',
    });
    expect(verifyTap('s', 'telegram:home', '42', reject!.data)).toMatchObject({ kind: 'reject' });
  });

  it('an approval without buttons: reply YES <code> or NO <code>', () => {
    const { rows } = replyRows(start, { texts: [], events: [requested] }, ctx(plain));
    const code = confirmCode('s', 'telegram:home', '42', { id: 'apr_1', payloadHash: 'ab'.repeat(32) });
    expect(rows[0]!.buttons).toBeUndefined();
    expect(rows[0]!.text).toContain(`Reply YES ${code} to approve or NO ${code} to reject.`);
  });

  it('a choice: a button per option; the options are remembered for the tap', () => {
    const { rows, conversation } = replyRows(
      start,
      {
        texts: [],
        events: [
          {
            type: 'input_requested',
            data: {
              reason: 'GOAL_TARGET_AMBIGUOUS',
              question: 'Which title?',
              options: [
                { title: 'Dune', year: 2021, mediaEntityId: 'tmdb:438631', names: [] },
                { title: 'Dune', year: 1984, mediaEntityId: 'tmdb:841', names: [] },
              ],
            },
          },
        ],
      },
      ctx(editing),
    );
    expect(rows[0]!.buttons!.map((r) => r[0]!.label)).toEqual(['Dune (2021, tmdb:438631)', 'Dune (1984, tmdb:841)']);
    expect(conversation.choice?.options).toEqual(['Dune (2021, tmdb:438631)', 'Dune (1984, tmdb:841)']);
    expect(verifyTap('s', 'telegram:home', '42', rows[0]!.buttons![1]![0]!.data)).toMatchObject({
      kind: 'choose',
      option: 1,
    });
  });

  it('a run that fails gets a notice; one that succeeds none', () => {
    const failed = replyRows(
      start,
      {
        texts: [],
        events: [{ type: 'run_status', data: { status: 'failed', step: 'drive', reason: 'MODEL_FAILED' } }],
      },
      ctx(plain),
    );
    expect(failed.rows.map((r) => r.text)).toEqual(['The task ended failed: MODEL_FAILED.']);
    const ok = replyRows(
      start,
      { texts: [], events: [{ type: 'run_status', data: { status: 'succeeded', step: 'finalize' } }] },
      ctx(plain),
    );
    expect(ok.rows).toEqual([]);
  });
});
