// Images in capability output: recognized, checked (type, magic bytes, size) and taken out of the JSON.
import type { ImagePart } from '../../models/types';

/**
 * Limits on images sent to a model: 768 KiB per image (decoded bytes) and 1 MiB per data URL
 * (`data:<type>;base64,<data>`, characters), checked before anything is sent.
 * @public
 */
export const IMAGE_LIMITS = Object.freeze({ maxImageBytes: 786_432, maxDataUrlChars: 1_048_576 });

/** Media types a tool result may carry: PNG, JPEG, WebP, GIF. @public */
export const IMAGE_MEDIA_TYPES: readonly string[] = Object.freeze([
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
]);

/** Why an image part was not accepted. @public */
export type ImageProblemCode = 'IMAGE_INVALID' | 'IMAGE_TOO_LARGE' | 'IMAGE_UNSUPPORTED_TYPE';

/** One image found in a capability's output. */
export type CheckedImage =
  | { ok: true; image: ImagePart; bytes: number }
  | { ok: false; code: ImageProblemCode; message: string; mediaType?: string };

/**
 * The media type the bytes start with (PNG, JPEG, GIF, WebP signatures), or undefined. Pure.
 * @param b - the first bytes (12 are enough)
 */
export function sniffImageType(b: Uint8Array): string | undefined {
  if (
    b.length >= 8 &&
    b[0] === 0x89 &&
    b[1] === 0x50 &&
    b[2] === 0x4e &&
    b[3] === 0x47 &&
    b[4] === 0x0d &&
    b[5] === 0x0a &&
    b[6] === 0x1a &&
    b[7] === 0x0a
  )
    return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
  if (b.length >= 6 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return 'image/gif';
  if (b.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const DATA_URL = /^data:([^;,]+)(;base64)?,(.*)$/s;

/**
 * Checks one image part of a capability's output and makes it a model {@link ImagePart}. Pure.
 *
 * The part is `{ type: 'image', data, mediaType? }`: `data` is base64, a `data:` URL or bytes
 * (`Uint8Array`, or its JSON form after the invocation path: `{ "0": 137, … }`, a `Buffer`'s
 * `{ type: 'Buffer', data: [...] }`, an array of byte values); `mediaType` (or `media_type`, `mimeType`) may be left out when the bytes say it.
 * Checked in order: a declared type other than PNG/JPEG/WebP/GIF (`IMAGE_UNSUPPORTED_TYPE`); data
 * that is not base64 (`IMAGE_INVALID`); more than 768 KiB, or a data URL over 1 MiB
 * (`IMAGE_TOO_LARGE`); bytes that are not an image of the declared type (`IMAGE_INVALID`).
 * @param part - the part as the capability returned it
 * @param limits - the limits (default {@link IMAGE_LIMITS})
 */
export function checkImagePart(
  part: Record<string, unknown>,
  limits: { maxImageBytes: number; maxDataUrlChars: number } = IMAGE_LIMITS,
): CheckedImage {
  let declared = [part.mediaType, part.media_type, part.mimeType].find((v) => typeof v === 'string') as
    | string
    | undefined;
  let bytes: Uint8Array;
  const data = part.data;
  const raw = data instanceof Uint8Array ? data : bytesOfJson(data);
  if (raw === 'too_large') return tooLarge(Number.NaN, limits, declared);
  if (raw) bytes = raw;
  else if (typeof data === 'string') {
    let base64 = data;
    const url = DATA_URL.exec(data);
    if (url) {
      declared ??= url[1];
      if (!url[2]) return { ok: false, code: 'IMAGE_INVALID', message: 'the data URL is not base64' };
      base64 = url[3]!;
    }
    base64 = base64.replace(/\s+/g, '');
    if (declared !== undefined && !IMAGE_MEDIA_TYPES.includes(declared.toLowerCase())) return unsupported(declared);
    if (base64.length === 0 || base64.length % 4 === 1 || !BASE64.test(base64))
      return {
        ok: false,
        code: 'IMAGE_INVALID',
        message: 'the image data is not base64',
        ...(declared ? { mediaType: declared } : {}),
      };
    const estimated = Math.floor((base64.length * 3) / 4);
    if (estimated > limits.maxImageBytes + 2) return tooLarge(estimated, limits, declared);
    bytes = Buffer.from(base64, 'base64');
  } else return { ok: false, code: 'IMAGE_INVALID', message: 'an image part needs data: base64, a data URL or bytes' };
  if (declared !== undefined && !IMAGE_MEDIA_TYPES.includes(declared.toLowerCase())) return unsupported(declared);
  if (bytes.length > limits.maxImageBytes) return tooLarge(bytes.length, limits, declared);
  const sniffed = sniffImageType(bytes);
  if (!sniffed)
    return {
      ok: false,
      code: 'IMAGE_INVALID',
      message: 'the data is not a PNG, JPEG, WebP or GIF image (its first bytes match none of them)',
      ...(declared ? { mediaType: declared } : {}),
    };
  if (declared !== undefined && declared.toLowerCase() !== sniffed)
    return {
      ok: false,
      code: 'IMAGE_INVALID',
      message: `the data is declared ${declared} but its bytes are ${sniffed}`,
      mediaType: declared,
    };
  const base64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  const dataUrlChars = `data:${sniffed};base64,`.length + base64.length;
  if (dataUrlChars > limits.maxDataUrlChars)
    return {
      ok: false,
      code: 'IMAGE_TOO_LARGE',
      message: `the image's data URL is ${dataUrlChars} characters, over the ${limits.maxDataUrlChars} limit`,
      mediaType: sniffed,
    };
  return { ok: true, image: { type: 'image', mediaType: sniffed, data: base64 }, bytes: bytes.length };
}

/**
 * Bytes that went through JSON on the invocation path (outputs are kept in their JSON form): a
 * `Uint8Array` becomes `{ "0": 137, "1": 80, … }`, a `Buffer` `{ type: 'Buffer', data: [137, 80, …] }`,
 * or a plain array of byte values. Undefined for anything else; `too_large` past 768 KiB × 2 entries
 * (so a huge object is not copied).
 */
function bytesOfJson(data: unknown): Uint8Array | 'too_large' | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  let values: unknown[];
  if (Array.isArray(data)) values = data;
  else if ((data as { type?: unknown }).type === 'Buffer' && Array.isArray((data as { data?: unknown }).data))
    values = (data as { data: unknown[] }).data;
  else {
    const keys = Object.keys(data);
    if (keys.length > 2 * IMAGE_LIMITS.maxImageBytes) return 'too_large';
    if (keys.length === 0 || !keys.every((k, i) => k === String(i))) return undefined;
    values = Object.values(data);
  }
  if (values.length > 2 * IMAGE_LIMITS.maxImageBytes) return 'too_large';
  if (!values.every((v) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 255)) return undefined;
  return Uint8Array.from(values as number[]);
}

function unsupported(mediaType: string): CheckedImage {
  return {
    ok: false,
    code: 'IMAGE_UNSUPPORTED_TYPE',
    message: `${mediaType} is not a supported image type (PNG, JPEG, WebP or GIF)`,
    mediaType,
  };
}

function tooLarge(bytes: number, limits: { maxImageBytes: number }, mediaType: string | undefined): CheckedImage {
  return {
    ok: false,
    code: 'IMAGE_TOO_LARGE',
    message: `the image is ${Number.isNaN(bytes) ? 'more than twice' : `${bytes} bytes,`} over the ${limits.maxImageBytes}-byte limit for one image`,
    ...(mediaType ? { mediaType } : {}),
  };
}

/** True for a value shaped as an image part (`{ type: 'image', data }`). */
function isImagePart(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Uint8Array) &&
    (value as { type?: unknown }).type === 'image' &&
    'data' in value
  );
}

/** An output with its images taken out. */
export interface ExtractedImages {
  /** The output with each image part replaced by a description (`{ type: 'image', image_index, mediaType, bytes }` or `{ type: 'image', error }`). */
  output: unknown;
  /** The accepted images, in the order of their `image_index`. */
  images: ImagePart[];
  /** The parts that were refused, with why. */
  problems: { code: ImageProblemCode; message: string }[];
}

/**
 * Takes the image parts out of a capability's output, at any depth (at most 8 levels). Pure.
 * @param output - the output as the capability returned it
 * @param limits - image limits (default {@link IMAGE_LIMITS})
 * @returns the output without image data, the accepted images and the refusals; `output` is the same
 *   object when it holds no image part
 */
export function extractImages(
  output: unknown,
  limits: { maxImageBytes: number; maxDataUrlChars: number } = IMAGE_LIMITS,
): ExtractedImages {
  const images: ImagePart[] = [];
  const problems: ExtractedImages['problems'] = [];
  const walk = (value: unknown, depth: number): unknown => {
    if (depth > 8 || typeof value !== 'object' || value === null) return value;
    if (isImagePart(value)) {
      const checked = checkImagePart(value, limits);
      if (checked.ok) {
        images.push(checked.image);
        return {
          type: 'image',
          image_index: images.length - 1,
          mediaType: checked.image.mediaType,
          bytes: checked.bytes,
        };
      }
      problems.push({ code: checked.code, message: checked.message });
      return { type: 'image', error: { code: checked.code, message: checked.message } };
    }
    if (value instanceof Uint8Array) return value;
    return mapChildren(value, (v) => walk(v, depth + 1));
  };
  return { output: walk(output, 0), images, problems };
}

/**
 * Copy on change: `value`'s elements (an array) or own enumerable property values (any other object) mapped by `f`,
 * in a new array or plain object; `value` itself when `f` returned every child unchanged (`===`).
 * @internal
 */
export function mapChildren(value: object, f: (child: unknown) => unknown): unknown {
  if (Array.isArray(value)) {
    // A plain array is copied only once a child changes (`map` would copy it always); holes stay holes.
    if (Object.getPrototypeOf(value) !== Array.prototype) {
      let changed = false;
      const out = value.map((v) => {
        const w = f(v);
        if (w !== v) changed = true;
        return w;
      });
      return changed ? out : value;
    }
    const n = value.length;
    let out: unknown[] | undefined;
    for (let i = 0; i < n; i++) {
      if (!(i in value)) continue;
      const v: unknown = value[i];
      const w = f(v);
      if (out === undefined && w !== v) {
        out = new Array<unknown>(n);
        for (let j = 0; j < i; j++) if (j in value) out[j] = value[j];
      }
      if (out !== undefined) out[i] = w;
    }
    return out ?? value;
  }
  // The children are read once each, in `Object.entries` order; a new object is made only once one changes.
  const keys = Object.keys(value);
  const children: unknown[] = new Array<unknown>(keys.length);
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    // A key that is gone by the time it is read (a getter removed it) is skipped, as `Object.entries` skips it.
    if (!Object.prototype.propertyIsEnumerable.call(value, k)) continue;
    const v = (value as Record<string, unknown>)[k];
    children[i] = v;
    const w = f(v);
    if (out === undefined && w !== v) {
      out = {};
      for (let j = 0; j < i; j++) if (Object.prototype.hasOwnProperty.call(children, j)) out[keys[j]!] = children[j];
    }
    if (out !== undefined) out[k] = w;
  }
  return out ?? value;
}
