// The server span of an MCP `tools/call`, by the MCP semantic conventions
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/): `tools/call {tool}`, kind SERVER, a child of
// the trace context the client put in `params._meta` (the MCP-level carrier, SEP-414), else of the HTTP
// request's W3C headers; when both are there and differ, the HTTP context is a span link.
import {
  context as otelContext,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import { summarizeInput } from '../capabilities/input-summary';
import { GEN_AI, MCP, MEDIA_AGENT, OPERATION, TRACER_NAME } from '../runtime/tracing/gen-ai-attributes';
import { RunTracer, type ToolSpanOutcome, type TraceScope } from '../runtime/tracing/run-tracer';
import { parseTraceparent } from '../runtime/tracing/run-trace-root';
import type { TracingOptions } from '../runtime/tracing/tracing-options';

/** The parts of a `tools/call` request the span reads. */
export interface McpToolsCallRequest {
  /** The request's params: the tool name, its arguments, and `_meta` (`traceparent`, `tracestate`). */
  params: { name: string; arguments?: unknown; _meta?: Record<string, unknown> | undefined };
}

/** The parts of the MCP SDK's request `extra` the span reads. */
export interface McpToolsCallExtra {
  /** The JSON-RPC request id. */
  requestId: string | number;
  /** The transport's session id (Streamable HTTP with sessions), if any. */
  sessionId?: string | undefined;
  /** The HTTP request, over Streamable HTTP (its headers may carry `traceparent` and `mcp-protocol-version`). */
  requestInfo?: { headers: Record<string, string | string[] | undefined> } | undefined;
}

/** What the server knows beyond the request. */
export interface McpToolsCallInfo {
  /**
   * The negotiated protocol version.
   * @defaultValue the request's `mcp-protocol-version` header; over HTTP without that header `2025-03-26` (the
   * revision the MCP Streamable HTTP transport says a server assumes then); over stdio not recorded
   */
  protocolVersion?: string | undefined;
  /** `network.transport`: `tcp` for Streamable HTTP, `pipe` for stdio. @defaultValue `tcp` with HTTP headers, else `pipe` */
  transport?: 'tcp' | 'pipe' | 'unix' | undefined;
  /** The capability the tool is (its kind, description and `redact` paths). */
  descriptor?: { id: string; kind: string; description?: string; redact?: readonly string[] } | undefined;
}

/**
 * The revision a Streamable HTTP server assumes for a request without an `MCP-Protocol-Version` header
 * (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#protocol-version-header).
 */
const HTTP_DEFAULT_PROTOCOL = '2025-03-26';

const header = (headers: Record<string, string | string[] | undefined> | undefined, name: string) => {
  const value = headers?.[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Makes the server spans of MCP `tools/call` requests (docs/architecture.md#traces).
 *
 * @example
 * ```ts
 * const spans = new McpServerSpans(options.tracing);
 * server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
 *   spans.run(request, extra, { descriptor }, () => callTool(...), (answer) => answer.traced),
 * );
 * ```
 * @internal
 */
export class McpServerSpans {
  readonly #tracer: Tracer;
  readonly #tools: RunTracer;
  readonly #captureContent: boolean;

  /** @param options - the host's tracing options (none: the global provider's tracer, no content) */
  constructor(options: TracingOptions = {}) {
    this.#tracer = options.tracer ?? trace.getTracer(TRACER_NAME);
    this.#tools = new RunTracer(options);
    this.#captureContent = options.captureContent === true;
  }

  /**
   * The parent of a call's span: the context in `params._meta` (`traceparent`, `tracestate`) when it is a
   * valid W3C trace context, else the HTTP headers' (the host's propagator, else W3C `traceparent`), else
   * `base`. The HTTP context is returned as `link` when `_meta` won and the two differ.
   */
  parentOf(
    request: McpToolsCallRequest,
    extra: McpToolsCallExtra,
    base: Context = otelContext.active(),
  ): { parent: Context; link?: SpanContext } {
    const meta = request.params._meta;
    const fromMeta = parseTraceparent(meta?.traceparent, meta?.tracestate);
    const headers = extra.requestInfo?.headers;
    let fromHttp: SpanContext | undefined;
    if (headers) {
      const extracted = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, headers));
      fromHttp = extracted ?? parseTraceparent(header(headers, 'traceparent'), header(headers, 'tracestate'));
    }
    if (fromMeta) {
      const differs = fromHttp && (fromHttp.traceId !== fromMeta.traceId || fromHttp.spanId !== fromMeta.spanId);
      return { parent: trace.setSpanContext(base, fromMeta), ...(differs ? { link: fromHttp } : {}) };
    }
    return { parent: fromHttp ? trace.setSpanContext(base, fromHttp) : base };
  }

  /** Starts the server span of one `tools/call`. */
  start(request: McpToolsCallRequest, extra: McpToolsCallExtra, info: McpToolsCallInfo = {}): TraceScope {
    const { parent, link } = this.parentOf(request, extra);
    const tool = request.params.name;
    const links: Link[] = link ? [{ context: link }] : [];
    const span: Span = this.#tracer.startSpan(`tools/call ${tool}`, { kind: SpanKind.SERVER, links }, parent);
    if (span.isRecording()) {
      const headers = extra.requestInfo?.headers;
      const attributes: Attributes = {
        [MCP.methodName]: 'tools/call',
        [MCP.jsonrpcRequestId]: String(extra.requestId),
        [GEN_AI.operationName]: OPERATION.executeTool,
        [GEN_AI.toolName]: tool,
        [MCP.networkTransport]: info.transport ?? (headers ? 'tcp' : 'pipe'),
      };
      const version =
        info.protocolVersion ??
        header(headers, 'mcp-protocol-version') ??
        (headers ? HTTP_DEFAULT_PROTOCOL : undefined);
      if (version) attributes[MCP.protocolVersion] = version;
      if (extra.sessionId) attributes[MCP.sessionId] = extra.sessionId;
      const d = info.descriptor;
      if (d) {
        attributes[MEDIA_AGENT.capabilityId] = d.id;
        attributes[MEDIA_AGENT.capabilityKind] = d.kind;
        if (d.description) attributes[GEN_AI.toolDescription] = d.description;
      }
      if (this.#captureContent)
        attributes[GEN_AI.toolCallArguments] = summarizeInput(request.params.arguments ?? {}, d?.redact ?? []);
      span.setAttributes(attributes);
    }
    return { span, context: trace.setSpan(parent, span) };
  }

  /**
   * Ends a call's span with its outcome: status, ids, `error.type` (the error code, `tool_error` for a
   * result marked `isError` without one), the output when content is captured.
   */
  end(scope: TraceScope, outcome: ToolSpanOutcome & { isError?: boolean | undefined }): void {
    const failed = outcome.isError === true && outcome.error === undefined;
    this.#tools.endTool(scope, failed ? { ...outcome, error: { code: 'tool_error' } } : outcome);
  }

  /**
   * Runs `call` inside the span of one `tools/call` and ends the span with `outcomeOf` its answer (or
   * with the error it threw, rethrown).
   * @returns what `call` returned
   */
  async run<T>(
    request: McpToolsCallRequest,
    extra: McpToolsCallExtra,
    info: McpToolsCallInfo,
    call: (scope: TraceScope) => Promise<T>,
    outcomeOf: (answer: T) => ToolSpanOutcome & { isError?: boolean | undefined },
  ): Promise<T> {
    const scope = this.start(request, extra, info);
    let answer: T;
    try {
      answer = await otelContext.with(scope.context, () => call(scope));
    } catch (error) {
      this.#tools.endWithError(scope, error);
      throw error;
    }
    this.end(scope, outcomeOf(answer));
    return answer;
  }
}
