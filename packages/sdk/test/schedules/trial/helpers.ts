// Trial helpers: a host on a real SQLite file, a ManualClock, alice/bob users and an admin; an HTTP server.
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { ConsoleLogger, ManualClock, createAgentHost, type AgentHost, type StorageAdapter } from '@media-agent/sdk';
import { createSqliteStorage } from '@media-agent/sdk/sqlite';
import { createAgentRouter, toNodeListener } from '@media-agent/sdk/http';
import { registerScheduleCapabilities } from '../fixtures';

export const ALICE = 'user:alice';
export const BOB = 'user:bob';
export const ADMIN = 'user:admin';
export const T0 = Date.UTC(2026, 5, 1, 12);

const cleanups: Array<() => Promise<unknown> | unknown> = [];
export async function cleanup(): Promise<void> {
  for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
}

export function tempFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'ma-trial-')), 'store.db');
}

export function sqlite(path: string): StorageAdapter {
  const s = createSqliteStorage({ path });
  cleanups.push(() => (s as unknown as { close(): unknown }).close?.());
  return s;
}

export interface TrialHost {
  host: AgentHost;
  clock: ManualClock;
  path: string;
}

export async function makeHost(
  opts: {
    path?: string;
    clock?: ManualClock;
    schedules?: Record<string, unknown>;
    workers?: boolean;
    storage?: StorageAdapter;
    extra?: Record<string, unknown>;
  } = {},
): Promise<TrialHost> {
  const path = opts.path ?? tempFile();
  const clock = opts.clock ?? new ManualClock(T0);
  const host = createAgentHost({
    storage: opts.storage ?? sqlite(path),
    clock,
    logger: new ConsoleLogger('silent'),
    identity: { roleOf: (actor: string) => (actor === ADMIN ? 'admin' : 'user') },
    schedules: { pollMs: 20, ...(opts.schedules ?? {}) },
    ...(opts.extra ?? {}),
  } as Parameters<typeof createAgentHost>[0]);
  registerScheduleCapabilities(host);
  await host.start({ workers: opts.workers ?? false });
  cleanups.push(() => host.stop());
  return { host, clock, path };
}

/** An HTTP server in front of the host; the actor is the `x-actor` header. */
export async function serve(host: AgentHost): Promise<string> {
  const router = createAgentRouter(host, {
    authenticate: (request: Request) => request.headers.get('x-actor') ?? undefined,
    consoleDir: false,
  } as Parameters<typeof createAgentRouter>[1]);
  const server: Server = createServer(toNodeListener(router));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise((r) => server.close(() => r(undefined))));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Catches a promise's rejection as the error (or fails). */
export async function errorOf(
  p: Promise<unknown>,
): Promise<{ code?: string; message: string; details?: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    return e as { code?: string; message: string; details?: Record<string, unknown> };
  }
  throw new Error('expected a rejection, got a result');
}

/** Waits (real time) until `f` is true. */
export async function until(f: () => Promise<boolean> | boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await f()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('condition not met in time');
}
