// A small PNG reader for the console test's screenshots: 8-bit greyscale, RGB or RGBA, not interlaced (what
// Chromium writes). Enough to look at the pixels: is a page blank, did it change between two states.
import { inflateSync } from 'node:zlib';

export interface Pixels {
  width: number;
  height: number;
  /** RGBA, 4 bytes a pixel, rows top to bottom. */
  rgba: Uint8Array;
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Decodes a PNG into RGBA pixels; throws for anything it does not read. */
export function decodePng(png: Uint8Array): Pixels {
  const buf = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  if (!SIGNATURE.every((b, i) => buf[i] === b)) throw new Error('not a PNG');
  let width = 0;
  let height = 0;
  let colorType = -1;
  const idat: Buffer[] = [];
  for (let at = 8; at < buf.length; ) {
    const length = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    const data = buf.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const depth = data[8];
      colorType = data[9]!;
      if (depth !== 8 || data[12] !== 0 || ![0, 2, 6].includes(colorType))
        throw new Error(`unsupported PNG (depth ${depth}, colour type ${colorType}, interlace ${data[12]})`);
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  const channels = colorType === 6 ? 4 : colorType === 2 ? 3 : 1;
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = y * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? out[row + x - channels]! : 0;
      const b = y > 0 ? out[row - stride + x]! : 0;
      const c = x >= channels && y > 0 ? out[row - stride + x - channels]! : 0;
      let value = line[x]!;
      if (filter === 1) value += a;
      else if (filter === 2) value += b;
      else if (filter === 3) value += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        value += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else if (filter !== 0) throw new Error(`bad PNG filter ${filter}`);
      out[row + x] = value & 0xff;
    }
  }
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const s = i * channels;
    rgba[i * 4] = out[s]!;
    rgba[i * 4 + 1] = out[channels === 1 ? s : s + 1]!;
    rgba[i * 4 + 2] = out[channels === 1 ? s : s + 2]!;
    rgba[i * 4 + 3] = channels === 4 ? out[s + 3]! : 255;
  }
  return { width, height, rgba };
}

/** How many distinct colours the image has, and the share of pixels that differ from its most common colour. */
export function inkOf(p: Pixels): { colours: number; inkShare: number } {
  const counts = new Map<number, number>();
  for (let i = 0; i < p.rgba.length; i += 4) {
    const key = (p.rgba[i]! << 16) | (p.rgba[i + 1]! << 8) | p.rgba[i + 2]!;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const background = Math.max(...counts.values());
  const total = p.width * p.height;
  return { colours: counts.size, inkShare: (total - background) / total };
}

/** The share of pixels that differ between two images (sizes may differ: the rows and columns they share). */
export function differenceShare(a: Pixels, b: Pixels): number {
  const width = Math.min(a.width, b.width);
  const height = Math.min(a.height, b.height);
  let differ = 0;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * a.width + x) * 4;
      const j = (y * b.width + x) * 4;
      if (a.rgba[i] !== b.rgba[j] || a.rgba[i + 1] !== b.rgba[j + 1] || a.rgba[i + 2] !== b.rgba[j + 2]) differ++;
    }
  return (
    (differ + Math.max(a.width * a.height, b.width * b.height) - width * height) /
    Math.max(a.width * a.height, b.width * b.height)
  );
}
