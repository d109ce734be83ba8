// Where OpenAI-compatible Chat Completions servers differ. One record per server family.
import type { ThinkingLevel } from './types';

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
  /**
   * Which assistant turns get their reasoning sent back as `reasoning_content`:
   * `none`; `current-turn` (turns after the last user message, i.e. inside a tool loop: DeepSeek
   * thinking mode requires it there and ignores it elsewhere); `all`.
   */
  reasoningReplay: 'none' | 'current-turn' | 'all';
  /** Extra request fields for a thinking level (`undefined`: nothing to send). */
  thinkingParams: (level: Exclude<ThinkingLevel, 'off'>) => Record<string, unknown> | undefined;
}

const none = () => undefined;

/**
 * Built-in dialects. Sources: OpenAI Chat Completions reference (`max_completion_tokens`,
 * `reasoning_effort`, `stream_options.include_usage`); DeepSeek API docs "Thinking Mode"
 * (`reasoning_content`, sent back within a tool-calling turn, `thinking: {type: enabled}`);
 * Alibaba Model Studio "OpenAI compatible - Chat" (`enable_thinking`, `thinking_budget`,
 * compatible-mode base URL); Ollama "OpenAI compatibility" (`reasoning_effort`, `/v1`); vLLM
 * "OpenAI-Compatible Server" and llama.cpp `tools/server` README (`max_tokens`,
 * `reasoning_content`).
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
    reasoningReplay: 'current-turn',
    thinkingParams: () => ({ thinking: { type: 'enabled' } }),
  },
  qwen: {
    name: 'qwen',
    defaultBaseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
    maxTokensField: 'max_tokens',
    includeUsage: true,
    reasoningReplay: 'none',
    thinkingParams: (level) => ({
      enable_thinking: true,
      thinking_budget: { low: 2048, medium: 8192, high: 24576 }[level],
    }),
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
