export type { TracingOptions } from './tracing-options';
export { RunTracer, type ModelIdentity, type RunTraceScope, type TraceScope, type ToolSpanOutcome } from './run-tracer';
