/**
 * The web console: the quickstart's host (SQLite, the sandbox media world, the scripted model unless a
 * provider key is set, stable memory on) with `@media-agent/sdk/http` mounted on Node's `http`
 * (console-host.ts).
 *
 *   npm run console                       # port 8787 (PORT to change it; PORT=0 picks a free one)
 *
 * SCRIPTED_DELAY_MS (default 40) and SANDBOX_DURATIONS_MS (queued,download,import; default 500,2000,500) set how
 * fast the scripted model streams and the sandbox media world downloads.
 *
 * Sign-in is the host's business, not the SDK's: this example keeps one console session token
 * (CONSOLE_TOKEN, or a random one made at start). Only the login link it prints, `/login?token=<token>`,
 * signs a browser in (it sets the token as a cookie); the bare URL shows the page, but every call it makes
 * answers 401. API callers may send the token as `Authorization: Bearer <token>`.
 * The data directory (MEDIA_AGENT_DATA_DIR, default ./.media-agent-console) keeps runs across restarts:
 * a page left open resumes its run where it left off.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { startConsoleHost } from './console-host';

// SANDBOX_DURATIONS_MS=queued,download,import: how long the sandbox takes per release (default 500,2000,500).
const [queuedMs, downloadMs, importMs] = (process.env.SANDBOX_DURATIONS_MS ?? '').split(',').map(Number);
const sandbox =
  queuedMs !== undefined &&
  downloadMs !== undefined &&
  importMs !== undefined &&
  [queuedMs, downloadMs, importMs].every((n) => n >= 0)
    ? { queuedMs, downloadMs, importMs }
    : undefined;
const token = process.env.CONSOLE_TOKEN || randomBytes(18).toString('base64url');
const consoleHost = await startConsoleHost({
  dataDir: resolve(process.env.MEDIA_AGENT_DATA_DIR ?? '.media-agent-console'),
  token,
  port: Number(process.env.PORT ?? 8787),
  ...(process.env.SCRIPTED_DELAY_MS ? { scriptedDelayMs: Number(process.env.SCRIPTED_DELAY_MS) } : {}),
  ...(sandbox ? { sandboxDurations: sandbox } : {}),
  env: process.env,
});

console.log(`media-agent console listening on ${consoleHost.url} (port ${consoleHost.port})`);
console.log(
  `Sign in with this link (the bare URL is not signed in: its API calls answer 401): ${consoleHost.loginUrl}`,
);

const shutdown = () => void consoleHost.close();
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
