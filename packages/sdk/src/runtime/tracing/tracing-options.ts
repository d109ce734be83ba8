import type { Tracer } from '@opentelemetry/api';

/**
 * How the runtime traces runs with OpenTelemetry (spans following the GenAI semantic conventions:
 * `invoke_agent` per run processing, `chat` per model call, `execute_tool` per tool call, `await_approval`
 * per approval wait; one trace per run across its processings; docs/architecture.md#traces).
 *
 * Tracing goes through `@opentelemetry/api` only: without a `tracer` here, spans go to the global tracer
 * provider, which is a no-op until the host registers one (e.g. with the OpenTelemetry Node SDK).
 *
 * @example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * const host = createAgentHost({ tracing: { tracer: trace.getTracer('my-media-app'), captureContent: false } });
 * ```
 * @public
 */
export interface TracingOptions {
  /**
   * The tracer spans are made with.
   * @defaultValue `trace.getTracer('@media-agent/sdk')` of the global provider (a no-op until the host registers a provider)
   */
  tracer?: Tracer;
  /**
   * Whether prompts, system instructions, model replies, tool arguments and tool results go into span
   * attributes (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`,
   * `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`), in the conventions' `{ role, parts }` shape.
   * Even then every value is redacted (secret-looking fields and text, the capability's `redact` paths
   * replaced by `[REDACTED]`; texts cut at 4096 characters, argument and result strings at 256), and a
   * messages attribute keeps within 16 KiB by leaving out its oldest messages, never the newest.
   * @defaultValue false (no content: ids, model, token counts, statuses and error codes only)
   */
  captureContent?: boolean;
}
