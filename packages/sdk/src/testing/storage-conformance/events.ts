/** Conformance cases for run events (`storage.events`): per-run and global sequences, paging. */
import assert from 'node:assert/strict';
import type { JsonValue } from '../../core/records';
import type { RunEventRecord } from '../../core/run-records';
import { UNICODE } from './fixtures';
import type { ConformanceCase } from './helpers';

/** Registers the event cases: round trip with sequences, paging by run, paging by global sequence. */
export function eventsCases(test: ConformanceCase): void {
  test('events round-trip every field; seq counts per run from 1 and globalSeq increases across runs', async (s) => {
    const data: JsonValue = { phase: 'succeeded', text: UNICODE, n: [1, 2.5, null, true], nested: { a: {} } };
    const stored: RunEventRecord[] = [];
    stored.push(await s.events.append({ runId: 'run-a', type: 'run_status', at: 10, data: { status: 'running' } }));
    stored.push(await s.events.append({ runId: 'run-b', type: 'tool_call', at: 11, data }));
    stored.push(await s.events.append({ runId: 'run-a', type: 'text_delta', at: 12, data: UNICODE }));
    stored.push(await s.events.append({ runId: `run-${UNICODE}`, type: 'report', at: 13, data: null }));
    stored.push(await s.events.append({ runId: 'run-b', type: 'inbox_applied', at: 14, data: [] }));
    assert.deepEqual(
      stored.map((e) => [e.runId, e.seq]),
      [
        ['run-a', 1],
        ['run-b', 1],
        ['run-a', 2],
        [`run-${UNICODE}`, 1],
        ['run-b', 2],
      ],
    );
    assert.ok(stored[0]!.globalSeq > 0);
    for (let i = 1; i < stored.length; i++)
      assert.ok(stored[i]!.globalSeq > stored[i - 1]!.globalSeq, 'globalSeq must increase');
    assert.deepEqual(stored[1], {
      runId: 'run-b',
      type: 'tool_call',
      at: 11,
      data,
      seq: 1,
      globalSeq: stored[1]!.globalSeq,
    });
    assert.deepEqual(await s.events.listByRun('run-b'), [stored[1], stored[4]]);
    assert.deepEqual(await s.events.listByRun(`run-${UNICODE}`), [stored[3]]);
    assert.deepEqual(await s.events.listAfter(), stored);
    assert.deepEqual(await s.events.listByRun('nobody'), []);
  });

  test('events keep messageCount (a step boundary) where it is given, integers up to 2^53 - 1, and have none elsewhere (absent, not undefined or null)', async (s) => {
    const plain = await s.events.append({ runId: 'run-a', type: 'text_delta', at: 1, data: { text: 'x' } });
    const bounded = await s.events.append({
      runId: 'run-a',
      type: 'tool_call',
      at: 2,
      data: { phase: 'succeeded' },
      messageCount: 7,
    });
    const zero = await s.events.append({ runId: 'run-b', type: 'run_status', at: 3, data: {}, messageCount: 0 });
    const huge = await s.events.append({
      runId: 'run-b',
      type: 'run_status',
      at: 4,
      data: {},
      messageCount: Number.MAX_SAFE_INTEGER,
    });
    assert.equal('messageCount' in plain, false);
    assert.equal(bounded.messageCount, 7);
    const read = await s.events.listByRun('run-a');
    assert.equal('messageCount' in read[0]!, false);
    assert.deepEqual(read[1], { ...bounded, messageCount: 7 });
    assert.equal(typeof read[1]!.messageCount, 'number');
    const b = await s.events.listByRun('run-b');
    assert.deepEqual(
      b.map((e) => e.messageCount),
      [0, Number.MAX_SAFE_INTEGER],
    );
    assert.deepEqual(b, [zero, huge]);
    const all = await s.events.listAfter(0, 10);
    assert.deepEqual(
      all.map((e) => ('messageCount' in e ? e.messageCount : 'absent')),
      ['absent', 7, 0, Number.MAX_SAFE_INTEGER],
    );
  });

  test('events listByRun pages by afterSeq and limit (default 100) and sees every event of the run exactly once', async (s) => {
    const mine: RunEventRecord[] = [];
    for (let i = 0; i < 130; i++) {
      mine.push(await s.events.append({ runId: 'run-a', type: 'text_delta', at: i, data: { i } }));
      if (i % 3 === 0) await s.events.append({ runId: 'run-b', type: 'text_delta', at: i, data: { i } });
    }
    const firstPage = await s.events.listByRun('run-a');
    assert.equal(firstPage.length, 100);
    assert.deepEqual(firstPage, mine.slice(0, 100));
    assert.deepEqual(await s.events.listByRun('run-a', { afterSeq: 100 }), mine.slice(100));
    assert.deepEqual(await s.events.listByRun('run-a', { afterSeq: 5, limit: 3 }), mine.slice(5, 8));
    assert.deepEqual(await s.events.listByRun('run-a', { afterSeq: 130 }), []);
    const seen: RunEventRecord[] = [];
    for (let after = 0; ; ) {
      const page = await s.events.listByRun('run-a', { afterSeq: after, limit: 7 });
      if (page.length === 0) break;
      seen.push(...page);
      after = page[page.length - 1]!.seq;
    }
    assert.deepEqual(seen, mine);
  });

  test('events listAfter pages by global sequence (default limit 100) and, with appends in between, sees every event of every run exactly once', async (s) => {
    const all: RunEventRecord[] = [];
    const seen: RunEventRecord[] = [];
    let after = 0;
    for (let round = 0; round < 12; round++) {
      for (let i = 0; i < 11; i++)
        all.push(await s.events.append({ runId: `run-${i % 3}`, type: 'text_delta', at: round, data: { round, i } }));
      const page = await s.events.listAfter(after, 5 + round);
      seen.push(...page);
      if (page.length > 0) after = page[page.length - 1]!.globalSeq;
    }
    for (;;) {
      const page = await s.events.listAfter(after, 4);
      if (page.length === 0) break;
      seen.push(...page);
      after = page[page.length - 1]!.globalSeq;
    }
    assert.deepEqual(seen, all);
    const firstPage = await s.events.listAfter();
    assert.equal(firstPage.length, 100);
    assert.deepEqual(firstPage, all.slice(0, 100));
    assert.deepEqual(await s.events.listAfter(all[9]!.globalSeq, 2), all.slice(10, 12));
    assert.deepEqual(await s.events.listAfter(all[all.length - 1]!.globalSeq), []);
  });
}
