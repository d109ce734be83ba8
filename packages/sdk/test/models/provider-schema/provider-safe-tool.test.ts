import { describe, expect, it } from 'vitest';
import { providerSafeTool } from '../../../src/models/provider-schema/provider-safe-tool';
import type { ModelTool } from '../../../src/models/types';

describe('providerSafeTool', () => {
  it('returns the same tool when its schema needs no rewrite', () => {
    const tool: ModelTool = { name: 't', description: 'd', inputSchema: { type: 'object', properties: {} } };
    expect(providerSafeTool(tool)).toBe(tool);
  });
  it('offers the rewrite and keeps the original for validation', () => {
    const inputSchema = { type: 'object', properties: { k: { const: 'a' } } };
    const tool: ModelTool = { name: 't', description: 'd', inputSchema };
    const safe = providerSafeTool(tool);
    expect(safe).not.toBe(tool);
    expect(safe.inputSchema).toEqual({ type: 'object', properties: { k: { type: 'string', enum: ['a'] } } });
    expect(safe.validationSchema).toBe(inputSchema);
    expect(tool.inputSchema).toBe(inputSchema);
  });
  it('keeps a validation schema the tool already has', () => {
    const validationSchema = { type: 'object' };
    const tool: ModelTool = {
      name: 't',
      description: 'd',
      inputSchema: { type: 'object', properties: { k: { const: 'a' } } },
      validationSchema,
    };
    expect(providerSafeTool(tool).validationSchema).toBe(validationSchema);
  });
});
