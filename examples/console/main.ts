/**
 * The web console: the quickstart's host (SQLite, the sandbox media world, the scripted model unless a
 * provider key is set) with `@media-agent/sdk/http` mounted on Node's `http`.
 *
 *   npm run console                       # http://127.0.0.1:8787/ (PORT to change it)
 *
 * Sign-in is the host's business, not the SDK's: this example keeps one console session token
 * (CONSOLE_TOKEN, or a random one printed at start). Opening `/login?token=<token>` sets it as a cookie;
 * API callers may send it as `Authorization: Bearer <token>`. The router's `authenticate` hook maps that
 * session to the console administrator `user:admin`; any other request is refused with 401.
 * The data directory (MEDIA_AGENT_DATA_DIR, default ./.media-agent-console) keeps runs across restarts:
 * a page left open resumes its run where it left off.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';
import { ConsoleLogger, createAgentHost, SystemClock, type ModelProviderConfig } from '@media-agent/sdk';
import { createAgentRouter, toNodeListener } from '@media-agent/sdk/http';
import { SqliteStorage } from '@media-agent/sdk/sqlite';
import { addToLibraryScript, registerSandboxCapabilities, SandboxWorld } from '@media-agent/sdk/testing';

const dataDir = resolve(process.env.MEDIA_AGENT_DATA_DIR ?? '.media-agent-console');
const port = Number(process.env.PORT ?? 8787);
const token = process.env.CONSOLE_TOKEN || randomBytes(18).toString('base64url');
mkdirSync(dataDir, { recursive: true });

/** The model: a real provider when its key is in the environment, else the scripted one (streams slowly enough to watch). */
function modelConfig(): { provider: ModelProviderConfig; model: string } {
  if (process.env.ANTHROPIC_API_KEY)
    return {
      provider: { provider: 'anthropic', apiKey: process.env.ANTHROPIC_API_KEY },
      model: process.env.ANTHROPIC_MODEL ?? 'claude-sonnet-4-5',
    };
  if (process.env.OPENAI_API_KEY && process.env.OPENAI_BASE_URL)
    return {
      provider: {
        provider: 'openai-compatible',
        apiKey: process.env.OPENAI_API_KEY,
        baseUrl: process.env.OPENAI_BASE_URL,
      },
      model: process.env.OPENAI_MODEL ?? 'gpt-4o-mini',
    };
  const titles = ['Dune: Part Two', 'Blade Runner 2049', 'Arrival'];
  return {
    provider: {
      provider: 'scripted',
      scripts: titles.map((t) => addToLibraryScript(t)),
      chunkSize: 6,
      delayMs: Number(process.env.SCRIPTED_DELAY_MS ?? 40),
    },
    model: 'scripted',
  };
}

const clock = new SystemClock();
const world = new SandboxWorld({
  clock,
  filePath: join(dataDir, 'world.json'),
  durations: { queuedMs: 500, downloadMs: 2_000, importMs: 500 },
});
const model = modelConfig();
const host = createAgentHost({
  storage: new SqliteStorage({ path: join(dataDir, 'agent.sqlite') }),
  clock,
  logger: new ConsoleLogger('warn'),
  model: { provider: model.provider, model: model.model },
  goalFacts: world,
  runs: { goalPollSec: 1, leaseMs: 3_000, pollMs: 50, budgets: { maxToolCalls: 30, maxDurationSec: 600 } },
});
registerSandboxCapabilities(host, world);
await host.start();

// The agent may propose downloads for a day; submitting one still needs a person's approval in the console.
if (!(await host.grants.list({ status: 'active' })).some((g) => g.action === 'download.plan'))
  await host.grants.create({
    action: 'download.plan',
    actor: 'user:admin',
    reason: 'the console demo: the agent may propose downloads',
    expiresAt: clock.now() + 86_400_000,
  });

const sameToken = (given: string | undefined) =>
  given !== undefined && given.length === token.length && timingSafeEqual(Buffer.from(given), Buffer.from(token));
const cookie = (header: string | null, name: string) =>
  header
    ?.split(';')
    .map((p) => p.trim().split('='))
    .find(([k]) => k === name)?.[1];

const router = createAgentRouter(host, {
  // The host's own authentication: its session cookie or bearer token → the actor. Nothing else is trusted.
  authenticate: (request) => {
    const bearer = request.headers.get('authorization')?.match(/^Bearer (.+)$/)?.[1];
    return sameToken(bearer ?? cookie(request.headers.get('cookie'), 'console_session')) ? 'user:admin' : undefined;
  },
  heartbeatMs: 10_000,
});
const listener = toNodeListener(router);

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname === '/login') {
    // The host's sign-in (here: the session token as a query parameter), not part of the SDK.
    const ok = sameToken(url.searchParams.get('token') ?? undefined);
    res.writeHead(ok ? 303 : 401, {
      ...(ok ? { location: '/', 'set-cookie': `console_session=${token}; HttpOnly; SameSite=Strict; Path=/` } : {}),
      'content-type': 'text/plain; charset=utf-8',
    });
    res.end(ok ? 'signed in' : 'wrong token');
    return;
  }
  listener(req, res);
});
server.listen(port, '127.0.0.1', () => {
  console.log(`media-agent console: http://127.0.0.1:${port}/login?token=${token}`);
});

const shutdown = async () => {
  await host.stop(); // ends every open event stream cleanly
  server.close();
};
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
