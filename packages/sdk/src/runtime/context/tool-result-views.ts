// What the model sees for a stored result and for a page of one.
import { READ_TOOL_RESULT_TOOL } from './read-tool-result-tool';
import { formatDuration } from './size-words';
import type { StoredToolResult } from './tool-result-offer';
import type { ToolResultPage } from './tool-result-page';

/**
 * The fields the model sees for a stored result (snake_case, as in the tool protocol).
 * @public
 */
export interface StoredToolResultView {
  /** Always true: the text below is only the beginning. */
  truncated: true;
  /** Id for `read_tool_result`. */
  result_id: string;
  /** Code points in the whole result. */
  total_chars: number;
  /** Code point offset to continue from (= code points in `preview`). */
  next_offset: number;
  /** How to continue, in words. */
  how_to_continue: string;
  /** The first `next_offset` code points. */
  preview: string;
}

/**
 * What the model sees for a stored result: preview, `result_id`, `next_offset` and how to continue.
 * Pure. Metadata comes before the preview so it is read first.
 * @param stored - a `stored` offer
 * @returns the view; put it in a tool message as is, or use {@link formatStoredToolResult}
 * @public
 */
export function storedToolResultView(stored: StoredToolResult): StoredToolResultView {
  return {
    truncated: true,
    result_id: stored.resultId,
    total_chars: stored.totalChars,
    next_offset: stored.nextOffset,
    how_to_continue: `This ${stored.tool} result is too long to show at once: ${stored.totalChars} characters, the first ${stored.nextOffset} are in "preview". To read the rest without running the tool again, call ${READ_TOOL_RESULT_TOOL} with {"result_id": ${JSON.stringify(stored.resultId)}, "offset": ${stored.nextOffset}} and continue with each answer's next_offset until it is null. The result can be read only in this run and expires ${formatDuration(stored.ttlMs)} after the call.`,
    preview: stored.preview,
  };
}

/**
 * The tool-result text (JSON) the model sees for a stored result; `JSON.stringify` of
 * {@link storedToolResultView}. Its preview part is at most `previewBytes` UTF-8 bytes after escaping.
 * @param stored - a `stored` offer
 * @returns JSON text
 * @public
 */
export function formatStoredToolResult(stored: StoredToolResult): string {
  return JSON.stringify(storedToolResultView(stored));
}

/**
 * The output the model sees for a `read_tool_result` page. Pure.
 * @param resultId - the id read
 * @param page - the page from {@link ToolResultStore.read}
 * @returns `{ result_id, offset, next_offset, total_chars, note, text }`
 * @public
 */
export function toolResultPageView(
  resultId: string,
  page: ToolResultPage,
): { result_id: string; offset: number; next_offset: number | null; total_chars: number; note: string; text: string } {
  const count = (page.nextOffset ?? page.totalChars) - page.offset;
  const note =
    page.nextOffset === null
      ? `characters ${page.offset}–${page.totalChars} of ${page.totalChars}; this is the end of the result.`
      : `characters ${page.offset}–${page.offset + count} of ${page.totalChars}; call ${READ_TOOL_RESULT_TOOL} with offset ${page.nextOffset} for more.`;
  return {
    result_id: resultId,
    offset: page.offset,
    next_offset: page.nextOffset,
    total_chars: page.totalChars,
    note,
    text: page.text,
  };
}
