// The token counts a server states in its context-overflow error: how large it found the prompt and
// how many prompt tokens it takes. Pure, tested directly.

/**
 * Token counts read from a context-overflow error, in the server's own tokens.
 * @internal
 */
export interface OverflowTokenCounts {
  /** Prompt tokens of the refused request as the server counted them (messages and tools, without the output reservation). */
  promptTokens?: number;
  /** Largest prompt the server takes for this request, in tokens: its context window less the output tokens it reserved, when it said so. */
  limitTokens?: number;
}

const int = (s: string | undefined): number | undefined => {
  if (s === undefined) return undefined;
  const n = Number(s.replace(/[,_]/g, ''));
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
};

/** One number with optional thousands separators. */
const N = '(\\d[\\d,_]*)';

/**
 * The counts of the documented overflow messages, in the order tried. Sources (the message forms
 * as servers send them): Anthropic "Errors" (`prompt is too long: N tokens > M maximum`; `input
 * length and max_tokens exceed context limit: N + K > M`); OpenAI, DeepSeek and vLLM ("This model's
 * maximum context length is M tokens. However, your messages resulted in N tokens" / "you requested
 * T tokens (… K in the completion)" / "your request has N input tokens plus K 'max_tokens'"); Azure
 * OpenAI ("exceed the configured limit of M tokens. Your messages resulted in N tokens"); Gemini
 * ("The input token count (N) exceeds the maximum number of tokens allowed (M)"); llama.cpp server
 * (`exceed_context_size_error` with `n_prompt_tokens` and `n_ctx`; "request (N tokens) exceeds the
 * available context size (M tokens)"; "Requested tokens (N) exceed context window of M"); LM Studio
 * ("n_keep: N>= n_ctx: M"); Mistral
 * ("Prompt contains N tokens … too large for model with M maximum context length").
 */
const forms: ReadonlyArray<(text: string) => OverflowTokenCounts | undefined> = [
  (t) => {
    const m = new RegExp(`prompt is too long:?\\s*${N}\\s*tokens?\\s*>\\s*${N}`, 'i').exec(t);
    return m ? { promptTokens: int(m[1]), limitTokens: int(m[2]) } : undefined;
  },
  (t) => {
    const m = new RegExp(`exceed context limit:?\\s*${N}\\s*\\+\\s*${N}\\s*>\\s*${N}`, 'i').exec(t);
    if (!m) return undefined;
    const [p, k, max] = [int(m[1]), int(m[2]), int(m[3])];
    return { promptTokens: p, limitTokens: max !== undefined && k !== undefined ? max - k : max };
  },
  (t) => {
    const max = new RegExp(`maximum context length is ${N} tokens?`, 'i').exec(t);
    if (!max) return undefined;
    const window = int(max[1]);
    const input = new RegExp(`request has ${N} input tokens?(?: plus ${N})?`, 'i').exec(t);
    if (input) {
      const k = int(input[2]) ?? 0;
      return { promptTokens: int(input[1]), limitTokens: window !== undefined ? window - k : undefined };
    }
    const total = new RegExp(`(?:resulted in|requested) ${N} tokens?`, 'i').exec(t);
    const completion = new RegExp(`${N} (?:tokens )?(?:in|for) the completion`, 'i').exec(t);
    const k = int(completion?.[1]) ?? 0;
    const requested = int(total?.[1]);
    return {
      ...(requested !== undefined ? { promptTokens: requested - k } : {}),
      ...(window !== undefined ? { limitTokens: window - k } : {}),
    };
  },
  (t) => {
    const m = new RegExp(`configured limit of ${N} tokens?\\.?\\s*your messages resulted in ${N}`, 'i').exec(t);
    return m ? { promptTokens: int(m[2]), limitTokens: int(m[1]) } : undefined;
  },
  (t) => {
    const m = new RegExp(
      `input token count \\(?${N}\\)? exceeds the maximum number of tokens allowed \\(?${N}`,
      'i',
    ).exec(t);
    return m ? { promptTokens: int(m[1]), limitTokens: int(m[2]) } : undefined;
  },
  (t) => {
    const m = new RegExp(`n_keep:\\s*${N}\\s*>=?\\s*n_ctx:\\s*${N}`, 'i').exec(t);
    return m ? { promptTokens: int(m[1]), limitTokens: int(m[2]) } : undefined;
  },
  (t) => {
    const p = new RegExp(`"n_prompt_tokens"\\s*:\\s*${N}`).exec(t);
    const c = new RegExp(`"n_ctx"\\s*:\\s*${N}`).exec(t);
    if (!p && !c) return undefined;
    return { ...(p ? { promptTokens: int(p[1]) } : {}), ...(c ? { limitTokens: int(c[1]) } : {}) };
  },
  (t) => {
    const m =
      new RegExp(`request \\(${N} tokens?\\) exceeds the available context size \\(${N}`, 'i').exec(t) ??
      new RegExp(`requested tokens \\(${N}\\) exceed context window of ${N}`, 'i').exec(t);
    return m ? { promptTokens: int(m[1]), limitTokens: int(m[2]) } : undefined;
  },
  (t) => {
    const m = new RegExp(`prompt contains ${N} tokens?.*?too large for model with ${N}`, 'is').exec(t);
    return m ? { promptTokens: int(m[1]), limitTokens: int(m[2]) } : undefined;
  },
];

/**
 * Reads the prompt size and the limit a server states in a context-overflow error.
 *
 * @remarks
 * Used to correct the runtime's token estimate for that provider (its tokenizer can count more
 * than tiktoken does) and to learn a window smaller than configured. Counts that are missing, not
 * whole numbers or not positive are left out; a limit that is not below the prompt is left out too
 * (the message was not what it seemed).
 *
 * @param text - the error message, or the whole response body (llama.cpp puts the counts in fields)
 * @returns the counts found (empty when none)
 * @internal
 */
export function overflowTokenCounts(text: string): OverflowTokenCounts {
  for (const form of forms) {
    const found = form(text);
    if (!found) continue;
    const out: OverflowTokenCounts = {};
    if (found.promptTokens !== undefined && found.promptTokens > 0) out.promptTokens = found.promptTokens;
    if (found.limitTokens !== undefined && found.limitTokens > 0) out.limitTokens = found.limitTokens;
    if (out.promptTokens !== undefined && out.limitTokens !== undefined && out.limitTokens >= out.promptTokens)
      delete out.limitTokens;
    return out;
  }
  return {};
}
