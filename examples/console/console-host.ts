/**
 * The console example's host and web server, as a function: `main.ts` runs it from the command line and
 * `console.test.ts` runs it in the test's own process to seed data through the same host.
 *
 * The host is the quickstart's (SQLite, the sandbox media world, the scripted model unless a provider key is
 * set) with stable memory on, and `@media-agent/sdk/http` mounted on Node's `http`. Sign-in is the host's
 * business, not the SDK's: one console session token; opening `/login?token=<token>` sets it as a cookie, API
 * callers may send it as `Authorization: Bearer <token>`. The router's `authenticate` hook maps that session to
 * the console administrator `user:admin`; any other request is refused with 401.
 */
import { timingSafeEqual } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  type AgentHost,
  type AgentOptions,
  ConsoleLogger,
  createAgentHost,
  type ModelProviderConfig,
  SystemClock,
} from '@media-agent/sdk';
import { createAgentRouter, toNodeListener } from '@media-agent/sdk/http';
import type { FakeScript } from '@media-agent/sdk/models';
import { SqliteStorage } from '@media-agent/sdk/sqlite';
import { addToLibraryScript, registerSandboxCapabilities, SandboxWorld } from '@media-agent/sdk/testing';

/** The actor every signed-in console session acts as. */
export const CONSOLE_ACTOR = 'user:admin';

export interface ConsoleHostOptions {
  /** Keeps runs, the sandbox world and memory across restarts. */
  dataDir: string;
  /** The session token `/login?token=` accepts. */
  token: string;
  /** The port to listen on; 0 picks a free one (the bound port is in the result). */
  port: number;
  /** The scripted model's delay between chunks, in ms (default 40: slow enough to watch). */
  scriptedDelayMs?: number;
  /** How long the sandbox media world takes to queue, download and import a release, in ms (default 500, 2000, 500). */
  sandboxDurations?: { queuedMs: number; downloadMs: number; importMs: number };
  /** The host's schedules option (default: the host's defaults, e.g. intervals of at least one minute). */
  schedules?: AgentOptions['schedules'];
  /** The model provider's keys (default: none, the scripted model). */
  env?: {
    ANTHROPIC_API_KEY?: string;
    ANTHROPIC_MODEL?: string;
    OPENAI_API_KEY?: string;
    OPENAI_BASE_URL?: string;
    OPENAI_MODEL?: string;
  };
}

export interface ConsoleHost {
  host: AgentHost;
  world: SandboxWorld;
  /** The port actually bound (never 0). */
  port: number;
  /** `http://127.0.0.1:<port>/`: answers the console page, but every API call answers 401 until signed in. */
  url: string;
  /** The link that signs a browser in: `http://127.0.0.1:<port>/login?token=<token>`. */
  loginUrl: string;
  /** Stops the host (ends every open event stream) and closes the server. */
  close(): Promise<void>;
}

/**
 * The scripted model's conversation: every message of the person (it matches any text, so each one starts it again)
 * gets one answer that quotes it, and no tool is called.
 */
export const CHAT_SCRIPT: FakeScript = {
  name: 'chat',
  match: { regex: '\\S' },
  finalText: (ctx) => `You said: “${ctx.lastUserMessage}”. (The scripted demo model answers in words only.)`,
};

/** The model: a real provider when its key is given, else the scripted one. */
function modelConfig(options: ConsoleHostOptions): { provider: ModelProviderConfig; model: string } {
  const env = options.env ?? {};
  if (env.ANTHROPIC_API_KEY)
    return {
      provider: { provider: 'anthropic', apiKey: env.ANTHROPIC_API_KEY },
      model: env.ANTHROPIC_MODEL ?? 'claude-sonnet-4-5',
    };
  if (env.OPENAI_API_KEY && env.OPENAI_BASE_URL)
    return {
      provider: { provider: 'openai-compatible', apiKey: env.OPENAI_API_KEY, baseUrl: env.OPENAI_BASE_URL },
      model: env.OPENAI_MODEL ?? 'gpt-4o-mini',
    };
  const titles = ['Dune: Part Two', 'Blade Runner 2049', 'Arrival'];
  return {
    provider: {
      provider: 'scripted',
      // A goal naming one of the titles adds it to the library; anything else is a conversation: each message of the
      // person gets one answer in words (so a turn can be sent, undone and sent again).
      scripts: [...titles.map((t) => addToLibraryScript(t)), CHAT_SCRIPT],
      chunkSize: 6,
      delayMs: options.scriptedDelayMs ?? 40,
    },
    model: 'scripted',
  };
}

/** Starts the host and the web server; resolves once the server listens. */
export async function startConsoleHost(options: ConsoleHostOptions): Promise<ConsoleHost> {
  const { dataDir, token } = options;
  mkdirSync(dataDir, { recursive: true });
  const clock = new SystemClock();
  const world = new SandboxWorld({
    clock,
    filePath: join(dataDir, 'world.json'),
    durations: options.sandboxDurations ?? { queuedMs: 500, downloadMs: 2_000, importMs: 500 },
  });
  const model = modelConfig(options);
  const host = createAgentHost({
    storage: new SqliteStorage({ path: join(dataDir, 'agent.sqlite') }),
    clock,
    logger: new ConsoleLogger('warn'),
    model: { provider: model.provider, model: model.model },
    goalFacts: world,
    memory: { dataDir: join(dataDir, 'memory') },
    runs: { goalPollSec: 1, leaseMs: 3_000, pollMs: 50, budgets: { maxToolCalls: 30, maxDurationSec: 600 } },
    ...(options.schedules ? { schedules: options.schedules } : {}),
  });
  registerSandboxCapabilities(host, world);
  await host.start();

  // The agent may propose downloads for a day; submitting one still needs a person's approval in the console.
  if (!(await host.grants.list({ status: 'active' })).some((g) => g.action === 'download.plan'))
    await host.grants.create({
      action: 'download.plan',
      actor: CONSOLE_ACTOR,
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
      return sameToken(bearer ?? cookie(request.headers.get('cookie'), 'console_session')) ? CONSOLE_ACTOR : undefined;
    },
    heartbeatMs: 10_000,
  });
  const listener = toNodeListener(router);

  const server: Server = createServer((req, res) => {
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
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, '127.0.0.1', () => resolve());
    });
  } catch (error) {
    await host.stop();
    throw error;
  }
  // The port the system bound: with PORT=0 it is the free port it picked, not 0.
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/`;
  return {
    host,
    world,
    port,
    url,
    loginUrl: `${url}login?token=${encodeURIComponent(token)}`,
    close: async () => {
      await host.stop(); // ends every open event stream cleanly
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections(); // a browser's idle keep-alive connections would hold the close
      await closed;
    },
  };
}
