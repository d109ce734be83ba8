import { describe, expect, it } from 'vitest';
import {
  annotations,
  describe as describeNotes,
  stripAnnotations,
  withAnnotations,
} from '../../../src/models/provider-schema/annotations';

describe('describe', () => {
  it('appends notes in parentheses to a description', () => {
    expect(describeNotes(' Title ', ['format: email', 'greater than 0'])).toBe('Title (format: email; greater than 0)');
  });
  it('writes notes alone as a sentence', () => {
    expect(describeNotes(undefined, ['format: email'])).toBe('Format: email.');
    expect(describeNotes('   ', ['a'])).toBe('A.');
  });
  it('is the trimmed description, or undefined, without notes', () => {
    expect(describeNotes(' d ', [])).toBe('d');
    expect(describeNotes('', [])).toBeUndefined();
    expect(describeNotes(3, [])).toBeUndefined();
  });
});

describe('annotations', () => {
  it('keeps title, description with notes, default and example only', () => {
    expect(
      annotations({ type: 'string', title: 'T', description: 'D', default: 'x', example: 'y', examples: ['z'] }, ['n']),
    ).toEqual({
      title: 'T',
      description: 'D (n)',
      default: 'x',
      example: 'y',
    });
    expect(annotations({ title: 3, default: null })).toEqual({ default: null });
  });
});

describe('withAnnotations', () => {
  it('lays annotations over a copy, putting a different description first', () => {
    const schema = { type: 'string', description: 'inner', title: 'old' };
    const out = withAnnotations(schema, { title: 'new', description: 'outer' });
    expect(out).toEqual({ type: 'string', description: 'outer inner', title: 'new' });
    expect(schema.title).toBe('old');
    expect(withAnnotations({ description: 'same' }, { description: 'same' })).toEqual({ description: 'same' });
    expect(withAnnotations({ type: 'null' }, { description: 'd' })).toEqual({ type: 'null', description: 'd' });
  });
});

describe('stripAnnotations', () => {
  it('removes the annotations from a copy', () => {
    const s = { type: 'string', title: 'T', description: 'D', default: 1, example: 2, enum: ['a'] };
    expect(stripAnnotations(s)).toEqual({ type: 'string', enum: ['a'] });
    expect(s.title).toBe('T');
  });
});
