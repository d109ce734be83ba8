// The redactor's shortcuts: the memo of redacted texts (same result as redacting afresh, forgotten
// when a secret is added) and the per-pattern gates (a text a pattern can match always passes its gate).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anySecretShape, patternGate } from '../../src/core/secret-pattern-gates';
import { SECRET_TEXT_PATTERNS } from '../../src/core/secret-patterns';
import { REDACTED_MARKER, SecretRedactor } from '../../src/core/secret-redactor';
import { TextMemo } from '../../src/core/text-memo';
import { redactText } from '../../src/capabilities/input-summary';

/**
 * Pieces of the secret shapes, so generated texts often match a pattern (or nearly do). The whole-key fragments
 * (`AIza…`, `ghp_…`) make the two long-suffix patterns match in ~2 % of texts each; built from pieces alone they
 * matched so rarely that 1 seed in 6 saw one of them 5 times or fewer and the coverage check below failed.
 */
const FRAGMENTS = [
  'AIzaSyA0123456789abcdefghijklmnopqrstu',
  'ghp_0123456789abcdefghijKLMN',
  'https://',
  'ftp://admin:',
  'user:',
  'p4ssw0rd',
  '@host',
  'token=',
  'api_key=',
  '"password"',
  '\\"token\\"',
  ': ',
  ':"',
  '"',
  'Bearer ',
  'bearer ',
  'BEARER ',
  'abc.def-123',
  'sk-',
  'xai-',
  'gsk_',
  'AIza',
  'ghp_',
  'github_pat_',
  'xoxb-',
  'eyJ',
  'eyJhbGciOiJI.eyJzdWIiOiIx.',
  'c2lnbmF0dXJl',
  'abcdefgh',
  'ABCDEFGHIJ0123456789abcdefghij',
  '.',
  '-',
  '_',
  ' ',
  '\\',
  '&',
  '=',
];
const shapedText = fc
  .array(fc.oneof({ arbitrary: fc.constantFrom(...FRAGMENTS), weight: 4 }, fc.string({ maxLength: 6 })), {
    maxLength: 14,
  })
  .map((parts) => parts.join(''));

describe('secret pattern gates', () => {
  it('every SDK pattern has a gate, and no other pattern has one', () => {
    for (const p of SECRET_TEXT_PATTERNS) expect(patternGate(p)).toBeTypeOf('function');
    expect(patternGate(/sk-/g)).toBeUndefined();
  });

  it('a text a pattern matches passes its gate', () => {
    const matched = SECRET_TEXT_PATTERNS.map(() => 0);
    fc.assert(
      fc.property(shapedText, (text) => {
        SECRET_TEXT_PATTERNS.forEach((p, i) => {
          const matches = new RegExp(p.source, p.flags.replace('g', '')).test(text);
          if (!matches) return;
          matched[i]!++;
          expect(patternGate(p)!(text)).toBe(true);
          expect(anySecretShape(text)).toBe(true);
        });
      }),
      { numRuns: 5000 },
    );
    // The generator does reach every pattern (a check that never sees a match proves nothing).
    expect(
      matched.every((n) => n > 5),
      `matches per pattern: ${matched.join(' ')}`,
    ).toBe(true);
  });

  it('a text that passes any gate passes the combined pre-check', () => {
    fc.assert(
      fc.property(shapedText, (text) => {
        if (SECRET_TEXT_PATTERNS.some((p) => patternGate(p)!(text))) expect(anySecretShape(text)).toBe(true);
      }),
      { numRuns: 3000 },
    );
    expect(anySecretShape('the film was added to the library')).toBe(false);
  });

  it('the gates reject texts without the literals (they do skip work)', () => {
    const plain = 'the film was added to the library at 21:00, quality 1080p';
    const skipped = SECRET_TEXT_PATTERNS.filter((p) => !patternGate(p)!(plain));
    expect(skipped.length).toBeGreaterThanOrEqual(SECRET_TEXT_PATTERNS.length - 1);
  });
});

describe('SecretRedactor memo', () => {
  it('a text redacted again (memo hit) gives what a fresh redactor gives, and twice is once', () => {
    fc.assert(
      fc.property(shapedText, shapedText, (a, b) => {
        const text = `${a} ${b} padding to pass the memo threshold`;
        const r = new SecretRedactor({ secrets: ['p4ssw0rd-long'], patterns: [/custom-[0-9]+/] });
        const first = r.text(text);
        expect(r.text(text)).toBe(first);
        expect(new SecretRedactor({ secrets: ['p4ssw0rd-long'], patterns: [/custom-[0-9]+/] }).text(text)).toBe(first);
        expect(r.text(first)).toBe(first);
      }),
      { numRuns: 500 },
    );
  });

  it('adding a secret forgets texts redacted before it', () => {
    const r = new SecretRedactor();
    const text = 'the media server answered with session hunter2-shaped-value in its body';
    expect(r.text(text)).toBe(text);
    r.add('hunter2-shaped-value');
    expect(r.text(text)).toBe(`the media server answered with session ${REDACTED_MARKER} in its body`);
    // An add that registers nothing new keeps the memo (and the result).
    r.add('hunter2-shaped-value', 'short');
    expect(r.text(text)).toBe(`the media server answered with session ${REDACTED_MARKER} in its body`);
  });

  it('short texts and texts too large to keep are redacted all the same', () => {
    const r = new SecretRedactor({ secrets: ['abcdef123'] });
    expect(r.text('abcdef123')).toBe(REDACTED_MARKER);
    const huge = `${'x'.repeat(600_000)} abcdef123 sk-abcdefghijkl`;
    const out = r.text(huge);
    expect(out.endsWith(` ${REDACTED_MARKER} ${REDACTED_MARKER}`)).toBe(true);
    expect(r.text(huge)).toBe(out);
  });
});

describe('TextMemo', () => {
  it('returns what was stored, keeps entries used again, and stays within its budget', () => {
    const memo = new TextMemo(1000);
    memo.set('a'.repeat(100), 'A');
    expect(memo.get('a'.repeat(100))).toBe('A');
    for (let i = 0; i < 200; i++) {
      memo.set(`text number ${i} ${'x'.repeat(20)}`, `result ${i}`);
      expect(memo.get('a'.repeat(100))).toBe('A'); // used again: survives every generation
      expect(memo.chars).toBeLessThanOrEqual(1000);
    }
    expect(memo.get(`text number 0 ${'x'.repeat(20)}`)).toBeUndefined(); // not used again: dropped
    expect(memo.get(`text number 199 ${'x'.repeat(20)}`)).toBe('result 199');
  });

  it('does not keep an entry larger than half its budget, and forgets everything on clear', () => {
    const memo = new TextMemo(100);
    memo.set('y'.repeat(60), 'Y');
    expect(memo.get('y'.repeat(60))).toBeUndefined();
    memo.set('z'.repeat(20), 'z'.repeat(20));
    expect(memo.get('z'.repeat(20))).toBe('z'.repeat(20));
    memo.clear();
    expect(memo.get('z'.repeat(20))).toBeUndefined();
    expect(memo.chars).toBe(0);
  });
});

describe('redactText with gates', () => {
  it('gives what running every SDK pattern gives', () => {
    fc.assert(
      fc.property(shapedText, (text) => {
        const all = SECRET_TEXT_PATTERNS.reduce((t, re) => t.replace(re, REDACTED_MARKER), text);
        expect(redactText(text)).toBe(all);
      }),
      { numRuns: 3000 },
    );
  });
});
