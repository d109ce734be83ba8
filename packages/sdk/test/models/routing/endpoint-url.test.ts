// The normalized API root of a provider: the rule the duplicate-entry check of model.fallbacks compares.
import { describe, expect, it } from 'vitest';
import { AnthropicProvider, OPENAI_DIALECTS, OpenAICompatibleProvider } from '../../../src/models';
import { apiRootOf } from '../../../src/models/routing/endpoint-url';

describe('apiRootOf', () => {
  it.each([
    ['openai-compatible:ollama', undefined, 'http://127.0.0.1:11434/v1'],
    ['openai-compatible:ollama', 'http://127.0.0.1:11434', 'http://127.0.0.1:11434/v1'],
    ['openai-compatible:ollama', 'http://127.0.0.1:11434/', 'http://127.0.0.1:11434/v1'],
    ['openai-compatible:ollama', 'http://127.0.0.1:11434/v1/', 'http://127.0.0.1:11434/v1'],
    ['openai-compatible:ollama', ' http://127.0.0.1:11434/v1/chat/completions ', 'http://127.0.0.1:11434/v1'],
    ['openai-compatible:openai', undefined, 'https://api.openai.com/v1'],
    ['openai-compatible:openai', 'HTTPS://API.OpenAI.com:443/v1', 'https://api.openai.com/v1'],
    ['openai-compatible:deepseek', 'https://api.deepseek.com', 'https://api.deepseek.com/v1'],
    ['openai-compatible:glm', undefined, 'https://api.z.ai/api/paas/v4'],
    ['openai-compatible:gemini', undefined, 'https://generativelanguage.googleapis.com/v1beta/openai'],
    ['openai-compatible:vllm', 'http://10.0.0.2:8000/v1', 'http://10.0.0.2:8000/v1'],
    ['anthropic', undefined, 'https://api.anthropic.com/v1'],
    ['anthropic', 'https://api.anthropic.com/', 'https://api.anthropic.com/v1'],
    ['anthropic', 'http://127.0.0.1:9000/v1/messages', 'http://127.0.0.1:9000/v1'],
    ['my-provider', 'http://Example.test:80/api/', 'http://example.test/api'],
    ['scripted', undefined, 'default'],
  ])('%s, base %s → %s', (kind, baseUrl, root) => {
    expect(apiRootOf(kind, baseUrl)).toBe(root);
  });

  it('different servers, ports or path prefixes stay different', () => {
    const roots = [
      apiRootOf('openai-compatible:ollama', 'http://127.0.0.1:11434'),
      apiRootOf('openai-compatible:ollama', 'http://127.0.0.1:11435'),
      apiRootOf('openai-compatible:ollama', 'http://10.0.0.2:11434'),
      apiRootOf('openai-compatible:openrouter', undefined),
      apiRootOf('openai-compatible:openai', 'https://gateway.test/openai/v1'),
      apiRootOf('openai-compatible:openai', 'https://gateway.test/other/v1'),
    ];
    expect(new Set(roots).size).toBe(roots.length);
  });

  it("the defaults are the providers' own: a provider built without a base URL has the root of its kind's default", () => {
    expect(apiRootOf('anthropic', new AnthropicProvider({ apiKey: 'sk-ant-test-0123456789' }).baseUrl)).toBe(
      apiRootOf('anthropic', undefined),
    );
    for (const dialect of Object.keys(OPENAI_DIALECTS) as (keyof typeof OPENAI_DIALECTS)[]) {
      const built = new OpenAICompatibleProvider({ dialect, apiKey: 'k' });
      expect(built.id).toBe(`openai-compatible:${dialect}`);
      expect(apiRootOf(built.id, built.baseUrl)).toBe(apiRootOf(built.id, undefined));
    }
  });
});
