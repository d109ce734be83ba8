// Code orchestration's part of the run loop: who is offered `execute_code`, and kernels closed with their run.
import type { CodeExecution } from '../code/code-execution';
import { EXECUTE_CODE_TOOL } from '../code/code-execution';
import type { RunMiddleware } from './run-middleware';

/**
 * `code_execution`: at the start of a drive, takes `execute_code` out of the offer of a run whose
 * actor is not an administrator (the tool also refuses such a call, and every capability call of a
 * script checks again); when a run ends, destroys its kernels.
 * @param code - the host's code orchestration
 * @internal
 */
export function codeExecutionMiddleware(code: CodeExecution): RunMiddleware {
  return {
    name: 'code_execution',
    async onDriveStart(ctx) {
      if (!ctx.tools.some((t) => t.name === EXECUTE_CODE_TOOL)) return;
      if (!(await code.isAdministrator(ctx.run.startedBy)))
        ctx.tools = ctx.tools.filter((t) => t.name !== EXECUTE_CODE_TOOL);
    },
    onRunEnd(ctx) {
      if (ctx.terminal) code.closeRun(ctx.run.id);
    },
  };
}
