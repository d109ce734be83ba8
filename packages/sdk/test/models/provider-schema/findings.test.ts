import { describe, expect, it } from 'vitest';
import { badSubschema, findings } from '../../../src/models/provider-schema/findings';

describe('findings', () => {
  it('prefixes each rule with the family, in the order found', () => {
    const f = findings('gemini');
    f.add('keyword', '/a', 'm1');
    f.add('type', '', 'm2');
    expect(f.family).toBe('gemini');
    expect(f.problems).toEqual([
      { rule: 'gemini.keyword', path: '/a', message: 'm1' },
      { rule: 'gemini.type', path: '', message: 'm2' },
    ]);
  });
});

describe('badSubschema', () => {
  it('accepts boolean subschemas except for Gemini', () => {
    for (const family of ['anthropic', 'openai', 'openai-strict'] as const) {
      const f = findings(family);
      badSubschema(f)('/x', true);
      badSubschema(f)('/y', false);
      expect(f.problems).toEqual([]);
    }
    const g = findings('gemini');
    badSubschema(g)('/x', false);
    expect(g.problems).toEqual([
      { rule: 'gemini.schema-invalid', path: '/x', message: 'a boolean schema (false) is not a Gemini Schema object' },
    ]);
  });
  it('refuses values that are not schemas for every family', () => {
    for (const family of ['anthropic', 'openai', 'openai-strict', 'gemini'] as const) {
      const f = findings(family);
      badSubschema(f)('/p', 42);
      expect(f.problems).toEqual([
        { rule: `${family}.schema-invalid`, path: '/p', message: 'expected a schema, got 42' },
      ]);
    }
  });
});
