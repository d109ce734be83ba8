import { describe, expect, it } from 'vitest';
import { checkRoot } from '../../../src/models/provider-schema/check-root';
import { findings } from '../../../src/models/provider-schema/findings';
import type { ProviderFamily } from '../../../src/models/provider-schema/types';

const run = (family: ProviderFamily, schema: unknown) => {
  const f = findings(family);
  const root = checkRoot(f, schema);
  return { root, rules: f.problems.map((p) => `${p.rule} ${p.path}`) };
};

describe('checkRoot', () => {
  it('accepts an object root and returns it for the walk', () => {
    const schema = { type: 'object', properties: {} };
    expect(run('anthropic', schema)).toEqual({ root: schema, rules: [] });
  });
  it('stops at a root that is not a JSON object', () => {
    for (const s of ['x', null, [], true])
      expect(run('gemini', s)).toEqual({ root: undefined, rules: ['gemini.root-type '] });
  });
  it('reports a root type other than object', () => {
    expect(run('openai', { type: 'string' }).rules).toEqual(['openai.root-type /type']);
    expect(run('openai', {}).rules).toEqual(['openai.root-type /type']);
  });
  it('refuses root combinators; OpenAI also a root enum or not', () => {
    const schema = { type: 'object', anyOf: [], oneOf: [], allOf: [], enum: [], not: {} };
    expect(run('anthropic', schema).rules).toEqual([
      'anthropic.root-combinator /anyOf',
      'anthropic.root-combinator /oneOf',
      'anthropic.root-combinator /allOf',
    ]);
    expect(run('gemini', schema).rules).toHaveLength(3);
    for (const family of ['openai', 'openai-strict'] as const)
      expect(run(family, schema).rules).toEqual(
        ['anyOf', 'oneOf', 'allOf', 'enum', 'not'].map((c) => `${family}.root-combinator /${c}`),
      );
  });
});
