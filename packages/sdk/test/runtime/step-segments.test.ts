// Steps merged into one commit keep their boundaries (runtime/loop/step-writes.ts `ends`, `stepSegments`).
import { describe, expect, it } from 'vitest';
import { mergeSteps, stepSegments, StepWrites, type TakenStep } from '../../src/runtime/loop/step-writes';
import type { ModelMessage } from '../../src/models';

const message = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });

/** A step with these assistant texts as messages and one `text_delta` event per given event text. */
function step(texts: string[], events: string[]): TakenStep {
  const writes = new StepWrites();
  for (const t of texts) writes.messages.push(message(t));
  for (const e of events) writes.events.push({ type: 'text_delta', data: { text: e } });
  return { patch: {}, writes };
}

const textsOf = (messages: ModelMessage[]) =>
  messages.map((m) => (m.content as Array<{ text: string }>).map((p) => p.text).join(''));
const eventsOf = (events: StepWrites['events']) => events.map((e) => (e.data as { text: string }).text);

describe('merged steps', () => {
  it('a step never merged is one segment, with no inner end', () => {
    const s = step(['a'], ['e1']);
    expect(s.writes.ends).toEqual([]);
    expect(stepSegments(s.writes).map((g) => [textsOf(g.messages), eventsOf(g.events)])).toEqual([[['a'], ['e1']]]);
  });

  it('three merged steps keep each end, in order, counted from the start of the merge', () => {
    const merged = mergeSteps(mergeSteps(step(['a'], ['e1', 'e2']), step(['b', 'c'], ['e3'])), step([], ['e4']));
    expect(merged.writes.ends).toEqual([
      { messages: 1, events: 2 },
      { messages: 3, events: 3 },
    ]);
    expect(stepSegments(merged.writes).map((g) => [textsOf(g.messages), eventsOf(g.events)])).toEqual([
      [['a'], ['e1', 'e2']],
      [['b', 'c'], ['e3']],
      [[], ['e4']],
    ]);
  });

  it('merging is associative: the same ends whichever pair is merged first', () => {
    const [x, y, z] = [step(['a'], ['e1']), step(['b'], ['e2']), step(['c'], ['e3'])];
    const left = mergeSteps(mergeSteps(x, y), z);
    const [x2, y2, z2] = [step(['a'], ['e1']), step(['b'], ['e2']), step(['c'], ['e3'])];
    const right = mergeSteps(x2, mergeSteps(y2, z2));
    expect(left.writes.ends).toEqual(right.writes.ends);
  });

  it('a step without events has no end of its own: its messages belong to the next segment', () => {
    const merged = mergeSteps(step(['a'], []), step(['b'], ['e1']));
    expect(merged.writes.ends).toEqual([]);
    expect(stepSegments(merged.writes).map((g) => textsOf(g.messages))).toEqual([['a', 'b']]);
  });

  it('clear forgets the ends', () => {
    const merged = mergeSteps(step(['a'], ['e1']), step(['b'], ['e2']));
    merged.writes.clear();
    expect(merged.writes.ends).toEqual([]);
    expect(stepSegments(merged.writes)).toEqual([{ messages: [], events: [] }]);
  });
});
