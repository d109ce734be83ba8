import { describe, expect, it } from 'vitest';
import { compileSchema } from '../../src/capabilities/schema-validator';
import {
  READ_TOOL_RESULT_MODEL_TOOL,
  READ_TOOL_RESULT_TOOL,
  ReadToolResultInputSchema,
} from '../../src/runtime/context/read-tool-result-tool';

describe('the read_tool_result tool', () => {
  it('is offered under its name with a description of paging', () => {
    expect(READ_TOOL_RESULT_TOOL).toBe('read_tool_result');
    expect(READ_TOOL_RESULT_MODEL_TOOL.name).toBe(READ_TOOL_RESULT_TOOL);
    expect(READ_TOOL_RESULT_MODEL_TOOL.description).toContain('next_offset');
  });

  it('accepts a result id with an optional whole offset ≥ 0 and limit ≥ 1, nothing else', () => {
    const check = compileSchema(ReadToolResultInputSchema as never);
    expect(check.check({ result_id: 'tr_1' })).toBe(true);
    expect(check.check({ result_id: 'tr_1', offset: 0, limit: 1 })).toBe(true);
    expect(check.check({})).toBe(false);
    expect(check.check({ result_id: '' })).toBe(false);
    expect(check.check({ result_id: 'tr_1', offset: -1 })).toBe(false);
    expect(check.check({ result_id: 'tr_1', limit: 0 })).toBe(false);
    expect(check.check({ result_id: 'tr_1', offset: 1.5 })).toBe(false);
    expect(check.check({ result_id: 'tr_1', extra: true })).toBe(false);
  });
});
