// Trial: fork a long run at every fork point it lists; each fork's copied conversation is closed and its `forked`
// event lists exactly the original's ledger entries made after that point; nothing is re-executed. Odd inputs.
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolCallPart } from '../../src/models/types';
import { FORK_NOTE_PREFIX } from '../../src/runtime/fork/fork-note';
import {
  cleanup,
  code,
  events,
  makeHost,
  rowCounts,
  steer,
  submittedOriginal,
  TERMINAL,
  waitForRunStatus,
  type Kind,
} from './fork-trial-helpers';

afterEach(cleanup);

type Msg = { role: string; content: unknown; toolCallId?: string };

/** Every tool call of an assistant message has a tool result in `messages`. */
function openCalls(messages: Msg[]): string[] {
  const calls = messages
    .filter((m) => m.role === 'assistant' && Array.isArray(m.content))
    .flatMap((m) => (m.content as Array<{ type: string }>).filter((p) => p.type === 'tool_call') as ToolCallPart[])
    .map((p) => p.id);
  const answered = new Set(messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId));
  return calls.filter((id) => !answered.has(id));
}

describe.each<Kind>(['memory', 'sqlite'])('fork at every fork point of a long run (%s)', (kind) => {
  it('each fork: queued, seq 1 forked, copied prefix verbatim and closed, the note last, effectsAfter = the ledger entries started after atSeq; nothing re-executed', async () => {
    const t = await makeHost(kind);
    const original = await submittedOriginal(t);
    await steer(t, original.id, 'how big is it?');
    await steer(t, original.id, 'search again');
    const downloads = t.world.downloads().length;
    expect(downloads).toBe(1);
    const points = await t.host.listForkPoints(original.id, { actor: 'user:alice' });
    expect(points.length).toBeGreaterThan(4);
    // strictly increasing seq, non-decreasing message counts
    for (let i = 1; i < points.length; i++) {
      expect(points[i]!.seq).toBeGreaterThan(points[i - 1]!.seq);
      expect(points[i]!.messageCount).toBeGreaterThanOrEqual(points[i - 1]!.messageCount);
    }
    const origEvents = await t.storage.events.listByRun(original.id, { limit: 10_000 });
    const ledger = await t.storage.ledger.listByRun(original.id, { limit: 1000 });
    expect(ledger.length).toBeGreaterThanOrEqual(2);
    // The key is on the call's outcome event; the call began with its `started` event (same callId).
    const startedSeq = (key: string) => {
      const done = origEvents.find(
        (e) => e.type === 'tool_call' && (e.data as { idempotencyKey?: string }).idempotencyKey === key,
      )!;
      const callId = (done.data as { callId: string }).callId;
      return origEvents.find(
        (e) =>
          e.type === 'tool_call' &&
          (e.data as { callId: string }).callId === callId &&
          (e.data as { phase: string }).phase === 'started',
      )?.seq;
    };
    const origMessages = (await t.storage.messages.list(original.id)).map((m) => m.message as Msg);
    for (const [i, point] of points.entries()) {
      if (i % 8 === 7) t.clock.advance(61_000); // a fork is a run start: stay under 10 a minute
      const fork = await t.host.forkRun(original.id, { atSeq: point.seq, actor: 'user:alice' });
      expect(fork, `fork at ${point.seq}`).toMatchObject({
        status: 'queued',
        forkedFrom: { runId: original.id, atSeq: point.seq },
      });
      const first = (await t.storage.events.listByRun(fork.id, { limit: 10 }))[0]!;
      expect(first).toMatchObject({ seq: 1, type: 'forked' });
      const listed = (first.data as { effectsAfter: Array<{ key: string; runId: string }> }).effectsAfter;
      const expected = ledger.filter((e) => (startedSeq(e.key) ?? 0) > point.seq).map((e) => e.key);
      expect(listed.map((e) => e.key).sort(), `effects after ${point.seq} (${point.label})`).toEqual(expected.sort());
      expect(listed.every((e) => e.runId === original.id)).toBe(true);
      const forkMessages = (await t.storage.messages.list(fork.id)).map((m) => m.message as Msg);
      expect(forkMessages.slice(0, point.messageCount)).toEqual(origMessages.slice(0, point.messageCount));
      expect(openCalls(forkMessages.slice(0, point.messageCount)), `open calls at ${point.seq}`).toEqual([]);
      const note = forkMessages[point.messageCount]!;
      expect(note.role).toBe('user');
      expect(String(note.content).startsWith(FORK_NOTE_PREFIX)).toBe(true);
      for (const key of expected) expect(String(note.content)).toContain(key);
    }
    // Let every fork run (each only answers): no effect of the original is run again.
    for (const r of await t.storage.runs.list({ limit: 1000 })) {
      if (r.forkedFrom) await waitForRunStatus(t.host, r.id, ['waiting', ...TERMINAL], { clock: t.clock, tickMs: 10 });
    }
    expect(t.world.downloads()).toHaveLength(downloads);
    expect(await t.storage.ledger.listByRun(original.id, { limit: 1000 })).toEqual(ledger);
  });
});

describe('forged and odd fork inputs: a typed code and nothing written', () => {
  it('atSeq as a string, negative, NaN, Infinity, huge; model and goal of other types; options null; actor variants', async () => {
    const t = await makeHost('sqlite');
    const original = await submittedOriginal(t);
    const points = await t.host.listForkPoints(original.id);
    const seq = points.at(-1)!.seq;
    const counts = await rowCounts(t.storage);
    const fork = (o: unknown) => code(t.host.forkRun(original.id, o as never));
    const got = {
      atSeqString: await fork({ atSeq: String(seq), actor: 'user:alice' }),
      atSeqNegative: await fork({ atSeq: -1, actor: 'user:alice' }),
      atSeqNaN: await fork({ atSeq: Number.NaN, actor: 'user:alice' }),
      atSeqInfinity: await fork({ atSeq: Number.POSITIVE_INFINITY, actor: 'user:alice' }),
      atSeqHuge: await fork({ atSeq: 2 ** 53 + 2, actor: 'user:alice' }),
      atSeqAlmost: await fork({ atSeq: seq + 0.0000001, actor: 'user:alice' }),
      atSeqMissing: await fork({ actor: 'user:alice' }),
      modelNumber: await fork({ atSeq: seq, actor: 'user:alice', model: 42 }),
      modelEmpty: await fork({ atSeq: seq, actor: 'user:alice', model: '' }),
      goalObject: await fork({ atSeq: seq, actor: 'user:alice', goal: { text: 'x' } }),
      goalTooLong: await fork({ atSeq: seq, actor: 'user:alice', goal: 'x'.repeat(10_001) }),
      optionsNull: await fork(null),
      optionsString: await fork('user:alice'),
      actorMissing: await fork({ atSeq: seq }),
      actorOther: await fork({ atSeq: seq, actor: 'user:bob' }),
      listOptionsNull: await code(t.host.listForkPoints(original.id, null as never)),
      listOther: await code(t.host.listForkPoints(original.id, { actor: 'user:bob' })),
      undoActorNumber: await code(t.host.undoLastTurn(original.id, 42 as never)),
      undoOther: await code(t.host.undoLastTurn(original.id, 'user:bob')),
    };
    expect(got).toEqual({
      atSeqString: 'FORK_POINT_INVALID',
      atSeqNegative: 'FORK_POINT_INVALID',
      atSeqNaN: 'FORK_POINT_INVALID',
      atSeqInfinity: 'FORK_POINT_INVALID',
      atSeqHuge: 'FORK_POINT_INVALID',
      atSeqAlmost: 'FORK_POINT_INVALID',
      atSeqMissing: 'FORK_POINT_INVALID',
      modelNumber: 'RUN_REQUEST_INVALID',
      modelEmpty: 'RUN_REQUEST_INVALID',
      goalObject: 'RUN_REQUEST_INVALID',
      goalTooLong: 'RUN_REQUEST_INVALID',
      // docs/forks.md#refusals: "options not an object" is RUN_REQUEST_INVALID
      optionsNull: 'RUN_REQUEST_INVALID',
      optionsString: 'RUN_REQUEST_INVALID',
      actorMissing: 'ACTOR_INVALID',
      actorOther: 'RUN_NOT_FOUND',
      listOptionsNull: 'RUN_REQUEST_INVALID',
      listOther: 'RUN_NOT_FOUND',
      undoActorNumber: 'ACTOR_INVALID',
      undoOther: 'RUN_NOT_FOUND',
    });
    expect(await rowCounts(t.storage)).toEqual(counts);
  });

  it('a fork of a run that no longer exists in the actor view: an administrator fork is the admin own; alice cannot fork it', async () => {
    const t = await makeHost('memory');
    const original = await submittedOriginal(t);
    const p = (await t.host.listForkPoints(original.id)).at(-1)!;
    const adminFork = await t.host.forkRun(original.id, { atSeq: p.seq, actor: 'user:admin' });
    expect(adminFork.startedBy).toBe('user:admin');
    const adminPoints = await t.host.listForkPoints(adminFork.id, { actor: 'user:admin' });
    // alice owns the original but not the admin's fork: she may not read it, so she may not fork it
    expect(await code(t.host.listForkPoints(adminFork.id, { actor: 'user:alice' }))).toBe('RUN_NOT_FOUND');
    expect(await code(t.host.forkRun(adminFork.id, { atSeq: adminPoints[0]!.seq, actor: 'user:alice' }))).toBe(
      'RUN_NOT_FOUND',
    );
  });
});
