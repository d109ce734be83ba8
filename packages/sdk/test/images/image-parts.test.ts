import { describe, expect, it } from 'vitest';
import { checkImagePart, extractImages, IMAGE_LIMITS, sniffImageType } from '../../src/runtime/images/image-parts';
import { modelAcceptsImages } from '../../src/runtime/images/vision-models';
import { solidPng } from '../../src/testing';

const png = solidPng(4, 4, [200, 10, 10]);
const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1]);
const gif = Buffer.from('GIF89a\u0001\u0000\u0001\u0000', 'latin1');
const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.from([4, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);

describe('image parts in capability output', () => {
  it('recognizes PNG, JPEG, GIF and WebP by their first bytes', () => {
    expect([png, jpeg, gif, webp].map((b) => sniffImageType(b))).toEqual([
      'image/png',
      'image/jpeg',
      'image/gif',
      'image/webp',
    ]);
    expect(sniffImageType(Buffer.from('hello world!'))).toBeUndefined();
  });

  it('accepts base64, a data URL or bytes, with or without a declared type', () => {
    const b64 = png.toString('base64');
    for (const part of [
      { type: 'image', mediaType: 'image/png', data: b64 },
      { type: 'image', data: `data:image/png;base64,${b64}` },
      { type: 'image', data: new Uint8Array(png) },
      { type: 'image', media_type: 'image/png', data: b64 },
      // Bytes after the invocation path's JSON copy: a Uint8Array's and a Buffer's JSON forms.
      { type: 'image', data: JSON.parse(JSON.stringify(new Uint8Array(png))) },
      { type: 'image', data: JSON.parse(JSON.stringify(png)) },
    ])
      expect(checkImagePart(part)).toMatchObject({
        ok: true,
        image: { type: 'image', mediaType: 'image/png', data: b64 },
      });
  });

  it('refuses data that is not an image, an unsupported type, a type the bytes contradict, and too large ones', () => {
    expect(
      checkImagePart({ type: 'image', data: Buffer.from('just text, no image').toString('base64') }),
    ).toMatchObject({
      ok: false,
      code: 'IMAGE_INVALID',
    });
    expect(checkImagePart({ type: 'image', data: 'not base64 at all!' })).toMatchObject({
      ok: false,
      code: 'IMAGE_INVALID',
    });
    expect(checkImagePart({ type: 'image', mediaType: 'image/svg+xml', data: 'PHN2Zz4=' })).toMatchObject({
      ok: false,
      code: 'IMAGE_UNSUPPORTED_TYPE',
    });
    expect(checkImagePart({ type: 'image', mediaType: 'image/jpeg', data: png.toString('base64') })).toMatchObject({
      ok: false,
      code: 'IMAGE_INVALID',
      message: expect.stringContaining('image/png'),
    });
    const big = Buffer.concat([png, Buffer.alloc(IMAGE_LIMITS.maxImageBytes)]);
    expect(checkImagePart({ type: 'image', data: big.toString('base64') })).toMatchObject({
      ok: false,
      code: 'IMAGE_TOO_LARGE',
    });
    expect(checkImagePart({ type: 'image', data: new Uint8Array(big) })).toMatchObject({
      ok: false,
      code: 'IMAGE_TOO_LARGE',
    });
    // Under 768 KiB of bytes but over 1 MiB as a data URL.
    expect(
      checkImagePart({ type: 'image', data: png.toString('base64') }, { maxImageBytes: 786_432, maxDataUrlChars: 64 }),
    ).toMatchObject({ ok: false, code: 'IMAGE_TOO_LARGE', message: expect.stringContaining('data URL') });
  });

  it('takes images out of the output at any depth, leaving a description or the typed refusal', () => {
    const output = {
      title: 'Dune',
      posters: [
        { type: 'image', mediaType: 'image/png', data: png.toString('base64') },
        { type: 'image', mediaType: 'image/tiff', data: 'AAAA' },
      ],
    };
    const { output: clean, images, problems } = extractImages(output);
    expect(images).toHaveLength(1);
    expect(problems).toEqual([{ code: 'IMAGE_UNSUPPORTED_TYPE', message: expect.any(String) }]);
    expect(clean).toEqual({
      title: 'Dune',
      posters: [
        { type: 'image', image_index: 0, mediaType: 'image/png', bytes: png.length },
        { type: 'image', error: { code: 'IMAGE_UNSUPPORTED_TYPE', message: expect.any(String) } },
      ],
    });
    expect(JSON.stringify(clean)).not.toContain(png.toString('base64'));
    const plain = { a: [1, { b: 'c' }] };
    expect(extractImages(plain).output).toBe(plain);
  });
});

describe('which models accept images', () => {
  it('follows the table, the host override first, and says unknown for models it does not know', () => {
    expect(modelAcceptsImages('claude-sonnet-4-5')).toBe(true);
    expect(modelAcceptsImages('gpt-4o-mini')).toBe(true);
    expect(modelAcceptsImages('deepseek-chat')).toBe(false);
    expect(modelAcceptsImages('qwen-plus')).toBe(false);
    expect(modelAcceptsImages('qwen-vl-max')).toBe(true);
    expect(modelAcceptsImages('gpt-3.5-turbo')).toBe(false);
    expect(modelAcceptsImages('deepseek-chat', { 'deepseek-chat': true })).toBe(true);
    expect(modelAcceptsImages('my-local-model')).toBeUndefined();
  });
});
