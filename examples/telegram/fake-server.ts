/**
 * A fake Telegram Bot API server on your machine, and you as a Telegram user typing to the bot.
 *
 *   node --import tsx examples/telegram/fake-server.ts            # listens on 127.0.0.1:8081
 *   FAKE_BOT_API_PORT=9000 node --import tsx examples/telegram/fake-server.ts
 *
 * It prints the token and the API root to give `examples/telegram/main.ts`; then each line you type is a message
 * from "Ann" (user 1001) in her private chat with the bot, and every message the bot sends or edits is printed.
 * A line `/tap <message id> <data>` taps a button instead.
 */
import { createInterface } from 'node:readline';
import { FakeBotApi, type FakeChat, type FakeUser } from '@media-agent/channel-telegram/testing';

const fake = new FakeBotApi({
  token: process.env.TELEGRAM_BOT_TOKEN ?? '123456789:fake-token-for-the-example',
  port: Number(process.env.FAKE_BOT_API_PORT ?? 8081),
});
const apiRoot = await fake.start();
const ann: FakeUser = { id: 1001, first_name: 'Ann' };
const chat: FakeChat = { id: ann.id, type: 'private' };

console.log(`fake Bot API at ${apiRoot}. In another terminal:
  TELEGRAM_BOT_TOKEN='${fake.token}' TELEGRAM_API_ROOT=${apiRoot} node --import tsx examples/telegram/main.ts
Type a message as Ann (/tap <message id> <data> taps a button; Ctrl-D quits).`);

// What the chat shows: each new bot message, and each edit, once.
const shown = new Map<number, string>();
setInterval(() => {
  for (const m of fake.sent(chat.id)) {
    const view = `${m.text}${m.buttons.length ? `  ${m.buttons.map((row) => row.map((b) => `[${b.text} → ${b.data}]`).join(' ')).join(' / ')}` : ''}`;
    if (shown.get(m.messageId) === view) continue;
    const edited = shown.has(m.messageId);
    shown.set(m.messageId, view);
    console.log(`bot #${m.messageId}${edited ? ' (edited)' : ''}${m.replyTo ? ` ↪ #${m.replyTo}` : ''}: ${view}`);
  }
}, 200).unref();

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const tap = /^\/tap (\d+) (\S+)$/.exec(line.trim());
  if (tap) fake.userTaps(chat, ann, Number(tap[1]), tap[2]!);
  else if (line.trim()) console.log(`you #${fake.userSays(chat, ann, line).message_id}: ${line}`);
}
await fake.close();
