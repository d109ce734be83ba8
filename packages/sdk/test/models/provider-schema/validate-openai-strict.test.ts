import { describe, expect, it } from 'vitest';
import { findings } from '../../../src/models/provider-schema/findings';
import type { JsonSchemaObject } from '../../../src/models/provider-schema/types';
import { STRICT_LIMITS, validateOpenAiStrict } from '../../../src/models/provider-schema/validate-openai-strict';

const run = (schema: JsonSchemaObject) => {
  const f = findings('openai-strict');
  validateOpenAiStrict(f, schema);
  return f.problems.map((p) => `${p.rule} ${p.path}`);
};
const closed = (properties: JsonSchemaObject) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

const withDefs = (properties: JsonSchemaObject) => ({ ...closed(properties), $defs: { D: { type: 'null' } } });

describe('validateOpenAiStrict', () => {
  it('accepts a closed object with every property required', () => {
    expect(
      run(
        withDefs({
          a: { type: ['string', 'null'], format: 'email' },
          b: { anyOf: [{ type: 'integer' }, { $ref: '#/$defs/D' }] },
          c: { enum: ['x'] },
          d: { const: 1 },
        }),
      ),
    ).toEqual([]);
  });
  it('needs additionalProperties: false and every property required on objects', () => {
    expect(run({ type: 'object', properties: { a: { type: 'string' } } })).toEqual([
      'openai-strict.additional-properties ',
      'openai-strict.required /properties/a',
    ]);
  });
  it('refuses unsupported keywords and formats, and schemas without a type', () => {
    expect(run(closed({ a: { type: 'string', minLength: 1, format: 'uri' }, b: {} }))).toEqual([
      'openai-strict.keyword /properties/a/minLength',
      'openai-strict.format /properties/a/format',
      'openai-strict.type /properties/b',
    ]);
  });
  it('refuses more than 10 levels of nesting', () => {
    let s: JsonSchemaObject = { type: 'string' };
    for (let i = 0; i < STRICT_LIMITS.depth; i++) s = closed({ x: s });
    expect(run(s)).toEqual([]);
    expect(run(closed({ x: s }))).toEqual([`openai-strict.depth ${'/properties/x'.repeat(11)}`]);
  });
  it('counts properties, enum values and string length over the whole schema', () => {
    const names = Object.fromEntries(Array.from({ length: 5001 }, (_, i) => [`p${i}`, { type: 'null' }]));
    expect(run(closed(names))).toEqual(['openai-strict.properties-limit ']);
    const e = (n: number, from: number) => ({ enum: Array.from({ length: n }, (_, i) => from + i) });
    expect(run(closed({ a: e(500, 0), b: e(500, 500) }))).toEqual([]);
    expect(run(closed({ a: e(500, 0), b: e(501, 500) }))).toEqual(['openai-strict.enum-limit ']);
    expect(run(closed({ a: { const: 'x'.repeat(120_001) } }))).toEqual(['openai-strict.string-limit ']);
  });
  it('limits the characters of one large enum', () => {
    const big = (len: number) => ({ enum: Array.from({ length: 251 }, (_, i) => `${i}`.padEnd(len, 'x')) });
    expect(run(closed({ a: big(59) }))).toEqual([]);
    expect(run(closed({ a: big(60) }))).toEqual(['openai-strict.enum-string-limit /properties/a/enum']);
  });
  it('reports a repeated rule at the same place each time it is found (the caller dedupes)', () => {
    expect(run(closed({ a: { type: 'text' } }))).toEqual(['openai-strict.type /properties/a/type']);
  });
});
