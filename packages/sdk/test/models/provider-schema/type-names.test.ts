import { describe, expect, it } from 'vitest';
import { findings } from '../../../src/models/provider-schema/findings';
import { typeNames } from '../../../src/models/provider-schema/type-names';

describe('typeNames', () => {
  const run = (type: unknown) => {
    const f = findings('anthropic');
    const names = typeNames(f, type === undefined ? {} : { type }, '/p');
    return { names, problems: f.problems };
  };
  it('returns one name or a list of JSON type names', () => {
    expect(run('string')).toEqual({ names: ['string'], problems: [] });
    expect(run(['integer', 'null'])).toEqual({ names: ['integer', 'null'], problems: [] });
  });
  it('is undefined without a problem when there is no type', () => {
    expect(run(undefined)).toEqual({ names: undefined, problems: [] });
  });
  it('reports unknown names, empty lists and non-strings', () => {
    for (const bad of ['str', [], ['string', 3], 5]) {
      const { names, problems } = run(bad);
      expect(names).toBeUndefined();
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatchObject({ rule: 'anthropic.type', path: '/p/type' });
    }
  });
});
