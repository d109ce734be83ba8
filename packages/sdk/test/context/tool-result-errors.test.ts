import { describe, expect, it } from 'vitest';
import {
  TOOL_RESULT_ERROR_CODES,
  ToolResultExpiredError,
  ToolResultForeignError,
  ToolResultNotFoundError,
  ToolResultRangeError,
} from '../../src/runtime/context/tool-result-errors';

const limits = { ttlMs: 900_000, maxResultsPerRun: 8, maxBytesPerRun: 4_194_304 };

describe('tool-result errors', () => {
  it('an expired result says why it is gone, quoting the limits, and to call the tool again', () => {
    const expired = new ToolResultExpiredError('tr_1', 'expired', limits);
    expect(expired.code).toBe(TOOL_RESULT_ERROR_CODES.expired);
    expect(expired.message).toContain('kept for 15 minutes');
    expect(expired.message).toContain('Call the original tool again');
    expect(new ToolResultExpiredError('tr_1', 'evicted', limits).message).toContain(
      'at most 8 stored results and 4 MiB',
    );
    expect(new ToolResultExpiredError('tr_1', 'released', limits).message).toContain('were released');
    expect(expired.details).toEqual({ resultId: 'tr_1', reason: 'expired' });
  });

  it('a foreign id reveals nothing about the result', () => {
    const foreign = new ToolResultForeignError('tr_9');
    expect(foreign.code).toBe('TOOL_RESULT_FOREIGN');
    expect(foreign.details).toEqual({ resultId: 'tr_9' });
  });

  it('not found and range errors carry their codes and details', () => {
    expect(new ToolResultNotFoundError('x').code).toBe('TOOL_RESULT_NOT_FOUND');
    const range = new ToolResultRangeError('bad offset', { offset: -1 });
    expect(range.code).toBe('TOOL_RESULT_RANGE');
    expect(range.details).toEqual({ offset: -1 });
    expect(new ToolResultRangeError('bad').details).toEqual({});
  });
});
