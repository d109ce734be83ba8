// How a tool result reaches the model: as it is, stored with a preview, or refused as too large.
import { takeEscapedPrefix, utf8ByteLength, type CodePointIndex } from './text-units';
import { formatBytes } from './size-words';

/** The result is small enough to go to the model as it is. @public */
export interface InlineToolResult {
  /** Discriminator. */
  kind: 'inline';
  /** The text, unchanged. */
  text: string;
}

/** The result was stored; the model gets a preview and pages the rest with `read_tool_result`. @public */
export interface StoredToolResult {
  /** Discriminator. */
  kind: 'stored';
  /** Id for `read_tool_result` (valid in this run only, until it expires or is evicted). */
  resultId: string;
  /** The tool that produced it. */
  tool: string;
  /** First code points of the text (see {@link ToolResultStoreOptions.previewBytes} for its size). */
  preview: string;
  /** Code point offset where the rest starts (= code points in `preview`); always `< totalChars`. */
  nextOffset: number;
  /** Code points in the whole text. */
  totalChars: number;
  /** UTF-8 bytes of the whole text. */
  totalBytes: number;
  /** When it expires, ms since the epoch by the store's clock. */
  expiresAt: number;
  /** Its lifetime in ms (the store's `ttlMs`). */
  ttlMs: number;
}

/** The result is over the per-result limit and was not stored. @public */
export interface TooLargeToolResult {
  /** Discriminator. */
  kind: 'too_large';
  /** For the model: the size, the limit, and that it must narrow the query and call the tool again. */
  message: string;
  /** UTF-8 bytes of the refused text. */
  totalBytes: number;
  /** The limit it went over, in UTF-8 bytes. */
  maxResultBytes: number;
}

/** What {@link ToolResultStore.offer} decided. @public */
export type ToolResultOffer = InlineToolResult | StoredToolResult | TooLargeToolResult;

/**
 * True when a result goes to the model as it is: at most `previewBytes` UTF-8 bytes (a text of at most a
 * third as many UTF-16 units is, whatever it holds, and is not measured).
 * @param text - the result text
 * @param previewBytes - the preview size
 * @internal
 */
export function fitsInline(text: string, previewBytes: number): boolean {
  return text.length <= previewBytes / 3 || utf8ByteLength(text) <= previewBytes;
}

/**
 * The refusal of a result over the per-result limit, with a message telling the model to narrow the query.
 * @param tool - the tool
 * @param bytes - the result's UTF-8 bytes
 * @param maxResultBytes - the limit
 * @internal
 */
export function tooLargeResult(tool: string, bytes: number, maxResultBytes: number): TooLargeToolResult {
  return {
    kind: 'too_large',
    message: `The ${tool} result is too large to keep: ${formatBytes(bytes)} (${bytes} bytes), over the ${formatBytes(maxResultBytes)} limit for one result, so it was not stored and cannot be paged. Narrow the query and call the tool again: add filters, ask for fewer items or fields, use a smaller page or limit, or target a specific id.`,
    totalBytes: bytes,
    maxResultBytes,
  };
}

/**
 * The preview of a stored result: the longest prefix of whole code points whose JSON-escaped form is at most
 * `previewBytes` UTF-8 bytes.
 * @param text - the result text
 * @param index - its code point index
 * @param previewBytes - the preview size
 * @returns the preview and its length in code points (where the rest starts)
 * @internal
 */
export function previewOf(
  text: string,
  index: CodePointIndex,
  previewBytes: number,
): { preview: string; nextOffset: number } {
  const head = takeEscapedPrefix(text, 0, index.codePoints, previewBytes, 'bytes');
  return { preview: text.slice(0, head.end), nextOffset: head.codePoints };
}
