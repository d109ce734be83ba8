import type { ModelTool } from '../models/types';

/** Name of the built-in subagent tool (seed 000, 子代理连续工作). @public */
export const DELEGATE_TOOL = 'delegate';

/** Deepest subagent: a run (0) may delegate to a child (1), which may delegate to a grandchild (2). @public */
export const MAX_SUBAGENT_DEPTH = 2;

/** The delegate tool as offered to the model. @public */
export const DELEGATE_MODEL_TOOL: ModelTool = {
  name: DELEGATE_TOOL,
  description:
    'Start a read-only subagent for an investigation: it can only use read and preview capabilities (any write is denied), shares your budgets, and its report comes back as this tool result.',
  inputSchema: {
    type: 'object',
    properties: {
      goal: { type: 'string', minLength: 1, maxLength: 4000, description: 'What the subagent should find out.' },
      capabilities: { type: 'array', items: { type: 'string' }, maxItems: 50, description: 'Optional: limit it to these read capabilities.' },
    },
    required: ['goal'],
    additionalProperties: false,
  },
};

/**
 * Checks a delegate call's input.
 * @returns the goal and optional capability list, or why the input is wrong
 * @public
 */
export function parseDelegateInput(input: unknown): { ok: true; goal: string; capabilities: string[] | undefined } | { ok: false; message: string } {
  const value = input as { goal?: unknown; capabilities?: unknown } | null;
  if (!value || typeof value !== 'object') return { ok: false, message: 'input must be an object with a goal' };
  if (typeof value.goal !== 'string' || !value.goal.trim() || value.goal.length > 4000) return { ok: false, message: 'goal must be a non-empty string of at most 4000 characters' };
  if (value.capabilities !== undefined && !(Array.isArray(value.capabilities) && value.capabilities.every((c) => typeof c === 'string'))) return { ok: false, message: 'capabilities must be an array of capability ids' };
  return { ok: true, goal: value.goal, capabilities: value.capabilities as string[] | undefined };
}
