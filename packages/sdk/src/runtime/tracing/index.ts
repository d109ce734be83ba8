export type { TracingOptions } from './tracing-options';
export { RunTracer, type TraceScope, type ToolSpanOutcome } from './run-tracer';
