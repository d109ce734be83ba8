import { canonicalHash } from '../../core/canonical-json';
import type { GuardOutcome } from './types';

/**
 * Hex characters kept of a SHA-256 in call signatures and result fingerprints: 64 bits, so two
 * different calls (or results) of one run look alike with a chance of about 2^-64 — and the state a
 * run stores stays small (it is rewritten with every step).
 */
const DIGEST_HEX = 16;

/**
 * Identity of a call: the tool name plus the SHA-256 of the canonical JSON of its arguments, cut to
 * 64 bits. Key order and number spelling in the arguments do not matter. Missing arguments count as `{}`; arguments with no JSON form (never
 * the case for parsed model output) are hashed by their string form instead of throwing.
 *
 * @param tool - tool name
 * @param input - parsed arguments
 * @returns `tool` + NUL + 16 hex characters
 * @public
 */
export function callSignature(tool: string, input: unknown): string {
  let hash: string;
  try {
    hash = canonicalHash(input ?? {});
  } catch {
    hash = canonicalHash({ unhashable: String(input) });
  }
  return `${tool}\u0000${hash.slice(0, DIGEST_HEX)}`;
}

/**
 * Fingerprint of what a call returned: its status plus its result text, the text read as JSON when
 * it parses (so key order does not matter). Two results with the same fingerprint are "the same
 * result" for the repeat rules; any real change of the result gives another fingerprint.
 *
 * @param outcome - status and result text as the model sees them
 * @returns 16 hex characters (64 bits of a SHA-256)
 * @public
 */
export function resultFingerprint(outcome: GuardOutcome): string {
  const text = outcome.resultText ?? '';
  let body: unknown = text;
  try {
    body = { json: JSON.parse(text) as unknown };
  } catch {
    body = { text };
  }
  let hash: string;
  try {
    hash = canonicalHash({ status: outcome.status, body });
  } catch {
    hash = canonicalHash({ status: outcome.status, body: { text } });
  }
  return hash.slice(0, DIGEST_HEX);
}

/**
 * True when a call is a poll: its tool is listed in `pollingTools`, or its input has an `action`
 * field naming one of `pollingActions`.
 *
 * @param tool - tool name
 * @param input - parsed arguments
 * @param pollingTools - tools whose every call is a poll
 * @param pollingActions - `action` values that make a call a poll
 * @public
 */
export function isPollingCall(
  tool: string,
  input: unknown,
  pollingTools: readonly string[],
  pollingActions: readonly string[],
): boolean {
  if (pollingTools.includes(tool)) return true;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  const action = (input as Record<string, unknown>).action;
  return typeof action === 'string' && pollingActions.includes(action);
}
