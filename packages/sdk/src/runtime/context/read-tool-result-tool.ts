// The read_tool_result tool as the model sees it: its name, input schema and description.
import Type, { type Static } from 'typebox';
import { providerSafeTool } from '../../models/provider-schema';
import type { ModelTool } from '../../models/types';
import { TOOL_RESULT_STORE_DEFAULTS } from './tool-result-limits';

/** Name of the built-in paging tool. @public */
export const READ_TOOL_RESULT_TOOL = 'read_tool_result';

/** Input schema of `read_tool_result`. @public */
export const ReadToolResultInputSchema = Type.Object(
  {
    result_id: Type.String({ minLength: 1, description: 'The result_id given with a truncated tool result.' }),
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'Character (Unicode code point) offset to start at; pass next_offset from the previous answer. Default 0.',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: `Most characters (code points) to return; default and maximum ${TOOL_RESULT_STORE_DEFAULTS.maxPageCodePoints}. Pages may be shorter when the text needs much escaping.`,
      }),
    ),
  },
  { additionalProperties: false },
);

/** Input of `read_tool_result`. @public */
export type ReadToolResultInput = Static<typeof ReadToolResultInputSchema>;

/** The `read_tool_result` tool as offered to the model (schema in the form every provider family accepts, see `providerSafeTool`). @public */
export const READ_TOOL_RESULT_MODEL_TOOL: ModelTool = providerSafeTool({
  name: READ_TOOL_RESULT_TOOL,
  description:
    'Read more of a tool result that was too long to show at once. A truncated result gives result_id and next_offset; call this with them to get the next page (offsets count Unicode characters), and repeat with the returned next_offset until it is null. This does not re-run the tool. Results are readable only in this run and expire 15 minutes after the call.',
  inputSchema: ReadToolResultInputSchema as unknown as Record<string, unknown>,
});
