/**
 * What a message channel can do; the runtime adapts to it (splits long text, falls back to plain text,
 * confirms by text when there are no buttons, sends a new message when it cannot edit).
 *
 * @example
 * ```ts
 * const telegram: ChannelCapabilities = {
 *   edit: true,
 *   buttons: true,
 *   maxLength: 4096,
 *   formatting: 'html',
 *   dedupe: 'none',
 * };
 * ```
 * @public
 */
export interface ChannelCapabilities {
  /** The channel can edit a message it sent ({@link ChannelPort.edit} is implemented). */
  edit: boolean;
  /** The channel can show inline buttons and report taps (`tap` inputs). */
  buttons: boolean;
  /** The most characters (UTF-16 code units) one message may hold, e.g. 4096 for Telegram; a positive integer. */
  maxLength: number;
  /** The markup the channel renders: `plain` (none), `markdown` or `html`. */
  formatting: 'plain' | 'markdown' | 'html';
  /**
   * How the channel treats a repeated send with the same {@link ChannelSend.idempotencyKey}:
   * `client_key` — the channel de-duplicates by that key, so the outbox delivers exactly once;
   * `none` (Telegram) — no de-duplication, so a crash between the send and marking it sent delivers
   * the message at most twice.
   */
  dedupe: 'none' | 'client_key';
}

/**
 * One inline button.
 * @public
 */
export interface ChannelButton {
  /** The text shown on the button. */
  label: string;
  /** The data a tap on it reports back (`tap` input's `data`); at most 64 bytes of UTF-8 (Telegram's `callback_data` limit). */
  data: string;
}

/**
 * A message to send.
 * @public
 */
export interface ChannelSend {
  /** The channel's own chat id. */
  chatId: string;
  /** The text, at most {@link ChannelCapabilities.maxLength} characters, in the channel's formatting. */
  text: string;
  /** The channel's id of the message this one replies to, if any. */
  replyToMessageId?: string;
  /** Rows of inline buttons (only when {@link ChannelCapabilities.buttons}). */
  buttons?: ChannelButton[][];
  /** The outbox row's idempotency key; a `client_key` channel de-duplicates sends by it. */
  idempotencyKey: string;
}

/**
 * An edit of a message the channel sent.
 * @public
 */
export interface ChannelEdit {
  /** The channel's own chat id. */
  chatId: string;
  /** The channel's id of the message to edit (from {@link ChannelPort.send}). */
  messageId: string;
  /** The new text, at most {@link ChannelCapabilities.maxLength} characters. */
  text: string;
  /** New rows of buttons; `null` removes the buttons, absent keeps them as they are. */
  buttons?: ChannelButton[][] | null;
}

/**
 * One input a channel received: a text message (with its attachments) or a tap on a button.
 *
 * @remarks
 * Every id is the channel's own: `channelId` is the channel configuration id ({@link ChannelPort.id}),
 * `chatId` the chat, `userId` the sending user (mapped to a person by `IdentityResolver.personOf`),
 * `messageId` the message (for a tap: the message that holds the button). `tapId` identifies the tap
 * for {@link ChannelPort.answerTap}; `data` is the tapped button's {@link ChannelButton.data}.
 * An attachment's `size` is in bytes and `ref` is the channel's reference to fetch it.
 * @public
 */
export type ChannelInput =
  | {
      kind: 'text';
      channelId: string;
      chatId: string;
      chatType: 'private' | 'group';
      userId: string;
      messageId: string;
      text: string;
      attachments: Array<{ name: string; mimeType: string; size: number; ref: string }>;
    }
  | {
      kind: 'tap';
      channelId: string;
      chatId: string;
      chatType: 'private' | 'group';
      userId: string;
      messageId: string;
      tapId: string;
      data: string;
    };

/**
 * A message channel (Telegram, WeChat, Slack …), injectable like the other ports.
 *
 * @remarks
 * Methods throw `ChannelError` (`ports/channel-errors`) on failure: `CHANNEL_RATE_LIMITED` (with `details.retryAfterMs`),
 * `CHANNEL_UNAVAILABLE` (network error, 5xx), `CHANNEL_REJECTED` (a permanent refusal, e.g. chat not
 * found, bot blocked), `CHANNEL_MESSAGE_TOO_LONG`. Any other thrown value is treated as
 * `CHANNEL_UNAVAILABLE` by the outbox dispatcher. `signal` aborts a send or edit in flight (the host is
 * stopping); the outbox then keeps the row queued.
 *
 * @example
 * ```ts
 * const port: ChannelPort = {
 *   id: 'console:local',
 *   capabilities: { edit: false, buttons: false, maxLength: 2000, formatting: 'plain', dedupe: 'none' },
 *   async send(message) {
 *     console.log(`[${message.chatId}] ${message.text}`);
 *     return { messageId: String(Date.now()) };
 *   },
 *   async start() {},
 *   async stop() {},
 * };
 * ```
 * @public
 */
export interface ChannelPort {
  /** The channel configuration id, e.g. `"telegram:home"`; stable across restarts (outbox rows refer to it). */
  readonly id: string;
  /** What the channel can do. */
  readonly capabilities: ChannelCapabilities;
  /**
   * Sends one message.
   * @returns the channel's id of the sent message
   * @throws `ChannelError` (`ports/channel-errors`) as described on the interface
   */
  send(message: ChannelSend, signal?: AbortSignal): Promise<{ messageId: string }>;
  /**
   * Edits a message the channel sent (present when {@link ChannelCapabilities.edit}); editing to the same
   * text is not an error (edits are idempotent).
   * @throws `ChannelError` (`ports/channel-errors`) as described on the interface
   */
  edit?(message: ChannelEdit, signal?: AbortSignal): Promise<void>;
  /**
   * Answers a tap (present when {@link ChannelCapabilities.buttons}): `text` is shown to the tapping user,
   * as an alert when `alert` is true.
   */
  answerTap?(tapId: string, text: string, alert: boolean): Promise<void>;
  /** Starts receiving; every input is handed to `onInput` (awaited, in order per chat). */
  start(onInput: (input: ChannelInput) => Promise<void>): Promise<void>;
  /** Stops receiving; resolves when no `onInput` call is in flight any more. */
  stop(): Promise<void>;
}
