// Media parts of a capability's output as MCP content blocks (image, audio, embedded resource).
import { checkImagePart, mapChildren } from '../runtime/images/image-parts';

/** An MCP content block other than the result's text block. */
export type McpMediaBlock =
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | {
      type: 'resource';
      resource: { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string };
    };

/** A capability's output with its media parts taken out. */
export interface ExtractedMcpContent {
  /** The output with each media part replaced by a description (`content_index`, type, MIME type) or its refusal. */
  output: unknown;
  /** The content blocks, in the order of their `content_index`. */
  blocks: McpMediaBlock[];
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MAX_DEPTH = 8;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mimeOf(part: Record<string, unknown>): unknown {
  return part.mimeType ?? part.mediaType ?? part.media_type;
}

/** Base64 text without whitespace, or undefined when it is not base64. */
function base64Of(data: unknown): string | undefined {
  if (typeof data !== 'string') return undefined;
  const text = data.replace(/\s+/g, '');
  return text.length > 0 && text.length % 4 !== 1 && BASE64.test(text) ? text : undefined;
}

type Converted = { block: McpMediaBlock } | { error: string } | undefined;

/** One output value as an MCP block, a refusal, or undefined when it is not a media part at all. */
function convert(value: Record<string, unknown>): Converted {
  if (value.type === 'image' && 'data' in value) {
    // The runtime's image rules (type, magic bytes, size), as for images shown to a model.
    const checked = checkImagePart(value);
    return checked.ok
      ? { block: { type: 'image', data: checked.image.data, mimeType: checked.image.mediaType } }
      : { error: `${checked.code}: ${checked.message}` };
  }
  if (value.type === 'audio' && 'data' in value) {
    const mimeType = mimeOf(value);
    if (typeof mimeType !== 'string' || !/^audio\/[\w.+-]+$/i.test(mimeType))
      return { error: 'an audio part needs mimeType audio/<subtype>' };
    const data = base64Of(value.data);
    return data ? { block: { type: 'audio', data, mimeType } } : { error: 'the audio data is not base64' };
  }
  if (value.type === 'resource' && isRecord(value.resource)) {
    const { uri, text, blob } = value.resource;
    const mimeType = mimeOf(value.resource);
    if (typeof uri !== 'string' || uri.length === 0) return { error: 'an embedded resource needs a uri' };
    const mime = typeof mimeType === 'string' ? { mimeType } : {};
    if (typeof text === 'string') return { block: { type: 'resource', resource: { uri, ...mime, text } } };
    const data = base64Of(blob);
    if (data) return { block: { type: 'resource', resource: { uri, ...mime, blob: data } } };
    return { error: 'an embedded resource needs text, or blob as base64' };
  }
  return undefined;
}

/**
 * Takes the media parts out of a capability's output, at any depth (at most 8 levels), as MCP content
 * blocks. Pure. Recognized parts:
 * - `{ type: 'image', data, mediaType? }`: the runtime's image part (base64, a data URL or bytes; PNG, JPEG,
 *   WebP or GIF, at most 768 KiB), an MCP `image` block;
 * - `{ type: 'audio', data, mimeType }`: base64 audio, an MCP `audio` block;
 * - `{ type: 'resource', resource: { uri, mimeType?, text | blob } }`: an MCP embedded `resource` block.
 *
 * Each part is replaced in the output by `{ type, content_index, mimeType }` (or `{ type, error }` when refused),
 * so the structured result never carries the bytes twice.
 * @param output - the output as recorded by the invocation path
 */
export function extractMcpContent(output: unknown): ExtractedMcpContent {
  const blocks: McpMediaBlock[] = [];
  const walk = (value: unknown, depth: number): unknown => {
    if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return value;
    if (isRecord(value)) {
      const converted = convert(value);
      if (converted && 'block' in converted) {
        blocks.push(converted.block);
        const block = converted.block;
        const mimeType = block.type === 'resource' ? block.resource.mimeType : block.mimeType;
        return {
          type: block.type,
          content_index: blocks.length,
          ...(mimeType ? { mimeType } : {}),
          ...(block.type === 'resource' ? { uri: block.resource.uri } : {}),
        };
      }
      if (converted) return { type: value.type, error: converted.error };
    }
    return mapChildren(value, (v) => walk(v, depth + 1));
  };
  return { output: walk(output, 0), blocks };
}
