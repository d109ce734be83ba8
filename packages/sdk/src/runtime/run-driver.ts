import type { RunRecord } from '../core/run-records';
import type { Loop } from './loop/loop';
import type { RunDriverDeps, RunLease } from './loop/driver-types';
import { processRun } from './loop/run-phases';
import { MiddlewarePipeline } from './middleware/pipeline';
import { driverMiddleware } from './middleware/runtime-middleware';
import { delegateTool } from './tools/delegate';
import { readToolResultTool } from './tools/read-tool-result';
import { searchToolsTool } from './tools/search-tools';
import { skillTools } from './tools/skill-tools';
import { RuntimeToolTable } from './tools/table';
import { RunTracer } from './tracing/run-tracer';
import type { Context } from '@opentelemetry/api';
import { updatePlanTool } from './tools/update-plan';
import { sessionSearchTool } from './tools/session-search';
import { memoryTool } from './tools/memory';
import { searchMemoryTool } from './tools/search-memory';
import { executeCodeTool } from './tools/execute-code';

export type { RunDriverDeps, RunDriverSettings, RunLease } from './loop/driver-types';

/**
 * Drives one leased run through drive → goal-settled → finalize.
 *
 * @remarks
 * A drive is a sequence of steps — its start, then model turns and the tool calls each turn
 * opens — and each step writes what it did (run patch, messages, events, middleware state) in one
 * storage transaction before the next begins; events are published after the commit. Every tool
 * call goes through the one invocation path as `agent:<runId>`; the runtime answers its own tools
 * (`update_plan`, `search_tools`, `read_tool_result`, `delegate`) from a table. Compaction, tool
 * discovery, repeated-result references, large-result spill and the loop guard are
 * {@link RunMiddleware}, followed by the host's (`deps.middleware`).
 * @public
 */
export class RunDriver {
  readonly #loop: Loop;

  /**
   * @param deps - storage, registry, ledger, approvals, model, facts, events, clock, ids, logger, settings, middleware
   * @throws `OPTIONS_INVALID` for invalid host middleware
   */
  constructor(deps: RunDriverDeps) {
    const tools = new RuntimeToolTable([
      updatePlanTool(),
      searchToolsTool(),
      readToolResultTool(deps.results),
      delegateTool({
        capabilities: deps.capabilities,
        storage: deps.storage,
        clock: deps.clock,
        startSubagent: deps.startSubagent,
        drive: (run, lease, parent) => this.process(run, lease, parent),
      }),
      ...(deps.history ? [sessionSearchTool(deps.history)] : []),
      ...(deps.skills ? skillTools(deps.skills) : []),
      ...(deps.memory ? [memoryTool(deps.memory), searchMemoryTool(deps.memory)] : []),
      ...(deps.code ? [executeCodeTool(deps.code)] : []),
    ]);
    this.#loop = {
      deps,
      pipeline: new MiddlewarePipeline(driverMiddleware(deps)),
      tools,
      tracer: new RunTracer(deps.tracing),
    };
  }

  /**
   * Processes a leased run until it ends, waits, or the lease is lost.
   * @param run - the run as leased
   * @param lease - the lease it runs under
   * @param parent - the OpenTelemetry context its `invoke_agent` span starts in (a subagent's: the parent's
   *   `execute_tool` span); default the active context
   */
  process(run: RunRecord, lease: RunLease, parent?: Context): Promise<void> {
    return processRun(this.#loop, run, lease, parent);
  }
}
