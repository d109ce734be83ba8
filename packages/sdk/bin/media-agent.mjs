#!/usr/bin/env node
// The `media-agent` command line. A built package runs dist/cli.js; in the source repository (no build) it registers
// tsx and runs src/cli.ts.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// SQLite URI filenames, read by better-sqlite3 when it loads: the audit reader opens a file `?immutable=1`, so
// verifying it writes nothing (docs/audit.md).
process.env.SQLITE_USE_URI ??= '1';
const built = new URL('../dist/cli.js', import.meta.url);
let cli;
if (existsSync(fileURLToPath(built))) {
  cli = await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(new URL('../src/cli.ts', import.meta.url).href);
}
process.exitCode = await cli.main(process.argv.slice(2));
