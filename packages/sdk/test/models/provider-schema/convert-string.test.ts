import { describe, expect, it } from 'vitest';
import { convertString } from '../../../src/models/provider-schema/convert-string';
import { rewrite, rules } from './rewrite';

const run = (node: Record<string, unknown>) => {
  const ctx = rewrite();
  const notes: string[] = [];
  const out = convertString(ctx, node, '/s', notes);
  return { out, notes, rules: rules(ctx.rewrites), paths: ctx.rewrites.map((r) => r.path) };
};

describe('convertString', () => {
  it('keeps lengths, pattern and date-time', () => {
    expect(run({ minLength: 1, maxLength: 9, pattern: '^a', format: 'date-time' })).toEqual({
      out: { type: 'string', minLength: 1, maxLength: 9, pattern: '^a', format: 'date-time' },
      notes: [],
      rules: [],
      paths: [],
    });
  });
  it('moves other formats and content keywords into the description', () => {
    const r = run({ format: 'email', contentEncoding: 'base64', contentMediaType: 'image/png' });
    expect(r.out).toEqual({ type: 'string' });
    expect(r.notes).toEqual(['format: email', 'contentEncoding: base64', 'contentMediaType: image/png']);
    expect(r.rules).toEqual(['format', 'keyword-dropped', 'keyword-dropped']);
  });
  it('drops invalid values and contentSchema', () => {
    const r = run({ minLength: -1, maxLength: 1.5, pattern: 3, contentSchema: {} });
    expect(r.out).toEqual({ type: 'string' });
    expect(r.paths).toEqual(['/s/minLength', '/s/maxLength', '/s/pattern', '/s/contentSchema']);
    expect(r.notes).toEqual([]);
  });
});
