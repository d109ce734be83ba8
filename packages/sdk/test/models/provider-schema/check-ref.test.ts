import { describe, expect, it } from 'vitest';
import { checkRef } from '../../../src/models/provider-schema/check-ref';
import { findings } from '../../../src/models/provider-schema/findings';

describe('checkRef', () => {
  const root = { type: 'object', $defs: { A: { type: 'string' } } };
  const run = (node: Record<string, unknown>) => {
    const f = findings('openai');
    checkRef(f, root, node, '/properties/x');
    return f.problems;
  };
  it('accepts nodes without $ref and $refs that resolve', () => {
    expect(run({ type: 'string' })).toEqual([]);
    expect(run({ $ref: '#/$defs/A' })).toEqual([]);
    expect(run({ $ref: 'A' })).toEqual([]);
    expect(run({ $ref: '#' })).toEqual([]);
  });
  it('reports a $ref that does not resolve, or is not a string, at its pointer', () => {
    expect(run({ $ref: '#/$defs/B' })).toEqual([
      {
        rule: 'openai.ref-unresolved',
        path: '/properties/x/$ref',
        message: '$ref "#/$defs/B" does not resolve inside the schema',
      },
    ]);
    expect(run({ $ref: 7 })[0]?.message).toBe('$ref 7 does not resolve inside the schema');
  });
});
