import Type, { type Static } from 'typebox';
import { untrustedText } from '../core/provenance-marks';

/**
 * Default cap of an MCP tool's text output, in UTF-8 bytes: 786 432 (768 KiB), under the runtime's 1 MiB
 * limit of a stored tool result, so a run pages a large output with `read_tool_result` like any large result.
 * @public
 */
export const MCP_DEFAULT_MAX_OUTPUT_BYTES = 786_432;

/**
 * The output schema (TypeBox) of every capability made from an MCP tool: `content` parts, optional
 * `structuredContent`, optional `truncated` (`originalBytes`, `keptBytes`). Its root carries
 * `x-media-agent-text: 'untrusted'`: a run records every string of such an output as untrusted text and shows each
 * fenced (docs/untrusted-text.md).
 * @public
 */
export const McpToolOutput = Type.Object(
  {
    content: Type.Array(
      Type.Object({
        type: Type.String(),
        text: Type.Optional(Type.String()),
        mimeType: Type.Optional(Type.String()),
      }),
    ),
    structuredContent: Type.Optional(Type.Unknown()),
    truncated: Type.Optional(Type.Object({ originalBytes: Type.Integer(), keptBytes: Type.Integer() })),
  },
  // Written by a remote server: every string of it is untrusted, none is an issued id. Marked on the root only: that
  // does not declare the tool's input (docs/untrusted-text.md).
  { ...untrustedText },
);

/**
 * The output of a capability made from an MCP tool: the text parts (capped), other parts by type and MIME
 * type, the server's `structuredContent` when it fits, and `truncated` when something was cut.
 * @public
 */
export type McpToolResultOutput = Static<typeof McpToolOutput>;

/** A content part of an MCP tool result, as the server sent it. */
interface McpContentPart {
  type: string;
  text?: unknown;
  mimeType?: unknown;
}

/** The longest prefix of `text` of at most `bytes` UTF-8 bytes, cut on a code point boundary. */
function cutUtf8(text: string, bytes: number): string {
  const buffer = Buffer.from(text, 'utf8');
  if (buffer.length <= bytes) return text;
  let end = bytes;
  while (end > 0 && (buffer[end]! & 0xc0) === 0x80) end--; // not inside a multi-byte sequence
  return buffer.subarray(0, end).toString('utf8');
}

/**
 * The output recorded for an MCP tool result: text parts kept up to `maxBytes` UTF-8 bytes in all (the rest
 * cut, with `truncated` saying how much there was), other parts (images, audio, resources) by type and
 * MIME type only (their data is not kept), and `structuredContent` when its JSON fits in what is left.
 *
 * @param result - the server's result (`content`, optional `structuredContent`)
 * @param maxBytes - the cap in UTF-8 bytes
 */
export function mcpToolOutput(
  result: { content?: unknown; structuredContent?: unknown },
  maxBytes: number,
): McpToolResultOutput {
  const parts = (Array.isArray(result.content) ? result.content : []) as McpContentPart[];
  let left = maxBytes;
  let original = 0;
  const content: Array<{ type: string; text?: string; mimeType?: string }> = [];
  for (const part of parts) {
    if (part?.type === 'text' && typeof part.text === 'string') {
      const size = Buffer.byteLength(part.text, 'utf8');
      original += size;
      const kept = cutUtf8(part.text, Math.max(0, left));
      left -= Buffer.byteLength(kept, 'utf8');
      content.push({ type: 'text', text: kept });
    } else if (part && typeof part.type === 'string') {
      content.push({ type: part.type, ...(typeof part.mimeType === 'string' ? { mimeType: part.mimeType } : {}) });
    }
  }
  const out: McpToolResultOutput = { content };
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent);
    const size = Buffer.byteLength(json, 'utf8');
    original += size;
    if (size <= left) {
      out.structuredContent = result.structuredContent;
      left -= size;
    }
  }
  const kept = maxBytes - left;
  if (kept < original) out.truncated = { originalBytes: original, keptBytes: kept };
  return out;
}
