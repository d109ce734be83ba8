import { describe, expect, it } from 'vitest';
import { isMediaAgentError } from '../../src/core/errors';
import { ManualClock } from '../../src/ports/clock';
import { SequentialIdGenerator } from '../../src/ports/id-generator';
import {
  formatStoredToolResult,
  READ_TOOL_RESULT_MODEL_TOOL,
  READ_TOOL_RESULT_TOOL,
  ToolResultStore,
  toolResultPageView,
  type StoredToolResult,
  type ToolResultOffer,
  type ToolResultStoreOptions,
} from '../../src/runtime/context';

const KiB = 1024;
const MiB = 1024 * KiB;
const MINUTE = 60_000;
const utf8 = (s: string) => new TextEncoder().encode(s).length;

function makeStore(options: ToolResultStoreOptions = {}) {
  const clock = new ManualClock();
  const store = new ToolResultStore({ clock, ids: new SequentialIdGenerator(), ...options });
  return { clock, store };
}

/** Repeats `unit` (whole code points) until the text is as close to `bytes` UTF-8 bytes as it can get without going over. */
function textOfBytes(unit: string, bytes: number): string {
  const unitBytes = utf8(unit);
  let text = unit.repeat(Math.floor(bytes / unitBytes));
  let used = utf8(text);
  for (const cp of unit) {
    const b = utf8(cp);
    if (used + b > bytes) break;
    text += cp;
    used += b;
  }
  return text;
}

function stored(offer: ToolResultOffer): StoredToolResult {
  if (offer.kind !== 'stored') throw new Error(`expected a stored result, got ${offer.kind}`);
  return offer;
}

/** Pages a stored result from `offset` to its end, checking each page against the code points of `original`. */
function readToEnd(
  store: ToolResultStore,
  runId: string,
  resultId: string,
  offset: number,
  original: string,
): { text: string; pages: number } {
  const points = Array.from(original);
  let text = '';
  let pages = 0;
  let next: number | null = offset;
  while (next !== null) {
    const page = store.read(runId, resultId, next);
    expect(page.offset).toBe(next);
    expect(page.totalChars).toBe(points.length);
    const end = page.nextOffset ?? points.length;
    expect(page.text).toBe(points.slice(page.offset, end).join(''));
    expect(JSON.stringify(page.text).length).toBeLessThanOrEqual(store.limits.pageBudgetChars);
    expect(end).toBeGreaterThan(page.offset);
    text += page.text;
    pages++;
    next = page.nextOffset;
  }
  return { text, pages };
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('ToolResultStore', () => {
  it('a result of at most 64 KiB of UTF-8 text stays inline; one byte more is stored with a preview', () => {
    const { store } = makeStore();
    const ascii = 'a'.repeat(64 * KiB);
    expect(store.offer('run_a', 'call_1', 'media.search', ascii)).toEqual({ kind: 'inline', text: ascii });
    expect(store.offer('run_a', 'call_2', 'media.search', `${ascii}b`).kind).toBe('stored');
    // the threshold is bytes, not characters: 21 846 CJK characters are 65 538 bytes
    const cjk = '字'.repeat(21_846);
    expect(store.offer('run_a', 'call_3', 'media.search', cjk).kind).toBe('stored');
    expect(store.offer('run_a', 'call_4', 'media.search', '字'.repeat(21_845)).kind).toBe('inline');
    expect(store.usage('run_a').results).toHaveLength(2);
  });

  it('a 900 KiB result with CJK, emoji outside the BMP and combining marks is paged to its end by code point and matches character for character', () => {
    const { store } = makeStore();
    const unit = '媒体库整理 "Dune" 😀🎬 e\u0301 n\u0303 ｱﾆﾒ 𝄞 \\ 第二季\n';
    const original = textOfBytes(unit, 900 * KiB);
    expect(utf8(original)).toBeGreaterThan(900 * KiB - 8);
    const offer = stored(store.offer('run_a', 'call_1', 'media.search', original));
    const points = Array.from(original);
    expect(offer.totalChars).toBe(points.length);
    expect(offer.totalBytes).toBe(utf8(original));
    expect(offer.preview).toBe(points.slice(0, offer.nextOffset).join(''));
    expect(utf8(JSON.stringify(offer.preview))).toBeLessThanOrEqual(64 * KiB);
    expect(offer.nextOffset).toBeLessThan(offer.totalChars);

    // the model sees the preview with result_id and next_offset, and continues from them
    const seen = JSON.parse(formatStoredToolResult(offer)) as Record<string, unknown>;
    expect(seen).toMatchObject({
      truncated: true,
      result_id: offer.resultId,
      next_offset: offer.nextOffset,
      total_chars: offer.totalChars,
      preview: offer.preview,
    });
    expect(String(seen.how_to_continue)).toContain(READ_TOOL_RESULT_TOOL);
    const first = store.readToolInput('run_a', { result_id: seen.result_id, offset: seen.next_offset });
    expect(first.offset).toBe(offer.nextOffset);

    const rest = readToEnd(store, 'run_a', offer.resultId, offer.nextOffset, original);
    expect(rest.pages).toBeGreaterThan(1);
    const whole = offer.preview + rest.text;
    expect(whole.length).toBe(original.length);
    expect(whole === original).toBe(true);
    expect(
      toolResultPageView(offer.resultId, store.read('run_a', offer.resultId, offer.totalChars - 1)).next_offset,
    ).toBeNull();
  });

  it('a 3 MiB result is refused, not stored, with a message telling the model to narrow the query', () => {
    const { store } = makeStore();
    const offer = store.offer('run_a', 'call_1', 'media.search', textOfBytes('剧集 episode ', 3 * MiB));
    expect(offer.kind).toBe('too_large');
    if (offer.kind !== 'too_large') return;
    expect(offer.message).toMatch(/narrow the query/i);
    expect(offer.message).toContain('1 MiB');
    expect(offer.maxResultBytes).toBe(MiB);
    expect(store.usage('run_a')).toEqual({ results: [], bytes: 0 });
    // exactly 1 MiB is still storable
    expect(store.offer('run_a', 'call_2', 'media.search', 'x'.repeat(MiB)).kind).toBe('stored');
  });

  it('the 9th stored result in a run evicts that run’s oldest; other runs are unaffected', () => {
    const { store } = makeStore();
    const other = stored(store.offer('run_b', 'call_b', 'media.search', 'b'.repeat(70 * KiB)));
    const ids: string[] = [];
    for (let i = 0; i < 9; i++)
      ids.push(stored(store.offer('run_a', `call_${i}`, 'media.search', `${i}`.repeat(70 * KiB))).resultId);
    expect(store.usage('run_a').results).toEqual(ids.slice(1));
    const error = caught(() => store.read('run_a', ids[0]!, 0));
    expect(isMediaAgentError(error, 'TOOL_RESULT_EXPIRED')).toBe(true);
    expect((error as Error).message).toMatch(/at most 8 stored results/);
    expect(store.read('run_a', ids[1]!, 0, 3).text).toBe('111');
    expect(store.usage('run_b').results).toEqual([other.resultId]);
    expect(store.read('run_b', other.resultId, 0, 2).text).toBe('bb');
  });

  it('a run keeps at most 4 MiB of stored results; going over evicts its oldest, other runs are unaffected', () => {
    const { store } = makeStore();
    const other = stored(store.offer('run_b', 'call_b', 'media.search', 'b'.repeat(MiB)));
    const ids = [0, 1, 2, 3].map(
      (i) => stored(store.offer('run_a', `call_${i}`, 'media.search', `${i}`.repeat(MiB))).resultId,
    );
    expect(store.usage('run_a')).toEqual({ results: ids, bytes: 4 * MiB });
    const fifth = stored(store.offer('run_a', 'call_4', 'media.search', '4'.repeat(100 * KiB)));
    expect(store.usage('run_a')).toEqual({ results: [...ids.slice(1), fifth.resultId], bytes: 3 * MiB + 100 * KiB });
    expect(
      isMediaAgentError(
        caught(() => store.read('run_a', ids[0]!)),
        'TOOL_RESULT_EXPIRED',
      ),
    ).toBe(true);
    expect(store.read('run_b', other.resultId, 0, 1).text).toBe('b');
  });

  it('a stored result expires 15 minutes after it was stored (by the injected clock); then reading it is TOOL_RESULT_EXPIRED', () => {
    const { store, clock } = makeStore();
    const offer = stored(store.offer('run_a', 'call_1', 'media.search', 'z'.repeat(100 * KiB)));
    expect(offer.expiresAt - clock.now()).toBe(15 * MINUTE);
    clock.advance(15 * MINUTE - 1);
    expect(store.read('run_a', offer.resultId, 0, 1).text).toBe('z');
    clock.advance(2);
    const error = caught(() => store.read('run_a', offer.resultId, 0, 1));
    expect(isMediaAgentError(error, 'TOOL_RESULT_EXPIRED')).toBe(true);
    expect((error as Error).message).toMatch(/expired.*15 minutes/);
    expect((error as Error).message).toMatch(/call the original tool again/i);
    expect(store.usage('run_a')).toEqual({ results: [], bytes: 0 });
  });

  it('an id from another run is refused with TOOL_RESULT_FOREIGN and reveals none of its content; an unknown id is TOOL_RESULT_NOT_FOUND', () => {
    const { store, clock } = makeStore();
    const secret = `${'s'.repeat(70 * KiB)}SECRET-TOKEN-42`;
    const offer = stored(store.offer('run_admin', 'call_1', 'admin.config', secret));
    const error = caught(() => store.read('run_user', offer.resultId, 0));
    expect(isMediaAgentError(error, 'TOOL_RESULT_FOREIGN')).toBe(true);
    const shown = JSON.stringify((error as { toJSON(): unknown }).toJSON());
    expect(shown).not.toMatch(/sss|SECRET|admin\.config|run_admin/);
    expect(shown).not.toContain(String(offer.totalChars));
    expect((error as Error).message).toMatch(/another run/);
    // still foreign (not "expired") for the other run once it is gone
    clock.advance(16 * MINUTE);
    expect(
      isMediaAgentError(
        caught(() => store.read('run_user', offer.resultId)),
        'TOOL_RESULT_FOREIGN',
      ),
    ).toBe(true);
    expect(
      isMediaAgentError(
        caught(() => store.read('run_user', 'tr_nope')),
        'TOOL_RESULT_NOT_FOUND',
      ),
    ).toBe(true);
    expect(
      isMediaAgentError(
        caught(() => store.readToolInput('run_user', {})),
        'TOOL_RESULT_NOT_FOUND',
      ),
    ).toBe(true);
  });

  it('a page after JSON escaping fits its budget: a text of quotes, backslashes and control characters is paged shorter and still matches', () => {
    const { store } = makeStore();
    const unit = `"\\\u0000\u0001\u001f\b\t\n\r\f\u007f"\\\\ 字😀`;
    const original = textOfBytes(unit, 200 * KiB);
    const offer = stored(store.offer('run_a', 'call_1', 'sandbox.exec', original));
    expect(utf8(JSON.stringify(offer.preview))).toBeLessThanOrEqual(64 * KiB);
    const page = store.read('run_a', offer.resultId, offer.nextOffset);
    expect(JSON.stringify(page.text).length).toBeLessThanOrEqual(store.limits.pageBudgetChars);
    expect(Array.from(page.text).length).toBeLessThan(store.limits.maxPageCodePoints / 2);
    const rest = readToEnd(store, 'run_a', offer.resultId, offer.nextOffset, original);
    expect(offer.preview + rest.text).toBe(original);
    // the budget also holds as the model sees the page, inside the tool-result JSON
    expect(JSON.stringify(toolResultPageView(offer.resultId, page).text).length).toBeLessThanOrEqual(16_384);
  });

  it('a bad offset or limit is TOOL_RESULT_RANGE; a limit above the maximum is lowered to it', () => {
    const { store } = makeStore();
    const offer = stored(store.offer('run_a', 'call_1', 'media.search', 'q'.repeat(100 * KiB)));
    for (const [offset, limit] of [
      [-1, 10],
      [1.5, 10],
      [offer.totalChars + 1, 10],
      [0, 0],
      [0, 2.5],
    ] as const) {
      expect(
        isMediaAgentError(
          caught(() => store.read('run_a', offer.resultId, offset, limit)),
          'TOOL_RESULT_RANGE',
        ),
      ).toBe(true);
    }
    expect(
      isMediaAgentError(
        caught(() => store.readToolInput('run_a', { result_id: offer.resultId, offset: '5' })),
        'TOOL_RESULT_RANGE',
      ),
    ).toBe(true);
    expect(store.read('run_a', offer.resultId, offer.totalChars)).toEqual({
      text: '',
      offset: offer.totalChars,
      nextOffset: null,
      totalChars: offer.totalChars,
    });
    expect(store.read('run_a', offer.resultId, 0, 1_000_000).nextOffset).toBe(16_000);
  });

  it('read_tool_result is offered with a JSON Schema input { result_id, offset ≥ 0, limit ≥ 1 }', () => {
    expect(READ_TOOL_RESULT_MODEL_TOOL.name).toBe('read_tool_result');
    expect(READ_TOOL_RESULT_MODEL_TOOL.inputSchema).toMatchObject({
      type: 'object',
      required: ['result_id'],
      properties: {
        result_id: { type: 'string' },
        offset: { type: 'integer', minimum: 0 },
        limit: { type: 'integer', minimum: 1 },
      },
    });
  });
});
