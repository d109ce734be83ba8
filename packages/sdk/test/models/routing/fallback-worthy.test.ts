// Which final failures move a turn to the next entry of a fallback chain, over the errors the HTTP layer really
// builds from each status (errorForStatus) and the in-stream error events.
import { describe, expect, it } from 'vitest';
import { errorForStatus, streamError } from '../../../src/models/http';
import { FALLBACK_ERROR_CODES, isFallbackWorthy, turnFallsBack } from '../../../src/models/routing/fallback-worthy';

const anthropicBody = (type: string, message: string) => JSON.stringify({ type: 'error', error: { type, message } });

describe('fallback-worthy failures', () => {
  it.each([
    [
      429,
      anthropicBody('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'),
      'PROVIDER_RATE_LIMITED',
    ],
    [529, anthropicBody('overloaded_error', 'Overloaded'), 'PROVIDER_UNAVAILABLE'],
    [503, '<html>Service Unavailable</html>', 'PROVIDER_UNAVAILABLE'],
    [500, anthropicBody('api_error', 'Internal server error'), 'PROVIDER_UNAVAILABLE'],
    [
      402,
      JSON.stringify({
        error: { message: 'Insufficient credits. Add more using https://openrouter.ai/credits', code: 402 },
      }),
      'PROVIDER_OUT_OF_CREDIT',
    ],
  ])('HTTP %i → %s … moves to the next entry', (status, body, code) => {
    const error = errorForStatus('p', status, body, []);
    expect(error.code).toBe(code);
    expect(isFallbackWorthy(error)).toBe(true);
  });

  it.each([
    [
      400,
      anthropicBody('invalid_request_error', 'messages.1.content.0.tool_use.id: String should match pattern'),
      'PROVIDER_HTTP',
    ],
    [
      422,
      JSON.stringify({ detail: [{ type: 'extra_forbidden', loc: ['body', 'reasoning_effort'] }] }),
      'PROVIDER_HTTP',
    ],
    [401, anthropicBody('authentication_error', 'invalid x-api-key'), 'PROVIDER_AUTH'],
    [403, anthropicBody('permission_error', 'Your API key does not have permission'), 'PROVIDER_AUTH'],
    [
      400,
      anthropicBody('invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'),
      'PROVIDER_CONTEXT_OVERFLOW',
    ],
    [404, JSON.stringify({ error: { message: 'model "qwen3:8b" not found, try pulling it first' } }), 'PROVIDER_HTTP'],
  ])('HTTP %i → %s … never falls back', (status, body, code) => {
    const error = errorForStatus('p', status, body, []);
    expect(error.code).toBe(code);
    expect(isFallbackWorthy(error)).toBe(false);
  });

  it.each([
    ['overloaded_error', undefined, 'PROVIDER_UNAVAILABLE', true],
    ['rate_limit_error', undefined, 'PROVIDER_RATE_LIMITED', true],
    ['billing_error', undefined, 'PROVIDER_OUT_OF_CREDIT', true],
    ['insufficient_quota', 'insufficient_quota', 'PROVIDER_OUT_OF_CREDIT', true],
    ['error', 402, 'PROVIDER_OUT_OF_CREDIT', true],
    ['invalid_request_error', undefined, 'PROVIDER_HTTP', false],
    ['authentication_error', undefined, 'PROVIDER_AUTH', false],
  ])('in-stream error %s (code %s) → %s, falls back: %s', (type, code, expected, worthy) => {
    const error = streamError('p', type, 'the server said no', [], code);
    expect(error.code).toBe(expected);
    expect(isFallbackWorthy(error)).toBe(worthy);
  });

  it('the transport failures and the deadlines fall back; a protocol break, an unknown code and no error do not', () => {
    for (const code of ['PROVIDER_UNREACHABLE', 'PROVIDER_TIMEOUT']) expect(isFallbackWorthy({ code })).toBe(true);
    for (const code of ['PROVIDER_PROTOCOL', 'MODEL_NOT_CONFIGURED', 'SCRIPT_EXHAUSTED', 'provider_unavailable'])
      expect(isFallbackWorthy({ code })).toBe(false);
    expect(isFallbackWorthy(undefined)).toBe(false);
    expect(isFallbackWorthy({})).toBe(false);
    expect([...FALLBACK_ERROR_CODES].sort()).toEqual([
      'PROVIDER_OUT_OF_CREDIT',
      'PROVIDER_RATE_LIMITED',
      'PROVIDER_TIMEOUT',
      'PROVIDER_UNAVAILABLE',
      'PROVIDER_UNREACHABLE',
    ]);
  });

  it('an aborted turn stops: it never moves to another provider, whatever its error', () => {
    const message = { content: [] };
    expect(turnFallsBack({ error: { code: 'PROVIDER_UNAVAILABLE' }, aborted: false, message })).toBe(true);
    expect(turnFallsBack({ error: { code: 'PROVIDER_UNAVAILABLE' }, aborted: true, message })).toBe(false);
    expect(turnFallsBack({ error: undefined, aborted: false, message })).toBe(false);
  });

  it.each([
    ['text', { type: 'text', text: 'Half an ans' }],
    ['reasoning', { type: 'thinking', thinking: 'The user asks' }],
    ['a tool call', { type: 'tool_call', id: 'call_1_0', name: 'library.search', input: {} }],
  ])(
    'an attempt that already emitted %s never falls back, whatever its error (docs/providers.md#retries)',
    (_, part) => {
      for (const code of FALLBACK_ERROR_CODES) {
        expect(turnFallsBack({ error: { code }, aborted: false, message: { content: [part] } })).toBe(false);
        expect(turnFallsBack({ error: { code }, aborted: false, message: { content: [] } })).toBe(true);
      }
    },
  );
});
