// `read_tool_result`: pages of a large result kept aside.
import {
  READ_TOOL_RESULT_MODEL_TOOL,
  READ_TOOL_RESULT_TOOL,
  toolResultPageView,
  type ToolResultStore,
} from '../context/tool-result-store';
import { failedOutcome, type RuntimeTool } from './runtime-tool';

/** `read_tool_result`: a page of a result the spill kept in `results`. */
export function readToolResultTool(results: ToolResultStore): RuntimeTool {
  return {
    name: READ_TOOL_RESULT_TOOL,
    modelTool: READ_TOOL_RESULT_MODEL_TOOL,
    discoveryOnly: false,
    available: () => true,
    async run({ session, call }) {
      try {
        const page = results.readToolInput(session.id, call.input);
        return {
          result: {
            status: 'succeeded',
            output: toolResultPageView((call.input as { result_id: string }).result_id, page),
          },
        };
      } catch (error) {
        return failedOutcome(error, 'TOOL_RESULT_FAILED');
      }
    },
  };
}
