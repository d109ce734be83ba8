// Which OpenAI-compatible dialects are servers on the household's own machines (no key, start-up check).

/**
 * The dialects of model servers that run on the household's own machines: Ollama, the llama.cpp server,
 * vLLM and LM Studio. They need no API key (none is sent when none is given), and `host.start()` checks
 * that such a server answers and lists the configured model (docs/providers.md#local-models).
 * @public
 */
export const LOCAL_DIALECTS = Object.freeze(['ollama', 'llamacpp', 'vllm', 'lmstudio'] as const);

/** A name of {@link LOCAL_DIALECTS}. @public */
export type LocalDialectName = (typeof LOCAL_DIALECTS)[number];

/**
 * Whether a dialect name is one of {@link LOCAL_DIALECTS}.
 * @param name - a dialect name (`ollama`, `openai`, …)
 * @public
 */
export function isLocalDialect(name: string): name is LocalDialectName {
  return (LOCAL_DIALECTS as readonly string[]).includes(name);
}
