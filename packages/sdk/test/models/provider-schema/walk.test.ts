import { describe, expect, it } from 'vitest';
import { walk } from '../../../src/models/provider-schema/walk';

function visitAll(schema: unknown) {
  const seen: string[] = [];
  const bad: [string, unknown][] = [];
  walk(
    schema,
    '',
    0,
    (_n, path, depth) => seen.push(`${depth}:${path}`),
    (path, v) => bad.push([path, v]),
  );
  return { seen, bad };
}

describe('walk', () => {
  it('visits every subschema, parents first, with pointers and depths', () => {
    // built with a computed key: an object literal with a `then` property reads as a thenable
    const conditional = { if: {}, ['then' as string]: {}, else: {} };
    const { seen, bad } = visitAll({
      properties: { a: { items: { type: 'string' } } },
      $defs: { D: {} },
      anyOf: [{}, {}],
      additionalProperties: { not: {} },
      ...conditional,
    });
    expect(seen).toEqual([
      '0:',
      '1:/properties/a',
      '2:/properties/a/items',
      '1:/$defs/D',
      '1:/anyOf/0',
      '1:/anyOf/1',
      '1:/additionalProperties',
      '2:/additionalProperties/not',
      '1:/if',
      '1:/then',
      '1:/else',
    ]);
    expect(bad).toEqual([]);
  });
  it('walks tuple items lists and reports non-object subschemas, booleans included', () => {
    const { seen, bad } = visitAll({ items: [{}, true], prefixItems: [3], properties: { x: false } });
    expect(seen).toEqual(['0:', '1:/items/0']);
    expect(bad).toEqual([
      ['/properties/x', false],
      ['/items/1', true],
      ['/prefixItems/0', 3],
    ]);
  });
  it('reports maps and combinators of the wrong shape', () => {
    const { bad } = visitAll({ properties: [], anyOf: {}, oneOf: 'x' });
    expect(bad).toEqual([
      ['/properties', []],
      ['/anyOf', {}],
      ['/oneOf', 'x'],
    ]);
  });
  it('does not descend into boolean additionalProperties or not', () => {
    expect(visitAll({ additionalProperties: false, not: true }).bad).toEqual([]);
  });
  it('stops below 200 levels', () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 250; i++) deep = { items: deep };
    expect(visitAll(deep).seen).toHaveLength(201);
  });
  it('reports a root that is not an object', () => {
    expect(visitAll('x')).toEqual({ seen: [], bad: [['', 'x']] });
  });
});
