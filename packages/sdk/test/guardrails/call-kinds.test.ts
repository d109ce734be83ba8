import { describe, expect, it } from 'vitest';
import { isFailedOutcome, isReadOnlyCall, isWriteCall } from '../../src/runtime/guardrails/call-kinds';
import type { GuardCallKind } from '../../src/runtime/guardrails/types';

const kinds: GuardCallKind[] = ['read', 'preview', 'propose', 'approve', 'execute', 'internal'];

describe('call kinds', () => {
  it('propose, approve and execute are writes; read, preview and internal are not', () => {
    expect(kinds.filter((kind) => isWriteCall({ kind }))).toEqual(['propose', 'approve', 'execute']);
  });

  it('read and preview are read-only; an internal tool only when listed', () => {
    const list = ['search_tools'];
    expect(kinds.filter((kind) => isReadOnlyCall({ kind, tool: 'x' }, list))).toEqual(['read', 'preview']);
    expect(isReadOnlyCall({ kind: 'internal', tool: 'search_tools' }, list)).toBe(true);
    expect(isReadOnlyCall({ kind: 'internal', tool: 'update_plan' }, list)).toBe(false);
    // the list names internal tools only: a listed write stays a write
    expect(isReadOnlyCall({ kind: 'execute', tool: 'search_tools' }, list)).toBe(false);
  });

  it('failed and denied are failures; succeeded, pending and unknown are not', () => {
    const statuses = ['succeeded', 'failed', 'pending', 'unknown', 'denied'] as const;
    expect(statuses.filter((status) => isFailedOutcome({ status }))).toEqual(['failed', 'denied']);
  });
});
