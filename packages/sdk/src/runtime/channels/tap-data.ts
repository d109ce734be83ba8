// What a button carries back when it is tapped: signed with the host's secret, so a forged or altered string is
// refused before anything is looked up (docs/channels.md#approvals-and-choices-by-button).
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Telegram's `callback_data` limit, in bytes of UTF-8: the most a button's data may hold. @public */
export const MAX_TAP_DATA_BYTES = 64;

/**
 * What a tap asks for.
 * - `approve` / `reject`: decide approval `ref`, whose payload hash begins with `hash`;
 * - `choose`: answer the choice of run `ref` whose question hashes to `hash` with option `option` (0-based).
 * @public
 */
export type TapRequest =
  | { kind: 'approve' | 'reject'; ref: string; hash: string }
  | { kind: 'choose'; ref: string; hash: string; option: number };

/** Hex digits of the payload-hash (or question-hash) prefix a button carries. */
export const TAP_HASH_DIGITS = 8;

const KIND_LETTER = { approve: 'a', reject: 'r', choose: 'c' } as const;
const LETTER_KIND: Record<string, TapRequest['kind']> = { a: 'approve', r: 'reject', c: 'choose' };

/** The signature: the first 8 bytes of HMAC-SHA-256 over the chat and the data, base64url (11 characters). */
function mac(secret: string, channelId: string, chatId: string, body: string): string {
  return createHmac('sha256', secret)
    .update(`${channelId}\n${chatId}\n${body}`)
    .digest()
    .subarray(0, 8)
    .toString('base64url');
}

/**
 * The button data of a tap request, for one chat: `<kind>.<ref>.<hash>[.<option>].<mac>`, signed with `secret`
 * over the channel, chat and body (data copied to another chat does not verify).
 * @returns the data, or null when it would be over {@link MAX_TAP_DATA_BYTES} (a very long id: confirm by text instead)
 * @public
 */
export function signTap(secret: string, channelId: string, chatId: string, request: TapRequest): string | null {
  const hash = request.hash.slice(0, TAP_HASH_DIGITS);
  const body = [KIND_LETTER[request.kind], request.ref, hash, ...(request.kind === 'choose' ? [request.option] : [])]
    .map(String)
    .join('.');
  const data = `${body}.${mac(secret, channelId, chatId, body)}`;
  return Buffer.byteLength(data, 'utf8') <= MAX_TAP_DATA_BYTES && !request.ref.includes('.') ? data : null;
}

/**
 * The tap request a button's data carries, when its signature verifies for this chat; null for a forged, altered
 * or malformed string (or one signed for another chat).
 * @public
 */
export function verifyTap(secret: string, channelId: string, chatId: string, data: string): TapRequest | null {
  if (typeof data !== 'string' || Buffer.byteLength(data, 'utf8') > MAX_TAP_DATA_BYTES) return null;
  const at = data.lastIndexOf('.');
  if (at < 0) return null;
  const body = data.slice(0, at);
  const given = Buffer.from(data.slice(at + 1), 'utf8');
  const expected = Buffer.from(mac(secret, channelId, chatId, body), 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const [letter, ref, hash, option, ...rest] = body.split('.');
  const kind = LETTER_KIND[letter ?? ''];
  if (!kind || !ref || !hash || rest.length > 0) return null;
  if (kind !== 'choose') return option === undefined ? { kind, ref, hash } : null;
  const index = Number(option);
  return Number.isInteger(index) && index >= 0 && String(index) === option ? { kind, ref, hash, option: index } : null;
}
