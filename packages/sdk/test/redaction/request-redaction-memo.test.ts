// The model request's redaction shortcut: each message and tool object of a request is walked once and its
// result reused by the next requests, which must give exactly what walking the whole request gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED_MARKER, redactModelRequest, SecretRedactor } from '../../src/core/secret-redactor';
import { redactingProvider } from '../../src/models/redacting-provider';
import type { ModelEvent, ModelProvider, ModelRequest } from '../../src/models/types';

const SECRET = 'p4ssw0rd-long-value';
const pieces = fc.constantFrom(
  SECRET,
  'sk-abcdefghijkl',
  'token=abc123',
  '"password": "hunter22"',
  'signature',
  'plain words',
  'image',
  'thinking',
  ' ',
  '',
);
const text = fc.array(fc.oneof(pieces, fc.string({ maxLength: 5 })), { maxLength: 5 }).map((p) => p.join(''));
/** JSON-like values with strings that often hold a secret, and keys the redactor treats specially. */
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('type', 'text', 'signature', 'redacted', 'input', 'name', 'x'), tie('value'), {
      maxKeys: 4,
    }),
  ),
})).value;
const message = fc.oneof(
  fc.record({ role: fc.constant('user'), content: text }),
  fc.record({
    role: fc.constant('assistant'),
    content: fc.array(
      fc.oneof(
        fc.record({ type: fc.constant('text'), text }),
        fc.record({ type: fc.constant('thinking'), thinking: text, signature: text }),
        fc.record({ type: fc.constant('tool_call'), id: text, name: text, input: json }),
      ),
      { maxLength: 3 },
    ),
  }),
  fc.record({ role: fc.constant('tool'), toolCallId: text, content: json }),
);
const tool = fc.record({ name: text, description: text, inputSchema: json });

describe('redactModelRequest', () => {
  it('gives what redactor.value gives, on first and repeated requests over the same objects, and after a secret is added', () => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 6 }),
        fc.array(tool, { maxLength: 3 }),
        fc.dictionary(fc.constantFrom('model', 'signature', 'extra'), json, { maxKeys: 2 }),
        fc.boolean(),
        (messages, tools, rest, addLater) => {
          const fast = new SecretRedactor(addLater ? {} : { secrets: [SECRET] });
          const slow = new SecretRedactor(addLater ? {} : { secrets: [SECRET] });
          const system = { role: 'system', content: `system ${SECRET}` };
          // Growing conversations, as a run sends them: the earlier objects again, one more each time.
          for (let n = 0; n <= messages.length; n++) {
            if (addLater && n === 1) {
              fast.add(SECRET);
              slow.add(SECRET);
            }
            const request = { ...rest, messages: [system, ...messages.slice(0, n)], tools: [...tools] };
            const expected = slow.value(request);
            const got = redactModelRequest(fast, request);
            expect(got).toEqual(expected);
            // Nothing redacted: the very request; else a copy (the input is never changed).
            expect(got === request).toBe(expected === request);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reuses a message result until a secret is added, then redacts the new secret', () => {
    const r = new SecretRedactor();
    const secret = 'later-registered-secret';
    const m = { role: 'user', content: `the key is ${secret}` };
    const first = redactModelRequest(r, { messages: [m], tools: [] });
    expect(first.messages[0]).toBe(m);
    r.add(secret);
    const second = redactModelRequest(r, { messages: [m], tools: [] });
    expect(second.messages[0]).toEqual({ role: 'user', content: `the key is ${REDACTED_MARKER}` });
    expect(m.content).toBe(`the key is ${secret}`);
  });

  it('keeps values that are not plain data, and image and thinking parts, as they are', () => {
    const r = new SecretRedactor({ secrets: [SECRET] });
    class Opaque {
      text = SECRET;
    }
    const opaque = new Opaque();
    expect(redactModelRequest(r, opaque)).toBe(opaque);
    const image = { type: 'image', data: SECRET, messages: [{ role: 'user', content: SECRET }] };
    expect(redactModelRequest(r, image)).toBe(image);
    expect(redactModelRequest(r, [SECRET])).toEqual([REDACTED_MARKER]);
    expect(redactModelRequest(r, SECRET)).toBe(REDACTED_MARKER);
  });

  it('is what the redacting provider sends', async () => {
    const seen: ModelRequest[] = [];
    const provider: ModelProvider = {
      id: 'p',
      async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
        seen.push(request);
        yield { type: 'done', stopReason: 'end_turn' };
      },
    };
    const r = new SecretRedactor({ secrets: [SECRET] });
    const wrapped = redactingProvider(provider, r);
    const user = { role: 'user' as const, content: `use ${SECRET}` };
    for (let i = 0; i < 2; i++)
      for await (const _ of wrapped.stream({ model: 'm', messages: [user], tools: [] })) {
        // drain
      }
    expect(seen.map((q) => q.messages[0])).toEqual([
      { role: 'user', content: `use ${REDACTED_MARKER}` },
      { role: 'user', content: `use ${REDACTED_MARKER}` },
    ]);
  });
});
