// The HTTP surface's small rules: status per code, problem bodies, query parsing, run visibility, SSE frames.
import { describe, expect, it } from 'vitest';
import { MediaAgentError } from '../../src/index';
import { problemStatus, toProblem } from '../../src/http';
import { approvalRunId } from '../../src/http/access';
import { parseChoice, parseLimit, parseSequence } from '../../src/http/query';
import { sseFrame } from '../../src/http/sse';

describe('problemStatus', () => {
  it.each([
    ['HTTP_UNAUTHENTICATED', 401],
    ['ADMIN_FORBIDDEN', 403],
    ['RUN_NOT_FOUND', 404],
    ['APPROVAL_NOT_FOUND', 404],
    ['HTTP_ROUTE_NOT_FOUND', 404],
    ['HTTP_BODY_TOO_LARGE', 413],
    ['HTTP_CONTENT_TYPE_UNSUPPORTED', 415],
    ['DECISION_NOT_FOUND', 404],
    ['DECISION_CLOSED', 409],
    ['MEMORY_ORIGINAL_CHANGED', 409],
    ['MEMORY_USER_REQUIRED', 403],
    ['MEMORY_PROPOSAL_NOT_FOUND', 404],
    ['MEMORY_BUSY', 503],
    ['APPROVAL_HASH_MISMATCH', 409],
    ['APPROVAL_STATE', 409],
    ['GRANT_WIDENING', 409],
    ['PLAN_REVISION_CONFLICT', 409],
    ['HOST_STOPPED', 503],
    ['MODEL_NOT_CONFIGURED', 503],
    ['HTTP_BODY_INVALID', 400],
    ['HTTP_QUERY_INVALID', 400],
    ['RUN_REQUEST_INVALID', 422],
    ['REQUEST_INVALID', 422],
    ['APPROVAL_STEP_UNKNOWN', 422],
    ['APPROVAL_EDIT_INVALID', 422],
    ['APPROVAL_EDIT_WRONG_CAPABILITY', 409],
    ['APPROVAL_EDIT_UNSUPPORTED', 409],
    ['APPROVAL_EDIT_DENIED', 403],
    // Forks and undoing a turn: the request names no fork point (422); the run's state refuses it (409).
    ['FORK_POINT_INVALID', 422],
    ['FORK_SUBAGENT_RUN', 409],
    ['UNDO_NOT_INTERACTIVE', 409],
    ['UNDO_NO_TURN', 409],
    ['UNDO_MESSAGE_PENDING', 409],
    ['RUN_PRUNED', 409],
    ['UNDO_FORBIDDEN', 403],
    ['UNDO_NOT_FOUND', 404],
  ])('%s → %i', (code, status) => expect(problemStatus(code)).toBe(status));
});

describe('toProblem', () => {
  it('keeps an SDK error’s code, message and details', () => {
    const problem = toProblem(new MediaAgentError('RUN_NOT_FOUND', 'no run with id "r"', { runId: 'r' }));
    expect(problem).toEqual({
      type: 'urn:media-agent:error:RUN_NOT_FOUND',
      title: expect.any(String),
      status: 404,
      detail: 'no run with id "r"',
      code: 'RUN_NOT_FOUND',
      details: { runId: 'r' },
    });
  });
  it('reveals nothing of an unexpected error', () => {
    const problem = toProblem(new Error('database password is hunter2'));
    expect(problem.status).toBe(500);
    expect(JSON.stringify(problem)).not.toContain('hunter2');
  });
});

describe('query parsing', () => {
  it('accepts absent values and non-negative integers only', () => {
    expect(parseSequence('after', undefined)).toBeUndefined();
    expect(parseSequence('after', '')).toBeUndefined();
    expect(parseSequence('after', '0')).toBe(0);
    expect(parseSequence('after', '9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    for (const bad of ['-1', '1.5', '1e3', ' 1', '0x10', 'abc', '9007199254740992', '12345678901234567'])
      expect(() => parseSequence('after', bad), bad).toThrow(expect.objectContaining({ code: 'HTTP_QUERY_INVALID' }));
  });
  it('bounds limits and choices', () => {
    expect(parseLimit('1000', 1000)).toBe(1000);
    expect(() => parseLimit('0', 1000)).toThrow(expect.objectContaining({ code: 'HTTP_QUERY_INVALID' }));
    expect(() => parseLimit('1001', 1000)).toThrow(expect.objectContaining({ code: 'HTTP_QUERY_INVALID' }));
    expect(parseChoice('status', 'open', ['open', 'resolved'])).toBe('open');
    expect(() => parseChoice('status', 'OPEN', ['open'])).toThrow(
      expect.objectContaining({ code: 'HTTP_QUERY_INVALID' }),
    );
  });
});

describe('approvals', () => {
  it('finds the run an approval was asked for', () => {
    expect(approvalRunId('agent:run_1')).toBe('run_1');
    expect(approvalRunId('user:admin')).toBeUndefined();
  });
});

describe('sseFrame', () => {
  it('puts the global sequence in id:, the type in event:, and the event as one data line', () => {
    const frame = sseFrame({
      type: 'text_delta',
      runId: 'r',
      seq: 3,
      globalSeq: 42,
      at: 1,
      data: { text: 'two\nlines\r\n\n' },
    });
    expect(frame.endsWith('\n\n')).toBe(true);
    const lines = frame.slice(0, -2).split('\n');
    expect(lines).toEqual([
      'id: 42',
      'event: text_delta',
      `data: ${JSON.stringify({ type: 'text_delta', runId: 'r', seq: 3, globalSeq: 42, at: 1, data: { text: 'two\nlines\r\n\n' } })}`,
    ]);
  });
});
