import { providerSafeTool } from '../models/provider-schema';
import type { ModelMessage, ModelTool } from '../models/types';

/** Name of the built-in subagent tool. @public */
export const DELEGATE_TOOL = 'delegate';

/** Deepest subagent: a run (0) may delegate to a child (1), which may delegate to a grandchild (2). @public */
export const MAX_SUBAGENT_DEPTH = 2;

/** The delegate tool as offered to the model (schema in the form every provider family accepts, see `providerSafeTool`). @public */
export const DELEGATE_MODEL_TOOL: ModelTool = providerSafeTool({
  name: DELEGATE_TOOL,
  description:
    'Start a read-only subagent for an investigation: it can only use read and preview capabilities (any write is denied), shares your budgets, and its report comes back as this tool result.',
  inputSchema: {
    type: 'object',
    properties: {
      goal: { type: 'string', minLength: 1, maxLength: 4000, description: 'What the subagent should find out.' },
      capabilities: {
        type: 'array',
        items: { type: 'string' },
        maxItems: 50,
        description: 'Optional: limit it to these read capabilities.',
      },
    },
    required: ['goal'],
    additionalProperties: false,
  },
});

/**
 * Checks a delegate call's input.
 * @returns the goal and optional capability list, or why the input is wrong
 * @public
 */
export function parseDelegateInput(
  input: unknown,
): { ok: true; goal: string; capabilities: string[] | undefined } | { ok: false; message: string } {
  const value = input as { goal?: unknown; capabilities?: unknown } | null;
  if (!value || typeof value !== 'object') return { ok: false, message: 'input must be an object with a goal' };
  if (typeof value.goal !== 'string' || !value.goal.trim() || value.goal.length > 4000)
    return { ok: false, message: 'goal must be a non-empty string of at most 4000 characters' };
  if (
    value.capabilities !== undefined &&
    !(Array.isArray(value.capabilities) && value.capabilities.every((c) => typeof c === 'string'))
  )
    return { ok: false, message: 'capabilities must be an array of capability ids' };
  return { ok: true, goal: value.goal, capabilities: value.capabilities as string[] | undefined };
}

/** One result a subagent obtained, as passed back to its parent. @public */
export interface SubagentFinding {
  /** Capability the subagent called. */
  capability: string;
  /** The result text the subagent received (cut to the per-finding limit). */
  result: string;
  /** True when `result` was cut. */
  truncated: boolean;
}

/**
 * What a subagent found so far, read from its stored conversation: the successful tool results
 * (newest last) and its latest text. Used when a subagent ends without a report (interrupted by a
 * crash, cancelled), so its parent gets the reads already done instead of repeating them.
 *
 * @param messages - the subagent's stored messages
 * @param limits - `perFindingChars` (default 2000) and `maxFindings` (default 10, the most recent ones)
 * @returns findings and the latest assistant text (or null)
 * @public
 */
export function subagentFindings(
  messages: ReadonlyArray<ModelMessage>,
  limits: { perFindingChars?: number; maxFindings?: number } = {},
): { findings: SubagentFinding[]; lastText: string | null } {
  const perFinding = limits.perFindingChars ?? 2000;
  const max = limits.maxFindings ?? 10;
  const findings: SubagentFinding[] = [];
  let lastText: string | null = null;
  for (const m of messages) {
    if (m.role === 'assistant') {
      const text = m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
      if (text.trim() !== '') lastText = text;
    } else if (m.role === 'tool' && m.status === 'ok') {
      const text =
        typeof m.content === 'string'
          ? m.content
          : m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
      findings.push({ capability: m.name, result: text.slice(0, perFinding), truncated: text.length > perFinding });
    }
  }
  return { findings: findings.slice(-max), lastText };
}
