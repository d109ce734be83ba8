// The pure rules of the start-up model check: reading model lists, the servers' naming rules, the shown list.
import { describe, expect, it } from 'vitest';
import { modelIdsOf, modelListed, shownList } from '../../../src/models/local/model-list';
import { isLocalDialect, LOCAL_DIALECTS } from '../../../src/models/local/local-dialects';

describe('model list rules', () => {
  it('reads the OpenAI list shape and Ollama /api/tags; anything else is not a list', () => {
    expect(modelIdsOf({ object: 'list', data: [{ id: 'a' }, { id: 2 }, 'x', { id: 'b' }] })).toEqual(['a', 'b']);
    expect(modelIdsOf({ models: [{ name: 'qwen3:8b', model: 'qwen3:8b' }, { model: 'llama3.2:3b' }, {}] })).toEqual([
      'qwen3:8b',
      'llama3.2:3b',
    ]);
    expect(modelIdsOf({ data: [] })).toEqual([]);
    for (const other of [null, 'text', [], { status: 'ok' }, { data: 'x' }]) expect(modelIdsOf(other)).toBeUndefined();
  });

  it('exact ids everywhere; Ollama :latest; llama.cpp file names; Anthropic dated ids of an alias', () => {
    expect(modelListed('vllm', 'Qwen/Qwen3-8B', ['Qwen/Qwen3-8B'])).toBe(true);
    expect(modelListed('vllm', 'qwen/qwen3-8b', ['Qwen/Qwen3-8B'])).toBe(false);
    expect(modelListed('ollama', 'qwen3', ['qwen3:latest'])).toBe(true);
    expect(modelListed('ollama', 'qwen3', ['qwen3:8b'])).toBe(false);
    expect(modelListed('ollama', 'qwen3:8b', ['qwen3:latest'])).toBe(false);
    expect(modelListed('llamacpp', 'Qwen3-8B-Q4_K_M', ['/models/Qwen3-8B-Q4_K_M.gguf'])).toBe(true);
    expect(modelListed('llamacpp', 'Qwen3-8B-Q4_K_M.gguf', ['models\\Qwen3-8B-Q4_K_M.gguf'])).toBe(true);
    expect(modelListed('llamacpp', 'Qwen3-14B', ['models/Qwen3-8B.gguf'])).toBe(false);
    expect(modelListed('lmstudio', 'qwen3', ['qwen3:latest'])).toBe(false);
    expect(modelListed('anthropic', 'claude-sonnet-4-5', ['claude-sonnet-4-5-20250929'])).toBe(true);
    expect(modelListed('anthropic', 'claude-3-7-sonnet-latest', ['claude-3-7-sonnet-20250219'])).toBe(true);
    expect(modelListed('anthropic', 'claude-sonnet-4', ['claude-sonnet-4-5-20250929'])).toBe(false);
  });

  it('shows at most 20 ids and counts the rest; an empty list says so', () => {
    expect(shownList([])).toBe('none (the server lists no model)');
    expect(shownList(['a', 'b'])).toBe('a, b');
    const ids = Array.from({ length: 23 }, (_, i) => `m${i}`);
    expect(shownList(ids)).toBe(`${ids.slice(0, 20).join(', ')} (and 3 more)`);
  });

  it('the local dialects are Ollama, llama.cpp, vLLM and LM Studio', () => {
    expect([...LOCAL_DIALECTS]).toEqual(['ollama', 'llamacpp', 'vllm', 'lmstudio']);
    expect(['ollama', 'lmstudio', 'openai', 'generic', 'deepseek'].map(isLocalDialect)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});
