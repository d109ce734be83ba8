import { describe, expect, it } from 'vitest';
import { findId, resolveRef } from '../../../src/models/provider-schema/resolve-ref';

describe('resolveRef', () => {
  const node = { type: 'string' };
  const root = {
    type: 'object',
    properties: { 'a/b': { type: 'integer' }, list: { items: [{ type: 'null' }] } },
    $defs: { Node: node },
    definitions: { Old: { type: 'boolean' } },
  };
  it('resolves # to the root', () => {
    expect(resolveRef(root, '#')).toEqual({ node: root, path: '' });
  });
  it('resolves JSON pointers, escaped and percent-encoded segments and array indexes included', () => {
    expect(resolveRef(root, '#/$defs/Node')).toEqual({ node, path: '/$defs/Node' });
    expect(resolveRef(root, '#/properties/a~1b')?.path).toBe('/properties/a~1b');
    expect(resolveRef(root, '#/properties/a%7E1b')?.node).toEqual({ type: 'integer' });
    expect(resolveRef(root, '#/properties/list/items/0')).toEqual({
      node: { type: 'null' },
      path: '/properties/list/items/0',
    });
  });
  it('is undefined for pointers that lead nowhere', () => {
    expect(resolveRef(root, '#/$defs/Missing')).toBeUndefined();
    expect(resolveRef(root, '#/type/x')).toBeUndefined();
    expect(resolveRef(root, '#/properties/list/items/5')).toBeUndefined();
  });
  it('resolves plain names through $id first, then $defs and definitions of the root', () => {
    const withId = { $defs: { Node: { type: 'string' } }, properties: { p: { $id: 'Node', type: 'number' } } };
    expect(resolveRef(withId, 'Node')).toEqual({ node: { $id: 'Node', type: 'number' }, path: '/properties/p' });
    expect(resolveRef(root, 'Node')).toEqual({ node, path: '/$defs/Node' });
    expect(resolveRef(root, 'Old')).toEqual({ node: { type: 'boolean' }, path: '/definitions/Old' });
    expect(resolveRef(root, 'Nothing')).toBeUndefined();
  });
});

describe('findId', () => {
  it('finds a $id in nested objects and arrays, depth first', () => {
    const doc = { anyOf: [{ type: 'null' }, { $id: 'X', type: 'string' }], properties: { x: { $id: 'X' } } };
    expect(findId(doc, 'X', '', 0)).toEqual({ node: { $id: 'X', type: 'string' }, path: '/anyOf/1' });
  });
  it('skips data keywords (enum, const, default, examples, example)', () => {
    for (const k of ['enum', 'const', 'default', 'examples', 'example'])
      expect(findId({ [k]: [{ $id: 'X' }] }, 'X', '', 0)).toBeUndefined();
  });
  it('stops below 64 levels', () => {
    let deep: Record<string, unknown> = { $id: 'X' };
    for (let i = 0; i < 70; i++) deep = { not: deep };
    expect(findId(deep, 'X', '', 0)).toBeUndefined();
    let shallow: Record<string, unknown> = { $id: 'X' };
    for (let i = 0; i < 60; i++) shallow = { not: shallow };
    expect(findId(shallow, 'X', '', 0)?.path).toBe('/not'.repeat(60));
  });
});
