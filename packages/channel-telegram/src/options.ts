import type { Logger } from '@media-agent/sdk';
import { TelegramOptionsError } from './errors';

/** The public Bot API server, the default `apiRoot`. @public */
export const TELEGRAM_API_ROOT = 'https://api.telegram.org';

/**
 * Options of `TelegramChannel`.
 *
 * @public
 */
export interface TelegramChannelOptions {
  /** The bot token from \@BotFather (`<digits>:<letters, digits, _ and ->`). It never appears in errors or logs. */
  token: string;
  /**
   * The Bot API server's base URL, without the `/bot<token>` part: a self-hosted Bot API server, or the fake one in
   * tests. A trailing `/` is dropped.
   * @defaultValue `https://api.telegram.org`
   */
  apiRoot?: string;
  /**
   * The channel configuration id (`ChannelPort.id`), stable across restarts.
   * @defaultValue `telegram`
   */
  id?: string;
  /**
   * Receive updates by webhook instead of long polling: the host mounts `webhookHandler()` (node:http) or
   * `webhookFetchHandler()` (web-standard) at a public HTTPS URL. Requests without the right
   * `X-Telegram-Bot-Api-Secret-Token` header answer 401 and are not handled. When `url` is given, `start()` calls
   * `setWebhook` with it and the secret (Telegram then POSTs every update there); without it the host registers the
   * webhook itself.
   */
  webhook?: {
    /** The secret Telegram sends in every webhook request: 1–256 characters of A–Z, a–z, 0–9, `_` and `-`. */
    secretToken: string;
    /** The public URL of the mounted handler, registered with `setWebhook` on `start()`. */
    url?: string;
    /**
     * How long a webhook request may wait for the input to be handled before it answers 500 (Telegram then sends
     * the update again).
     * @defaultValue 10 000 ms
     */
    handlerTimeoutMs?: number;
  };
  /**
   * Seconds one long-polling `getUpdates` call waits for updates.
   * @defaultValue 30
   */
  pollingTimeoutSeconds?: number;
  /**
   * Seconds a send, an edit or a tap answer may take before it fails with `CHANNEL_UNAVAILABLE`.
   * @defaultValue 30
   */
  requestTimeoutSeconds?: number;
  /** Where the channel logs failures of receiving (never the token). Default: nothing is logged. */
  logger?: Logger;
}

/** {@link TelegramChannelOptions} checked, with defaults. @internal */
export interface ResolvedTelegramOptions {
  token: string;
  apiRoot: string;
  id: string;
  webhook?: { secretToken: string; url?: string; handlerTimeoutMs: number };
  pollingTimeoutSeconds: number;
  requestTimeoutSeconds: number;
}

const TOKEN = /^\d+:[A-Za-z0-9_-]+$/;
const SECRET = /^[A-Za-z0-9_-]{1,256}$/;

/**
 * Checks the options and fills in the defaults. A pure rule.
 *
 * @throws TelegramOptionsError `TELEGRAM_OPTIONS_INVALID` naming the option (never its value when it is the token)
 * @internal
 */
export function resolveTelegramOptions(options: TelegramChannelOptions): ResolvedTelegramOptions {
  if (typeof options.token !== 'string' || !TOKEN.test(options.token))
    throw new TelegramOptionsError('Telegram: `token` must be a bot token from @BotFather (<digits>:<characters>)', {
      option: 'token',
    });
  const apiRoot = (options.apiRoot ?? TELEGRAM_API_ROOT).replace(/\/+$/, '');
  let url: URL | undefined;
  try {
    url = new URL(apiRoot);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || apiRoot.includes(options.token))
    throw new TelegramOptionsError(
      'Telegram: `apiRoot` must be an http(s) URL of a Bot API server, without the token',
      {
        option: 'apiRoot',
      },
    );
  const id = options.id ?? 'telegram';
  if (id.trim() === '') throw new TelegramOptionsError('Telegram: `id` must not be empty', { option: 'id' });
  const positive = (value: number | undefined, fallback: number, option: string) => {
    const v = value ?? fallback;
    if (!Number.isFinite(v) || v <= 0)
      throw new TelegramOptionsError(`Telegram: \`${option}\` must be a positive number`, { option });
    return v;
  };
  const resolved: ResolvedTelegramOptions = {
    token: options.token,
    apiRoot,
    id,
    pollingTimeoutSeconds: Math.floor(positive(options.pollingTimeoutSeconds, 30, 'pollingTimeoutSeconds')),
    requestTimeoutSeconds: positive(options.requestTimeoutSeconds, 30, 'requestTimeoutSeconds'),
  };
  if (options.webhook) {
    const { secretToken, url: hookUrl } = options.webhook;
    if (typeof secretToken !== 'string' || !SECRET.test(secretToken))
      throw new TelegramOptionsError(
        'Telegram: `webhook.secretToken` must be 1–256 characters of A–Z, a–z, 0–9, _ and -',
        { option: 'webhook.secretToken' },
      );
    if (hookUrl !== undefined && !/^https?:\/\//.test(hookUrl))
      throw new TelegramOptionsError('Telegram: `webhook.url` must be an http(s) URL', { option: 'webhook.url' });
    resolved.webhook = {
      secretToken,
      ...(hookUrl === undefined ? {} : { url: hookUrl }),
      handlerTimeoutMs: positive(options.webhook.handlerTimeoutMs, 10_000, 'webhook.handlerTimeoutMs'),
    };
  }
  return resolved;
}
