// Confirmation by text, for channels without buttons: "reply YES <code> or NO <code>". A code belongs to one approval,
// the payload hash the person was shown and one chat; an edited plan makes it stale (docs/channels.md#text-confirmation).
import { createHmac } from 'node:crypto';

/** Letters of a code: no 0/O, 1/I/L, so a code read aloud or typed on a phone survives. */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/** Characters of a confirmation code. @public */
export const CONFIRM_CODE_LENGTH = 6;

/**
 * The confirmation code of an approval in one chat: 6 letters derived (HMAC-SHA-256 with the host's secret) from the
 * approval id, the payload hash the person was shown, and the chat.
 * @public
 */
export function confirmCode(
  secret: string,
  channelId: string,
  chatId: string,
  approval: { id: string; payloadHash: string },
): string {
  const digest = createHmac('sha256', secret)
    .update(`code\n${channelId}\n${chatId}\n${approval.id}\n${approval.payloadHash}`)
    .digest();
  let code = '';
  for (let i = 0; i < CONFIRM_CODE_LENGTH; i++) code += ALPHABET[digest[i]! % ALPHABET.length];
  return code;
}

/**
 * A text confirmation: `YES <code>` or `NO <code>` (any case, surrounding spaces ignored; also `Y`/`N`,
 * `APPROVE`/`REJECT`). Anything else is not a confirmation (null) and is handled as a message.
 * @public
 */
export function parseConfirmation(text: string): { status: 'approved' | 'rejected'; code: string } | null {
  const m = /^\s*(yes|y|approve|no|n|reject)\s+([a-z0-9]{6})\s*[.!]?\s*$/i.exec(text);
  if (!m) return null;
  const word = m[1]!.toLowerCase();
  return {
    status: word === 'yes' || word === 'y' || word === 'approve' ? 'approved' : 'rejected',
    code: m[2]!.toUpperCase(),
  };
}
