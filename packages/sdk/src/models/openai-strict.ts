// Strict OpenAI-compatible servers: a server that validates the request body strictly answers 400
// (or 422) naming an optional field a dialect adds (`stream_options`, `max_completion_tokens`,
// `reasoning_effort`, …). The provider learns which fields to leave out and resends.
// Message shapes: OpenAI "Unrecognized request argument supplied: …" / "Unsupported parameter: …"
// (https://platform.openai.com/docs/guides/error-codes), pydantic "Extra inputs are not permitted"
// (`extra_forbidden`, https://docs.pydantic.dev/latest/errors/validation_errors/#extra_forbidden),
// serde `deny_unknown_fields` "unknown field `…`, expected one of …"
// (https://serde.rs/container-attrs.html#deny_unknown_fields), JSON Schema "Additional properties
// are not allowed".

type Json = Record<string, unknown>;

/**
 * What one OpenAI-compatible provider instance learned about the optional request fields its
 * server refuses. Starts empty; only grows.
 *
 * @internal
 */
export interface StrictFieldState {
  /** Top-level optional fields never to send again (`stream_options`, `reasoning_effort`, `temperature`, …). */
  readonly omit: Set<string>;
  /** Output-limit field to use instead of the dialect's; `null` sends none; `undefined` keeps the dialect's. */
  maxTokensField: 'max_tokens' | 'max_completion_tokens' | null | undefined;
  /** Output-limit field names the server refused. */
  readonly refusedMaxTokens: Set<string>;
  /** The server refused `reasoning_content` in assistant messages: send none back. */
  noReasoningReplay: boolean;
}

/**
 * A fresh, empty {@link StrictFieldState}.
 * @internal
 */
export function newStrictFieldState(): StrictFieldState {
  return { omit: new Set(), maxTokensField: undefined, refusedMaxTokens: new Set(), noReasoningReplay: false };
}

/** Messages that say the body has a field the server does not accept (enough on their own). */
const strongPatterns = [
  /extra[ _](inputs?|fields?|properties|parameters?|arguments?|keys?)\b[^.]{0,40}\bnot (permitted|allowed)/i,
  /extra_forbidden/i,
  /unrecogni[sz]ed (request )?(arguments?|parameters?|fields?|keys?|propert(y|ies))/i,
  /unknown (fields?|parameters?|arguments?|keys?|propert(y|ies))/i,
  /unsupported (parameters?|arguments?|fields?|keys?|propert(y|ies))/i,
  /unexpected (keyword )?(arguments?|fields?|parameters?|keys?|propert(y|ies))/i,
  /additional propert(y|ies)/i,
  /(fields?|parameters?|arguments?|propert(y|ies)|keys?) (is |are )?not (permitted|allowed|supported|recogni[sz]ed)/i,
];

/** Messages that may be about a field, when they also name one we sent. */
const weakPatterns = [
  /not supported|unsupported|does not support|not (permitted|allowed|recogni[sz]ed)|unknown|unrecogni[sz]ed|invalid (parameter|field|argument)/i,
];

/** Where a list of the fields the server does accept begins (serde: "…, expected one of `model`, …"). */
const acceptedListStart = /\bexpected\b|\bvalid (fields|parameters|keys) are\b|\bsupported (fields|parameters) are\b/i;

/** Whether `text` names `field` as a whole word (`stream_options` in "body.stream_options", not in "my_stream_options_x"). */
function names(text: string, field: string): boolean {
  return new RegExp(`(?<![A-Za-z0-9_])${field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_])`).test(text);
}

function sendsReasoningContent(body: Json): boolean {
  const messages = body.messages;
  return (
    Array.isArray(messages) && messages.some((m) => typeof m === 'object' && m !== null && 'reasoning_content' in m)
  );
}

/** What {@link learnRefusedFields} changed. @internal */
export interface RefusedFields {
  /** Wire names of the fields that will no longer be sent as they were. */
  fields: string[];
  /** `named`: the error named them; `unnamed`: it named none we sent, so every optional field goes. */
  reason: 'named' | 'unnamed';
}

/**
 * Reads a failed response and, when it says the body has fields the server does not accept,
 * records in `state` the optional fields to leave out.
 *
 * @remarks
 * Only 400 and 422 responses whose text says a field is not accepted count. The fields it names
 * among the optional ones that were sent are dropped (`stream_options`; the thinking parameters
 * of the dialect; `temperature`; `reasoning_content` in assistant messages); a refused
 * `max_completion_tokens` switches to `max_tokens`, a refused `max_tokens` switches to
 * `max_completion_tokens` when the message mentions it, else is dropped. When the message names
 * none of them (and clearly says a field is not accepted), every optional field goes at once:
 * `stream_options`, the thinking parameters, and `max_completion_tokens` switches to `max_tokens`.
 * A list of accepted fields in the message (serde's "expected one of …") is not read as naming them.
 *
 * @param status - HTTP status of the failure
 * @param text - the response body
 * @param sent - the body that was sent
 * @param state - the provider's state, updated in place
 * @param thinkingKeys - top-level fields the dialect added for the thinking level (may be empty)
 * @returns what changed, or `undefined` when the failure is not about optional fields or nothing is left to drop
 * @internal
 */
export function learnRefusedFields(
  status: number,
  text: string,
  sent: Json,
  state: StrictFieldState,
  thinkingKeys: readonly string[],
): RefusedFields | undefined {
  if (status !== 400 && status !== 422) return undefined;
  const strong = strongPatterns.some((p) => p.test(text));
  if (!strong && !weakPatterns.some((p) => p.test(text))) return undefined;
  const cut = text.search(acceptedListStart);
  const scan = cut > 0 ? text.slice(0, cut) : text;
  const maxField = (['max_completion_tokens', 'max_tokens'] as const).find((f) => sent[f] !== undefined);
  const candidates: Array<{ field: string; aliases: string[] }> = [];
  if (sent.stream_options !== undefined)
    candidates.push({ field: 'stream_options', aliases: ['stream_options', 'include_usage'] });
  if (maxField) candidates.push({ field: maxField, aliases: [maxField] });
  for (const k of thinkingKeys) if (sent[k] !== undefined) candidates.push({ field: k, aliases: [k] });
  if (sent.temperature !== undefined) candidates.push({ field: 'temperature', aliases: ['temperature'] });
  if (sendsReasoningContent(sent)) candidates.push({ field: 'reasoning_content', aliases: ['reasoning_content'] });
  let fields = candidates.filter((c) => c.aliases.some((a) => names(scan, a))).map((c) => c.field);
  let reason: RefusedFields['reason'] = 'named';
  if (fields.length === 0) {
    if (!strong) return undefined;
    reason = 'unnamed';
    fields = candidates
      .map((c) => c.field)
      .filter((f) => f === 'stream_options' || f === 'max_completion_tokens' || thinkingKeys.includes(f));
    if (fields.length === 0) return undefined;
  }
  for (const f of fields) {
    if (f === 'reasoning_content') state.noReasoningReplay = true;
    else if (f === 'max_completion_tokens' || f === 'max_tokens') {
      state.refusedMaxTokens.add(f);
      const other = f === 'max_completion_tokens' ? 'max_tokens' : 'max_completion_tokens';
      const switchable = f === 'max_completion_tokens' || names(text, other);
      state.maxTokensField = switchable && !state.refusedMaxTokens.has(other) ? other : null;
    } else state.omit.add(f);
  }
  return { fields, reason };
}

/**
 * Applies what was learned to a freshly built body (in place): removes omitted fields, moves or
 * removes the output limit. (`reasoning_content` replay is switched off where the messages are
 * built.)
 * @param body - the Chat Completions body
 * @param dialectMaxField - the dialect's output-limit field
 * @param state - the provider's state
 * @returns the same body
 * @internal
 */
export function applyStrictFields(body: Json, dialectMaxField: string, state: StrictFieldState): Json {
  for (const k of state.omit) delete body[k];
  if (
    state.maxTokensField !== undefined &&
    body[dialectMaxField] !== undefined &&
    state.maxTokensField !== dialectMaxField
  ) {
    const limit = body[dialectMaxField];
    delete body[dialectMaxField];
    if (state.maxTokensField !== null) body[state.maxTokensField] = limit;
  }
  return body;
}
