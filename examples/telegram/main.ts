/**
 * Telegram: the quickstart host (SQLite storage, the sandbox media world, the scripted model) reached through a
 * Telegram bot, on the reference channel `@media-agent/channel-telegram`.
 *
 * Environment:
 * - `TELEGRAM_BOT_TOKEN` (required): the bot token from @BotFather (registered with the host's redaction);
 * - `TELEGRAM_API_ROOT` (optional): the Bot API base URL — a self-hosted Bot API server, or the fake one of
 *   `examples/telegram/fake-server.ts`; default `https://api.telegram.org`;
 * - `MEDIA_AGENT_DATA_DIR` (optional): where the SQLite file and the sandbox world live; default `.media-agent`.
 *
 * The host's `channels` option starts the port with the host: a person's message starts a run whose goal is that
 * text (or steers their run under way, by the append rules), and the run's answer goes back to the chat as a reply,
 * through the durable outbox (docs/channels.md). Each Telegram user is a person of the household here
 * (`user:tg-<id>`, an ordinary user); a real host maps only the people it knows (`identity.personOf`).
 *
 *   TELEGRAM_BOT_TOKEN=… npm run telegram
 *   TELEGRAM_BOT_TOKEN=… TELEGRAM_API_ROOT=http://127.0.0.1:8081 node --import tsx examples/telegram/main.ts
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TelegramChannel } from '@media-agent/channel-telegram';
import { ConsoleLogger, createAgentHost, SystemClock } from '@media-agent/sdk';
import { SqliteStorage } from '@media-agent/sdk/sqlite';
import { registerSandboxCapabilities, SandboxWorld } from '@media-agent/sdk/testing';

const token = process.env.TELEGRAM_BOT_TOKEN;
if (!token) {
  console.error('TELEGRAM_BOT_TOKEN is not set: create a bot with @BotFather, or run examples/telegram/fake-server.ts');
  process.exit(2);
}
const dataDir = resolve(process.env.MEDIA_AGENT_DATA_DIR ?? '.media-agent');
mkdirSync(dataDir, { recursive: true });

const logger = new ConsoleLogger('warn');
const telegram = new TelegramChannel({
  id: 'telegram:home',
  token,
  ...(process.env.TELEGRAM_API_ROOT ? { apiRoot: process.env.TELEGRAM_API_ROOT } : {}),
  logger,
});

const clock = new SystemClock();
const world = new SandboxWorld({ clock, filePath: join(dataDir, 'world.json') });
const host = createAgentHost({
  storage: new SqliteStorage({ path: join(dataDir, 'agent.sqlite') }),
  clock,
  logger,
  // The port is started and stopped with the host; its bot token (`secretValues()`) is registered with the host's
  // redaction, so it never reaches storage, logs or the model in clear (docs/secrets.md).
  channels: { ports: [telegram] },
  identity: {
    roleOf: () => 'user',
    // One person per Telegram user in this example: `user:tg-<id>`, with the household's ordinary role.
    personOf: (channelId, userId) => (channelId === telegram.id ? `user:tg-${userId}` : null),
  },
  model: {
    provider: {
      provider: 'scripted',
      scripts: {
        name: 'library check',
        steps: [
          { text: 'Checking the library. ', toolCalls: [{ capability: 'inventory.query', input: { query: 'Dune' } }] },
        ],
        finalText: (ctx) => {
          const total = (ctx.results['inventory.query'] as { total?: number } | undefined)?.total ?? 0;
          return `You said "${ctx.goal}". The library holds ${total} title(s) matching "Dune".`;
        },
      },
    },
    model: 'scripted',
  },
  goalFacts: world,
  runs: { pollMs: 50, budgets: { maxToolCalls: 10, maxDurationSec: 120 } },
});
registerSandboxCapabilities(host, world);
await host.start();

console.log(`media-agent on Telegram (${telegram.id}); data: ${dataDir}. Stop with Ctrl-C.`);

const stop = async () => {
  await host.stop(); // stops the port and the outbox dispatcher
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
