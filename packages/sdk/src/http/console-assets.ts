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
    assets.set(path, { body, contentType, etag });
  }
  return assets;
}
