import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One static file of the web console, held in memory. @internal */
export interface ConsoleAsset {
  /** The bytes. */
  body: Uint8Array;
  /** Its media type. */
  contentType: string;
  /** A strong validator (content hash). */
  etag: string;
  /** Extra response headers (the page's content security policy). */
  headers: Record<string, string>;
}

/** The console's files: URL path (below the router's root) → file name. */
const FILES: ReadonlyArray<[string, string, string]> = [
  ['/', 'index.html', 'text/html; charset=utf-8'],
  ['/console.js', 'console.js', 'text/javascript; charset=utf-8'],
  ['/console.css', 'console.css', 'text/css; charset=utf-8'],
];

/**
 * Reads the console's static files once (they ship in the package; nothing is fetched at run time).
 * @param dir - the folder holding `index.html`, `console.js` and `console.css`
 * @internal
 */
export function loadConsoleAssets(dir: string): Map<string, ConsoleAsset> {
  const assets = new Map<string, ConsoleAsset>();
  for (const [path, file, contentType] of FILES) {
    const body = new Uint8Array(readFileSync(join(dir, file)));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    assets.set(path, { body, contentType, etag, headers: file === 'index.html' ? pageHeaders(body) : {} });
  }
  return assets;
}

/**
 * The page's security headers: scripts, styles and connections from the router's own origin only (plus the
 * page's own inline scripts, by hash), and never framed by another page (an approval button must not be
 * clickable through someone else's overlay).
 */
function pageHeaders(html: Uint8Array): Record<string, string> {
  const text = new TextDecoder().decode(html);
  const inline = [...text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    (m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`,
  );
  return {
    'content-security-policy': [
      "default-src 'self'",
      `script-src 'self' ${inline.join(' ')}`.trim(),
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join('; '),
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  };
}
