// Context-overflow answers of each server family: classified PROVIDER_CONTEXT_OVERFLOW with the
// counts the server stated. Message forms as quoted in public reports (repository and number below).
import { describe, expect, it } from 'vitest';
import { errorForStatus, isContextOverflowMessage, streamError } from '../../src/models/http';
import { OpenAICompatibleProvider } from '../../src/models/openai-compatible';
import { WireReplayServer } from '../../src/models/replay-server';
import { drain, fastRetry, ofType, replayServers } from './helpers';
import { overflowTokenCounts } from '../../src/models/overflow-tokens';

const forms: Array<{ server: string; status: number; body: string; promptTokens?: number; limitTokens?: number }> = [
  {
    // anthropics/claude-code #820
    server: 'Anthropic',
    status: 400,
    body: '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210118 tokens > 200000 maximum"}}',
    promptTokens: 210_118,
    limitTokens: 200_000,
  },
  {
    // continuedev/continue #6080
    server: 'Anthropic (input and max_tokens)',
    status: 400,
    body: '{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again"}}',
    promptTokens: 199_759,
    limitTokens: 191_808,
  },
  {
    server: 'Anthropic 413',
    status: 413,
    body: '{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}',
  },
  {
    // smol-ai/developer #7
    server: 'OpenAI',
    status: 400,
    body: `{"error":{"message":"This model's maximum context length is 4097 tokens. However, your messages resulted in 7575 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
    promptTokens: 7575,
    limitTokens: 4097,
  },
  {
    // FoundationAgents/OpenManus #79
    server: 'DeepSeek',
    status: 400,
    body: `{"error":{"message":"This model's maximum context length is 65536 tokens. However, you requested 66343 tokens (62247 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`,
    promptTokens: 62_247,
    limitTokens: 61_440,
  },
  {
    // vllm-project/vllm #33425
    server: 'vLLM',
    status: 400,
    body: `{"error":{"message":"This model's maximum context length is 2048 tokens. However, your request has 8 input tokens plus 2045 'max_tokens'. Please reduce one or the other.","type":"BadRequestError","param":"input_tokens, max_tokens","code":400}}`,
    promptTokens: 8,
    limitTokens: 3,
  },
  {
    // BerriAI/litellm #15968
    server: 'Azure OpenAI',
    status: 400,
    body: '{"error":{"message":"Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 509178 tokens. Please reduce the length of the messages.","type":"invalid_request_error","code":"context_length_exceeded"}}',
    promptTokens: 509_178,
    limitTokens: 272_000,
  },
  {
    // google-gemini/gemini-cli #4231
    server: 'Gemini',
    status: 400,
    body: '{"error":{"code":400,"message":"The input token count (3475108) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}',
    promptTokens: 3_475_108,
    limitTokens: 1_048_576,
  },
  {
    // ggml-org/llama.cpp #15780, oobabooga/textgen #7257
    server: 'llama.cpp',
    status: 400,
    body: '{"error":{"code":400,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"exceed_context_size_error","n_prompt_tokens":14429,"n_ctx":8192}}',
    promptTokens: 14_429,
    limitTokens: 8192,
  },
  {
    // ggml-org/llama.cpp #15780: the first versions sent the type with code 500
    server: 'llama.cpp (500)',
    status: 500,
    body: '{"error":{"code":500,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"exceed_context_size_error","n_prompt_tokens":1407,"n_ctx":256}}',
    promptTokens: 1407,
    limitTokens: 256,
  },
  // ITSpecialist111/ai_automation_suggester #37: Ollama logs "input exceeds context length" and answers 500
  { server: 'Ollama (500)', status: 500, body: '{"error":"input exceeds context length"}' },
  // n8n-io/n8n #11144, nano-step/nano-brain #208
  { server: 'Ollama', status: 400, body: '{"error":"input length exceeds maximum context length"}' },
  { server: 'Ollama (newer)', status: 400, body: '{"error":"the input length exceeds the context length"}' },
  {
    // Gitlawb/openclaude #353
    server: 'LM Studio',
    status: 400,
    body: '{"error":"The number of tokens to keep from the initial prompt is greater than the context length (n_keep: 13055>= n_ctx: 4096). Try to load the model with a larger context length, or provide a shorter input."}',
    promptTokens: 13_055,
    limitTokens: 4096,
  },
  {
    server: 'Mistral',
    status: 400,
    body: '{"object":"error","message":"Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length","type":"invalid_request_error","code":3051}',
    promptTokens: 40_000,
    limitTokens: 32_768,
  },
  {
    // OpenHands/OpenHands #5350
    server: 'LiteLLM proxy',
    status: 400,
    body: `{"error":{"message":"litellm.BadRequestError: litellm.ContextWindowExceededError: AnthropicError - prompt is too long: 209303 tokens > 200000 maximum","type":null,"param":null,"code":"400"}}`,
    promptTokens: 209_303,
    limitTokens: 200_000,
  },
];

const { track } = replayServers();

describe('context overflow answers by server', () => {
  it.each(forms.filter((f) => f.status >= 500 || f.status === 400).map((f) => [f.server, f] as const))(
    '%s over HTTP: one request, never retried as a transient failure, PROVIDER_CONTEXT_OVERFLOW',
    async (_server, f) => {
      const server = await WireReplayServer.start([{ status: f.status, body: f.body }]);
      track(server);
      const provider = new OpenAICompatibleProvider({ dialect: 'llamacpp', baseUrl: server.url, retry: fastRetry });
      const events = await drain(provider.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
      expect(ofType(events, 'error').map((e) => e.error.code)).toEqual(['PROVIDER_CONTEXT_OVERFLOW']);
      expect(server.requests).toHaveLength(1);
    },
  );

  for (const f of forms)
    it(`${f.server}: PROVIDER_CONTEXT_OVERFLOW with the stated counts`, () => {
      const error = errorForStatus('p', f.status, f.body, []);
      expect(error.code).toBe('PROVIDER_CONTEXT_OVERFLOW');
      const details = error.details as { promptTokens?: number; limitTokens?: number };
      expect(details.promptTokens).toBe(f.promptTokens);
      expect(details.limitTokens).toBe(f.limitTokens);
    });

  it('an in-stream overflow error carries the counts too', () => {
    const error = streamError('p', 'invalid_request_error', 'prompt is too long: 250000 tokens > 200000 maximum', []);
    expect(error.code).toBe('PROVIDER_CONTEXT_OVERFLOW');
    expect(error.details).toMatchObject({ promptTokens: 250_000, limitTokens: 200_000, inStream: true });
  });

  it('other 400s and 5xx stay what they are', () => {
    expect(
      errorForStatus('p', 400, '{"error":{"message":"messages: field required","type":"invalid_request_error"}}', [])
        .code,
    ).toBe('PROVIDER_HTTP');
    expect(errorForStatus('p', 500, '{"error":{"message":"internal error","type":"server_error"}}', []).code).toBe(
      'PROVIDER_UNAVAILABLE',
    );
    expect(isContextOverflowMessage('max_tokens must be at least 1')).toBe(false);
  });

  it('counts that are not whole positive numbers, or a limit not below the prompt, are left out', () => {
    expect(overflowTokenCounts('no numbers here')).toEqual({});
    expect(overflowTokenCounts('prompt is too long: 100 tokens > 200 maximum')).toEqual({ promptTokens: 100 });
    expect(overflowTokenCounts('prompt is too long: 1,234 tokens > 1,000 maximum')).toEqual({
      promptTokens: 1234,
      limitTokens: 1000,
    });
  });
});
