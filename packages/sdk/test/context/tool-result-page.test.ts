import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexCodePoints } from '../../src/runtime/context/text-units';
import {
  checkPageOffset,
  checkPageRequest,
  pageOf,
  readToolResultArgs,
} from '../../src/runtime/context/tool-result-page';

const code = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
};

describe('tool-result pages', () => {
  it('a request needs an offset ≥ 0 and a limit ≥ 1, both whole', () => {
    expect(code(() => checkPageRequest(0, 1, 10))).toBeUndefined();
    for (const [offset, limit] of [
      [-1, 1],
      [0.5, 1],
      [0, 0],
      [0, 1.5],
      [Number.NaN, 1],
    ])
      expect(code(() => checkPageRequest(offset!, limit!, 10))).toBe('TOOL_RESULT_RANGE');
    expect(() => checkPageRequest(0, 0, 16_000)).toThrow(/at most 16000/);
  });

  it('the offset may be the end but not past it', () => {
    expect(code(() => checkPageOffset('tr_1', 10, 10))).toBeUndefined();
    expect(() => checkPageOffset('tr_1', 11, 10)).toThrow(
      /offset 11 is past the end: result_id "tr_1" has 10 characters/,
    );
  });

  it('pages by code point, never splitting a pair, within the escaped budget', () => {
    const text = `ab😀cd${'\n'.repeat(10)}`;
    const index = indexCodePoints(text);
    const limits = { maxPageCodePoints: 3, pageBudgetChars: 100 };
    expect(pageOf(text, index, 0, 10, limits)).toEqual({ text: 'ab😀', offset: 0, nextOffset: 3, totalChars: 15 });
    expect(pageOf(text, index, 2, 1, limits)).toEqual({ text: '😀', offset: 2, nextOffset: 3, totalChars: 15 });
    // "\n" escapes to two characters: a budget of 16 holds 7 of them after the quotes
    expect(pageOf(text, index, 5, 10, { maxPageCodePoints: 100, pageBudgetChars: 16 }).text).toBe('\n'.repeat(7));
    expect(pageOf(text, index, 15, 10, limits)).toEqual({ text: '', offset: 15, nextOffset: null, totalChars: 15 });
  });

  it('reading page after page returns the whole text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 120 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 16, max: 60 }),
        (text, maxPageCodePoints, pageBudgetChars) => {
          const index = indexCodePoints(text);
          let out = '';
          let offset: number | null = 0;
          let pages = 0;
          while (offset !== null && pages++ <= text.length + 1) {
            const page = pageOf(text, index, offset, maxPageCodePoints, { maxPageCodePoints, pageBudgetChars });
            expect(JSON.stringify(page.text).length).toBeLessThanOrEqual(pageBudgetChars);
            out += page.text;
            offset = page.nextOffset;
          }
          expect(out).toBe(text);
        },
      ),
    );
  });

  it('reads the tool arguments, with defaults', () => {
    expect(readToolResultArgs({ result_id: 'tr_1' }, 16_000)).toEqual({ resultId: 'tr_1', offset: 0, limit: 16_000 });
    expect(readToolResultArgs({ result_id: 'tr_1', offset: 5, limit: 7 }, 16_000)).toEqual({
      resultId: 'tr_1',
      offset: 5,
      limit: 7,
    });
    expect(code(() => readToolResultArgs({}, 1))).toBe('TOOL_RESULT_NOT_FOUND');
    expect(code(() => readToolResultArgs(null, 1))).toBe('TOOL_RESULT_NOT_FOUND');
    expect(code(() => readToolResultArgs({ result_id: '' }, 1))).toBe('TOOL_RESULT_NOT_FOUND');
    expect(code(() => readToolResultArgs({ result_id: 3 }, 1))).toBe('TOOL_RESULT_NOT_FOUND');
  });
});
