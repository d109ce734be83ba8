import type { InvocationResult } from '../capabilities/invocation';
import { MediaAgentError } from '../core/errors';
import { extractMcpContent, type McpMediaBlock } from './content-parts';

/** An approval the server asked a person for on the caller's behalf. */
export interface McpApprovalAsk {
  /** The approval id (a person approves it in the host's console). */
  approvalId: string;
  /** Its status now: `requested`, or `approved` when a person already approved it. */
  status: string;
  /** Type of the plan it binds to, e.g. `download`. */
  planType: string;
  /** Id of the plan it binds to. */
  planId: string;
}

/** The MCP `CallToolResult` this module returns. */
export interface McpCallToolResult {
  [key: string]: unknown;
  /**
   * The structured content as JSON text first (for clients that read only text), then one block per media part
   * of the output (image, audio, embedded resource), in the order the output's descriptions number them
   * (`content_index`).
   */
  content: Array<{ type: 'text'; text: string } | McpMediaBlock>;
  /** `status`, `output`, `error`, `idempotencyKey`, `approval`, `next`. */
  structuredContent: Record<string, unknown>;
  /** True for `failed`, `denied` and `unknown`. */
  isError: boolean;
}

/** What a client should do next, per status. */
const NEXT: Record<InvocationResult['status'], string> = {
  succeeded: 'done.',
  pending:
    'accepted, not done: the job runs on; read its state later (e.g. task.inspect) instead of calling this tool again.',
  unknown:
    'the outcome is unknown: the effect may have happened. Do not call this tool again to find out; check with a read, or ask the host operator.',
  failed: 'it did not take effect; fix the cause named by the code before trying again.',
  denied: 'nothing ran: this caller is not authorized for this call.',
};

function result(structured: Record<string, unknown>, isError: boolean, media: McpMediaBlock[] = []): McpCallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }, ...media],
    structuredContent: structured,
    isError,
  };
}

/**
 * Maps an invocation result to an MCP tool result a client can act on: `structuredContent` carries the
 * `status`, the output (or receipt), the error `code` and message, the idempotency key and a `next` hint;
 * `isError` is true for `failed`, `denied` and `unknown`. A denied call that executes a plan carries the
 * approval the server asked a person for (`approval`): approve it, then call the tool again with the same
 * arguments. Media parts of the output (an image part as runs know it, audio, an embedded resource; see
 * {@link extractMcpContent}) become MCP content blocks after the text block, and the output in
 * `structuredContent` names them by `content_index` instead of carrying their bytes.
 */
export function mcpCallResult(invocation: InvocationResult, approval?: McpApprovalAsk): McpCallToolResult {
  const structured: Record<string, unknown> = { status: invocation.status, invocationId: invocation.invocationId };
  let media: McpMediaBlock[] = [];
  if (invocation.output !== undefined) {
    const extracted = extractMcpContent(invocation.output);
    structured.output = extracted.output;
    media = extracted.blocks;
  }
  if (invocation.error) structured.error = invocation.error;
  if (invocation.idempotencyKey) structured.idempotencyKey = invocation.idempotencyKey;
  if (invocation.replayed) structured.replayed = true;
  structured.next = NEXT[invocation.status];
  if (approval) {
    structured.approval = approval;
    structured.next =
      approval.status === 'approved'
        ? 'an approval exists for this plan; call the tool again with the same arguments.'
        : `nothing ran: a person must approve ${approval.approvalId} (${approval.planType} plan ${approval.planId}); then call the tool again with the same arguments.`;
  }
  return result(structured, invocation.status !== 'succeeded' && invocation.status !== 'pending', media);
}

/**
 * Maps an error the invocation path threw before anything ran (invalid or too large input, a ledger
 * conflict, …) to an MCP tool error with its code and details, so a model can correct its arguments.
 */
export function mcpErrorResult(error: unknown): McpCallToolResult {
  const structured: Record<string, unknown> =
    error instanceof MediaAgentError
      ? { status: 'failed', error: { code: error.code, message: error.message, details: error.details } }
      : { status: 'failed', error: { code: 'INVOCATION_FAILED', message: 'the call could not be made' } };
  structured.next = NEXT.failed;
  return result(structured, true);
}
