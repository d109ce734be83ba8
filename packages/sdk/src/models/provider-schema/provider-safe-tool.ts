import type { ModelTool } from '../types';
import { modelInputSchemaOf } from './model-input-schema';

/**
 * A tool as model providers accept it: `inputSchema` replaced by {@link modelInputSchemaOf} of it,
 * with the original kept as `validationSchema` (arguments are still checked against it) when the two
 * differ. Used for the runtime's own tools (`update_plan`, `search_tools`, `read_tool_result`, `delegate`).
 * @param tool - a tool definition
 * @returns the same tool when its schema needs no rewrite, else a new tool object
 * @public
 */
export function providerSafeTool<T extends ModelTool>(tool: T): T {
  const model = modelInputSchemaOf(tool.inputSchema);
  if (model === tool.inputSchema) return tool;
  return {
    ...tool,
    inputSchema: model as Record<string, unknown>,
    validationSchema: tool.validationSchema ?? tool.inputSchema,
  };
}
