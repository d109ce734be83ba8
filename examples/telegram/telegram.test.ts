import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FakeBotApi } from '@media-agent/channel-telegram/testing';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'media-agent-telegram-'));
const fake = new FakeBotApi();
let child: ChildProcess | undefined;
afterAll(async () => {
  child?.kill('SIGKILL');
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('examples/telegram/main.ts (a child process) against the fake Bot API over HTTP', () => {
  it('answers a private message as a reply, and never prints the token', async () => {
    const apiRoot = await fake.start();
    const loader = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;
    child = spawn(process.execPath, ['--import', loader, join(root, 'examples/telegram/main.ts')], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        TELEGRAM_BOT_TOKEN: fake.token,
        TELEGRAM_API_ROOT: apiRoot,
        MEDIA_AGENT_DATA_DIR: dataDir,
        TSX_TSCONFIG_PATH: join(root, 'tsconfig.json'),
      },
    });
    let output = '';
    child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
    const exited = new Promise<number | null>((resolve) => child!.on('close', resolve));

    await fake.until(() => /media-agent on Telegram/.test(output), 50_000);
    const chat = { id: 1001, type: 'private' } as const;
    const question = fake.userSays(chat, { id: 1001, first_name: 'Ann' }, 'is Dune in the library?');
    // The reply is one message, edited as the run's answer grows (the outbox delivers each step's text).
    await fake.until(() => fake.sent(chat.id).some((m) => m.text.includes('The library holds')), 50_000);
    const [reply, ...more] = fake.sent(chat.id);
    expect(more).toEqual([]);
    expect(reply).toMatchObject({ replyTo: question.message_id, buttons: [] });
    expect(reply!.text).toContain('You said "is Dune in the library?"');
    expect(reply!.text).toMatch(/The library holds \d+ title\(s\) matching "Dune"\./);

    child.kill('SIGTERM');
    expect(await exited, output).toBe(0);
    expect(output).not.toContain(fake.token.split(':')[1]!);
  }, 90_000);
});
