// The redaction rules as pure functions: registered secrets in every spelling, the documented secret
// shapes, and where credentials are found (headers, URLs).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MIN_SECRET_LENGTH,
  REDACTED_MARKER,
  SecretRedactor,
  secretSpellings,
  secretsOfHeaders,
  secretsOfUrl,
} from '../../src/core/secret-redactor';
import { redactSecrets } from '../../src/models/errors';
import { redactText } from '../../src/capabilities/input-summary';

/** Secrets as hosts have them: at least MIN_SECRET_LENGTH characters, no surrounding whitespace. */
const secretArb = fc
  .string({ minLength: MIN_SECRET_LENGTH, maxLength: 40, unit: 'binary' })
  .filter((s) => s.trim() === s && s.length >= MIN_SECRET_LENGTH);
const textArb = fc.string({ maxLength: 60, unit: 'binary' });

describe('SecretRedactor rules', () => {
  it('a registered secret never survives inside arbitrary surrounding text', () => {
    fc.assert(
      fc.property(secretArb, textArb, textArb, fc.integer({ min: 1, max: 3 }), (secret, before, after, times) => {
        const r = new SecretRedactor({ secrets: [secret] });
        const text = `${before}${Array.from({ length: times }, () => secret).join(after)}${after}`;
        expect(r.text(text)).not.toContain(secret);
      }),
      { numRuns: 400 },
    );
  });

  it('a registered secret inside a JSON-stringified string (once or twice) is redacted in the escaped text, and the JSON still parses', () => {
    fc.assert(
      fc.property(secretArb, textArb, (secret, around) => {
        const r = new SecretRedactor({ secrets: [secret] });
        const once = JSON.stringify({ message: `${around}${secret}${around}` });
        const twice = JSON.stringify({ content: once });
        for (const json of [once, twice]) {
          const out = r.text(json);
          expect(out).not.toContain(secret);
          expect(out).not.toContain(JSON.stringify(secret).slice(1, -1));
          const parsed = JSON.parse(out) as { message?: string; content?: string };
          const inner = parsed.message ?? (JSON.parse(parsed.content!) as { message: string }).message;
          expect(inner).not.toContain(secret);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('value() redacts strings at any depth and keeps keys, numbers, signatures, thinking parts and image bytes', () => {
    const r = new SecretRedactor({ secrets: ['hunter2pass'] });
    const message = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'the password is hunter2pass' },
        { type: 'thinking', thinking: 'hunter2pass', signature: 'sig' },
        { type: 'image', data: 'aHVudGVyMnBhc3M=', mimeType: 'image/png' },
        { type: 'tool_call', id: 'c1', name: 'x', input: { nested: ['hunter2pass', 3] }, signature: 'hunter2pass' },
      ],
    };
    const out = r.value(message);
    expect(out.content[0]).toEqual({ type: 'text', text: `the password is ${REDACTED_MARKER}` });
    expect(out.content[1]).toBe(message.content[1]);
    expect(out.content[2]).toBe(message.content[2]);
    expect(out.content[3]).toEqual({
      type: 'tool_call',
      id: 'c1',
      name: 'x',
      input: { nested: [REDACTED_MARKER, 3] },
      signature: 'hunter2pass',
    });
    // Nothing to redact: the very same object comes back.
    const clean = { a: ['b', { c: 1 }] };
    expect(r.value(clean)).toBe(clean);
  });

  it('values shorter than MIN_SECRET_LENGTH are not registered (they would erase ordinary words)', () => {
    const r = new SecretRedactor({ secrets: ['admin', '', '   ', undefined, 'abcdef'] });
    expect(r.text('admin logged in with abcdef')).toBe(`admin logged in with ${REDACTED_MARKER}`);
  });

  it('longer secrets win over the shorter ones they contain, and redacting twice changes nothing', () => {
    const r = new SecretRedactor({ secrets: ['abcdef', 'abcdef-123456'] });
    const once = r.text('k=abcdef-123456 and abcdef');
    expect(once).toBe(`k=${REDACTED_MARKER} and ${REDACTED_MARKER}`);
    expect(r.text(once)).toBe(once);
  });

  it('a secret formed anew by the marker and the text after it is removed too', () => {
    const r = new SecretRedactor({ secrets: [']xxxxx'] });
    const out = r.text(']xxxxxxxxxx');
    expect(out).not.toContain(']xxxxx');
  });

  it('spellings: as is, JSON-escaped once and twice, percent-encoded', () => {
    expect(secretSpellings('p"a/s s')).toEqual(['p"a/s s', 'p\\"a/s s', 'p\\\\\\"a/s s', 'p%22a%2Fs%20s']);
  });

  it.each([
    ['URL user-info password', 'GET https://admin:hunter2pass@nas.local/api failed', 'hunter2pass'],
    ['token query parameter', 'see https://nas.local/api?token=abcd1234efgh&x=1', 'abcd1234efgh'],
    ['api_key pair', 'config api_key=zz99yy88xx77', 'zz99yy88xx77'],
    ['client_secret pair', 'client_secret=s3cr3tvalue', 's3cr3tvalue'],
    ['bearer token', 'Authorization: Bearer eyJhbGciOi.abc.def', 'eyJhbGciOi.abc.def'],
    ['OpenAI-style key', 'invalid key sk-proj-AbCdEf123456', 'sk-proj-AbCdEf123456'],
    ['masked key echo', 'Incorrect API key provided: sk-abc***********xyz9', 'sk-abc***********xyz9'],
    ['Google key', 'key AIzaSyA1234567890abcdefghijklmnopqrstu', 'AIzaSyA1234567890abcdefghijklmnopqrstu'],
    ['GitHub token', 'ghp_abcdefghijklmnopqrstuvwx1234', 'ghp_abcdefghijklmnopqrstuvwx1234'],
  ])('the documented shape "%s" is redacted without registration', (_name, text, secret) => {
    const out = new SecretRedactor().text(text);
    expect(out).not.toContain(secret);
    expect(out).toContain(REDACTED_MARKER);
  });

  it('ordinary prose is kept', () => {
    const prose =
      'Use a bearer token or basic authentication; the monkey=banana key is fine, see https://example.org/a@b';
    expect(new SecretRedactor().text(prose)).toBe(prose);
  });

  it('a pattern value inside JSON text stops at the quote (the JSON still parses)', () => {
    const json = JSON.stringify({ error: 'failed for https://u:pw123456@h/x?token=abc123456' });
    const out = new SecretRedactor().text(json);
    expect(JSON.parse(out)).toEqual({ error: `failed for https://u:${REDACTED_MARKER}@h/x?token=${REDACTED_MARKER}` });
  });

  it('the string value of a JSON member named like a secret is a secret shape, also JSON in JSON', () => {
    const body = {
      user: 'admin',
      password: 'hunter2-nas',
      api_key: 'k-1234567',
      tokens: 12,
      idempotencyKey: 'run_1:0',
    };
    const once = JSON.stringify(body);
    const out = new SecretRedactor().text(`login failed: ${once}`);
    expect(JSON.parse(out.slice('login failed: '.length))).toEqual({
      ...body,
      password: REDACTED_MARKER,
      api_key: REDACTED_MARKER,
    });
    const twice = JSON.stringify({ error: once });
    expect(JSON.parse(JSON.parse(new SecretRedactor().text(twice)).error)).toMatchObject({ password: REDACTED_MARKER });
    const spaced = '{"Password" : "hunter2-nas", "token":"abc.def-123"}';
    expect(new SecretRedactor().text(spaced)).toBe(`{"Password" : "${REDACTED_MARKER}", "token":"${REDACTED_MARKER}"}`);
  });

  it('host patterns are applied too, made global', () => {
    const r = new SecretRedactor({ patterns: [/mp-[0-9a-f]{8}/] });
    expect(r.text('mp-0123abcd and mp-89abcdef')).toBe(`${REDACTED_MARKER} and ${REDACTED_MARKER}`);
  });

  it('error() redacts an error message, its stack and its details', () => {
    const r = new SecretRedactor({ secrets: ['gw-7f3a9c1e5b2d'] });
    const e = Object.assign(new Error('refused gw-7f3a9c1e5b2d'), { details: { echoed: 'gw-7f3a9c1e5b2d' } });
    r.error(e);
    expect(`${e.message} ${e.stack} ${JSON.stringify(e.details)}`).not.toContain('gw-7f3a9c1e5b2d');
  });
});

describe('where credentials are found', () => {
  it('secret-looking headers, whole and after their scheme; other headers are not secrets', () => {
    expect(
      secretsOfHeaders({
        Authorization: 'Bearer abc123456789',
        'x-api-key': 'k-1234567',
        'api-key': 'azure-key-1',
        'x-gateway-key': 'gw-123456',
        'X-Auth-Token': 'tok-123456',
        'HTTP-Referer': 'https://my.app',
        'X-Title': 'My media app',
      }),
    ).toEqual(['Bearer abc123456789', 'abc123456789', 'k-1234567', 'azure-key-1', 'gw-123456', 'tok-123456']);
  });

  it('URL user-info passwords and secret query parameters (decoded)', () => {
    expect(secretsOfUrl('postgres://agent:p%40ss%3Aword@db:5432/app')).toEqual(['p@ss:word']);
    expect(secretsOfUrl('https://gw.local/v1?api_key=k1k1k1k1&model=x&access_token=t2t2t2t2')).toEqual([
      'k1k1k1k1',
      't2t2t2t2',
    ]);
    expect(secretsOfUrl('not a url')).toEqual([]);
  });

  it('the provider-level redaction and the input summaries share the one pattern list', () => {
    const text = 'https://u:pw123456@h?token=abcdef123 Bearer abcdefgh12 sk-abcdef123';
    for (const out of [redactSecrets(text, []), redactText(text)])
      for (const secret of ['pw123456', 'abcdef123', 'abcdefgh12', 'sk-abcdef123']) expect(out).not.toContain(secret);
  });
});
