// Large tool results kept aside for paging, attached as a middleware.
import { formatStoredToolResult, READ_TOOL_RESULT_TOOL, type ToolResultStore } from '../context/tool-result-store';
import type { RunMiddleware } from './run-middleware';

/**
 * Large-result spill as a {@link RunMiddleware} named
 * `result_spill`: a tool result over the store's preview limit reaches the model as a preview with a
 * `result_id` to page with `read_tool_result`; one over the per-result limit as a
 * `TOOL_RESULT_TOO_LARGE` error asking to narrow the query. A run's stored results are released
 * when it ends (not while it waits). The result it gets has its untrusted text fenced already (the loop fences a
 * capability's output when it builds the tool message, before `afterToolCall`), so what it stores is fenced too.
 * @param results - where large results are kept (shared with the `read_tool_result` tool)
 * @returns the middleware
 * @internal
 */
export function resultSpillMiddleware(results: ToolResultStore): RunMiddleware {
  return {
    name: 'result_spill',
    afterToolCall(ctx) {
      const message = ctx.result;
      if (typeof message.content !== 'string' || ctx.call.name === READ_TOOL_RESULT_TOOL) return;
      const offer = results.offer(ctx.run.id, ctx.call.id, ctx.call.name, message.content);
      if (offer.kind === 'inline') return;
      if (offer.kind === 'stored') {
        ctx.result = { ...message, content: formatStoredToolResult(offer) };
        return;
      }
      const status = (JSON.parse(message.content) as { status?: string }).status ?? 'failed';
      ctx.result = {
        ...message,
        content: JSON.stringify({ status, error: { code: 'TOOL_RESULT_TOO_LARGE', message: offer.message } }),
      };
    },
    onRunEnd(ctx) {
      if (ctx.terminal) results.releaseRun(ctx.run.id);
    },
  };
}
