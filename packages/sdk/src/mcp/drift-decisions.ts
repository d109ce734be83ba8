// How a consumed MCP server's tool changes are reported: the host's callback and a decision for an administrator.
import { MediaAgentError } from '../core/errors';
import type { DecisionRecord } from '../core/run-records';
import type { Logger } from '../ports/logger';
import type { RaiseDecisionInput } from '../runtime/decisions/decision-service';
import { changeEvidence, describeChange, type McpToolChange } from './tool-drift';

/** At most this many new tool names are named in the evidence of one `mcp_tool_added` decision. */
export const MCP_ADDED_NAMES_IN_EVIDENCE = 20;

/** The host's decision service, when `host` is an `AgentHost`. */
function raiser(host: object): ((input: RaiseDecisionInput) => Promise<DecisionRecord>) | undefined {
  const raise = (host as { raiseDecision?: unknown }).raiseDecision;
  return typeof raise === 'function'
    ? (input) => (raise as (i: RaiseDecisionInput) => Promise<DecisionRecord>).call(host, input)
    : undefined;
}

/**
 * The reporters of one registration's tool watch: each change goes to `onToolChange` (its errors ignored) and, with
 * an `AgentHost`, raises a decision. A decision that cannot be raised is logged (`warn`) and the report throws, so
 * the watch reports the change again at its next check.
 */
export function toolChangeReporters(
  host: object,
  server: string,
  onToolChange: ((change: McpToolChange) => void) | undefined,
  logger: Pick<Logger, 'warn'>,
): {
  report: (change: McpToolChange) => Promise<void>;
  reportAdded: (changes: readonly McpToolChange[]) => Promise<void>;
} {
  const raise = raiser(host);
  const tell = (change: McpToolChange) => {
    try {
      onToolChange?.(change);
    } catch {
      // The host's callback does not stop the report.
    }
  };
  const raiseOrLog = async (input: RaiseDecisionInput, tools: string[]) => {
    if (!raise) return;
    try {
      await raise(input);
    } catch (error) {
      logger.warn('could not raise the decision about an MCP tool change; it is raised again at the next check', {
        server,
        kind: input.kind,
        tools,
        code: error instanceof MediaAgentError ? error.code : undefined,
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
  };
  // The callback is told once per change: not again when only the decision is retried.
  const told = new Set<string>();
  const tellOnce = (change: McpToolChange) => {
    const key = `${change.change}:${change.tool}:${change.listedHash ?? change.acceptedHash}`;
    if (told.has(key)) return;
    told.add(key);
    tell(change);
  };
  return {
    report: async (change) => {
      tellOnce(change);
      const subject = change.capabilityId.slice(0, 200);
      await raiseOrLog(
        {
          kind: `mcp_tool_${change.change}`,
          subject: { type: 'mcp_tool', id: subject },
          reason: describeChange(change),
          raisedBy: 'system:mcp-client',
          evidence: changeEvidence(change),
          dedupeKey: `mcp_tool_${change.change}:${subject}:${change.listedHash ?? change.acceptedHash}`,
          options: [{ id: 'acknowledge', label: 'Acknowledge (accept a change by registering the server again)' }],
        },
        [change.tool],
      );
    },
    reportAdded: async (changes) => {
      for (const change of changes) tellOnce(change);
      const first = changes[0]!;
      const named = changes.slice(0, MCP_ADDED_NAMES_IN_EVIDENCE).map((c) => c.tool);
      const subject = first.capabilityId.slice(0, 200);
      const reason =
        changes.length === 1
          ? describeChange(first)
          : `MCP server ${server} lists ${changes.length} new tools (${named.join(', ')}${changes.length > named.length ? ', …' : ''}), which are not registered; register the server again to add them`;
      await raiseOrLog(
        {
          kind: 'mcp_tool_added',
          subject: { type: 'mcp_tool', id: subject },
          reason,
          raisedBy: 'system:mcp-client',
          evidence: {
            ...changeEvidence(first),
            count: changes.length,
            tools: named,
          },
          dedupeKey: `mcp_tool_added:${subject}:${first.listedHash}:${changes.length}`,
          options: [{ id: 'acknowledge', label: 'Acknowledge (add new tools by registering the server again)' }],
        },
        named,
      );
    },
  };
}
