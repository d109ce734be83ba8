// `execute_code`: model-written JavaScript in a WebAssembly sandbox, read-only capability calls.
import Type from 'typebox';
import { providerSafeTool } from '../../models/provider-schema';
import type { ModelTool } from '../../models/types';
import { type CodeExecution, EXECUTE_CODE_TOOL } from '../code/code-execution';
import { actingFor } from '../loop/acting-for';
import { failedOutcome, type RuntimeTool } from './runtime-tool';
import { recordShown } from '../loop/run-provenance-state';

/** Input schema of `execute_code`. @public */
export const ExecuteCodeInputSchema = Type.Object(
  {
    code: Type.String({
      minLength: 1,
      description:
        'JavaScript to run. `await` works at top level; top-level const/let/var/function/class persist to later cells.',
    }),
    reset: Type.Optional(
      Type.Boolean({
        description: 'true: destroy the variables of earlier cells first and start clean. Default false.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** `execute_code` as offered to the model. @public */
export const EXECUTE_CODE_MODEL_TOOL: ModelTool = providerSafeTool({
  name: EXECUTE_CODE_TOOL,
  description: [
    'Run JavaScript in a sandbox to orchestrate READ-ONLY tools: use it for three or more reads with paging, branching, filtering or aggregation; for a single read call the tool directly.',
    'Inside, `await tools["<tool name>"](input)` (or `tools.catalog.lookup(input)`) calls one of your read tools and returns its parsed output; a failure throws an Error with `code`. Only read tools run; anything else is refused.',
    'Print what you need with console.log (only stdout and stderr come back; keep it short, aggregate first). Helpers: json_parse(text), retry(fn, attempts=3), exit(code) (ends the kernel).',
    'Limits per cell: 50 tool calls, 16 MiB per tool result (ask for smaller pages beyond), 300 s, CPU and memory caps; no files, network or timers.',
    'Top-level variables persist across cells of this run until reset, exit, a limit or a timeout; check `kernel.reused` and `state_lost` in the result before relying on them.',
    'A tool error makes `success` false even when your code caught it.',
  ].join(' '),
  inputSchema: ExecuteCodeInputSchema as unknown as Record<string, unknown>,
});

/**
 * `execute_code`: offered to top-level runs when the host turns code orchestration on, only to runs whose
 * owner is an administrator (see the `code_execution` middleware): a model that calls it anyway gets
 * `TOOL_UNKNOWN`; a call after the owner stopped being an administrator is refused with `CODE_ADMIN_ONLY`
 * (docs/code-execution.md).
 * @param code - the host's code orchestration
 */
export function executeCodeTool(code: CodeExecution): RuntimeTool {
  return {
    name: EXECUTE_CODE_TOOL,
    modelTool: EXECUTE_CODE_MODEL_TOOL,
    discoveryOnly: false,
    available: (run) => run.depth === 0,
    async run({ session, call }) {
      try {
        const result = await code.runCell(
          () => session.run,
          () => actingFor(session) ?? session.run.startedBy,
          call.id,
          call.input,
          session.lease.signal,
          // What the script's reads showed is shown to the run: their ids may be acted on, their untrusted text not.
          (descriptor, output) => recordShown(session, descriptor, output),
        );
        if (result.success) return { result: { status: 'succeeded', output: result } };
        return {
          result: {
            status: 'failed',
            output: result,
            error: result.error ?? {
              code: 'CODE_SCRIPT_ERROR',
              message: `${result.tool_error_count} tool call(s) failed inside the script (see tool_errors)`,
            },
          },
        };
      } catch (error) {
        return failedOutcome(error, 'CODE_SCRIPT_ERROR');
      }
    },
  };
}
