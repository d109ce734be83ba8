/**
 * The outbox dispatcher: delivers the channel outbox's queued rows, in order per chat, at least once.
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import { MediaAgentError } from '../../core/errors';
import type { AuditRecord } from '../../core/records';
import type { ChannelPort, ChannelSend } from '../../ports/channel';
import { type Clock, SystemClock } from '../../ports/clock';
import type { Logger } from '../../ports/logger';
import type { OutboxChat, OutboxRecord } from '../../ports/outbox-records';
import type { StorageAdapter } from '../../ports/storage-adapter';
import { outboxRetryDecision } from './outbox-retry';

/** How often the dispatcher looks for due rows when nothing wakes it: 1 s. @public */
export const OUTBOX_POLL_INTERVAL_MS = 1000;
/** How long a dispatcher's claim of a chat lasts unless renewed: 30 s. @public */
export const OUTBOX_LEASE_MS = 30_000;

/**
 * Options of {@link OutboxDispatcher}.
 * @public
 */
export interface OutboxDispatcherOptions {
  /** The store holding the outbox (`storage.outbox`). */
  storage: StorageAdapter;
  /** The channels it delivers to, by `ChannelPort.id`; rows of other channels stay queued for another process. */
  ports: readonly ChannelPort[];
  /** The time rows are due and claims expire by (default the system clock). */
  clock?: Clock;
  /** This dispatcher's claim owner id, unique per process (default `outbox:<random UUID>`). */
  owner?: string;
  /** Wait between polls when nothing wakes it, in ms (default {@link OUTBOX_POLL_INTERVAL_MS}, 1 s). */
  pollIntervalMs?: number;
  /** Wait before the first poll after `start()`, in ms (default 0). A {@link OutboxDispatcher.wake} call does not wait. */
  firstPollDelayMs?: number;
  /**
   * Hold every pass, {@link OutboxDispatcher.wake} included, until this many ms after `start()` (default 0): rows
   * committed meanwhile stay `queued` and are delivered by the first pass after it (or by another process). For a
   * process that should not send at once — e.g. a crash test that kills it between a step's commit and the send.
   */
  startDelayMs?: number;
  /** How long a chat claim lasts unless renewed (before each row), in ms (default {@link OUTBOX_LEASE_MS}, 30 s). */
  leaseMs?: number;
  /** Backoff of an unavailable channel: first wait and cap, in ms (default 1 s and 5 min). */
  backoff?: { baseMs?: number; maxMs?: number };
  /** Chats looked at per pass (default 50). */
  chatsPerPass?: number;
  /** Where delivery failures are logged (default none). */
  logger?: Logger;
}

/**
 * What one {@link OutboxDispatcher.runOnce} pass did, in rows.
 * @public
 */
export interface OutboxPassResult {
  /** Rows the channel accepted (sent or edited). */
  sent: number;
  /** Rows kept queued for a later attempt (rate limit or outage). */
  retried: number;
  /** Rows failed for good (refused by the channel). */
  failed: number;
}

/**
 * Delivers the channel outbox: every `queued` row of the given channels, in `seq` order per chat, with its
 * idempotency key (docs/channels.md).
 *
 * @remarks
 * Per chat, one dispatcher at a time across every process of the store: it claims the chat
 * (`storage.outbox.claimChat`, a lease renewed before each row) and sends the chat's rows one after the other. A
 * row is not sent before the earlier rows of its chat are `sent` or `failed`:
 * - `CHANNEL_RATE_LIMITED` — the row stays queued until `now + retryAfterMs`; only that chat waits;
 * - `CHANNEL_UNAVAILABLE` (or any error a port did not type) — the row stays queued, backoff 1 s doubling to
 *   5 min, forever: an outage of an hour delivers everything afterwards, in order;
 * - `CHANNEL_REJECTED`, `CHANNEL_MESSAGE_TOO_LONG` — the row is `failed`, audited `channel.delivery_failed`, and
 *   the chat's next row goes on.
 * An `edit` row edits the message its target row sent; a target never sent (failed, or still queued after a
 * crash), or a channel that cannot edit, sends it as a new message. A reply target given as an outbox id
 * (`replyToOutboxId`) becomes the target's sent message id.
 *
 * It polls every `pollIntervalMs` and {@link OutboxDispatcher.wake} makes it look at once (call it after a commit
 * that wrote rows). {@link OutboxDispatcher.stop} aborts a send in flight (its `AbortSignal`) and waits for the
 * pass to end; a row whose send did not return stays queued. Times come from the `clock`; waits are real timers.
 *
 * @example
 * ```ts
 * const dispatcher = new OutboxDispatcher({ storage, ports: [telegram] });
 * dispatcher.start();
 * // … after a step commit that wrote outbox rows:
 * dispatcher.wake();
 * // … on shutdown, before closing the storage:
 * await dispatcher.stop();
 * ```
 * @public
 */
export class OutboxDispatcher {
  readonly #storage: StorageAdapter;
  readonly #ports: ReadonlyMap<string, ChannelPort>;
  readonly #clock: Clock;
  readonly #owner: string;
  readonly #pollMs: number;
  readonly #firstDelayMs: number;
  readonly #leaseMs: number;
  readonly #backoff: { baseMs?: number; maxMs?: number };
  readonly #chatsPerPass: number;
  readonly #logger: Logger | undefined;
  readonly #startDelayMs: number;
  /** No pass before this time (ms, `Date.now()`): `start()` + `startDelayMs`. */
  #holdUntil = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #started = false;
  #stopped = false;
  #abort = new AbortController();

  /**
   * @param options - storage, ports and timing (see {@link OutboxDispatcherOptions})
   * @throws `MediaAgentError` `OPTIONS_INVALID` for two ports with one id, or a timing that is not a positive
   *   number (`firstPollDelayMs` and `startDelayMs` may be 0)
   */
  constructor(options: OutboxDispatcherOptions) {
    const ports = new Map<string, ChannelPort>();
    for (const port of options.ports) {
      if (ports.has(port.id)) throw new MediaAgentError('OPTIONS_INVALID', `two channel ports have the id ${port.id}`);
      ports.set(port.id, port);
    }
    this.#storage = options.storage;
    this.#ports = ports;
    this.#clock = options.clock ?? new SystemClock();
    this.#owner = options.owner ?? `outbox:${randomUUID()}`;
    this.#pollMs = positive('pollIntervalMs', options.pollIntervalMs ?? OUTBOX_POLL_INTERVAL_MS);
    this.#firstDelayMs = options.firstPollDelayMs ?? 0;
    if (!(this.#firstDelayMs >= 0))
      throw new MediaAgentError('OPTIONS_INVALID', 'outbox firstPollDelayMs must be a number >= 0');
    this.#startDelayMs = options.startDelayMs ?? 0;
    if (!(typeof this.#startDelayMs === 'number' && this.#startDelayMs >= 0 && Number.isFinite(this.#startDelayMs)))
      throw new MediaAgentError('OPTIONS_INVALID', 'outbox startDelayMs must be a finite number >= 0');
    this.#leaseMs = positive('leaseMs', options.leaseMs ?? OUTBOX_LEASE_MS);
    this.#backoff = options.backoff ?? {};
    this.#chatsPerPass = positive('chatsPerPass', options.chatsPerPass ?? 50);
    this.#logger = options.logger;
  }

  /** This dispatcher's claim owner id. */
  get owner(): string {
    return this.#owner;
  }

  /** Starts polling (the first poll after `firstPollDelayMs`). Calling it again does nothing. */
  start(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    this.#holdUntil = Date.now() + this.#startDelayMs;
    this.#schedule(this.#firstDelayMs);
  }

  /** Looks for due rows at once (after the pass under way, if any); a no-op before `start()` and once stopped. Never throws. */
  wake(): void {
    if (!this.#started || this.#stopped) return;
    this.#schedule(0);
  }

  /**
   * Stops: no new pass starts, a send in flight is aborted (its row stays queued unless the channel had already
   * answered), and the pass under way ends. Resolves once it has; idempotent.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#abort.abort();
    await this.#running;
  }

  /**
   * One pass: every due chat of this dispatcher's channels (at most `chatsPerPass`), each claimed and delivered
   * until it is empty or must wait. For tests and hosts that drive the dispatcher themselves (a `ManualClock`).
   * Storage errors reject; a pass already under way is waited for instead.
   * @returns what the pass did
   */
  async runOnce(): Promise<OutboxPassResult> {
    while (this.#running) await this.#running;
    const result: OutboxPassResult = { sent: 0, retried: 0, failed: 0 };
    const pass = this.#pass(result);
    this.#running = pass.then(
      () => undefined,
      () => undefined,
    );
    try {
      await pass;
    } finally {
      this.#running = undefined;
    }
    return result;
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    // Held after start (`startDelayMs`): a wake or poll before then waits for it.
    const wait = Math.max(delayMs, this.#holdUntil - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#tick();
    }, wait);
    this.#timer.unref?.();
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    try {
      await this.runOnce();
    } catch (error) {
      this.#logger?.warn('outbox: a delivery pass failed; retrying at the next poll', { error: String(error) });
    }
    // A wake during the pass set a timer of 0 already; else poll again later.
    if (this.#timer === undefined) this.#schedule(this.#pollMs);
  }

  async #pass(result: OutboxPassResult): Promise<void> {
    if (this.#stopped || this.#ports.size === 0) return;
    const chats = await this.#storage.outbox.dueChats(this.#clock.now(), {
      channelIds: [...this.#ports.keys()],
      owner: this.#owner,
      limit: this.#chatsPerPass,
    });
    for (const chat of chats) {
      if (this.#stopped) return;
      await this.#deliverChat(chat, result);
    }
  }

  /** Claims `chat` and delivers its queued rows in order until it is empty, must wait, or the claim is lost. */
  async #deliverChat(chat: OutboxChat, result: OutboxPassResult): Promise<void> {
    const port = this.#ports.get(chat.channelId)!;
    const outbox = this.#storage.outbox;
    if (!(await outbox.claimChat(chat.channelId, chat.chatId, this.#owner, this.#clock.now(), this.#leaseMs))) return;
    try {
      for (;;) {
        const rows = await outbox.listByChat(chat.channelId, chat.chatId, { status: 'queued', limit: 20 });
        if (rows.length === 0) return;
        for (const row of rows) {
          if (this.#stopped) return;
          const now = this.#clock.now();
          if (row.notBefore > now) return;
          // Renew the claim before each row: a dispatcher that lost it (a pass longer than the lease) stops.
          if (!(await outbox.claimChat(chat.channelId, chat.chatId, this.#owner, now, this.#leaseMs))) return;
          const outcome = await this.#deliverRow(port, row);
          if (outcome === 'stopped') return;
          result[outcome]++;
          if (outcome === 'retried') return;
        }
      }
    } finally {
      await outbox.releaseChat(chat.channelId, chat.chatId, this.#owner).catch(() => false);
    }
  }

  /** Sends (or edits) one row and records what happened. */
  async #deliverRow(port: ChannelPort, row: OutboxRecord): Promise<'sent' | 'retried' | 'failed' | 'stopped'> {
    const outbox = this.#storage.outbox;
    let messageId: string;
    try {
      messageId = await this.#send(port, row);
    } catch (error) {
      if (this.#stopped) return 'stopped';
      const decision = outboxRetryDecision(error, row.attempts + 1, this.#clock.now(), this.#backoff);
      if (decision.action === 'retry') {
        await outbox.retryLater(row.id, decision.notBefore, decision.error);
        this.#logger?.info('outbox: delivery will be retried', {
          outboxId: row.id,
          channelId: row.channelId,
          notBefore: decision.notBefore,
          error: decision.error,
        });
        return 'retried';
      }
      await this.#storage.transaction(async (s) => {
        if (await s.outbox.markFailed(row.id, decision.error))
          await s.audit.append(this.#failedAudit(row, decision.error));
      });
      this.#logger?.warn('outbox: the channel refused a message for good', {
        outboxId: row.id,
        channelId: row.channelId,
        error: decision.error,
      });
      return 'failed';
    }
    await outbox.markSent(row.id, messageId, this.#clock.now());
    return 'sent';
  }

  /** Performs the channel call of `row`; returns the channel's id of the message sent or edited. */
  async #send(port: ChannelPort, row: OutboxRecord): Promise<string> {
    const signal = this.#abort.signal;
    const p = row.payload;
    if (row.kind === 'edit' && p.editOf !== undefined) {
      const target = await this.#storage.outbox.get(p.editOf);
      if (target?.status === 'sent' && target.sentMessageId !== null && port.capabilities.edit && port.edit) {
        await port.edit(
          {
            chatId: row.chatId,
            messageId: target.sentMessageId,
            text: p.text,
            ...(p.buttons !== undefined ? { buttons: p.buttons } : {}),
          },
          signal,
        );
        return target.sentMessageId;
      }
    }
    const replyTo = p.replyTo ?? (await this.#sentMessageOf(p.replyToOutboxId));
    const message: ChannelSend = { chatId: row.chatId, text: p.text, idempotencyKey: row.idempotencyKey };
    if (replyTo !== undefined) message.replyToMessageId = replyTo;
    if (p.buttons && p.buttons.length > 0 && port.capabilities.buttons) message.buttons = p.buttons;
    return (await port.send(message, signal)).messageId;
  }

  async #sentMessageOf(outboxId: string | undefined): Promise<string | undefined> {
    if (outboxId === undefined) return undefined;
    const target = await this.#storage.outbox.get(outboxId);
    return target?.status === 'sent' && target.sentMessageId !== null ? target.sentMessageId : undefined;
  }

  #failedAudit(row: OutboxRecord, error: string): AuditRecord {
    const code = error.slice(0, Math.max(0, error.indexOf(':'))) || 'CHANNEL_REJECTED';
    return {
      id: `aud-outbox-${row.id}`,
      seq: 0,
      at: this.#clock.now(),
      action: 'channel.delivery_failed',
      actor: 'system:outbox',
      capabilityId: `channel.${row.channelId}`,
      invocationId: row.id,
      runId: row.runId,
      taskId: null,
      outcome: 'failed',
      approvalId: null,
      grantId: null,
      idempotencyKey: row.idempotencyKey,
      inputSummary: JSON.stringify({ chatId: row.chatId, kind: row.kind, seq: row.seq, code }),
      reason: error,
    };
  }
}

function positive(name: string, value: number): number {
  if (!(typeof value === 'number' && Number.isFinite(value) && value > 0))
    throw new MediaAgentError('OPTIONS_INVALID', `outbox ${name} must be a positive number (ms), got ${String(value)}`);
  return value;
}
