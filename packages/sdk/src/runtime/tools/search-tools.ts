// `search_tools`: searches the run's catalog for tools not offered yet.
import type { JsonValue } from '../../core/records';
import { SEARCH_TOOLS_MODEL_TOOL, SEARCH_TOOLS_TOOL } from '../context/tool-discovery';
import { discoveryIn } from '../middleware/tool-discovery';
import { failedOutcome, type RuntimeTool } from './runtime-tool';

/** `search_tools`: answered by the drive's tool discovery; offered only with one. */
export function searchToolsTool(): RuntimeTool {
  return {
    name: SEARCH_TOOLS_TOOL,
    modelTool: SEARCH_TOOLS_MODEL_TOOL,
    discoveryOnly: true,
    available: () => true,
    async run({ session, call }) {
      const discovery = discoveryIn(session.locals);
      if (!discovery)
        return {
          result: { status: 'failed', error: { code: 'TOOL_SEARCH_OFF', message: 'every tool is already offered' } },
        };
      try {
        return {
          result: { status: 'succeeded', output: discovery.searchFromInput(call.input) as unknown as JsonValue },
        };
      } catch (error) {
        return failedOutcome(error, 'TOOL_SEARCH_FAILED');
      }
    },
  };
}
