import { describe, expect, it } from 'vitest';
import { convertTyped } from '../../../src/models/provider-schema/convert-typed';
import { rewrite } from './rewrite';

const run = (type: string, node: Record<string, unknown>) => convertTyped(rewrite(), node, type, '', [], []);

describe('convertTyped', () => {
  it('applies the rule of the type and ignores the keywords of other types', () => {
    const node = { minLength: 1, minimum: 2, minItems: 3, minProperties: 4, items: { type: 'null' } };
    expect(run('string', node)).toEqual({ type: 'string', minLength: 1 });
    expect(run('number', node)).toEqual({ type: 'number', minimum: 2 });
    expect(run('integer', node)).toEqual({ type: 'integer', minimum: 2 });
    expect(run('array', node)).toEqual({ type: 'array', items: { type: 'null' }, minItems: 3 });
    expect(run('object', node)).toEqual({ type: 'object', minProperties: 4 });
  });
  it('gives boolean and null their type alone', () => {
    expect(run('boolean', { minimum: 1 })).toEqual({ type: 'boolean' });
    expect(run('null', {})).toEqual({ type: 'null' });
  });
});
