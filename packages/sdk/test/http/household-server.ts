// A household served over real HTTP for the stream-access and limit tests: a host on a SQLite file (run
// workers off, so started runs stay queued and every event comes from the test), the router on a real
// port, a token table the test can sign people out of, a role table it can demote people in, and an SSE
// client read with undici.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { expect } from 'vitest';
import { ConsoleLogger, createAgentHost, ManualClock, type AgentHost, type AgentOptions } from '../../src/index';
import { createAgentRouter, toNodeListener, type AgentRouter, type AgentRouterOptions } from '../../src/http';
import { SqliteStorage } from '../../src/sqlite';

export interface Household {
  host: AgentHost;
  router: AgentRouter;
  base: string;
  /** token → actor: delete a token to sign its person out. */
  tokens: Map<string, string>;
  /** actor → role: set `user` to demote. */
  roles: Map<string, 'admin' | 'user'>;
  clock: ManualClock;
  close(): Promise<void>;
}

/**
 * A started host (run workers off) on a SQLite file in a new temp directory named from `dirPrefix`, on a manual
 * clock at the current time, whose role table makes `user:admin` an administrator and everyone else a user.
 */
export async function householdHost(dirPrefix: string, options: Partial<AgentOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  const roles = new Map<string, 'admin' | 'user'>([['user:admin', 'admin']]);
  const clock = new ManualClock(Date.now());
  const host = createAgentHost({
    storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
    logger: new ConsoleLogger('silent'),
    model: { provider: { provider: 'scripted', scripts: [] }, model: 'scripted' },
    identity: { roleOf: (actor) => roles.get(actor) ?? 'user' },
    clock,
    ...options,
  });
  await host.start({ workers: false });
  return { dir, host, roles, clock };
}

/** Serves a household: `user:admin` (admin-token) is an administrator, `user:bob` and `user:carol` are not. */
export async function serveHousehold(
  options: { host?: Partial<AgentOptions>; router?: Partial<AgentRouterOptions> } = {},
): Promise<Household> {
  const tokens = new Map([
    ['admin-token', 'user:admin'],
    ['bob-token', 'user:bob'],
    ['carol-token', 'user:carol'],
  ]);
  const { dir, host, roles, clock } = await householdHost('media-agent-household-', options.host);
  const router = createAgentRouter(host, {
    authenticate: (req) => tokens.get(req.headers.get('authorization')?.replace(/^Bearer /, '') ?? ''),
    consoleDir: false,
    pollMs: 20,
    heartbeatMs: 60_000,
    ...options.router,
  });
  const server: Server = createServer(toNodeListener(router));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    host,
    router,
    base,
    tokens,
    roles,
    clock,
    async close() {
      router.closeStreams();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await host.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One server-sent event as read. */
export interface Frame {
  event?: string;
  id?: string;
  data: Record<string, any>;
}

/** An open SSE stream of `GET /api/events`, read in the background. */
export class SseClient {
  readonly frames: Frame[] = [];
  done = false;
  readonly #abort = new AbortController();
  #finished!: Promise<void>;

  private constructor() {}

  /** Opens the stream; answers the status and problem body instead when it is refused. */
  static async open(
    base: string,
    token: string,
    path = '/api/events',
  ): Promise<SseClient | { status: number; headers: Record<string, unknown>; body: Record<string, any> }> {
    const client = new SseClient();
    const res = await request(`${base}${path}`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
      signal: client.#abort.signal,
    });
    if (res.statusCode !== 200)
      return { status: res.statusCode, headers: res.headers, body: JSON.parse(await res.body.text()) };
    client.#finished = (async () => {
      let buffer = '';
      try {
        for await (const chunk of res.body) {
          buffer += chunk.toString();
          for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
            const text = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const data = /^data: (.*)$/m.exec(text)?.[1];
            if (data === undefined) continue;
            const event = /^event: (.*)$/m.exec(text)?.[1];
            const id = /^id: (.*)$/m.exec(text)?.[1];
            client.frames.push({ ...(event ? { event } : {}), ...(id ? { id } : {}), data: JSON.parse(data) });
          }
        }
      } catch {
        // aborted by the test
      }
      client.done = true;
    })();
    return client;
  }

  /** Waits until `predicate` holds for the frames read so far. */
  async waitFor(predicate: (frames: Frame[]) => boolean, timeout = 4000): Promise<void> {
    await expect.poll(() => predicate(this.frames), { timeout, interval: 10 }).toBe(true);
  }

  /** Resolves when the server ended the stream. */
  ended(): Promise<void> {
    return this.#finished;
  }

  /** The client leaves. */
  async close(): Promise<void> {
    this.#abort.abort();
    await this.#finished;
  }
}

/** Opens a stream that must be accepted. */
export async function openStream(base: string, token: string, path?: string): Promise<SseClient> {
  const opened = await SseClient.open(base, token, path);
  if (!(opened instanceof SseClient))
    throw new Error(`stream refused: ${opened.status} ${JSON.stringify(opened.body)}`);
  return opened;
}

/** Starts a run over HTTP as the token's person; returns its id. */
export async function postRun(base: string, token: string, goal = 'look around'): Promise<string> {
  const res = await request(`${base}/api/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ goal, mode: 'plan_only' }),
  });
  const body = JSON.parse(await res.body.text());
  if (res.statusCode !== 201) throw new Error(`start refused: ${res.statusCode} ${JSON.stringify(body)}`);
  return body.run.id;
}
