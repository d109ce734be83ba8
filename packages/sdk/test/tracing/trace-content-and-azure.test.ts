// The 16 KiB content budget with one message of very many parts (and a conversation of very many messages),
// and gen_ai.provider.name for Azure hosts outside the public cloud and for any dialect on a known Azure host.
// Real functions of the tracing path; no mocks.
import { expect, it, vi } from 'vitest';
import { CONTENT_BUDGET_BYTES, withinBudget, type ContentMessage } from '../../src/runtime/tracing/message-content';
import { providerName } from '../../src/runtime/tracing/provider-name';

/** Runs `fn` and counts the characters `JSON.stringify` produced meanwhile: the serializing work it did. */
function serializedChars<T>(fn: () => T): { result: T; chars: number } {
  const stringify = JSON.stringify;
  let chars = 0;
  const spy = vi.spyOn(JSON, 'stringify').mockImplementation(((...args: Parameters<typeof JSON.stringify>) => {
    const out = stringify(...args);
    chars += out?.length ?? 0;
    return out;
  }) as typeof JSON.stringify);
  try {
    const result = fn();
    return { result, chars };
  } finally {
    spy.mockRestore();
  }
}

it('one message with 40 000 small parts is cut to the budget without stalling the event loop (< 1 s) (withastro/flue#742)', () => {
  // A model answering with tens of thousands of tool calls (or a provider proxy that splits text into parts):
  // the chat span records its output with captureContent. Cutting it should be linear, not quadratic.
  // withastro/flue#742: truncation that re-serializes the rest for every element left out spent 30 s of CPU.
  const parts = Array.from({ length: 40_000 }, (_, i) => ({ type: 'text' as const, content: `p${i}` }));
  const input = [{ role: 'assistant' as const, parts }];
  const { result, chars } = serializedChars(() => withinBudget(input));
  const { json } = result;
  expect(Buffer.byteLength(json)).toBeLessThanOrEqual(CONTENT_BUDGET_BYTES);
  // Work, not wall time (a loaded machine is slow either way): the characters serialized stay a small multiple of
  // the input's JSON. Was: every kept part re-summed for each part left out (~9 s of CPU for 40 000 parts).
  expect(chars).toBeLessThan(10 * JSON.stringify(input).length);
  // Same output rules: valid JSON, a leading marker counting the parts left out, the newest parts kept in order.
  const [message] = JSON.parse(json) as ContentMessage[];
  const marker = message!.parts[0] as { type: string; content: string };
  const left = Number(/^…\(\+(\d+) earlier parts left out\)$/.exec(marker.content)?.[1]);
  expect(marker.type).toBe('text');
  expect(left).toBeGreaterThan(0);
  const kept = message!.parts.slice(1) as { content: string }[];
  expect(left + kept.length).toBe(40_000);
  expect(kept.map((p) => p.content)).toEqual(parts.slice(left).map((p) => p.content));
  // As many parts as fit: one more would go over the budget.
  const withOneMore = JSON.stringify([{ role: 'assistant', parts: [marker, parts[left - 1], ...kept] }]);
  expect(Buffer.byteLength(withOneMore)).toBeGreaterThan(CONTENT_BUDGET_BYTES);
});

it('a conversation of 40 000 messages drops its oldest messages in linear time, newest kept', () => {
  const messages: ContentMessage[] = Array.from({ length: 40_000 }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    parts: [{ type: 'text', content: `m${i}` }],
  }));
  const { result, chars } = serializedChars(() => withinBudget(messages));
  const { json, dropped } = result;
  expect(Buffer.byteLength(json)).toBeLessThanOrEqual(CONTENT_BUDGET_BYTES);
  expect(chars).toBeLessThan(10 * JSON.stringify(messages).length);
  const kept = JSON.parse(json) as ContentMessage[];
  expect(dropped + kept.length).toBe(40_000);
  expect(kept.at(-1)).toEqual(messages.at(-1));
  expect(Buffer.byteLength(JSON.stringify(messages.slice(dropped - 1)))).toBeGreaterThan(CONTENT_BUDGET_BYTES);
});

it('Azure OpenAI in Azure Government (*.openai.azure.us) and Azure China (*.openai.azure.cn) is azure.ai.openai (microsoft/vscode#257888)', () => {
  // microsoft/vscode#257888: sovereign-cloud Azure OpenAI deployment URLs not recognised as Azure.
  expect(providerName('openai-compatible:openai', 'https://contoso.openai.azure.us/openai/v1')).toBe('azure.ai.openai');
  expect(providerName('openai-compatible:openai', 'https://contoso.openai.azure.cn/openai/v1')).toBe('azure.ai.openai');
  expect(providerName('openai-compatible:openai', 'https://contoso.cognitiveservices.azure.us/openai/v1')).toBe(
    'azure.ai.openai',
  );
  // Not an Azure host: a look-alike suffix stays what its dialect says.
  expect(providerName('openai-compatible:openai', 'https://openai.azure.us.example.com/v1')).toBe('openai');
});

it('the generic dialect against the Azure AI model inference endpoint is azure.ai.inference, not "generic"', () => {
  // The generic dialect is what a user picks for Foundry's /models endpoint (not OpenAI-exact); the provider is Azure.
  expect(providerName('openai-compatible:generic', 'https://contoso.services.ai.azure.com/models')).toBe(
    'azure.ai.inference',
  );
  expect(providerName('openai-compatible:generic', 'https://contoso.openai.azure.com/openai/v1')).toBe(
    'azure.ai.openai',
  );
  // Off a known Azure host the dialect still names the provider.
  expect(providerName('openai-compatible:generic', 'http://127.0.0.1:8080/v1')).toBe('generic');
  expect(providerName('openai-compatible:deepseek', 'https://api.deepseek.com/v1')).toBe('deepseek');
});
