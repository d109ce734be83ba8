// Which fields of a schema are issued ids, untrusted text or free text: walked on real TypeBox schemas.
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import {
  ID_MARK,
  isProvenanceDeclared,
  issuedId,
  PROVENANCE_MARK,
  provenanceFields,
  TEXT_MARK,
  untrustedText,
} from '../../src/core/provenance-marks';
import { DeclaredEmpty, DownloadPlanInput, OrganizeInput, SearchOutput } from './schemas';

describe('provenanceFields', () => {
  it('lists the marked fields of an output in schema order: nested arrays, Nullable, Optional, records', () => {
    expect(provenanceFields(SearchOutput, 'output')).toEqual([
      { path: ['hits', '*', 'releaseId'], mark: 'id', namespace: 'release' },
      { path: ['hits', '*', 'title'], mark: 'untrusted' },
      { path: ['hits', '*', 'tmdbId'], mark: 'id', namespace: 'media' },
      { path: ['hits', '*', 'description'], mark: 'untrusted' },
      { path: ['hits', '*', 'tags', '*'], mark: 'untrusted' },
      { path: ['libraryPaths', '*'], mark: 'id', namespace: 'library-path' },
    ]);
  });

  it('an output lists no free text; an input lists unmarked strings as free, not literals, enums or dates', () => {
    expect(provenanceFields(OrganizeInput, 'output')).toEqual([
      { path: ['steps', '*', 'sourcePath'], mark: 'id', namespace: 'library-path' },
    ]);
    expect(provenanceFields(DownloadPlanInput, 'input')).toEqual([
      { path: ['releaseId'], mark: 'id', namespace: 'release' },
      { path: ['mediaId'], mark: 'id', namespace: 'media' },
      { path: ['savePath'], mark: 'free' },
      { path: ['note'], mark: 'free' },
    ]);
    expect(provenanceFields(OrganizeInput, 'input')).toEqual([
      { path: ['steps', '*', 'sourcePath'], mark: 'id', namespace: 'library-path' },
      { path: ['steps', '*', 'path'], mark: 'free' },
      { path: ['labels', '*'], mark: 'free' },
    ]);
  });

  it('an input string marked untrusted is free text; a string with format `date` or a const is not', () => {
    const input = Type.Object({
      comment: Type.String(untrustedText),
      day: Type.String({ format: 'date' }),
      kind: Type.Literal('movie'),
      url: Type.String({ format: 'uri' }),
    });
    expect(provenanceFields(input, 'input')).toEqual([
      { path: ['comment'], mark: 'free' },
      { path: ['url'], mark: 'free' },
    ]);
  });

  it('a union yields the fields of all its members, each path and mark once', () => {
    const byTitle = Type.Object({ kind: Type.Literal('title'), value: Type.String(), target: Type.String() });
    const byId = Type.Object({
      kind: Type.Literal('id'),
      value: Type.String(issuedId('media')),
      target: Type.String(),
    });
    const schema = Type.Object({
      query: Type.Union([byTitle, byId]),
      more: Type.Array(Type.Union([byTitle, byTitle])),
    });
    expect(provenanceFields(schema, 'input')).toEqual([
      { path: ['query', 'value'], mark: 'free' },
      { path: ['query', 'target'], mark: 'free' },
      { path: ['query', 'value'], mark: 'id', namespace: 'media' },
      { path: ['more', '*', 'value'], mark: 'free' },
      { path: ['more', '*', 'target'], mark: 'free' },
    ]);
  });

  it('a marked node is one field: a union carrying the mark is not walked into', () => {
    const schema = Type.Object({ id: Type.Union([Type.String(), Type.Integer()], issuedId('download')) });
    expect(provenanceFields(schema, 'input')).toEqual([{ path: ['id'], mark: 'id', namespace: 'download' }]);
  });

  it('tuples, allOf and a root string are walked', () => {
    const pair = { type: 'array', prefixItems: [{ type: 'string', [ID_MARK]: 'plan' }, { type: 'string' }] };
    const both = { allOf: [{ type: 'object', properties: { a: { type: 'string', [TEXT_MARK]: 'untrusted' } } }] };
    expect(provenanceFields(pair, 'input')).toEqual([
      { path: ['[0]'], mark: 'id', namespace: 'plan' },
      { path: ['[1]'], mark: 'free' },
    ]);
    expect(provenanceFields(both, 'output')).toEqual([{ path: ['a'], mark: 'untrusted' }]);
    expect(provenanceFields({ type: 'string' }, 'input')).toEqual([{ path: [], mark: 'free' }]);
  });

  it('never loops: a cyclic schema ends, nesting deeper than 64 levels is not listed', () => {
    const node: Record<string, unknown> = {
      type: 'object',
      properties: { name: { type: 'string', ...untrustedText } },
    };
    (node.properties as Record<string, unknown>).child = node;
    expect(provenanceFields(node, 'output')).toEqual([{ path: ['name'], mark: 'untrusted' }]);
    let deep: unknown = { type: 'string', ...issuedId('task') };
    for (let i = 0; i < 100; i++) deep = { type: 'object', properties: { d: deep } };
    expect(provenanceFields(deep, 'output')).toEqual([]);
    let shallow: unknown = { type: 'string', ...issuedId('task') };
    for (let i = 0; i < 30; i++) shallow = { type: 'object', properties: { d: shallow } };
    expect(provenanceFields(shallow, 'output')).toEqual([{ path: Array(30).fill('d'), mark: 'id', namespace: 'task' }]);
  });

  it('a schema sharing one sub-schema in many places stays cheap (no exponential walk)', () => {
    let shared: unknown = { type: 'string', ...untrustedText };
    for (let i = 0; i < 40; i++) shared = { anyOf: [shared, shared] };
    expect(provenanceFields({ type: 'object', properties: { x: shared } }, 'output')).toEqual([
      { path: ['x'], mark: 'untrusted' },
    ]);
  });

  it('ignores what is not a schema', () => {
    expect(provenanceFields(undefined, 'input')).toEqual([]);
    expect(provenanceFields('string', 'input')).toEqual([]);
    expect(provenanceFields({ $ref: '#/x' }, 'input')).toEqual([]);
  });

  it('returns fresh paths (callers cannot change a later walk)', () => {
    const [first] = provenanceFields(OrganizeInput, 'input');
    (first!.path as string[]).push('x');
    expect(provenanceFields(OrganizeInput, 'input')[0]!.path).toEqual(['steps', '*', 'sourcePath']);
  });
});

describe('isProvenanceDeclared', () => {
  it('true when either schema carries a mark anywhere, or the root says declared', () => {
    expect(isProvenanceDeclared(DownloadPlanInput, undefined)).toBe(true);
    expect(isProvenanceDeclared(Type.Object({}), SearchOutput)).toBe(true);
    expect(isProvenanceDeclared(DeclaredEmpty, Type.Object({}))).toBe(true);
    expect(isProvenanceDeclared({ type: 'object', not: { [TEXT_MARK]: 'untrusted' } }, {})).toBe(true);
  });

  it('false for a plugin capability that declared nothing', () => {
    const input = Type.Object({ path: Type.String(), items: Type.Array(Type.Object({ id: Type.String() })) });
    expect(isProvenanceDeclared(input, Type.Object({ ok: Type.Boolean() }))).toBe(false);
    expect(isProvenanceDeclared(undefined, null)).toBe(false);
  });

  it('ends on a cyclic schema', () => {
    const node: Record<string, unknown> = { type: 'object' };
    node.properties = { self: node };
    expect(isProvenanceDeclared(node, node)).toBe(false);
  });
});

describe('schema helpers', () => {
  it('issuedId and untrustedText are TypeBox options', () => {
    expect(Type.String({ ...issuedId('release'), description: 'd' })).toMatchObject({
      type: 'string',
      [ID_MARK]: 'release',
      description: 'd',
    });
    expect(Type.String(untrustedText)).toMatchObject({ [TEXT_MARK]: 'untrusted' });
    expect(Object.isFrozen(untrustedText)).toBe(true);
    expect(PROVENANCE_MARK).toBe('x-media-agent-provenance');
  });
});
