// An in-memory ChannelPort for tests: a real object that records what it sends and edits, and can be told to throw
// the typed channel errors (rate limited, unavailable, rejected) for the next calls or while an outage lasts.
import { ChannelError } from '../../src/ports/channel-errors';
import type { ChannelCapabilities, ChannelEdit, ChannelInput, ChannelPort, ChannelSend } from '../../src/ports/channel';

/** What the test channel delivered, in order. */
export type Delivered =
  | { kind: 'send'; messageId: string; message: ChannelSend }
  | { kind: 'edit'; message: ChannelEdit };

export const TELEGRAM_LIKE: ChannelCapabilities = {
  edit: true,
  buttons: true,
  maxLength: 4096,
  formatting: 'html',
  dedupe: 'none',
};

export class TestChannel implements ChannelPort {
  readonly delivered: Delivered[] = [];
  /** Errors thrown by the next calls, first first. */
  readonly failNext: ChannelError[] = [];
  /** While set, every call throws it (an outage). */
  down: ChannelError | null = null;
  /** Calls that threw, counted. */
  failures = 0;
  #next = 1;

  constructor(
    readonly id: string,
    readonly capabilities: ChannelCapabilities = TELEGRAM_LIKE,
  ) {}

  /** Texts sent, in order, per chat. */
  texts(chatId?: string): string[] {
    return this.delivered
      .filter((d): d is Extract<Delivered, { kind: 'send' }> => d.kind === 'send')
      .filter((d) => chatId === undefined || d.message.chatId === chatId)
      .map((d) => d.message.text);
  }

  #maybeThrow(): void {
    const error = this.down ?? this.failNext.shift();
    if (error) {
      this.failures++;
      throw error;
    }
  }

  async send(message: ChannelSend): Promise<{ messageId: string }> {
    this.#maybeThrow();
    const messageId = `m${this.#next++}`;
    this.delivered.push({ kind: 'send', messageId, message });
    return { messageId };
  }

  async edit(message: ChannelEdit): Promise<void> {
    this.#maybeThrow();
    this.delivered.push({ kind: 'edit', message });
  }

  async start(_onInput: (input: ChannelInput) => Promise<void>): Promise<void> {}
  async stop(): Promise<void> {}
}

export const rateLimited = (retryAfterMs: number) =>
  new ChannelError('CHANNEL_RATE_LIMITED', 'Too Many Requests', { retryAfterMs });
export const unavailable = () => new ChannelError('CHANNEL_UNAVAILABLE', 'Bad Gateway');
export const rejected = () => new ChannelError('CHANNEL_REJECTED', 'Forbidden: bot was blocked by the user');
