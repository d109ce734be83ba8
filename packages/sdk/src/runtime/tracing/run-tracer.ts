// The runtime's spans. Every span is started without attributes and gets them only when it records,
// so a host without a tracer provider pays for one non-recording span object per operation and no
// attribute objects.
import {
  context as otelContext,
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { summarizeInput } from '../../capabilities/input-summary';
import type { ApprovalRecord } from '../../core/records';
import type { RunRecord } from '../../core/run-records';
import type { ModelMessage, ModelResponseInfo, ModelUsage, StopReason, ToolCallPart } from '../../models/types';
import { AGENT_NAME, GEN_AI, MEDIA_AGENT, OPERATION, TRACER_NAME } from './gen-ai-attributes';
import { contentMessage, redactedText, withinBudget, type ContentMessage } from './message-content';
import { providerName, serverOf } from './provider-name';
import { storedRunRoot, traceparentOf } from './run-trace-root';
import type { TracingOptions } from './tracing-options';

/** A started span and the context that has it as the active span (the parent of what runs inside it). */
export interface TraceScope {
  /** The span. */
  readonly span: Span;
  /** The context its children start in. */
  readonly context: Context;
}

/** The `invoke_agent` span of one processing of a run. */
export interface RunTraceScope extends TraceScope {
  /**
   * The W3C `traceparent` to keep with the run (in its runtime state) when this is its first traced
   * processing; later processings start in that trace. Undefined when the run already has one or the
   * span has no valid context (no tracer provider).
   */
  readonly rootToStore: string | undefined;
}

/** The model and provider a run's spans name. */
export interface ModelIdentity {
  /** Model id as requested. */
  model: string;
  /** `ModelProvider.id`. */
  providerId: string;
  /** `ModelProvider.baseUrl`, when the provider has one. */
  baseUrl?: string | undefined;
}

/** Token totals of the model calls under one run span, in the conventions' sense (input includes cached). */
interface Totals {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
}

/** The outcome of a tool call, as its span records it. */
export interface ToolSpanOutcome {
  /** Invocation status. */
  status: string;
  /** Error code of a failed, denied or unknown call. */
  error?: { code: string } | undefined;
  /** Invocation id. */
  invocationId?: string | undefined;
  /** Idempotency key of a side-effecting call. */
  idempotencyKey?: string | undefined;
  /** Output (recorded only when content is captured). */
  output?: unknown;
  /** Approval the call asked a person for. */
  approvalRequested?: string | undefined;
}

/**
 * Makes the runtime's spans: `invoke_agent` (a run processed by a worker), `chat` (one model call),
 * `execute_tool` (one tool call) and `await_approval` (from an approval's request to its decision).
 * Content (messages, arguments, results) is recorded only with `captureContent`, and then as the
 * redacted summary the audit trail uses.
 */
export class RunTracer {
  readonly #captureContent: boolean;
  readonly #tracer: Tracer;
  /** Token totals per run span, added to by the chat spans under it. */
  readonly #totals = new WeakMap<Span, Totals>();
  /** The run span a chat span is under. */
  readonly #chatRun = new WeakMap<Span, Span>();
  /** The `gen_ai.conversation.id` of each run span, for the chat and tool spans under it. */
  readonly #conversation = new WeakMap<Span, string>();

  /** @param options - the host's tracing options (none: the global provider's tracer, no content) */
  constructor(options: TracingOptions = {}) {
    this.#captureContent = options.captureContent === true;
    // The global provider's tracer is a proxy: it starts recording once the host registers a provider.
    this.#tracer = options.tracer ?? trace.getTracer(TRACER_NAME);
  }

  /** The context a run without a parent span starts in. */
  root(): Context {
    return otelContext.active();
  }

  /**
   * Starts the `invoke_agent` span of one processing of a run. A run whose runtime state holds the
   * context of its first processing starts as that span's child, with a span link to it (one trace
   * per run, across wakes, resumes and processes); otherwise it starts under `parent`.
   * @param parent - the context of the parent's `execute_tool` span for a subagent, else the active context
   */
  startRun(run: RunRecord, model: ModelIdentity, parent: Context): RunTraceScope {
    const root = storedRunRoot(run.runtimeState);
    const under = root ? trace.setSpanContext(parent, root) : parent;
    const span = this.#tracer.startSpan(
      `${OPERATION.invokeAgent} ${AGENT_NAME}`,
      { kind: SpanKind.INTERNAL, ...(root ? { links: [{ context: root }] } : {}) },
      under,
    );
    if (span.isRecording()) {
      const attributes: Attributes = {
        [GEN_AI.operationName]: OPERATION.invokeAgent,
        [GEN_AI.providerName]: providerName(model.providerId, model.baseUrl),
        [GEN_AI.agentName]: AGENT_NAME,
        [GEN_AI.agentId]: run.id,
        [GEN_AI.conversationId]: run.sessionId ?? run.id,
        [GEN_AI.requestModel]: model.model,
        [MEDIA_AGENT.runId]: run.id,
        [MEDIA_AGENT.runMode]: run.mode,
      };
      const server = serverOf(model.baseUrl);
      if (server) {
        attributes[GEN_AI.serverAddress] = server.address;
        attributes[GEN_AI.serverPort] = server.port;
      }
      if (run.parentRunId) attributes[MEDIA_AGENT.runParentId] = run.parentRunId;
      if (this.#captureContent)
        attributes[GEN_AI.inputMessages] = JSON.stringify([
          { role: 'user', parts: [{ type: 'text', content: redactedText(run.goal) }] },
        ]);
      span.setAttributes(attributes);
      this.#totals.set(span, { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 });
      this.#conversation.set(span, run.sessionId ?? run.id);
    }
    const own = span.spanContext();
    const rootToStore = root === undefined && isSpanContextValid(own) ? traceparentOf(own) : undefined;
    return { span, context: trace.setSpan(under, span), rootToStore };
  }

  /**
   * Ends a run span with the run as it was left: status, the token totals of this processing's model
   * calls (input including cached tokens), the error of a failed run, the final text when content is captured.
   */
  endRun(scope: TraceScope, run: RunRecord): void {
    const { span } = scope;
    if (span.isRecording()) {
      const totals = this.#totals.get(span);
      span.setAttribute(MEDIA_AGENT.runStatus, run.status);
      if (totals) {
        span.setAttributes({
          [GEN_AI.usageInputTokens]: totals.input,
          [GEN_AI.usageOutputTokens]: totals.output,
          [GEN_AI.usageCacheReadTokens]: totals.cacheRead,
          [GEN_AI.usageCacheCreationTokens]: totals.cacheCreation,
        });
      }
      if (run.error) {
        span.setAttribute(GEN_AI.errorType, run.error.code);
        span.setStatus({ code: SpanStatusCode.ERROR, message: run.error.code });
      }
      if (this.#captureContent && run.finalText)
        span.setAttribute(
          GEN_AI.outputMessages,
          JSON.stringify([
            {
              role: 'assistant',
              parts: [{ type: 'text', content: redactedText(run.finalText) }],
              finish_reason: ['failed', 'cancelled', 'budget_exceeded'].includes(run.status) ? 'error' : 'stop',
            },
          ]),
        );
    }
    span.end();
  }

  /**
   * Starts the `chat` span of one model call (a client call to the provider).
   * @param request - the model and provider, the output token limit, the messages as sent (a system message first, if any)
   */
  startChat(
    parent: Context,
    request: ModelIdentity & { maxTokens: number | undefined; messages: readonly ModelMessage[] },
  ): TraceScope {
    const span = this.#tracer.startSpan(`${OPERATION.chat} ${request.model}`, { kind: SpanKind.CLIENT }, parent);
    if (span.isRecording()) {
      span.setAttributes({
        [GEN_AI.operationName]: OPERATION.chat,
        [GEN_AI.providerName]: providerName(request.providerId, request.baseUrl),
        [GEN_AI.requestModel]: request.model,
      });
      const server = serverOf(request.baseUrl);
      if (server) span.setAttributes({ [GEN_AI.serverAddress]: server.address, [GEN_AI.serverPort]: server.port });
      if (request.maxTokens) span.setAttribute(GEN_AI.requestMaxTokens, request.maxTokens);
      const run = trace.getSpan(parent);
      if (run && this.#totals.has(run)) this.#chatRun.set(span, run);
      this.#conversationOf(span, parent);
      if (this.#captureContent) {
        const system = request.messages.filter((m) => m.role === 'system');
        if (system.length > 0)
          span.setAttribute(GEN_AI.systemInstructions, JSON.stringify(system.flatMap((m) => contentMessage(m).parts)));
        this.#content(
          span,
          GEN_AI.inputMessages,
          request.messages.filter((m) => m.role !== 'system').map(contentMessage),
        );
      }
    }
    return { span, context: trace.setSpan(parent, span) };
  }

  /**
   * Ends a chat span: token usage (`gen_ai.usage.input_tokens` includes cache reads and writes, which are
   * also recorded apart), the finish reason as the provider sent it, the response id and model, the
   * error code of a failed call, the reply when captured.
   */
  endChat(
    scope: TraceScope,
    turn: {
      usage: ModelUsage;
      stopReason: StopReason | undefined;
      response?: ModelResponseInfo | undefined;
      error?: { code?: string; message: string } | undefined;
      message?: ModelMessage;
    },
  ): void {
    const { span } = scope;
    if (span.isRecording()) {
      const u = turn.usage;
      // ModelUsage.inputTokens are the tokens billed at the normal price (cache reads and writes apart, for
      // every provider); the conventions' input_tokens is every input token.
      const input = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
      span.setAttributes({
        [GEN_AI.usageInputTokens]: input,
        [GEN_AI.usageOutputTokens]: u.outputTokens,
        [GEN_AI.usageCacheReadTokens]: u.cacheReadTokens,
        [GEN_AI.usageCacheCreationTokens]: u.cacheWriteTokens,
      });
      const run = this.#chatRun.get(span);
      const totals = run && this.#totals.get(run);
      if (totals) {
        totals.input += input;
        totals.output += u.outputTokens;
        totals.cacheRead += u.cacheReadTokens;
        totals.cacheCreation += u.cacheWriteTokens;
      }
      const finish = turn.response?.finishReason ?? turn.stopReason;
      if (finish) span.setAttribute(GEN_AI.responseFinishReasons, [finish]);
      if (turn.response?.id) span.setAttribute(GEN_AI.responseId, turn.response.id);
      if (turn.response?.model) span.setAttribute(GEN_AI.responseModel, turn.response.model);
      if (turn.error) failed(span, turn.error.code ?? 'MODEL_FAILED');
      if (this.#captureContent && turn.message !== undefined) {
        const reason = turn.stopReason ? OUTPUT_FINISH[turn.stopReason] : finish;
        const out: ContentMessage = { ...contentMessage(turn.message), ...(reason ? { finish_reason: reason } : {}) };
        this.#content(span, GEN_AI.outputMessages, [out]);
      }
    }
    span.end();
  }

  /** `gen_ai.conversation.id` of the run span `parent` holds, if it holds one. */
  #conversationOf(span: Span, parent: Context): void {
    const run = trace.getSpan(parent);
    const id = run && this.#conversation.get(run);
    if (id) span.setAttribute(GEN_AI.conversationId, id);
  }

  /** A content attribute within its byte budget (the oldest messages left out first, their count recorded). */
  #content(span: Span, key: string, messages: readonly ContentMessage[]): void {
    const { json, dropped } = withinBudget(messages);
    span.setAttribute(key, json);
    if (dropped > 0) span.setAttribute(MEDIA_AGENT.messagesDropped, dropped);
  }

  /**
   * Starts the `execute_tool` span of one tool call.
   * @param redact - the capability's `redact` paths (applied to captured arguments)
   */
  startTool(
    parent: Context,
    call: Pick<ToolCallPart, 'id' | 'name' | 'input'>,
    capability: { kind: string; description?: string; redact?: readonly string[] } | undefined,
  ): TraceScope {
    const span = this.#tracer.startSpan(`${OPERATION.executeTool} ${call.name}`, { kind: SpanKind.INTERNAL }, parent);
    if (span.isRecording()) {
      span.setAttributes({
        [GEN_AI.operationName]: OPERATION.executeTool,
        [GEN_AI.toolName]: call.name,
        [GEN_AI.toolType]: 'function',
        [GEN_AI.toolCallId]: call.id,
      });
      this.#conversationOf(span, parent);
      if (capability) {
        span.setAttribute(MEDIA_AGENT.capabilityId, call.name);
        span.setAttribute(MEDIA_AGENT.capabilityKind, capability.kind);
        if (capability.description) span.setAttribute(GEN_AI.toolDescription, capability.description);
      }
      if (this.#captureContent)
        span.setAttribute(GEN_AI.toolCallArguments, summarizeInput(call.input, capability?.redact ?? []));
    }
    return { span, context: trace.setSpan(parent, span) };
  }

  /** Ends a tool span with the invocation's status, ids, error code, and the output when captured. */
  endTool(scope: TraceScope, outcome: ToolSpanOutcome): void {
    const { span } = scope;
    if (span.isRecording()) {
      span.setAttribute(MEDIA_AGENT.invocationStatus, outcome.status);
      if (outcome.invocationId) span.setAttribute(MEDIA_AGENT.invocationId, outcome.invocationId);
      if (outcome.idempotencyKey) span.setAttribute(MEDIA_AGENT.idempotencyKey, outcome.idempotencyKey);
      if (outcome.approvalRequested) span.setAttribute(MEDIA_AGENT.approvalRequestedId, outcome.approvalRequested);
      if (outcome.error) {
        span.setAttribute(GEN_AI.errorType, outcome.error.code);
        // A denial or an unknown outcome is an answer the run acts on; a failure is an error.
        if (outcome.status === 'failed' || outcome.status === 'unknown')
          span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error.code });
      }
      if (this.#captureContent && outcome.output !== undefined)
        span.setAttribute(GEN_AI.toolCallResult, summarizeInput(outcome.output));
    }
    span.end();
  }

  /** Ends a span whose operation threw. */
  endWithError(scope: TraceScope, error: unknown): void {
    if (scope.span.isRecording()) {
      const code = (error as { code?: unknown } | null)?.code;
      failed(scope.span, typeof code === 'string' ? code : error instanceof Error ? error.name : 'Error');
    }
    scope.span.end();
  }

  /**
   * Records an `await_approval` span: from the approval's request to its decision (times from the
   * approval record, in ms since epoch), under the run processing that learnt of the decision.
   */
  approvalWait(parent: Context, approval: ApprovalRecord): void {
    const span = this.#tracer.startSpan(
      `await_approval ${approval.planType}`,
      { kind: SpanKind.INTERNAL, startTime: approval.requestedAt },
      parent,
    );
    if (span.isRecording())
      span.setAttributes({
        [MEDIA_AGENT.approvalId]: approval.id,
        [MEDIA_AGENT.approvalStatus]: approval.status,
        [MEDIA_AGENT.planType]: approval.planType,
        [MEDIA_AGENT.planId]: approval.planId,
      });
    span.end(approval.decidedAt ?? undefined);
  }
}

/** An output message's `finish_reason`: the conventions' values (`stop`, `length`, `content_filter`, `tool_call`, `error`). */
const OUTPUT_FINISH: Record<StopReason, string> = {
  end_turn: 'stop',
  tool_use: 'tool_call',
  max_tokens: 'length',
  refusal: 'content_filter',
  aborted: 'error',
  error: 'error',
};

function failed(span: Span, code: string): void {
  span.setAttribute(GEN_AI.errorType, code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}
