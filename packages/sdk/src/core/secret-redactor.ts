// The one redaction step: registered secret values (and their escaped spellings) and the documented
// secret shapes (secret-patterns.ts) are replaced by one marker. Everything the runtime stores or emits
// passes through one instance (docs/secrets.md).
import { anySecretShape, type PatternGate, patternGate } from './secret-pattern-gates';
import { SECRET_HEADER_NAME, SECRET_PARAM_NAME, SECRET_TEXT_PATTERNS } from './secret-patterns';
import { TextMemo } from './text-memo';

/** The marker written instead of a secret. @public */
export const REDACTED_MARKER = '[REDACTED]';

/**
 * Shortest registered secret that is redacted, in characters: shorter values (`1234`, `admin`) would
 * also erase ordinary words and numbers, so they are ignored.
 * @public
 */
export const MIN_SECRET_LENGTH = 6;

/** Something that holds credentials and can name them for redaction (a provider, a storage, a client). @public */
export interface SecretHolder {
  /** The credential values it holds (API keys, passwords, tokens); empty and short values are ignored. */
  secretValues(): readonly string[];
}

/** True when `value` has a {@link SecretHolder.secretValues} method. @public */
export function isSecretHolder(value: unknown): value is SecretHolder {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { secretValues?: unknown }).secretValues === 'function'
  );
}

/**
 * The `redact` option of `createAgentHost`: what the host's redaction step removes besides the
 * credentials the SDK finds itself (docs/secrets.md).
 * @public
 */
export interface RedactOptions {
  /**
   * Secret values the host holds: MCP server tokens and headers, channel bot tokens, a media server's
   * API token or password, a database password the SDK does not see … Values shorter than
   * {@link MIN_SECRET_LENGTH} characters are ignored.
   * @defaultValue none
   */
  secrets?: readonly string[];
  /**
   * Extra patterns whose matches are removed (made global when they are not), after the SDK's own
   * ({@link SECRET_TEXT_PATTERNS}).
   * @defaultValue none
   */
  patterns?: readonly RegExp[];
}

/** Settings of a {@link SecretRedactor}. @public */
export interface SecretRedactorOptions {
  /** Secret values to remove wherever they appear (values shorter than {@link MIN_SECRET_LENGTH} are ignored). */
  secrets?: Iterable<string | null | undefined>;
  /** Extra global patterns whose matches are removed, after {@link SECRET_TEXT_PATTERNS}. */
  patterns?: readonly RegExp[];
}

/** Texts shorter than this are redacted without the memo (a lookup would cost about as much). */
const MIN_MEMO_LENGTH = 1;

/**
 * Characters (texts and their redactions together) the memo of redacted texts holds: the runtime
 * redacts the same conversation texts again on every model call and every write, and a text seen
 * before costs a lookup.
 */
const MEMO_CHARS = 4_000_000;

/**
 * Object keys whose values are kept as they are by {@link SecretRedactor.value}: provider signatures and
 * encrypted payloads (changing one makes the provider refuse the next request) and image bytes.
 */
const OPAQUE_KEYS = new Set(['signature', 'redacted', 'reasoningDetails', 'reasoning_details']);

/** Top-level keys of a model request whose array items are redacted once per object ({@link redactModelRequest}). */
const STABLE_ITEM_KEYS = new Set(['messages', 'tools']);

/** Reaches a redactor's request walk from {@link redactModelRequest} (set by the class's static block). */
let walkRequest: (redactor: SecretRedactor, request: unknown) => unknown;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `s` as it appears inside a JSON string literal (without the quotes). */
const jsonEscaped = (s: string) => JSON.stringify(s).slice(1, -1);

/**
 * The spellings of a secret that text can hold: as is, JSON-escaped once and twice (a secret inside a
 * JSON string inside JSON), and percent-encoded (in a URL).
 * @param secret - the secret
 * @returns its distinct spellings, the secret itself first
 * @public
 */
export function secretSpellings(secret: string): string[] {
  const once = jsonEscaped(secret);
  let encoded = secret;
  try {
    encoded = encodeURIComponent(secret);
  } catch {
    // A lone surrogate cannot be percent-encoded; the other spellings still apply.
  }
  return [...new Set([secret, once, jsonEscaped(once), encoded])];
}

/**
 * Replaces secrets by {@link REDACTED_MARKER}: every registered value (in each of its spellings, see
 * {@link secretSpellings}), longest first, then every match of {@link SECRET_TEXT_PATTERNS} and of the
 * extra patterns. Redacting twice gives the same text as redacting once.
 *
 * @remarks
 * One instance serves a host: the runtime passes run events, run records, conversation messages (stored
 * and sent to the model), audit and ledger rows, history, trace attributes and log lines through it
 * (docs/secrets.md). Secrets can be added at any time with {@link SecretRedactor.add}.
 *
 * @example
 * ```ts
 * const redactor = new SecretRedactor({ secrets: [process.env.GATEWAY_KEY] });
 * redactor.text(`gateway refused ${process.env.GATEWAY_KEY}`); // 'gateway refused [REDACTED]'
 * ```
 * @public
 */
export class SecretRedactor {
  readonly #secrets = new Set<string>();
  /** The SDK's patterns, each with its gate. */
  readonly #shapes: ReadonlyArray<{ pattern: RegExp; gate: PatternGate }>;
  /** The host's extra patterns (always run). */
  readonly #extra: readonly RegExp[];
  /** Redacted texts by text, for the registered secrets (cleared when one is added). */
  readonly #memo = new TextMemo(MEMO_CHARS);
  #literal: RegExp | undefined;
  /**
   * Redacted results of the messages and tool definitions of model requests, by object (cleared when a
   * secret is added): a run sends the same message and tool objects again with every model call.
   */
  #stable = new WeakMap<object, unknown>();

  static {
    walkRequest = (redactor, request) => redactor.#request(request);
  }

  /** @param options - secrets and extra patterns */
  constructor(options: SecretRedactorOptions = {}) {
    this.#shapes = SECRET_TEXT_PATTERNS.map((pattern) => ({ pattern, gate: patternGate(pattern)! }));
    this.#extra = (options.patterns ?? []).map(globalPattern);
    this.add(...(options.secrets ?? []));
  }

  /**
   * Registers secret values (each with its escaped spellings). Empty, non-string and short values
   * (under {@link MIN_SECRET_LENGTH} characters) are ignored; so is surrounding whitespace.
   * @returns this redactor
   */
  add(...secrets: ReadonlyArray<string | null | undefined>): this {
    let changed = false;
    for (const raw of secrets) {
      if (typeof raw !== 'string') continue;
      const secret = raw.trim();
      if (secret.length < MIN_SECRET_LENGTH) continue;
      for (const spelling of secretSpellings(secret))
        if (!this.#secrets.has(spelling)) {
          this.#secrets.add(spelling);
          changed = true;
        }
    }
    if (changed) {
      // Texts redacted before may hold the new secret.
      this.#memo.clear();
      this.#stable = new WeakMap();
      const sorted = [...this.#secrets].sort((a, b) => b.length - a.length).map(escapeRegExp);
      this.#literal = new RegExp(sorted.join('|'), 'g');
    }
    return this;
  }

  /** How many secret spellings are registered. */
  get size(): number {
    return this.#secrets.size;
  }

  /**
   * The text with every secret replaced by {@link REDACTED_MARKER}.
   * @param text - any text
   */
  text(text: string): string {
    if (text.length < MIN_MEMO_LENGTH) return this.#redact(text);
    const known = this.#memo.get(text);
    if (known !== undefined) return known;
    const out = this.#redact(text);
    this.#memo.set(text, out);
    return out;
  }

  /** {@link SecretRedactor.text} without the memo. */
  #redact(text: string): string {
    let out = text;
    const literal = this.#literal;
    if (literal) {
      // Again while a replacement formed a secret anew with the text around it (a secret that begins
      // with the marker's last characters): each pass removes at least one registered spelling.
      for (let pass = 0; pass < 8; pass++) {
        const next = out.replace(literal, REDACTED_MARKER);
        if (next === out) break;
        out = next;
      }
    }
    // A text without any shape's literals skips the SDK's patterns at once.
    if (anySecretShape(out))
      for (const { pattern, gate } of this.#shapes) if (gate(out)) out = out.replace(pattern, REDACTED_MARKER);
    for (const pattern of this.#extra) out = out.replace(pattern, REDACTED_MARKER);
    return out;
  }

  /**
   * A copy of a JSON-like value with every string (at any depth) redacted by {@link SecretRedactor.text};
   * object keys, numbers and booleans are kept, and so are provider signatures, encrypted reasoning and
   * image bytes (`signature`, `redacted`, `reasoningDetails` keys; parts of `type: 'thinking'` or `type: 'image'`). Values that are
   * not plain data (class instances other than arrays and `Error`) are returned as they are.
   * @param value - the value
   */
  value<T>(value: T): T {
    return this.#walk(value, 0) as T;
  }

  /** Redacts the message (and `details` strings) of an error, in place; returns it. */
  error<E>(error: E): E {
    if (error instanceof Error) {
      const message = this.text(error.message);
      if (message !== error.message) {
        try {
          error.message = message;
          if (typeof error.stack === 'string') error.stack = this.text(error.stack);
        } catch {
          // A frozen error keeps its message; callers redact what they copy from it.
        }
      }
      const details = (error as { details?: unknown }).details;
      if (details !== undefined && typeof details === 'object' && details !== null) {
        try {
          (error as { details?: unknown }).details = this.value(details);
        } catch {
          // Read-only details stay as they are.
        }
      }
    }
    return error;
  }

  /**
   * {@link SecretRedactor.value} of a model request, the same result, except that each item of its
   * `messages` and `tools` arrays is walked once per object and its result reused (such items are never
   * changed once built: the token counts are memoized per object on the same terms).
   */
  #request(request: unknown): unknown {
    if (typeof request !== 'object' || request === null || Array.isArray(request)) return this.#walk(request, 0);
    const proto = Object.getPrototypeOf(request) as unknown;
    if (proto !== Object.prototype && proto !== null) return request;
    const record = request as Record<string, unknown>;
    if (record.type === 'image' || record.type === 'thinking') return request;
    return this.#fields(record, 0, true);
  }

  /** The array branch of {@link SecretRedactor.#walk} at depth 1, each object item's result memoized by object. */
  #stableItems(value: readonly unknown[]): unknown {
    const stable = this.#stable;
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      let next: unknown;
      if (typeof item === 'string') next = this.text(item);
      else if (typeof item !== 'object' || item === null) next = item;
      else {
        next = stable.get(item);
        if (next === undefined) {
          next = this.#walk(item, 2);
          stable.set(item, next);
        }
      }
      if (next !== item) (copy ??= [...value])[i] = next;
    }
    return copy ?? value;
  }

  #walk(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.text(value);
    if (typeof value !== 'object' || value === null || depth > 64) return value;
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const next =
          typeof item === 'string' ? this.text(item) : typeof item === 'object' ? this.#walk(item, depth + 1) : item;
        if (next !== item) (copy ??= [...value])[i] = next;
      }
      return copy ?? value;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return value;
    const record = value as Record<string, unknown>;
    // Signed or encrypted reasoning and image bytes go back to the provider exactly as received.
    if (record.type === 'image' || record.type === 'thinking') return value;
    return this.#fields(record, depth, false);
  }

  /**
   * The object branch of {@link SecretRedactor.#walk}: each field redacted (opaque keys kept), copied only once a field
   * changed; with `stable`, the `messages` and `tools` arrays are walked by {@link SecretRedactor.#stableItems}.
   */
  #fields(record: Record<string, unknown>, depth: number, stable: boolean): Record<string, unknown> {
    let copy: Record<string, unknown> | undefined;
    const keys = Object.keys(record);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const v = record[k];
      if (typeof v !== 'string' && (typeof v !== 'object' || v === null)) continue;
      if (OPAQUE_KEYS.has(k)) continue;
      const next =
        typeof v === 'string'
          ? this.text(v)
          : stable && STABLE_ITEM_KEYS.has(k) && Array.isArray(v)
            ? this.#stableItems(v)
            : this.#walk(v, depth + 1);
      if (next !== v) {
        copy ??= { ...record };
        Object.defineProperty(copy, k, { value: next, enumerable: true, writable: true, configurable: true });
      }
    }
    return copy ?? record;
  }
}

/**
 * `redactor.value(request)` for a model request about to be sent: the same result, with each item of
 * the request's `messages` and `tools` redacted once per object and then reused until a secret is added.
 * The items must not be changed once built (the run loop never changes a message once it is in the
 * conversation, nor a tool definition once offered).
 * @param redactor - the host's redaction step
 * @param request - the request
 * @returns the request redacted (the same object when nothing was redacted)
 * @internal
 */
export function redactModelRequest<T>(redactor: SecretRedactor, request: T): T {
  return walkRequest(redactor, request) as T;
}

/** The pattern, global (a non-global pattern would replace only its first match). */
function globalPattern(pattern: RegExp): RegExp {
  return pattern.global ? pattern : new RegExp(pattern.source, `${pattern.flags}g`);
}

/**
 * The credentials inside a URL: the user-info password (`https://user:PASSWORD@host`) and the values
 * of query parameters named like secrets (`?api_key=…&token=…`, see {@link SECRET_PARAM_NAME}). A text
 * that is not a URL gives none.
 * @param url - a URL
 * @public
 */
export function secretsOfUrl(url: string | URL | undefined): string[] {
  if (url === undefined) return [];
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return [];
  }
  const out: string[] = [];
  if (parsed.password) out.push(safeDecode(parsed.password));
  for (const [name, value] of parsed.searchParams) if (SECRET_PARAM_NAME.test(name) && value) out.push(value);
  return out;
}

/**
 * The credential values of request headers: those whose names look secret ({@link SECRET_HEADER_NAME}:
 * `Authorization`, `x-api-key`, `api-key`, `x-gateway-key` …), each whole and, for `Bearer` / `Basic` / `Token`
 * values, the credentials after the scheme too.
 * @param headers - header names and values
 * @public
 */
export function secretsOfHeaders(headers: Readonly<Record<string, unknown>> | undefined): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!SECRET_HEADER_NAME.test(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v !== 'string') continue;
      out.push(v);
      const scheme = /^(?:bearer|basic|token|apikey|digest)\s+(.+)$/i.exec(v.trim());
      if (scheme) out.push(scheme[1]!);
    }
  }
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
