// The outbox's crash guarantee with real child processes on a SQLite file and a real HTTP channel:
// - killed after the commit that wrote the row and before the send: exactly one message after restart;
// - killed after the channel received the send and before the row was marked sent: a channel without
//   de-duplication (`dedupe: none`) gets it twice, one that de-duplicates by our key (`client_key`) shows it once.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { killWorkerWhen } from '../runtime/kill-worker';

const worker = fileURLToPath(new URL('./fixtures/outbox-kill-worker.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const dirs: string[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The channel: every POST /send recorded; with `dedupe`, a key seen before shows no new message. */
async function channelServer(options: { dedupe: boolean; hold?: boolean }) {
  const requests: Array<{ idempotencyKey: string; text: string }> = [];
  const shown = new Map<string, string>();
  let held = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const message = JSON.parse(body) as { idempotencyKey: string; text: string };
      requests.push(message);
      let id = options.dedupe ? shown.get(message.idempotencyKey) : undefined;
      if (id === undefined) shown.set(message.idempotencyKey, (id = `m${requests.length}`));
      // The first request may be held unanswered: the sender dies before it learns the message went out.
      if (options.hold && held++ === 0) return;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ messageId: id }));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    /** The messages the chat shows: one per request, or one per key when the channel de-duplicates. */
    shown: () => (options.dedupe ? shown.size : requests.length),
  };
}

function rowsInFile(dbFile: string): Array<{ status: string; attempts: number; sent_message_id: string | null }> {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT status, attempts, sent_message_id FROM channel_outbox ORDER BY seq').all() as never;
  } finally {
    db.close();
  }
}

/** Runs the worker in `deliver` mode to its end (exit 0), or fails with its stderr. */
async function deliver(dbFile: string, url: string, dedupe: string): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', worker, dbFile, url, dedupe, 'deliver'], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  if (code !== 0) throw new Error(`deliver worker exited ${code}: ${stderr}`);
}

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-outbox-kill-'));
  dirs.push(dir);
  return join(dir, 'agent.sqlite');
}

describe('outbox crash guarantee (real child processes, SQLite file, HTTP channel)', () => {
  it('SIGKILL after the commit wrote the row and before the send: exactly one message after restart', async () => {
    const dbFile = tempDb();
    const channel = await channelServer({ dedupe: false });
    const { signal } = await killWorkerWhen(worker, [dbFile, channel.url, 'none', 'write'], (out) => {
      if (!out.includes('committed\n')) return undefined;
      // Kill only once the row is in the file, queued.
      return rowsInFile(dbFile).some((r) => r.status === 'queued') ? true : undefined;
    });
    expect(signal).toBe('SIGKILL');
    expect(rowsInFile(dbFile)).toEqual([{ status: 'queued', attempts: 0, sent_message_id: null }]);
    expect(channel.requests).toEqual([]);

    await deliver(dbFile, channel.url, 'none');
    expect(channel.requests.map((r) => [r.idempotencyKey, r.text])).toEqual([['run-kill:1:0', 'Hello there']]);
    expect(rowsInFile(dbFile)).toEqual([{ status: 'sent', attempts: 1, sent_message_id: 'm1' }]);
    // A restart with nothing queued sends nothing more.
    await deliver(dbFile, channel.url, 'none');
    expect(channel.requests).toHaveLength(1);
  }, 60_000);

  it.each([
    ['none', 2],
    ['client_key', 1],
  ] as const)(
    'SIGKILL after the channel got the send and before it was marked sent: dedupe %s shows %i message(s)',
    async (dedupe, messages) => {
      const dbFile = tempDb();
      const channel = await channelServer({ dedupe: dedupe === 'client_key', hold: true });
      await killWorkerWhen(worker, [dbFile, channel.url, dedupe, 'write'], (out) =>
        out.includes('committed\n') ? true : undefined,
      );
      // The first delivery reaches the channel, which holds its answer; the sender is killed meanwhile.
      const sender = spawn(process.execPath, ['--import', 'tsx', worker, dbFile, channel.url, dedupe, 'deliver'], {
        cwd: repoRoot,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const died = new Promise<NodeJS.Signals | null>((r) => sender.once('exit', (_c, sig) => r(sig)));
      const deadline = Date.now() + 30_000;
      while (channel.requests.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(channel.requests).toHaveLength(1);
      sender.kill('SIGKILL');
      expect(await died).toBe('SIGKILL');
      expect(rowsInFile(dbFile)[0]!.status).toBe('queued');
      await deliver(dbFile, channel.url, dedupe);
      expect(channel.requests.map((r) => r.idempotencyKey)).toEqual(['run-kill:1:0', 'run-kill:1:0']);
      expect(channel.shown()).toBe(messages);
      expect(rowsInFile(dbFile)[0]!.status).toBe('sent');
    },
    60_000,
  );
});
