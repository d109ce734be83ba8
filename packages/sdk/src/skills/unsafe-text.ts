// What text written into a personal skill may not contain: the memory threat patterns (prompt
// injection, exfiltration, persistence, hard-coded secrets, invisible characters), one shared table.
import { scanThreats, THREAT_SCAN_WINDOW } from '../memory/threat-scan';

/** Characters each scanned window shares with the next, so a pattern across a boundary is still found. */
const OVERLAP = 1024;

/**
 * The id of the first unsafe finding in `text` (strict scope), or undefined. A skill file may be
 * longer than one scan window, so it is scanned window by window; a leading BOM is tolerated.
 */
export function findUnsafeText(text: string): string | undefined {
  const body = text.replace(/^\uFEFF/, '');
  for (let at = 0; at === 0 || at < body.length; at += THREAT_SCAN_WINDOW - OVERLAP) {
    const finding = scanThreats(body.slice(at, at + THREAT_SCAN_WINDOW), 'strict');
    if (finding) return finding.id;
    if (at + THREAT_SCAN_WINDOW >= body.length) break;
  }
  return undefined;
}
