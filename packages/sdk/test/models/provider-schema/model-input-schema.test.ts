import { describe, expect, it } from 'vitest';
import { modelInputSchemaOf } from '../../../src/models/provider-schema/model-input-schema';

describe('modelInputSchemaOf', () => {
  it('is the schema itself when no rewrite is needed', () => {
    const schema = { type: 'object', properties: { q: { type: 'string' } } };
    expect(modelInputSchemaOf(schema)).toBe(schema);
    expect(Object.isFrozen(schema)).toBe(false);
  });
  it('is a deep-frozen rewrite otherwise, cached per schema object', () => {
    const schema = { type: 'object', properties: { q: { const: 'x' } } };
    const model = modelInputSchemaOf(schema);
    expect(model).toEqual({ type: 'object', properties: { q: { type: 'string', enum: ['x'] } } });
    expect(Object.isFrozen(model)).toBe(true);
    expect(Object.isFrozen(model.properties)).toBe(true);
    expect(modelInputSchemaOf(schema)).toBe(model);
    expect(modelInputSchemaOf({ ...schema })).not.toBe(model);
  });
  it('returns the best effort for a schema with problems, without throwing', () => {
    const model = modelInputSchemaOf({ type: 'string' });
    expect(model).toEqual({ type: 'string' });
    expect(Object.isFrozen(model)).toBe(true);
  });
});
