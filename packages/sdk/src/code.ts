/**
 * `@media-agent/sdk/code`: read-only code orchestration (`execute_code`) below the host — the tool's
 * name, the result a cell gives the model (with its capability errors and why a kernel was lost), the
 * defaults of every limit and the `CODE_*` error class.
 *
 * @remarks
 * A host turns `execute_code` on with `createAgentHost({ runs: { code: {} } })` (`CodeExecutionOptions`,
 * in this entry); it needs the optional peer dependency `quickjs-emscripten`. See
 * docs/code-execution.md.
 *
 * @example
 * ```ts
 * import { createAgentHost } from '@media-agent/sdk';
 * import { CODE_EXECUTION_DEFAULTS, EXECUTE_CODE_TOOL } from '@media-agent/sdk/code';
 *
 * const host = createAgentHost({ runs: { code: { timeoutMs: 2 * CODE_EXECUTION_DEFAULTS.timeoutMs } } });
 * for await (const event of host.events()) {
 *   if (event.type === 'tool_call' && event.data.capabilityId === EXECUTE_CODE_TOOL) console.log(event.data.output);
 * }
 * ```
 *
 * @packageDocumentation
 */
export { CODE_EXECUTION_DEFAULTS } from './runtime/code/code-options';
export { CodeExecutionError, type CodeErrorCode } from './runtime/code/errors';
export { EXECUTE_CODE_TOOL, type CodeCellResult } from './runtime/code/code-execution';
export type { ScriptToolError } from './runtime/code/capability-bridge';
export type { KernelLossReason } from './runtime/code/kernel-pool';
// the host's `runs.code` option
export type { CodeExecutionOptions, ResolvedCodeExecutionOptions } from './runtime/code/code-options';
