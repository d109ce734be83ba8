// Where OpenAI-compatible Chat Completions servers differ. One record per server family.
import type { ThinkingLevel } from './types';

/**
 * Which assistant messages get their reasoning sent back (see {@link OpenAIDialect.reasoningReplay}).
 *
 * - `none`: never (the server does not take reasoning back, or refuses the field);
 * - `current-turn`: the assistant messages after the last user message only (inside a tool loop);
 * - `tool-calls`: the assistant messages of every user turn (the messages between two user
 *   messages) that made a tool call, in every later request, plus those after the last user
 *   message; such a message whose reasoning was not captured gets an empty one, because the field
 *   must be present (DeepSeek and Kimi thinking mode answer 400 without it);
 * - `all`: every assistant message that has reasoning.
 *
 * @public
 */
export type ReasoningReplay = 'none' | 'current-turn' | 'tool-calls' | 'all';

/**
 * How one OpenAI-compatible server family differs from OpenAI's Chat Completions.
 *
 * @public
 */
export interface OpenAIDialect {
  /** Dialect name, used in the provider id (`openai-compatible:<name>`). */
  name: string;
  /** Base URL used when the caller gives none. */
  defaultBaseUrl: string;
  /** Request field for the output limit: OpenAI wants `max_completion_tokens`, most others `max_tokens`. */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
  /** Whether to send `stream_options: { include_usage: true }` (usage arrives in a final chunk with empty `choices`). */
  includeUsage: boolean;
  /** Which assistant messages get their reasoning sent back (the provider's documented rule). */
  reasoningReplay: ReasoningReplay;
  /**
   * How reasoning goes back on an assistant message:
   * `reasoning_content` (a string field); `reasoning_details` (OpenRouter: the items as received,
   * `ThinkingPart.details`; a message without them sends none); `thinking-parts` (Mistral
   * Magistral: `content` becomes an array of `{type:"thinking",thinking:[{type:"text",text}]}` and
   * `{type:"text",text}` parts in the order the model produced them).
   * @defaultValue `reasoning_content`
   */
  reasoningWire?: 'reasoning_content' | 'reasoning_details' | 'thinking-parts';
  /**
   * Whether tool calls carry their signature back as `extra_content.google.thought_signature`
   * (Gemini's OpenAI-compatible endpoint; see `ToolCallPart.signature`).
   * @defaultValue false
   */
  toolCallSignatures?: boolean;
  /**
   * Which tool call ids the server accepts (see `ToolCallIdRule`): `openai` (at most 40 characters) or
   * `mistral` (exactly 9 of `a-z`, `A-Z`, `0-9`; Mistral's API, and local servers running a Mistral chat
   * template). Ids it refuses are remapped in calls and results alike, per request.
   * @defaultValue `openai`
   */
  toolCallIds?: 'openai' | 'mistral';
  /** Extra request fields for a thinking level (`undefined`: nothing to send). */
  thinkingParams: (level: Exclude<ThinkingLevel, 'off'>) => Record<string, unknown> | undefined;
}

const none = () => undefined;

/** Thinking-token budgets per level where a server takes a budget (Alibaba, SiliconFlow). */
const budgets: Readonly<Record<'low' | 'medium' | 'high', number>> = { low: 2048, medium: 8192, high: 24576 };

/**
 * Built-in dialects, each with its provider's documented reasoning round trip.
 *
 * @remarks
 * Sources, per dialect:
 * - `openai`: OpenAI Chat Completions reference (`max_completion_tokens`, `reasoning_effort`,
 *   `stream_options.include_usage`); reasoning is not sent back through Chat Completions.
 * - `deepseek`: DeepSeek API docs "Thinking Mode" (https://api-docs.deepseek.com/guides/thinking_mode):
 *   `thinking: {type: enabled}`, `reasoning_content`; between two user messages where the model made a
 *   tool call, the assistant's `reasoning_content` must be passed back in all later requests (else 400
 *   "The reasoning_content in the thinking mode must be passed back to the API"); where it made none,
 *   it may be left out (it is ignored). Replay `tool-calls`.
 * - `kimi`: Moonshot Kimi API docs, thinking models (https://platform.moonshot.ai/docs, "Use the Kimi
 *   K2 thinking model"): `reasoning_content` kept on assistant tool-call messages (else 400 "thinking is
 *   enabled but reasoning_content is missing in assistant tool call message"); `thinking: {type:
 *   enabled}`. Replay `tool-calls`.
 * - `glm`: Z.AI docs "Thinking Mode" (https://docs.z.ai/guides/capabilities/thinking-mode):
 *   `thinking: {type: enabled}`; interleaved thinking needs the reasoning returned with the tool
 *   results; preserved thinking (`clear_thinking: false`, recommended for agents) needs every earlier
 *   `reasoning_content` back complete and unmodified. Replay `all`.
 * - `qwen`: Alibaba Model Studio "OpenAI compatible - Chat" and "Deep thinking" (`enable_thinking`,
 *   `thinking_budget`, compatible-mode base URL); `reasoning_content` is output only. Replay `none`.
 * - `openrouter`: OpenRouter docs "Reasoning Tokens" (https://openrouter.ai/docs/use-cases/reasoning-tokens):
 *   `reasoning: {effort}`; `reasoning_details` passed back unmodified on the assistant message
 *   ("Preserving reasoning blocks"; Gemini models through OpenRouter refuse a tool call without them).
 * - `mistral`: Mistral docs "Reasoning" (https://docs.mistral.ai/capabilities/reasoning/): Magistral
 *   answers with `thinking` content chunks; the assistant message goes back with its chunks;
 *   `reasoning_effort` on adjustable models; no `stream_options`; tool call ids of exactly 9 alphanumerics
 *   (400 "Tool call id was … but must be a-z, A-Z, 0-9, with a length of 9").
 * - `gemini`: Gemini API docs "OpenAI compatibility" (https://ai.google.dev/gemini-api/docs/openai)
 *   and "Thought signatures" (https://ai.google.dev/gemini-api/docs/thought-signatures):
 *   `reasoning_effort`; the signature arrives on the tool call in
 *   `extra_content.google.thought_signature` and must go back on the same call (Gemini 3 validates
 *   the current turn strictly, 400 "Function call is missing a thought_signature").
 * - `groq`: GroqCloud docs "Reasoning" (https://console.groq.com/docs/reasoning): `reasoning_effort`,
 *   `include_reasoning` (reasoning arrives in `reasoning`); assistant messages with `reasoning_content`
 *   are refused (400 "property 'reasoning_content' is unsupported"). Replay `none`.
 * - `xai`: xAI docs "Reasoning" (https://docs.x.ai/docs/guides/reasoning): `reasoning_content`
 *   (grok-3-mini), `reasoning_effort` `low` | `high` on the models that take it; Chat Completions has no
 *   field to send reasoning back. Replay `none`.
 * - `siliconflow`: SiliconFlow API reference "Chat Completions"
 *   (https://docs.siliconflow.cn/en/api-reference/chat-completions/chat-completions): `enable_thinking`,
 *   `thinking_budget`, `reasoning_content` in the answer only. Replay `none`.
 * - `ollama`: Ollama "OpenAI compatibility" (https://docs.ollama.com/api/openai-compatibility):
 *   `reasoning_effort`, `/v1`; reasoning streams as `delta.reasoning`; usage only with
 *   `stream_options.include_usage`; no key needed (`ollama serve` on port 11434).
 * - `vllm`: vLLM "OpenAI-Compatible Server" and "Reasoning Outputs"
 *   (https://docs.vllm.ai/en/latest/features/reasoning_outputs.html): `reasoning_content` (renamed
 *   `reasoning`, both read) with `--reasoning-parser`; a key only when started with `--api-key`;
 *   port 8000.
 * - `llamacpp`: llama.cpp `tools/server` README (`max_tokens`, `reasoning_content` with
 *   `--reasoning-format`); the finish chunk carries `usage` and llama.cpp's own `timings`
 *   (`prompt_n` counts only the tokens not served from the cache, so usage is read from `usage`);
 *   a key only with `--api-key`; port 8080.
 * - `lmstudio`: LM Studio "OpenAI Compatibility Endpoints" (https://lmstudio.ai/docs/developer/openai-compat):
 *   `http://localhost:1234/v1`, no key unless the server's authentication is on; `reasoning_effort`
 *   (gpt-oss); reasoning in `reasoning_content` / `reasoning` when the app separates it; its REST
 *   streams end with a `stats` object (tokens per second, time to first token) beside `usage`,
 *   which carries nothing the runtime counts.
 *
 * Local dialects (`ollama`, `llamacpp`, `vllm`, `lmstudio`) default to `127.0.0.1` rather than
 * `localhost`: Node resolves `localhost` to `::1` first on some systems, where these servers do not
 * listen by default.
 *
 * @public
 */
export const OPENAI_DIALECTS = {
  openai: {
    name: 'openai',
    defaultBaseUrl: 'https://api.openai.com/v1',
    maxTokensField: 'max_completion_tokens',
    includeUsage: true,
    reasoningReplay: 'none',
    thinkingParams: (level) => ({ reasoning_effort: level }),
  },
  deepseek: {
    name: 'deepseek',
    defaultBaseUrl: 'https://api.deepseek.com/v1',
    maxTokensField: 'max_tokens',
    includeUsage: true,
    reasoningReplay: 'tool-calls',
    thinkingParams: () => ({ thinking: { type: 'enabled' } }),
  },
  kimi: {
    name: 'kimi',
    defaultBaseUrl: 'https://api.moonshot.ai/v1',
    maxTokensField: 'max_tokens',
    includeUsage: true,
    reasoningReplay: 'tool-calls',
    thinkingParams: () => ({ thinking: { type: 'enabled' } }),
  },
  glm: {
    name: 'glm',
    defaultBaseUrl: 'https://api.z.ai/api/paas/v4',
    maxTokensField: 'max_tokens',
    includeUsage: true,
    reasoningReplay: 'all',
    thinkingParams: () => ({ thinking: { type: 'enabled', clear_thinking: false } }),
  },
  qwen: {
    name: 'qwen',
    defaultBaseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
    maxTokensField: 'max_tokens',
    includeUsage: true,
    reasoningReplay: 'none',
    thinkingParams: (level) => ({ enable_thinking: true, thinking_budget: budgets[level] }),
  },
  openrouter: {
    name: 'openrouter',
    defaultBaseUrl: 'https://openrouter.ai/api/v1',
    maxTokensField: 'max_tokens',
    includeUsage: true,
    reasoningReplay: 'all',
    reasoningWire: 'reasoning_details',
    thinkingParams: (level) => ({ reasoning: { effort: level } }),
  },
  mistral: {
    name: 'mistral',
    defaultBaseUrl: 'https://api.mistral.ai/v1',
    maxTokensField: 'max_tokens',
    includeUsage: false,
    reasoningReplay: 'all',
    reasoningWire: 'thinking-parts',
    toolCallIds: 'mistral',
    thinkingParams: (level) => ({ reasoning_effort: level }),
  },
  gemini: {
    name: 'gemini',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai/',
    maxTokensField: 'max_tokens',
    includeUsage: true,
    reasoningReplay: 'none',
    toolCallSignatures: true,
    thinkingParams: (level) => ({ reasoning_effort: level }),
  },
  groq: {
    name: 'groq',
    defaultBaseUrl: 'https://api.groq.com/openai/v1',
    maxTokensField: 'max_completion_tokens',
    includeUsage: true,
    reasoningReplay: 'none',
    thinkingParams: (level) => ({ reasoning_effort: level, include_reasoning: true }),
  },
  xai: {
    name: 'xai',
    defaultBaseUrl: 'https://api.x.ai/v1',
    maxTokensField: 'max_tokens',
    includeUsage: true,
    reasoningReplay: 'none',
    thinkingParams: (level) => ({ reasoning_effort: level === 'low' ? 'low' : 'high' }),
  },
  siliconflow: {
    name: 'siliconflow',
    defaultBaseUrl: 'https://api.siliconflow.cn/v1',
    maxTokensField: 'max_tokens',
    includeUsage: true,
    reasoningReplay: 'none',
    thinkingParams: (level) => ({ enable_thinking: true, thinking_budget: budgets[level] }),
  },
  ollama: {
    name: 'ollama',
    defaultBaseUrl: 'http://127.0.0.1:11434/v1',
    maxTokensField: 'max_tokens',
    includeUsage: true,
    reasoningReplay: 'none',
    thinkingParams: (level) => ({ reasoning_effort: level }),
  },
  vllm: {
    name: 'vllm',
    defaultBaseUrl: 'http://127.0.0.1:8000/v1',
    maxTokensField: 'max_tokens',
    includeUsage: true,
    reasoningReplay: 'none',
    thinkingParams: none,
  },
  llamacpp: {
    name: 'llamacpp',
    defaultBaseUrl: 'http://127.0.0.1:8080/v1',
    maxTokensField: 'max_tokens',
    includeUsage: true,
    reasoningReplay: 'none',
    thinkingParams: none,
  },
  lmstudio: {
    name: 'lmstudio',
    defaultBaseUrl: 'http://127.0.0.1:1234/v1',
    maxTokensField: 'max_tokens',
    includeUsage: true,
    reasoningReplay: 'none',
    thinkingParams: (level) => ({ reasoning_effort: level }),
  },
  generic: {
    name: 'generic',
    defaultBaseUrl: 'http://127.0.0.1:8000/v1',
    maxTokensField: 'max_tokens',
    includeUsage: true,
    reasoningReplay: 'none',
    thinkingParams: none,
  },
} satisfies Record<string, OpenAIDialect>;

/**
 * Names of the built-in dialects.
 *
 * @public
 */
export type OpenAIDialectName = keyof typeof OPENAI_DIALECTS;
