// The local servers' own reporting fields in the conformance corpus (llama.cpp `timings`, LM Studio `stats`,
// `model_info`, `runtime`, Ollama's and vLLM's `reasoning`) are read or ignored without a warning, and usage is
// the server's `usage`, never llama.cpp's cache-dependent `timings.prompt_n`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAICompatibleProvider } from '../../../src/models/openai-compatible';
import { WireReplayServer } from '../../../src/models/replay-server';
import { parseCase } from '../conformance/case-file';
import { drain } from '../helpers';

const dir = fileURLToPath(new URL('../conformance/cases/', import.meta.url));
const FILES = [
  'llamacpp-timings-usage',
  'lmstudio-stats-usage',
  'ollama-reasoning-field-length',
  'ollama-text-on-finish-chunk',
  'vllm-reasoning-content',
  'vllm-reasoning-field',
];

const servers: WireReplayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('local servers: extra wire fields', () => {
  for (const name of FILES) {
    it(`${name}: no warning, no Authorization header`, async () => {
      const c = parseCase(name, readFileSync(`${dir}${name}.chunks.txt`, 'utf8'));
      const server = await WireReplayServer.start(c.responses);
      servers.push(server);
      const provider = new OpenAICompatibleProvider({ baseUrl: server.url, dialect: c.dialect as 'ollama' });
      const events = await drain(
        provider.stream({ model: c.model ?? 'm', messages: [{ role: 'user', content: 'hi' }] }),
      );
      expect(events.filter((e) => e.type === 'warning')).toEqual([]);
      expect(events.at(-1)?.type).toBe('done');
      expect(server.requests[0]!.headers.authorization).toBeUndefined();
    });
  }

  it('llama.cpp: usage is usage.prompt_tokens (82), not timings.prompt_n (1, the uncached part)', async () => {
    const c = parseCase('llamacpp', readFileSync(`${dir}llamacpp-timings-usage.chunks.txt`, 'utf8'));
    const server = await WireReplayServer.start(c.responses);
    servers.push(server);
    const events = await drain(
      new OpenAICompatibleProvider({ baseUrl: server.url, dialect: 'llamacpp' }).stream({
        model: 'gpt-oss:20b',
        messages: [{ role: 'user', content: 'test' }],
      }),
    );
    const usage = events.flatMap((e) => (e.type === 'usage' ? [e.usage] : [])).at(-1);
    expect(usage).toMatchObject({ inputTokens: 82, outputTokens: 43 });
  });
});
