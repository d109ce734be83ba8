// `media.poster`: the sandbox world's read capability that returns an image (a generated PNG poster).
import { crc32, deflateSync } from 'node:zlib';
import Type from 'typebox';
import { defineCapability } from '../../capabilities/define-capability';
import { MediaStateError } from '../../media/errors';
import { entityOf, type SandboxWorld } from './world';

/** Id of the sandbox poster capability. @public */
export const SANDBOX_POSTER_CAPABILITY = 'media.poster';

/**
 * A PNG image of `width` × `height` pixels in one RGB colour with a darker band, made with zlib
 * (no image library). Pure.
 * @param width - pixels
 * @param height - pixels
 * @param rgb - the colour
 * @returns the PNG file's bytes
 * @public
 */
export function solidPng(width: number, height: number, rgb: readonly [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const shade = y > height * 0.75 ? 0.5 : 1;
    for (let x = 0; x < width; x++) {
      const at = y * (width * 3 + 1) + 1 + x * 3;
      rows[at] = Math.round(rgb[0] * shade);
      rows[at + 1] = Math.round(rgb[1] * shade);
      rows[at + 2] = Math.round(rgb[2] * shade);
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * `media.poster` (kind `read`): the poster of a title of the sandbox world, as an image part
 * `{ type: 'image', mediaType: 'image/png', data }` (base64 of a 60 × 90 PNG whose colour follows the
 * title), to exercise images in tool results.
 * @param world - the sandbox world
 * @returns the capability; register it with `host.capabilities.register(...)`
 * @throws (handler) `MEDIA_NOT_FOUND` for an id the world does not know
 * @example
 * ```ts
 * const world = new SandboxWorld();
 * host.capabilities.register(sandboxPosterCapability(world));
 * const result = await host.invoke('media.poster', { mediaEntityId: 'tmdb:693134' }, { actor: 'user:admin' });
 * ```
 * @public
 */
export function sandboxPosterCapability(world: SandboxWorld) {
  return defineCapability({
    id: SANDBOX_POSTER_CAPABILITY,
    version: 1,
    title: 'Poster of a title',
    description:
      'The poster image of a film or series. Input: mediaEntityId from catalog.lookup (e.g. tmdb:693134). Output: the title and its poster as an image.',
    kind: 'read',
    replay: 'safe',
    input: Type.Object({ mediaEntityId: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
    output: Type.Object({
      mediaEntityId: Type.String(),
      title: Type.String(),
      poster: Type.Object({ type: Type.Literal('image'), mediaType: Type.String(), data: Type.String() }),
    }),
    handler: async ({ mediaEntityId }) => {
      const title = world.resolveTitle(mediaEntityId);
      if (!title)
        throw new MediaStateError('MEDIA_NOT_FOUND', `no title ${JSON.stringify(mediaEntityId)}`, { mediaEntityId });
      let h = 0;
      for (const c of title.mediaId) h = (h * 31 + c.charCodeAt(0)) >>> 0;
      const png = solidPng(60, 90, [h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff]);
      return {
        mediaEntityId: entityOf(title),
        title: title.title,
        poster: { type: 'image' as const, mediaType: 'image/png', data: png.toString('base64') },
      };
    },
  });
}
