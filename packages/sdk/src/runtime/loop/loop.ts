// What the step functions of the loop work with: the driver's dependencies, the middleware pipeline
// and the table of the runtime's own tools.
import type { MiddlewarePipeline } from '../middleware/pipeline';
import type { RuntimeToolTable } from '../tools/table';
import type { RunTracer } from '../tracing/run-tracer';
import type { RunDriverDeps } from './driver-types';

/** The run loop's collaborators, shared by every run a driver processes. */
export interface Loop {
  /** Storage, registry, ledger, approvals, model, facts, events, clock, ids, logger, settings. */
  readonly deps: RunDriverDeps;
  /** The runtime's middleware, then the host's. */
  readonly pipeline: MiddlewarePipeline;
  /** `update_plan`, `search_tools`, `read_tool_result`, `delegate`. */
  readonly tools: RuntimeToolTable;
  /** The runtime's spans (a no-op unless the host traces). */
  readonly tracer: RunTracer;
}
