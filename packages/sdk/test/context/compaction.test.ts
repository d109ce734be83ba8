import { afterAll, describe, expect, it, vi } from 'vitest';
import { isMediaAgentError } from '../../src/core/errors';
import { TiktokenCounter } from '../../src/models/token-counter';
import type { ModelMessage, ToolResultMessage } from '../../src/models/types';
import { UPDATE_PLAN_MODEL_TOOL } from '../../src/runtime/checklist';
import { toolResultMessage } from '../../src/runtime/tool-result';
import {
  compact,
  ContextTurnTooLargeError,
  dedupeRepeatedResults,
  isSummaryMessage,
  assessCompaction,
  summaryRequestMessages,
  turnBoundaries,
  type CompactionOptions,
  type PinnedFacts,
} from '../../src/runtime/context/index';
import { everyCallPaired, longConversation, toolTurn } from './context-fixtures';

const counter = new TiktokenCounter();
afterAll(() => counter.dispose());

const SYSTEM: ModelMessage[] = [
  { role: 'system', content: 'You are the media agent. Use tools; report what happened.' },
];
const base = (o: Partial<CompactionOptions> = {}): CompactionOptions => ({
  counter,
  contextWindowTokens: 16_000,
  system: SYSTEM,
  tools: [UPDATE_PLAN_MODEL_TOOL],
  ...o,
});
const modelSummary = async (messages: readonly ModelMessage[]) =>
  `The agent searched ${messages.filter((m) => m.role === 'tool').length} times for releases of Dune.`;
const textOf = (m: ModelMessage) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));

const PINNED: PinnedFacts = {
  goal: 'Find Dune (2021) in 4K, download it and organize it into the library.',
  checklist: {
    goal: 'Dune in 4K',
    steps: [
      { title: 'search', status: 'completed', evidence: 'media.search call_1_0' },
      { title: 'download', status: 'in_progress' },
    ],
  },
  unknownWrites: [
    { capabilityId: 'download.submit', callId: 'call_7_0', inputSummary: '{"release":"Dune.2021.2160p"}' },
  ],
  pendingApprovals: [{ approvalId: 'apr_42', planType: 'download', planId: 'plan_9' }],
};

describe('compaction', () => {
  it('a long conversation is compacted below the threshold with every tool call still paired with its result', async () => {
    const messages = longConversation(200);
    const options = base();
    const before = assessCompaction(messages, options);
    expect(before.needed).toBe(true);
    expect(before.totalTokens).toBeGreaterThan(0.8 * 16_000);
    expect(everyCallPaired(messages)).toBe(true);

    const summarize = vi.fn(modelSummary);
    const result = await compact(messages, { ...options, summarize });
    expect(summarize).toHaveBeenCalledOnce();
    expect(result.summarySource).toBe('model');
    expect(result.tokensAfter).toBeLessThanOrEqual(0.8 * 16_000);
    expect(result.tokensAfter).toBe(counter.countRequest([...SYSTEM, ...result.messages], [UPDATE_PLAN_MODEL_TOOL]));
    expect(isSummaryMessage(result.messages[0]!)).toBe(true);
    expect(result.messages[0]!.role).toBe('user');
    expect(textOf(result.messages[0]!)).toContain('The agent searched');
    const kept = result.messages.slice(1);
    expect(kept).toEqual(messages.slice(result.assessment.cut)); // kept verbatim, a suffix of the original
    expect(turnBoundaries(messages)).toContain(result.assessment.cut);
    expect(everyCallPaired(kept)).toBe(true);
    expect(everyCallPaired(summarize.mock.calls[0]![0])).toBe(true);

    // the conversation goes on and is compacted again: still paired, still below the threshold
    const longer = [...result.messages, ...longConversation(120).slice(1)];
    const again = await compact(longer, { ...options, summarize });
    expect(again.tokensAfter).toBeLessThanOrEqual(0.8 * 16_000);
    expect(everyCallPaired(again.messages.slice(1))).toBe(true);
    expect(again.messages.filter(isSummaryMessage)).toHaveLength(1);
  });

  it('a cut is made only at a turn boundary: never between a tool call and its result', () => {
    const parallel: ModelMessage[] = [
      { role: 'user', content: 'go' },
      ...toolTurn(1, 3),
      ...toolTurn(2, 2),
      { role: 'user', content: 'more' },
      ...toolTurn(3, 1),
    ];
    // indices: 0 user | 1 asst(3 calls) 2 3 4 results | 5 asst(2 calls) 6 7 | 8 user | 9 asst 10 result
    expect(turnBoundaries(parallel)).toEqual([1, 5, 8, 9]);
    // a result answered late (after another assistant message) keeps the boundary closed
    const late: ModelMessage[] = [
      { role: 'user', content: 'go' },
      toolTurn(1, 1)[0]!,
      { role: 'assistant', content: [{ type: 'text', text: 'waiting' }] },
      toolTurn(1, 1)[1]!,
    ];
    expect(turnBoundaries(late)).toEqual([1]);
  });

  it('the checklist, unresolved unknown writes and pending approvals survive compaction verbatim', async () => {
    const messages = longConversation(200);
    for (const summarize of [
      async () => 'Nothing important happened.',
      async () => Promise.reject(new Error('model down')),
    ]) {
      const result = await compact(messages, { ...base({ pinned: PINNED }), summarize });
      const summary = textOf(result.messages[0]!);
      expect(summary).toContain(PINNED.goal!);
      expect(summary).toContain(JSON.stringify(PINNED.checklist));
      expect(summary).toContain(JSON.stringify(PINNED.unknownWrites![0]));
      expect(summary).toContain(JSON.stringify(PINNED.pendingApprovals![0]));
      expect(summary).toMatch(/outcome is still unknown/);
      // and again after a second compaction, with the facts the driver supplies then
      const second = await compact([...result.messages, ...longConversation(150).slice(1)], {
        ...base({ pinned: PINNED }),
        summarize,
      });
      expect(second.assessment.needed).toBe(true);
      const s2 = textOf(second.messages[0]!);
      expect(s2).toContain(JSON.stringify(PINNED.checklist));
      expect(s2).toContain(JSON.stringify(PINNED.unknownWrites![0]));
      expect(s2).toContain(JSON.stringify(PINNED.pendingApprovals![0]));
      expect(s2.split('## Pinned facts').length).toBe(2); // the old pinned block is not nested in the new summary
    }
  });

  it('a summarizer failure falls back to a deterministic digest (tools with status, user messages, final texts)', async () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Find Dune (2021) in 4K and download it.' },
      ...toolTurn(0, 2),
      ...toolTurn(1, 1, 400, 'unknown'),
      ...toolTurn(2, 1, 400, 'failed'),
      { role: 'assistant', content: [{ type: 'text', text: 'I found two releases; the submit outcome is unknown.' }] },
      { role: 'user', content: 'Check the unknown one.' },
      ...Array.from({ length: 60 }, (_, t) => toolTurn(10 + t, 1, 800)).flat(),
    ];
    const options = {
      ...base({ contextWindowTokens: 12_000 }),
      summarize: async () => Promise.reject(new Error('provider 529 overloaded')),
    };
    const a = await compact(messages, options);
    const b = await compact(messages, options);
    expect(a.summarySource).toBe('fallback');
    expect(a.fallbackReason).toContain('provider 529 overloaded');
    expect(a.messages).toEqual(b.messages); // deterministic
    const digest = textOf(a.messages[0]!);
    expect(digest).toContain('no model summary: provider 529 overloaded');
    expect(digest).toContain('User: Find Dune (2021) in 4K and download it.');
    expect(digest).toContain('Tool media.search {"query":"title 0-0"} → succeeded');
    expect(digest).toContain('Tool media.search {"query":"title 1-0"} → unknown');
    expect(digest).toContain('Tool media.search {"query":"title 2-0"} → failed');
    expect(digest).toContain('Assistant: I found two releases; the submit outcome is unknown.');
    expect(a.tokensAfter).toBeLessThanOrEqual(0.8 * 12_000);
    expect(everyCallPaired(a.messages.slice(1))).toBe(true);
    // an empty summary is a failure too
    const empty = await compact(messages, { ...options, summarize: async () => '  ' });
    expect(empty.summarySource).toBe('fallback');
  });

  it('a single turn larger than the window is a typed error (CONTEXT_TURN_TOO_LARGE), never a silent drop', async () => {
    const huge = toolResultMessage('call_big', 'media.search', {
      status: 'succeeded',
      output: { text: 'word '.repeat(20_000) },
    });
    const messages: ModelMessage[] = [
      ...longConversation(5),
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'call_big', name: 'media.search', input: { query: 'everything' } }],
      },
      huge,
    ];
    const summarize = vi.fn(modelSummary);
    const error = await compact(messages, { ...base({ contextWindowTokens: 8_000 }), summarize }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ContextTurnTooLargeError);
    expect(isMediaAgentError(error, 'CONTEXT_TURN_TOO_LARGE')).toBe(true);
    const details = (error as ContextTurnTooLargeError).details as {
      turnTokens: number;
      windowTokens: number;
      from: number;
      to: number;
    };
    expect(details.turnTokens).toBeGreaterThan(8_000);
    expect(details.windowTokens).toBe(8_000);
    expect([details.from, details.to]).toEqual([messages.length - 2, messages.length]);
    expect(summarize).not.toHaveBeenCalled();
    // a single user message that alone exceeds the window fails the same way
    expect(() =>
      assessCompaction([{ role: 'user', content: 'word '.repeat(20_000) }], base({ contextWindowTokens: 8_000 })),
    ).toThrow(ContextTurnTooLargeError);
  });

  it('below the threshold nothing is compacted and the summarizer is not called', async () => {
    const messages = longConversation(5);
    const summarize = vi.fn(modelSummary);
    const result = await compact(messages, { ...base(), summarize });
    expect(result.assessment).toMatchObject({ needed: false, reason: 'below_threshold', cut: 0 });
    expect(result.messages).toEqual(messages);
    expect(summarize).not.toHaveBeenCalled();
  });

  it('identical long tool results (≥ 512 characters) repeated later are replaced by a reference to the first', () => {
    const result = (id: string, chars: number, seed = 'a'): ToolResultMessage =>
      toolResultMessage(id, 'media.search', { status: 'succeeded', output: { text: seed.repeat(chars) } });
    const call = (id: string): ModelMessage => ({
      role: 'assistant',
      content: [{ type: 'tool_call', id, name: 'media.search', input: {} }],
    });
    const long1 = result('c1', 600);
    const long2 = result('c2', 600);
    const short1 = result('s1', 200);
    const short2 = result('s2', 200);
    const other = result('o1', 600, 'b');
    const messages: ModelMessage[] = [
      call('c1'),
      long1,
      call('s1'),
      short1,
      call('c2'),
      long2,
      call('s2'),
      short2,
      call('o1'),
      other,
    ];
    expect((long1.content as string).length).toBeGreaterThanOrEqual(512);
    expect((short1.content as string).length).toBeLessThan(512);
    const out = dedupeRepeatedResults(messages);
    expect(out).toHaveLength(messages.length);
    expect(out[1]).toBe(long1);
    const replaced = out[5] as ToolResultMessage;
    expect(replaced).toMatchObject({ role: 'tool', toolCallId: 'c2', name: 'media.search', status: 'ok' });
    expect(JSON.parse(replaced.content as string)).toMatchObject({ status: 'succeeded', sameAsCallId: 'c1' });
    expect(out[7]).toBe(short2); // under 512 characters: repeated in full
    expect(out[9]).toBe(other); // different text: in full
    expect(messages[5]).toBe(long2); // the input is not modified
    // once the first is gone (compacted away), the repeat goes out in full again
    expect(dedupeRepeatedResults(messages.slice(2))[3]).toBe(long2);
  });

  it('the summarization request is a plain transcript (no tool-call pairing, long parts truncated)', () => {
    const req = summaryRequestMessages([...toolTurn(0, 1, 10_000)], 1000);
    expect(req.map((m) => m.role)).toEqual(['system', 'user']);
    const text = textOf(req[1]!);
    expect(text).toContain('[tool call media.search call_0_0]');
    expect(text).toContain('[tool result media.search call_0_0]');
    expect(text).toMatch(/truncated, \d+ more characters/);
    expect(text.length).toBeLessThan(3000);
  });
});
