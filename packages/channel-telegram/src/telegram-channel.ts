import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type ChannelCapabilities,
  type ChannelEdit,
  ChannelError,
  type ChannelInput,
  type ChannelPort,
  type ChannelSend,
  isChannelError,
} from '@media-agent/sdk';
import { SecretRedactor, type SecretHolder } from '@media-agent/sdk/secrets';
import { Api, Bot, webhookCallback } from 'grammy';
import type { InlineKeyboardMarkup, UserFromGetMe } from 'grammy/types';
import { ChatQueue } from './chat-queue';
import { botApiFailureOf, isNotModified, toChannelError } from './error-mapping';
import { TelegramOptionsError } from './errors';
import { toInlineKeyboard } from './keyboard';
import { type ResolvedTelegramOptions, resolveTelegramOptions, type TelegramChannelOptions } from './options';
import { toChannelInput } from './update-input';

/**
 * What the Telegram channel can do: edit its messages, show inline buttons and report taps, 4096 characters per
 * message, plain text (sent without `parse_mode`, so nothing needs escaping and every character shows as written),
 * no de-duplication of sends (the Bot API has no idempotency key: a crash between a send and the outbox marking it
 * sent delivers that message at most twice).
 *
 * @public
 */
export const TELEGRAM_CAPABILITIES: ChannelCapabilities = Object.freeze({
  edit: true,
  buttons: true,
  maxLength: 4096,
  formatting: 'plain',
  dedupe: 'none',
});

/** The update kinds the channel asks for (`allowed_updates`). @public */
export const TELEGRAM_ALLOWED_UPDATES = ['message', 'callback_query'] as const;

/** Most message keyboards remembered to keep them across an edit that leaves the buttons as they are. */
const KEYBOARD_MEMORY = 10_000;
/** Characters of a tap answer's text (the Bot API's limit of `answerCallbackQuery`'s `text`). */
const TAP_ANSWER_MAX = 200;

/**
 * The reference message channel: a Telegram bot through grammY, by long polling (default) or by webhook.
 *
 * - Receiving: `message` updates of private chats, groups and supergroups become `text` inputs (documents and photos
 *   as attachments), `callback_query` updates `tap` inputs; each is handed to `onInput` in order per chat (see
 *   {@link toChannelInput}). In polling mode an input whose `onInput` throws is logged and skipped; in webhook mode
 *   the request answers 500 and Telegram sends the update again.
 * - Sending: `sendMessage` with `reply_parameters` and an inline keyboard, `editMessageText` ("message is not
 *   modified" is success; an edit without `buttons` keeps the keyboard this process last set on that message),
 *   `answerCallbackQuery`. Nothing is retried here (no auto-retry): a failure throws a `ChannelError` at once and the
 *   outbox decides — 429 `CHANNEL_RATE_LIMITED` with `details.retryAfterMs` from `parameters.retry_after`, network
 *   errors and 5xx `CHANNEL_UNAVAILABLE`, "message is too long" `CHANNEL_MESSAGE_TOO_LONG`, other 4xx (chat not
 *   found, bot blocked) `CHANNEL_REJECTED`.
 * - The token: errors name the method and the Bot API's description, never the request URL that holds the token;
 *   {@link TelegramChannel.secretValues} gives it to the host's redaction (docs/secrets.md); the host reads it from
 *   the ports of its `channels` option.
 *
 * @example
 * ```ts
 * const telegram = new TelegramChannel({ id: 'telegram:home', token: process.env.TELEGRAM_BOT_TOKEN! });
 * const host = createAgentHost({ channels: { ports: [telegram] } }); // the token is redacted too
 * await host.start(); // starts long polling
 * ```
 * @public
 */
export class TelegramChannel implements ChannelPort, SecretHolder {
  /** The channel configuration id (option `id`, default `telegram`). */
  readonly id: string;
  /** What the channel can do: {@link TELEGRAM_CAPABILITIES} (edit, buttons, 4096 characters, plain text, no de-duplication). */
  readonly capabilities: ChannelCapabilities = TELEGRAM_CAPABILITIES;
  readonly #options: ResolvedTelegramOptions;
  readonly #logger: TelegramChannelOptions['logger'];
  readonly #redactor: SecretRedactor;
  /** Receives updates (long polling, or the webhook handler). */
  readonly #bot: Bot;
  /** Sends, edits and answers taps, with the shorter request timeout. */
  readonly #api: Api;
  readonly #queue = new ChatQueue();
  readonly #keyboards = new Map<string, InlineKeyboardMarkup | undefined>();
  #onInput: ((input: ChannelInput) => Promise<void>) | undefined;
  #polling: Promise<void> | undefined;
  #connecting: AbortController | undefined;
  #nodeHook: ((req: IncomingMessage, res: ServerResponse) => Promise<unknown>) | undefined;
  #fetchHook: ((req: Request) => Promise<Response>) | undefined;

  /**
   * @param options - see {@link TelegramChannelOptions}
   * @throws TelegramOptionsError `TELEGRAM_OPTIONS_INVALID` for a malformed token, `apiRoot` or webhook secret
   */
  constructor(options: TelegramChannelOptions) {
    this.#options = resolveTelegramOptions(options);
    this.#logger = options.logger;
    this.id = this.#options.id;
    this.#redactor = new SecretRedactor({ secrets: [this.#options.token] });
    const { token, apiRoot, pollingTimeoutSeconds, requestTimeoutSeconds } = this.#options;
    this.#bot = new Bot(token, { client: { apiRoot, timeoutSeconds: pollingTimeoutSeconds + 15 } });
    this.#api = new Api(token, { apiRoot, timeoutSeconds: requestTimeoutSeconds });
    this.#bot.use(async (ctx) => {
      const input = toChannelInput(ctx.update, this.id);
      if (!input) return;
      const onInput = this.#onInput;
      if (!onInput) throw new Error('the Telegram channel is stopped');
      await this.#queue.run(input.chatId, () => onInput(input));
    });
    this.#bot.catch((error) => {
      this.#log('error', 'Telegram: an update was not handled', {
        channelId: this.id,
        updateId: error.ctx.update.update_id,
        error: this.#redact(error.error),
      });
    });
  }

  /** The bot token, for the host's redaction (read from `channels.ports`; else give it to `redact.secrets`). */
  secretValues(): readonly string[] {
    return [this.#options.token];
  }

  /**
   * Starts receiving. Checks the token with `getMe` first; then, by webhook, registers `webhook.url` if given, or
   * by long polling deletes any webhook and polls `getUpdates`. When the Bot API cannot be reached, a polling
   * channel keeps trying in the background (start resolves); a webhook channel throws.
   *
   * @param onInput - awaited for every input, in order per chat
   * @throws ChannelError `CHANNEL_REJECTED` when the Bot API refuses the token (401/404), `CHANNEL_UNAVAILABLE`
   *   when a webhook channel cannot reach it
   */
  async start(onInput: (input: ChannelInput) => Promise<void>): Promise<void> {
    if (this.#onInput) return;
    this.#onInput = onInput;
    let me: UserFromGetMe | undefined;
    try {
      me = await this.#call('getMe', (signal) => this.#bot.api.getMe(signal));
      this.#bot.botInfo = me;
    } catch (error) {
      if (this.#options.webhook || !isChannelError(error, 'CHANNEL_UNAVAILABLE')) {
        this.#onInput = undefined;
        throw error;
      }
      this.#log('warn', 'Telegram: the Bot API cannot be reached; polling starts when it can', {
        channelId: this.id,
        error: error.message,
      });
    }
    const webhook = this.#options.webhook;
    if (webhook) {
      if (webhook.url !== undefined) {
        const url = webhook.url;
        await this.#call('setWebhook', (signal) =>
          this.#bot.api.setWebhook(
            url,
            { secret_token: webhook.secretToken, allowed_updates: [...TELEGRAM_ALLOWED_UPDATES] },
            signal,
          ),
        ).catch((error: unknown) => {
          this.#onInput = undefined;
          throw error;
        });
      }
      return;
    }
    if (me) await this.#startPolling();
    else this.#polling = this.#connectThenPoll();
  }

  /** Stops receiving; resolves once no `onInput` call is in flight. A webhook stays registered with Telegram. */
  async stop(): Promise<void> {
    if (!this.#onInput) return;
    this.#onInput = undefined;
    this.#connecting?.abort();
    if (this.#bot.isRunning()) {
      try {
        await this.#bot.stop();
      } catch (error) {
        this.#log('warn', 'Telegram: stopping the long poll failed', {
          channelId: this.id,
          error: this.#redact(error),
        });
      }
    }
    await this.#polling;
    this.#polling = undefined;
    await this.#queue.idle();
  }

  /**
   * Sends a text message, with inline buttons and as a reply when asked (`reply_parameters`, sent even when the
   * replied-to message is gone). Nothing is retried.
   *
   * @returns the Telegram message id, as a string
   * @throws ChannelError `CHANNEL_RATE_LIMITED` (`details.retryAfterMs`), `CHANNEL_UNAVAILABLE`,
   *   `CHANNEL_MESSAGE_TOO_LONG`, `CHANNEL_REJECTED` (also for a chat id that is no Telegram id or a button whose data
   *   is over 64 bytes: nothing is sent)
   */
  async send(message: ChannelSend, signal?: AbortSignal): Promise<{ messageId: string }> {
    const chatId = telegramId(message.chatId, 'chat id');
    const markup = message.buttons ? toInlineKeyboard(message.buttons) : undefined;
    const replyTo =
      message.replyToMessageId === undefined ? undefined : telegramId(message.replyToMessageId, 'message id');
    const sent = await this.#call(
      'sendMessage',
      (s) =>
        this.#api.sendMessage(
          chatId,
          message.text,
          {
            ...(markup ? { reply_markup: markup } : {}),
            ...(replyTo === undefined
              ? {}
              : { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }),
          },
          s,
        ),
      signal,
    );
    this.#remember(message.chatId, String(sent.message_id), markup);
    return { messageId: String(sent.message_id) };
  }

  /**
   * Edits a message the bot sent (`editMessageText`). `buttons` replaces the keyboard, `null` removes it, absent keeps
   * the one this process last set on that message (Telegram drops the keyboard of an edit that does not repeat it; a
   * message sent before a restart loses its buttons then). Editing to the same text and buttons is success.
   *
   * @throws ChannelError as {@link TelegramChannel.send}; `CHANNEL_REJECTED` for a message that is gone or not the bot's
   */
  async edit(message: ChannelEdit, signal?: AbortSignal): Promise<void> {
    const chatId = telegramId(message.chatId, 'chat id');
    const messageId = telegramId(message.messageId, 'message id');
    const key = `${message.chatId}:${message.messageId}`;
    const markup =
      message.buttons === null
        ? undefined
        : message.buttons !== undefined
          ? toInlineKeyboard(message.buttons)
          : this.#keyboards.get(key);
    try {
      await this.#api.editMessageText(
        chatId,
        messageId,
        message.text,
        markup ? { reply_markup: markup } : {},
        grammySignal(signal),
      );
    } catch (error) {
      const failure = botApiFailureOf(error);
      if (!failure || !isNotModified(failure)) throw toChannelError(error, 'editMessageText', this.#redact.bind(this));
    }
    this.#remember(message.chatId, message.messageId, markup);
  }

  /**
   * Answers a tap (`answerCallbackQuery`): `text` (cut to 200 characters) shows at the top of the chat, or as a dialog
   * when `alert` is true. Telegram accepts an answer within about 15 s of the tap and only once.
   *
   * @throws ChannelError as {@link TelegramChannel.send}; `CHANNEL_REJECTED` for an unknown or expired tap
   */
  async answerTap(tapId: string, text: string, alert: boolean): Promise<void> {
    const shown = text.slice(0, TAP_ANSWER_MAX);
    await this.#call('answerCallbackQuery', (s) =>
      this.#api.answerCallbackQuery(tapId, { ...(shown === '' ? {} : { text: shown }), show_alert: alert }, s),
    );
  }

  /**
   * The webhook endpoint for a node:http server (or Express, which passes the same request and response). It
   * answers 401 to a request without the right secret token header (nothing handled), 503 while the channel is not
   * started, 500 when handling failed or took longer than `webhook.handlerTimeoutMs` (Telegram sends it again),
   * 200 otherwise.
   *
   * @throws TelegramOptionsError `TELEGRAM_OPTIONS_INVALID` on a channel made without the `webhook` option
   */
  webhookHandler(): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
    const webhook = this.#webhookOptions();
    this.#nodeHook ??= webhookCallback(this.#bot, 'http', {
      secretToken: webhook.secretToken,
      timeoutMilliseconds: webhook.handlerTimeoutMs,
    });
    const hook = this.#nodeHook;
    return async (req, res) => {
      if (!this.#onInput) {
        res.writeHead(503).end();
        return;
      }
      try {
        await hook(req, res);
      } catch (error) {
        this.#log('error', 'Telegram: a webhook update was not handled', {
          channelId: this.id,
          error: this.#redact(error),
        });
        if (!res.headersSent) res.writeHead(500);
        res.end();
      }
    };
  }

  /**
   * The webhook endpoint as a web-standard handler (`Request` → `Response`), for Hono and other fetch-style routers;
   * it answers as {@link TelegramChannel.webhookHandler}.
   *
   * @throws TelegramOptionsError `TELEGRAM_OPTIONS_INVALID` on a channel made without the `webhook` option
   */
  webhookFetchHandler(): (req: Request) => Promise<Response> {
    const webhook = this.#webhookOptions();
    this.#fetchHook ??= webhookCallback(this.#bot, 'std/http', {
      secretToken: webhook.secretToken,
      timeoutMilliseconds: webhook.handlerTimeoutMs,
    });
    const hook = this.#fetchHook;
    return async (req) => {
      if (!this.#onInput) return new Response(null, { status: 503 });
      try {
        return await hook(req);
      } catch (error) {
        this.#log('error', 'Telegram: a webhook update was not handled', {
          channelId: this.id,
          error: this.#redact(error),
        });
        return new Response(null, { status: 500 });
      }
    };
  }

  #webhookOptions(): NonNullable<ResolvedTelegramOptions['webhook']> {
    const webhook = this.#options.webhook;
    if (!webhook)
      throw new TelegramOptionsError(
        'Telegram: this channel polls; give it the `webhook` option to use a webhook handler',
        {
          option: 'webhook',
        },
      );
    return webhook;
  }

  /** Starts grammY's long polling; resolves once `getUpdates` runs, rejects when it cannot start. */
  #startPolling(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let started = false;
      this.#polling = this.#bot
        .start({
          allowed_updates: [...TELEGRAM_ALLOWED_UPDATES],
          timeout: this.#options.pollingTimeoutSeconds,
          onStart: () => {
            started = true;
            resolve();
          },
        })
        .catch((error: unknown) => {
          const mapped = toChannelError(error, 'getUpdates', this.#redact.bind(this));
          if (!started) reject(mapped);
          else if (this.#onInput)
            this.#log('error', 'Telegram: long polling stopped', { channelId: this.id, error: mapped.message });
        });
    });
  }

  /** Tries `getMe` with a growing delay (1 s doubling to 60 s) until it answers or `stop()`; then starts polling. */
  async #connectThenPoll(): Promise<void> {
    const controller = new AbortController();
    this.#connecting = controller;
    let delayMs = 1000;
    while (!controller.signal.aborted) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        controller.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (controller.signal.aborted) return;
      try {
        this.#bot.botInfo = await this.#call('getMe', (signal) => this.#bot.api.getMe(signal), controller.signal);
        break;
      } catch (error) {
        if (!isChannelError(error, 'CHANNEL_UNAVAILABLE')) {
          this.#log('error', 'Telegram: the Bot API refused the token; not polling', {
            channelId: this.id,
            error: error instanceof Error ? error.message : 'unknown',
          });
          return;
        }
        delayMs = Math.min(delayMs * 2, 60_000);
      }
    }
    if (controller.signal.aborted || !this.#onInput) return;
    this.#connecting = undefined;
    await this.#startPolling().catch((error: unknown) => {
      this.#log('error', 'Telegram: long polling did not start', { channelId: this.id, error: this.#redact(error) });
    });
    await this.#polling;
  }

  async #call<T>(method: string, run: (signal?: GrammySignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return await run(grammySignal(signal));
    } catch (error) {
      throw toChannelError(error, method, this.#redact.bind(this));
    }
  }

  #remember(chatId: string, messageId: string, markup: InlineKeyboardMarkup | undefined): void {
    const key = `${chatId}:${messageId}`;
    this.#keyboards.delete(key);
    this.#keyboards.set(key, markup);
    if (this.#keyboards.size > KEYBOARD_MEMORY) this.#keyboards.delete(this.#keyboards.keys().next().value as string);
  }

  #redact(value: unknown): string {
    const text = value instanceof ChannelError ? value.message : value instanceof Error ? value.message : String(value);
    return this.#redactor.text(text);
  }

  #log(level: 'warn' | 'error', message: string, fields: Record<string, unknown>): void {
    this.#logger?.[level](message, fields);
  }
}

/** grammY's type of an abort signal (the `abort-controller` polyfill's); it only uses `aborted` and the listeners. */
type GrammySignal = Parameters<Api['getMe']>[0];

/** A platform `AbortSignal` as grammY's type: grammY reads only `aborted`, `addEventListener` and `removeEventListener`. */
function grammySignal(signal: AbortSignal | undefined): GrammySignal {
  return signal as unknown as GrammySignal;
}

/** A Telegram chat or message id (a decimal integer, negative for groups) as a number. */
function telegramId(value: string, what: string): number {
  if (!/^-?\d{1,16}$/.test(value))
    throw new ChannelError(
      'CHANNEL_REJECTED',
      `Telegram: ${JSON.stringify(value.slice(0, 40))} is not a ${what}; nothing was sent`,
    );
  return Number(value);
}
