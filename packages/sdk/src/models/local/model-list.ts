// The pure rules of the start-up model check: reading a server's model list, and whether a model is on it.

/** How many model ids an error message names at most. @internal */
export const LISTED_IN_MESSAGE = 20;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The model ids of a model list answer, or `undefined` when the body has neither shape.
 *
 * - OpenAI `GET /v1/models` (Ollama, vLLM, llama.cpp, LM Studio, OpenAI): `{ data: [{ id }] }`;
 * - Ollama `GET /api/tags`: `{ models: [{ name, model }] }`.
 * @param body - the parsed JSON answer
 * @internal
 */
export function modelIdsOf(body: unknown): string[] | undefined {
  if (!isObject(body)) return undefined;
  if (Array.isArray(body.data))
    return body.data.flatMap((m) => (isObject(m) && typeof m.id === 'string' ? [m.id] : []));
  if (Array.isArray(body.models))
    return body.models.flatMap((m) => {
      if (!isObject(m)) return [];
      const name = typeof m.name === 'string' ? m.name : typeof m.model === 'string' ? m.model : undefined;
      return name === undefined ? [] : [name];
    });
  return undefined;
}

/** The file name of a path without its `.gguf` extension (`/models/Qwen3-8B-Q4_K_M.gguf` → `Qwen3-8B-Q4_K_M`). */
function fileStem(id: string): string {
  const base = id.split(/[\\/]/).pop() ?? id;
  return base.replace(/\.gguf$/i, '');
}

/**
 * Whether `model` is on the server's list, by the server's own naming rules:
 *
 * - exact id (every server);
 * - Ollama: a name without a tag is the `:latest` tag (`qwen3` is `qwen3:latest`), as `ollama run` reads it;
 * - llama.cpp: a model started from a file is listed by its path (`models/qwen3-8b.gguf`) unless `--alias`
 *   names it; the file's name without `.gguf` matches too;
 * - Anthropic (checked only with `checkOnStart: true`): an alias (`claude-sonnet-4-5`, `…-latest`) is the
 *   listed id with a date (`claude-sonnet-4-5-20250929`).
 * @param dialect - the dialect name (`ollama`, `llamacpp`, …)
 * @param model - the configured model id
 * @param ids - the ids the server listed
 * @internal
 */
export function modelListed(dialect: string, model: string, ids: readonly string[]): boolean {
  if (ids.includes(model)) return true;
  if (dialect === 'ollama' && !model.includes(':')) return ids.includes(`${model}:latest`);
  if (dialect === 'llamacpp') return ids.some((id) => fileStem(id) === fileStem(model));
  if (dialect === 'anthropic') {
    const alias = model.replace(/-latest$/, '');
    return ids.some((id) => id.startsWith(`${alias}-`) && /^\d{8}$/.test(id.slice(alias.length + 1)));
  }
  return false;
}

/**
 * The list as an error message names it: the first {@link LISTED_IN_MESSAGE} ids and how many more.
 * @param ids - the ids the server listed
 * @internal
 */
export function shownList(ids: readonly string[]): string {
  if (ids.length === 0) return 'none (the server lists no model)';
  const head = ids.slice(0, LISTED_IN_MESSAGE).join(', ');
  return ids.length > LISTED_IN_MESSAGE ? `${head} (and ${ids.length - LISTED_IN_MESSAGE} more)` : head;
}
