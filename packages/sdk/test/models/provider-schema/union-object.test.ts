import { describe, expect, it } from 'vitest';
import { unionObject } from '../../../src/models/provider-schema/union-object';

describe('unionObject', () => {
  it('unites the properties, requires what every alternative requires and lists the alternatives', () => {
    const out = unionObject(
      [
        {
          type: 'object',
          title: 'By id',
          properties: { id: { type: 'string' }, kind: { type: 'string' } },
          required: ['id', 'kind'],
        },
        {
          type: 'object',
          description: 'By name.',
          properties: { name: { type: 'string' }, kind: { type: 'integer' } },
          required: ['name', 'kind'],
        },
        { type: 'object' },
      ],
      { description: 'Find.' },
    );
    expect(out).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string' },
        kind: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        name: { type: 'string' },
      },
      description:
        'Find. Give the properties of one of these alternatives: 1) By id: id (required), kind (required); 2) By name: name (required), kind (required); 3) no properties.',
    });
  });
  it('keeps one schema for a property that is the same in every alternative', () => {
    const a = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
    const out = unionObject([a, { ...a }], {});
    expect(out.properties).toEqual({ q: { type: 'string' } });
    expect(out.required).toEqual(['q']);
  });
});
