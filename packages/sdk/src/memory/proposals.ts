// Pending memory proposals: what a background replace or remove is staged as.
import type { MemoryOperation } from './apply-operations';
import type { MemoryTarget } from './entries';

/** Most pending proposals per user. @public */
export const MAX_PENDING_PROPOSALS = 100;
/** Largest serialised proposal, in UTF-8 bytes (64 KiB). @public */
export const MAX_PROPOSAL_BYTES = 65_536;

/**
 * A staged memory change awaiting the user: the whole call, with the original entry each replace
 * or remove works on pinned, so approving it never touches newer content.
 * @public
 */
export interface MemoryProposal {
  /** 32 lowercase hex characters. */
  id: string;
  /** The file it changes. */
  target: MemoryTarget;
  /** The operations, verbatim. */
  operations: MemoryOperation[];
  /** Per operation, the whole original entry it replaces or removes (null for an add). */
  previous: (string | null)[];
  /** The call was a batch. */
  batch: boolean;
  /** When it was staged (ms). */
  createdAt: number;
}

/** A proposal as `/memory pending` lists it. @public */
export interface MemoryProposalSummary {
  /** Id. */
  id: string;
  /** The file it changes. */
  target: MemoryTarget;
  /** Number of operations. */
  operationCount: number;
  /** The first 120 characters of what it does. */
  preview: string;
  /** When it was staged (ms). */
  createdAt: number;
}

/** A one-line description of an operation. */
function describe(op: MemoryOperation, previous: string | null): string {
  if (op.action === 'add') return `add "${op.content ?? op.new_text ?? ''}"`;
  if (op.action === 'remove') return `remove "${previous ?? op.old_text ?? ''}"`;
  return `replace "${previous ?? op.old_text ?? ''}" with "${op.content ?? op.new_text ?? ''}"`;
}

/** The summary of a proposal (preview cut to 120 code points). @public */
export function summarizeProposal(p: MemoryProposal): MemoryProposalSummary {
  const text = p.operations.map((op, i) => describe(op, p.previous[i] ?? null)).join('; ');
  const cps = [...text];
  return {
    id: p.id,
    target: p.target,
    operationCount: p.operations.length,
    preview: cps.length > 120 ? `${cps.slice(0, 119).join('')}…` : text,
    createdAt: p.createdAt,
  };
}

/** The full text of a proposal for `/memory pending <id>`: each operation with its original entry. @public */
export function describeProposal(p: MemoryProposal): string {
  return [
    `Proposal ${p.id} (${p.target === 'user' ? 'USER.md' : 'MEMORY.md'}, ${p.operations.length} operation${p.operations.length === 1 ? '' : 's'}):`,
    ...p.operations.map((op, i) => `${i + 1}. ${describe(op, p.previous[i] ?? null)}`),
  ].join('\n');
}

/** True for a value read back from the store that has a proposal's shape. @internal */
export function isProposal(value: unknown): value is MemoryProposal {
  const p = value as MemoryProposal;
  return (
    typeof p === 'object' &&
    p !== null &&
    typeof p.id === 'string' &&
    (p.target === 'memory' || p.target === 'user') &&
    Array.isArray(p.operations) &&
    Array.isArray(p.previous) &&
    typeof p.createdAt === 'number'
  );
}
