import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  ApiError,
  CallbackQuery,
  Chat,
  InlineKeyboardMarkup,
  Message,
  Update,
  User,
  UserFromGetMe,
} from 'grammy/types';
import { apiError, BOT_API_ERRORS, BOT_API_LIMITS, readInlineKeyboard, textProblem } from './bot-api-rules';

/**
 * A chat of the fake Bot API: a private chat (its id is the user's id, as on Telegram) or a group (a negative id).
 *
 * @public
 */
export type FakeChat = { id: number; type: 'private' } | { id: number; type: 'group' | 'supergroup'; title: string };

/** A Telegram user of the fake Bot API: an id and a first name (and a user name). @public */
export interface FakeUser {
  /** The user's Telegram id. */
  id: number;
  /** Shown name. */
  first_name: string;
  /** The @name, without the @. */
  username?: string;
}

/**
 * A scripted fault for the next calls of one method (see {@link FakeBotApi.failNext}).
 *
 * - `rate_limit`: HTTP 429 `{ ok: false, error_code: 429, description: "Too Many Requests: retry after N", parameters: { retry_after: N } }`;
 * - `server_error`: HTTP `status` (default 500); 500 answers the Bot API's JSON error, 502–504 an HTML page (as a proxy in front of it does);
 * - `reset`: the connection is destroyed without an answer (ECONNRESET on the client);
 * - `error`: any Bot API error, e.g. `{ kind: 'error', status: 403, description: BOT_API_ERRORS.blocked }`.
 *
 * @public
 */
export type FakeFault =
  | { kind: 'rate_limit'; retryAfter: number }
  | { kind: 'server_error'; status?: number }
  | { kind: 'reset' }
  | { kind: 'error'; status: number; description: string };

/** One request the fake server received. @public */
export interface FakeBotApiCall {
  /** The Bot API method as sent (e.g. `sendMessage`). */
  method: string;
  /** The parameters: JSON body, form body and query string merged. */
  params: Record<string, unknown>;
  /** The HTTP status answered; 0 when the connection was reset. */
  status: number;
  /** The scripted fault that answered it, if any. */
  fault?: FakeFault['kind'] | 'down';
}

/** A bot message as the chat shows it: edits applied, the current buttons. @public */
export interface FakeShownMessage {
  /** The message's id in its chat. */
  messageId: number;
  /** Its current text. */
  text: string;
  /** Its current inline keyboard (label and callback data per button); empty when none. */
  buttons: Array<Array<{ text: string; data: string }>>;
  /** The message it replies to. */
  replyTo?: number;
  /** How many times it was edited. */
  edits: number;
}

/** One webhook delivery attempt. @public */
export interface FakeWebhookDelivery {
  /** The update delivered. */
  updateId: number;
  /** The webhook's HTTP status; 0 when it could not be reached. */
  status: number;
}

/** An answered callback query. @public */
export interface FakeTapAnswer {
  /** The callback query's id. */
  callbackQueryId: string;
  /** The text shown, if any. */
  text?: string;
  /** True for an alert (a dialog), false for a notification at the top of the chat. */
  showAlert: boolean;
}

/**
 * Options of {@link FakeBotApi}.
 *
 * @public
 */
export interface FakeBotApiOptions {
  /** The bot token it accepts; a request with another one answers 401. Default: a fresh `<digits>:<random>` token. */
  token?: string;
  /** The port on 127.0.0.1. Default: 0 (a free port). */
  port?: number;
  /** The bot's user name (`getMe`). Default `media_agent_bot`. */
  botUsername?: string;
  /** Milliseconds between two attempts to deliver an update to a webhook that failed. Default 100. */
  webhookRetryMs?: number;
}

interface StoredMessage {
  message: Message;
  byBot: boolean;
  edits: number;
}

interface Waiter {
  wake: () => void;
}

/**
 * A fake Telegram Bot API server over real HTTP (node:http on 127.0.0.1) that speaks the Bot API's wire format:
 * `POST` or `GET /bot<token>/<method>` with JSON, form or query parameters, answered `{ ok: true, result }` or
 * `{ ok: false, error_code, description, parameters }`. Methods: `getMe`, `getUpdates` (long polling honouring
 * `offset`, `limit` and `timeout`; 409 while a webhook is set), `setWebhook` / `deleteWebhook` / `getWebhookInfo`
 * (updates are then POSTed to the webhook in order, with the `X-Telegram-Bot-Api-Secret-Token` header, and retried
 * until it answers 2xx), `sendMessage` (text 1–4096 characters, `reply_parameters`, an inline keyboard whose
 * `callback_data` is 1–64 bytes), `editMessageText` ("message is not modified" when nothing changes; an edit without
 * `reply_markup` removes the keyboard, as on Telegram), `answerCallbackQuery`. Any other method answers 404.
 *
 * A test plays the users (`userSays`, `userTaps`), reads what the chats show (`sent`), scripts faults
 * (`failNext`, `down`, `blockBot`) and reads the `calls` log.
 *
 * @example
 * ```ts
 * const fake = new FakeBotApi();
 * const apiRoot = await fake.start();
 * const channel = new TelegramChannel({ token: fake.token, apiRoot });
 * await channel.start(async (input) => { ... });
 * fake.userSays({ id: 42, type: 'private' }, { id: 42, first_name: 'Ann' }, 'hello');
 * ```
 * @public
 */
export class FakeBotApi {
  /** The bot token it accepts. */
  readonly token: string;
  /** Every request received, in order. */
  readonly calls: FakeBotApiCall[] = [];
  /** Every webhook delivery attempt, in order. */
  readonly webhookDeliveries: FakeWebhookDelivery[] = [];
  /** Every answered callback query, in order. */
  readonly tapAnswers: FakeTapAnswer[] = [];
  readonly #options: FakeBotApiOptions;
  readonly #bot: UserFromGetMe;
  #server: Server | undefined;
  #url = '';
  #down = false;
  #closed = false;
  readonly #faults = new Map<string, FakeFault[]>();
  readonly #chats = new Map<number, Chat>();
  readonly #messages = new Map<number, StoredMessage[]>();
  readonly #blocked = new Set<number>();
  readonly #queries = new Map<string, CallbackQuery>();
  readonly #pending: Update[] = [];
  #nextUpdateId = 1;
  readonly #waiters = new Set<Waiter>();
  #webhook: { url: string; secret?: string } | undefined;
  #pumping = false;

  /** @param options - see {@link FakeBotApiOptions} */
  constructor(options: FakeBotApiOptions = {}) {
    this.#options = options;
    this.token =
      options.token ?? `${100000000 + Math.floor(Math.random() * 899999999)}:${randomUUID().replaceAll('-', '')}`;
    const id = Number(this.token.split(':')[0]) || 1;
    this.#bot = {
      id,
      is_bot: true,
      first_name: 'Media Agent',
      username: options.botUsername ?? 'media_agent_bot',
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
      can_connect_to_business: false,
      has_main_web_app: false,
      has_topics_enabled: false,
      allows_users_to_create_topics: false,
      can_manage_bots: false,
      supports_join_request_queries: false,
    };
  }

  /** Starts listening on 127.0.0.1; resolves with {@link FakeBotApi.apiRoot}. */
  async start(): Promise<string> {
    const server = createServer((req, res) => void this.#handle(req, res));
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(this.#options.port ?? 0, '127.0.0.1', resolve));
    this.#url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.#url;
  }

  /** The base URL to give a client as its `apiRoot` (`http://127.0.0.1:<port>`, no trailing slash). */
  get apiRoot(): string {
    return this.#url;
  }

  /** The bot user `getMe` answers. */
  get botUser(): UserFromGetMe {
    return this.#bot;
  }

  /** While true, every request's connection is reset and no webhook delivery is attempted. */
  get down(): boolean {
    return this.#down;
  }
  set down(value: boolean) {
    this.#down = value;
    if (!value) void this.#pump();
  }

  /** The webhook currently set, if any. */
  get webhook(): { url: string; secret?: string } | undefined {
    return this.#webhook;
  }

  /** Updates queued and not yet confirmed (by a later `getUpdates` offset or a 2xx webhook answer). */
  get pendingUpdates(): readonly Update[] {
    return this.#pending;
  }

  /**
   * Scripts a fault for the next `count` calls of `method` (case-insensitive); faults queue up in order.
   *
   * @param method - a Bot API method, e.g. `sendMessage`
   * @param fault - what those calls get
   * @param count - how many calls (default 1)
   */
  failNext(method: string, fault: FakeFault, count = 1): void {
    const key = method.toLowerCase();
    const queue = this.#faults.get(key) ?? [];
    for (let i = 0; i < count; i += 1) queue.push(fault);
    this.#faults.set(key, queue);
  }

  /** From now on, sending to this chat answers 403 "Forbidden: bot was blocked by the user". */
  blockBot(chatId: number): void {
    this.#blocked.add(chatId);
  }

  /** Makes a chat known (sending to an unknown chat answers 400 "chat not found"). A user's message does it too. */
  addChat(chat: FakeChat, user?: FakeUser): void {
    if (!this.#chats.has(chat.id) || user !== undefined) this.#chats.set(chat.id, toChat(chat, user));
  }

  /**
   * A user writes in a chat: queues a `message` update and returns the message.
   *
   * @param chat - where (made known if new)
   * @param user - who
   * @param text - the text; with an attachment it becomes the caption
   * @param extra - an attached `document` or `photo`, or the message it replies to
   */
  userSays(
    chat: FakeChat,
    user: FakeUser,
    text: string,
    extra: {
      document?: { fileName: string; mimeType: string; size: number };
      photo?: { width: number; height: number; size: number };
      replyTo?: number;
    } = {},
  ): Message {
    this.addChat(chat, chat.type === 'private' ? user : undefined);
    const from = toUser(user);
    const base = { message_id: this.#nextMessageId(chat.id), date: now(), chat: this.#chats.get(chat.id)!, from };
    const fileId = () => `file-${randomUUID()}`;
    let message: Message;
    if (extra.document) {
      message = {
        ...base,
        document: {
          file_id: fileId(),
          file_unique_id: randomUUID().slice(0, 8),
          file_name: extra.document.fileName,
          mime_type: extra.document.mimeType,
          file_size: extra.document.size,
        },
        ...(text ? { caption: text } : {}),
      };
    } else if (extra.photo) {
      const { width, height, size } = extra.photo;
      const unique = randomUUID().slice(0, 8);
      message = {
        ...base,
        photo: [
          {
            file_id: fileId(),
            file_unique_id: `${unique}-s`,
            width: Math.ceil(width / 10),
            height: Math.ceil(height / 10),
            file_size: Math.ceil(size / 50),
          },
          { file_id: fileId(), file_unique_id: unique, width, height, file_size: size },
        ],
        ...(text ? { caption: text } : {}),
      };
    } else {
      message = { ...base, text };
    }
    if (extra.replyTo !== undefined) {
      const target = this.#find(chat.id, extra.replyTo);
      if (target)
        message = { ...message, reply_to_message: target.message as Message & { reply_to_message: undefined } };
    }
    this.#store(chat.id, message, false);
    this.#enqueue({ message: message as Update['message'] } as Omit<Update, 'update_id'>);
    return message;
  }

  /**
   * A user taps an inline button: queues a `callback_query` update and returns the callback query's id. The data is
   * not checked against the message's buttons, so a test can send forged or stale data.
   *
   * @param chat - the chat of the message
   * @param user - who taps
   * @param messageId - the message whose button it is
   * @param data - the button's callback data
   */
  userTaps(chat: FakeChat, user: FakeUser, messageId: number, data: string): string {
    this.addChat(chat);
    const id = String(BigInt(Date.now()) * 1000n + BigInt(this.#nextUpdateId));
    const stored = this.#find(chat.id, messageId);
    const from = toUser(user);
    const query: CallbackQuery = {
      id,
      from,
      message: stored ? stored.message : { chat: this.#chats.get(chat.id)!, message_id: messageId, date: 0 },
      chat_instance: `ci${Math.abs(chat.id)}`,
      data,
    };
    this.#queries.set(id, query);
    this.#enqueue({ callback_query: query });
    return id;
  }

  /** The bot's messages in a chat, oldest first, as the chat shows them now (edits applied). */
  sent(chatId: number): FakeShownMessage[] {
    return (this.#messages.get(chatId) ?? [])
      .filter((m) => m.byBot)
      .map(({ message, edits }) => ({
        messageId: message.message_id,
        text: message.text ?? '',
        buttons: (message.reply_markup?.inline_keyboard ?? []).map((row) =>
          row.map((b) => ({ text: b.text, data: 'callback_data' in b ? String(b.callback_data) : '' })),
        ),
        ...(message.reply_to_message ? { replyTo: message.reply_to_message.message_id } : {}),
        edits,
      }));
  }

  /** Calls of one method (case-insensitive), in order. */
  callsOf(method: string): FakeBotApiCall[] {
    const key = method.toLowerCase();
    return this.calls.filter((c) => c.method.toLowerCase() === key);
  }

  /**
   * Resolves once `predicate` holds, checking after every request and every `intervalMs`; rejects after `timeoutMs`.
   *
   * @param predicate - the condition, over this server's state
   * @param timeoutMs - default 10 000
   */
  async until(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`FakeBotApi.until: condition not met within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Stops the server: pending long polls answer, open connections close. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const w of this.#waiters) w.wake();
    const server = this.#server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    const method = match?.[2] ?? url.pathname;
    let params: Record<string, unknown> = {};
    try {
      params = { ...Object.fromEntries(url.searchParams), ...(await readBody(req)) };
    } catch {
      this.#answer(res, { method, params }, 400, apiError(400, "Bad Request: can't parse JSON object"));
      return;
    }
    const call = { method, params };
    if (this.#down) {
      this.#reset(req, res, call, 'down');
      return;
    }
    const fault = this.#faults.get(method.toLowerCase())?.shift();
    if (fault) {
      this.#fault(req, res, call, fault);
      return;
    }
    if (!match) {
      this.#answer(res, call, 404, apiError(404, BOT_API_ERRORS.notFound));
      return;
    }
    if (match[1] !== this.token) {
      this.#answer(res, call, 401, apiError(401, BOT_API_ERRORS.unauthorized));
      return;
    }
    const { status, body } = await this.#dispatch(method.toLowerCase(), params, res);
    this.#answer(res, call, status, body);
  }

  async #dispatch(
    method: string,
    p: Record<string, unknown>,
    res: ServerResponse,
  ): Promise<{ status: number; body: { ok: true; result: unknown } | ApiError }> {
    const ok = (result: unknown) => ({ status: 200, body: { ok: true as const, result } });
    const fail = (status: number, description: string) => ({ status, body: apiError(status, description) });
    switch (method) {
      case 'getme':
        return ok(this.#bot);
      case 'getupdates': {
        if (this.#webhook) return fail(409, BOT_API_ERRORS.webhookActive);
        const offset = Number(p.offset ?? 0);
        const limit = Math.min(
          Math.max(Number(p.limit ?? BOT_API_LIMITS.updatesPerCall), 1),
          BOT_API_LIMITS.updatesPerCall,
        );
        const timeout = Math.max(Number(p.timeout ?? 0), 0);
        if (offset > 0) this.#confirmBelow(offset);
        if (this.#pending.length === 0 && timeout > 0 && !this.#closed) await this.#wait(timeout * 1000, res);
        return ok(this.#pending.slice(0, limit));
      }
      case 'setwebhook': {
        if (typeof p.url !== 'string' || p.url === '') {
          this.#webhook = undefined;
          return ok(true);
        }
        this.#webhook = { url: p.url, ...(typeof p.secret_token === 'string' ? { secret: p.secret_token } : {}) };
        if (isTrue(p.drop_pending_updates)) this.#pending.length = 0;
        void this.#pump();
        return ok(true);
      }
      case 'deletewebhook':
        this.#webhook = undefined;
        if (isTrue(p.drop_pending_updates)) this.#pending.length = 0;
        return ok(true);
      case 'getwebhookinfo':
        return ok({
          url: this.#webhook?.url ?? '',
          has_custom_certificate: false,
          pending_update_count: this.#pending.length,
        });
      case 'sendmessage': {
        const chatId = Number(p.chat_id);
        const chat = this.#chats.get(chatId);
        if (!chat) return fail(400, BOT_API_ERRORS.chatNotFound);
        if (this.#blocked.has(chatId)) return fail(403, BOT_API_ERRORS.blocked);
        const problem = textProblem(p.text, 'sendMessage');
        if (problem) return fail(400, problem);
        const keyboard = readInlineKeyboard(p.reply_markup);
        if (keyboard.problem !== undefined) return fail(400, keyboard.problem);
        const reply = readObject(p.reply_parameters) as
          | { message_id?: unknown; allow_sending_without_reply?: unknown }
          | undefined;
        let replyTo: StoredMessage | undefined;
        if (reply?.message_id !== undefined) {
          replyTo = this.#find(chatId, Number(reply.message_id));
          if (!replyTo && !isTrue(reply.allow_sending_without_reply)) return fail(400, BOT_API_ERRORS.replyNotFound);
        }
        const message: Message = {
          message_id: this.#nextMessageId(chatId),
          date: now(),
          chat,
          from: this.#bot,
          text: p.text as string,
          ...(replyTo ? { reply_to_message: replyTo.message as Message & { reply_to_message: undefined } } : {}),
          ...(keyboard.markup && keyboard.markup.inline_keyboard.length > 0 ? { reply_markup: keyboard.markup } : {}),
        };
        this.#store(chatId, message, true);
        return ok(message);
      }
      case 'editmessagetext': {
        const chatId = Number(p.chat_id);
        if (!this.#chats.has(chatId)) return fail(400, BOT_API_ERRORS.chatNotFound);
        const stored = this.#find(chatId, Number(p.message_id));
        if (!stored) return fail(400, BOT_API_ERRORS.editNotFound);
        if (!stored.byBot) return fail(400, BOT_API_ERRORS.cantEdit);
        const problem = textProblem(p.text, 'editMessageText');
        if (problem) return fail(400, problem);
        const keyboard = readInlineKeyboard(p.reply_markup);
        if (keyboard.problem !== undefined) return fail(400, keyboard.problem);
        const markup: InlineKeyboardMarkup | undefined =
          keyboard.markup && keyboard.markup.inline_keyboard.length > 0 ? keyboard.markup : undefined;
        if (stored.message.text === p.text && sameMarkup(stored.message.reply_markup, markup))
          return fail(400, BOT_API_ERRORS.notModified);
        const { reply_markup: _old, ...rest } = stored.message;
        stored.message = {
          ...rest,
          text: p.text as string,
          edit_date: now(),
          ...(markup ? { reply_markup: markup } : {}),
        };
        stored.edits += 1;
        return ok(stored.message);
      }
      case 'answercallbackquery': {
        const id = String(p.callback_query_id ?? '');
        if (!this.#queries.has(id)) return fail(400, BOT_API_ERRORS.queryInvalid);
        if (typeof p.text === 'string' && p.text.length > BOT_API_LIMITS.callbackAnswerText)
          return fail(400, 'Bad Request: MESSAGE_TOO_LONG');
        this.#queries.delete(id);
        this.tapAnswers.push({
          callbackQueryId: id,
          ...(typeof p.text === 'string' ? { text: p.text } : {}),
          showAlert: isTrue(p.show_alert),
        });
        return ok(true);
      }
      default:
        return fail(404, BOT_API_ERRORS.notFound);
    }
  }

  #answer(res: ServerResponse, call: Omit<FakeBotApiCall, 'status'>, status: number, body: unknown): void {
    this.calls.push({ ...call, status });
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  #reset(
    req: IncomingMessage,
    res: ServerResponse,
    call: Omit<FakeBotApiCall, 'status'>,
    fault: 'reset' | 'down',
  ): void {
    this.calls.push({ ...call, status: 0, fault });
    req.socket.resetAndDestroy();
    res.destroy();
  }

  #fault(req: IncomingMessage, res: ServerResponse, call: Omit<FakeBotApiCall, 'status'>, fault: FakeFault): void {
    switch (fault.kind) {
      case 'reset':
        this.#reset(req, res, call, 'reset');
        return;
      case 'rate_limit': {
        const body = apiError(429, BOT_API_ERRORS.tooManyRequests(fault.retryAfter), fault.retryAfter);
        this.calls.push({ ...call, status: 429, fault: 'rate_limit' });
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(fault.retryAfter) });
        res.end(JSON.stringify(body));
        return;
      }
      case 'server_error': {
        const status = fault.status ?? 500;
        this.calls.push({ ...call, status, fault: 'server_error' });
        if (status === 500) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify(apiError(500, 'Internal Server Error')));
        } else {
          res.writeHead(status, { 'content-type': 'text/html' });
          res.end(`<html><head><title>${status}</title></head><body><center><h1>${status}</h1></center></body></html>`);
        }
        return;
      }
      case 'error':
        this.calls.push({ ...call, status: fault.status, fault: 'error' });
        res.writeHead(fault.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(apiError(fault.status, fault.description)));
        return;
    }
  }

  #nextMessageId(chatId: number): number {
    const list = this.#messages.get(chatId) ?? [];
    return (list.at(-1)?.message.message_id ?? 0) + 1;
  }

  #store(chatId: number, message: Message, byBot: boolean): void {
    const list = this.#messages.get(chatId) ?? [];
    list.push({ message, byBot, edits: 0 });
    this.#messages.set(chatId, list);
  }

  #find(chatId: number, messageId: number): StoredMessage | undefined {
    return this.#messages.get(chatId)?.find((m) => m.message.message_id === messageId);
  }

  #enqueue(update: Omit<Update, 'update_id'>): void {
    this.#pending.push({ update_id: this.#nextUpdateId++, ...update });
    for (const w of this.#waiters) w.wake();
    void this.#pump();
  }

  #confirmBelow(offset: number): void {
    while (this.#pending.length > 0 && this.#pending[0]!.update_id < offset) this.#pending.shift();
  }

  /** Waits for an update, the timeout, the server's close or the client hanging up. */
  async #wait(ms: number, res: ServerResponse): Promise<void> {
    await new Promise<void>((resolve) => {
      const waiter: Waiter = {
        wake: () => {
          clearTimeout(timer);
          this.#waiters.delete(waiter);
          res.off('close', waiter.wake);
          resolve();
        },
      };
      const timer = setTimeout(waiter.wake, ms);
      this.#waiters.add(waiter);
      res.on('close', waiter.wake);
    });
  }

  /** Delivers pending updates to the webhook, in order, one at a time; a failed delivery is retried. */
  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#webhook && !this.#down && !this.#closed && this.#pending.length > 0) {
        const update = this.#pending[0]!;
        const { url, secret } = this.#webhook;
        let status = 0;
        try {
          const response = await fetch(url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              ...(secret === undefined ? {} : { 'x-telegram-bot-api-secret-token': secret }),
            },
            body: JSON.stringify(update),
          });
          status = response.status;
          await response.arrayBuffer();
        } catch {
          status = 0;
        }
        this.webhookDeliveries.push({ updateId: update.update_id, status });
        if (status >= 200 && status < 300) {
          if (this.#pending[0] === update) this.#pending.shift();
        } else {
          await new Promise((r) => setTimeout(r, this.#options.webhookRetryMs ?? 100));
        }
      }
    } finally {
      this.#pumping = false;
    }
  }
}

function toChat(chat: FakeChat, user?: FakeUser): Chat {
  if (chat.type === 'private')
    return {
      id: chat.id,
      type: 'private',
      first_name: user?.first_name ?? `user ${chat.id}`,
      ...(user?.username ? { username: user.username } : {}),
    };
  return chat.type === 'group'
    ? { id: chat.id, type: 'group', title: chat.title }
    : { id: chat.id, type: 'supergroup', title: chat.title };
}

function toUser(user: FakeUser): User {
  return {
    id: user.id,
    is_bot: false,
    first_name: user.first_name,
    ...(user.username ? { username: user.username } : {}),
  };
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

function isTrue(value: unknown): boolean {
  return value === true || value === 'true';
}

function readObject(value: unknown): Record<string, unknown> | undefined {
  if (typeof value === 'string') {
    try {
      return JSON.parse(value) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

function sameMarkup(a: InlineKeyboardMarkup | undefined, b: InlineKeyboardMarkup | undefined): boolean {
  return JSON.stringify(a?.inline_keyboard ?? []) === JSON.stringify(b?.inline_keyboard ?? []);
}

/** The request's parameters from a JSON or form-encoded body (none for an empty body). */
async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.length === 0) return {};
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
  const parsed = JSON.parse(text) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
  return parsed as Record<string, unknown>;
}
