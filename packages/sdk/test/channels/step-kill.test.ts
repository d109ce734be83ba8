// The outbox's crash guarantee through a REAL run step: a child process runs a whole host (SQLite file, sandbox
// world, scripted model, the real TelegramChannel on the parent's fake Bot API server) whose dispatcher holds its
// passes; the person's message starts a run, the run's step commits its reply row `queued`, and the parent SIGKILLs
// the child between that commit and the send. A restarted host delivers the reply: exactly one message.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FakeBotApi, type FakeChat, type FakeUser } from '@media-agent/channel-telegram/testing';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';

const worker = fileURLToPath(new URL('./fixtures/channel-host-worker.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const ann: FakeUser = { id: 1001, first_name: 'Ann' };
const annChat: FakeChat = { id: ann.id, type: 'private' };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Polls `check` every 20 ms until it gives a value, or fails after `ms` naming `what`. */
async function until<T>(check: () => T | undefined | false, what: string, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A host child on `file`; resolves once it printed "ready". */
async function hostChild(file: string, fake: FakeBotApi, mode: 'hold' | 'deliver') {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', worker, file, fake.apiRoot, fake.token, mode],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_c, signal) => r(signal)));
  let gone = false;
  void exited.then(() => (gone = true));
  cleanups.push(async () => {
    if (!gone) child.kill('SIGKILL');
    await exited;
  });
  await until(() => out.includes('ready\n') || (gone && new Error(`host child exited: ${err}`)), 'the host child');
  if (gone) throw new Error(`host child exited: ${err}`);
  return {
    kill: async () => {
      child.kill('SIGKILL');
      return exited;
    },
  };
}

interface FileState {
  runs: Array<{ id: string; status: string }>;
  rows: Array<{ run_id: string | null; kind: string; status: string; idempotency_key: string }>;
}

/** The runs and outbox rows in the SQLite file, read by a separate read-only connection. */
function fileState(file: string): FileState {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return {
      runs: db.prepare('SELECT id, status FROM runs ORDER BY created_at').all() as FileState['runs'],
      rows: db
        .prepare('SELECT run_id, kind, status, idempotency_key FROM channel_outbox ORDER BY seq')
        .all() as FileState['rows'],
    };
  } finally {
    db.close();
  }
}

describe('a real run step killed between its commit and the send', () => {
  it('SIGKILL after the step committed the reply row, before the send: exactly one reply after restart', async () => {
    const fake = new FakeBotApi();
    await fake.start();
    cleanups.push(() => fake.close());
    const dir = mkdtempSync(join(tmpdir(), 'ma-step-kill-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'agent.sqlite');

    const first = await hostChild(file, fake, 'hold');
    const ask = fake.userSays(annChat, ann, 'say hello before the crash');
    // The run's step committed its reply (the run ended with it): the row is in the file, queued.
    const committed = await until(() => {
      try {
        const state = fileState(file);
        const run = state.runs[0];
        const reply = state.rows.find((r) => r.run_id === run?.id && r.kind === 'text');
        return run?.status === 'succeeded' && reply?.status === 'queued' ? { run, reply } : undefined;
      } catch {
        return undefined; // the file or its tables are not there yet
      }
    }, 'the run’s reply row queued in the file');
    expect(fake.sent(annChat.id)).toEqual([]);
    expect(await first.kill()).toBe('SIGKILL');
    expect(fake.sent(annChat.id)).toEqual([]);

    await hostChild(file, fake, 'deliver');
    await until(() => {
      const state = fileState(file);
      return state.rows.length > 0 && state.rows.every((r) => r.status === 'sent') && fake.pendingUpdates.length === 0;
    }, 'every row sent and every update confirmed');
    const shown = fake.sent(annChat.id);
    expect(shown.map((m) => [m.text, m.replyTo])).toEqual([
      ['Answer to "say hello before the crash".', ask.message_id],
    ]);
    const state = fileState(file);
    // One run (a redelivered update would be a duplicate, never a second run), its one reply row sent once.
    expect(state.runs.map((r) => r.id)).toEqual([committed.run.id]);
    expect(state.rows.map((r) => [r.idempotency_key, r.status])).toEqual([[committed.reply.idempotency_key, 'sent']]);
    expect(fake.calls.filter((c) => c.method === 'sendMessage' && c.status === 200)).toHaveLength(1);
  }, 90_000);
});
