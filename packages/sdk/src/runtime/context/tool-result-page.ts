// Paging a stored tool result: the checks of a page request and the page itself.
import { codePointToUnitIndex, takeEscapedPrefix, type CodePointIndex } from './text-units';
import { ToolResultNotFoundError, ToolResultRangeError } from './tool-result-errors';

/** One page of a stored result. Offsets and counts are Unicode code points. @public */
export interface ToolResultPage {
  /** The page text; `JSON.stringify(text).length` is within the store's page budget. */
  text: string;
  /** Code point offset the page starts at (the requested offset). */
  offset: number;
  /** Code point offset of the next page, or `null` when this page reaches the end. */
  nextOffset: number | null;
  /** Code points in the whole result. */
  totalChars: number;
}

/**
 * Checks the numbers of a page request before anything is looked up.
 * @param offset - first code point asked for
 * @param limit - most code points asked for
 * @param maxPageCodePoints - the store's largest page (quoted in the message)
 * @throws {@link ToolResultRangeError} `TOOL_RESULT_RANGE` for a non-integer or negative `offset`, or a non-integer or `< 1` `limit`
 * @internal
 */
export function checkPageRequest(offset: number, limit: number, maxPageCodePoints: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new ToolResultRangeError(
      `offset must be a whole number of characters ≥ 0 (use next_offset from the previous page); got ${String(offset)}`,
      { offset },
    );
  }
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new ToolResultRangeError(
      `limit must be a whole number of characters ≥ 1 (at most ${maxPageCodePoints}); got ${String(limit)}`,
      { limit },
    );
  }
}

/**
 * Checks that `offset` is within the result (the end itself is allowed: an empty last page).
 * @param resultId - the id read (quoted in the message)
 * @param offset - first code point asked for
 * @param total - code points in the result
 * @throws {@link ToolResultRangeError} `TOOL_RESULT_RANGE` for `offset > total`
 * @internal
 */
export function checkPageOffset(resultId: string, offset: number, total: number): void {
  if (offset > total) {
    throw new ToolResultRangeError(
      `offset ${offset} is past the end: result_id ${JSON.stringify(resultId)} has ${total} characters (offsets 0–${total}).`,
      { offset, totalChars: total },
    );
  }
}

/**
 * One page of a text, by code point: at most `min(limit, maxPageCodePoints)` code points from `offset`, shortened so
 * that `JSON.stringify(page.text).length ≤ pageBudgetChars`; never splits a surrogate pair.
 * @param text - the whole text
 * @param index - its code point index
 * @param offset - first code point (`0 ≤ offset ≤ index.codePoints`, checked by the caller)
 * @param limit - most code points asked for
 * @param limits - the store's `maxPageCodePoints` and `pageBudgetChars`
 * @returns the page; `nextOffset` is null once it reaches the end
 * @internal
 */
export function pageOf(
  text: string,
  index: CodePointIndex,
  offset: number,
  limit: number,
  limits: { maxPageCodePoints: number; pageBudgetChars: number },
): ToolResultPage {
  const total = index.codePoints;
  const start = codePointToUnitIndex(text, index, offset);
  const take = takeEscapedPrefix(
    text,
    start,
    Math.min(limit, limits.maxPageCodePoints),
    limits.pageBudgetChars,
    'units',
  );
  const next = offset + take.codePoints;
  return {
    text: text.slice(start, take.end),
    offset,
    nextOffset: next < total ? next : null,
    totalChars: total,
  };
}

/**
 * The arguments of a `read_tool_result` call as the model sent them: `result_id` (required), `offset` (default 0)
 * and `limit` (default `defaultLimit`); offset and limit are passed on unchecked.
 * @param input - the call's arguments
 * @param defaultLimit - the store's `maxPageCodePoints`
 * @throws {@link ToolResultNotFoundError} when `result_id` is missing or not a non-empty string
 * @internal
 */
export function readToolResultArgs(
  input: unknown,
  defaultLimit: number,
): { resultId: string; offset: number; limit: number } {
  const args = (input ?? {}) as Partial<Record<string, unknown>>;
  const resultId = args.result_id;
  if (typeof resultId !== 'string' || resultId === '') throw new ToolResultNotFoundError(String(resultId ?? ''));
  const offset = args.offset ?? 0;
  const limit = args.limit ?? defaultLimit;
  return { resultId, offset: offset as number, limit: limit as number };
}
