// The runtime's spans. Every span is started without attributes and gets them only when it records,
// so a host without a tracer provider pays for one non-recording span object per operation and no
// attribute objects.
import {
  context as otelContext,
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
import type { ModelMessage, ModelUsage, StopReason, ToolCallPart } from '../../models/types';
import { AGENT_NAME, GEN_AI, MEDIA_AGENT, OPERATION, TRACER_NAME } from './gen-ai-attributes';
import type { TracingOptions } from './tracing-options';

/** A started span and the context that has it as the active span (the parent of what runs inside it). */
export interface TraceScope {
  /** The span. */
  readonly span: Span;
  /** The context its children start in. */
  readonly context: Context;
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
   * Starts the `invoke_agent` span of one processing of a run.
   * @param parent - the context of the parent's `execute_tool` span for a subagent, else the active context
   */
  startRun(run: RunRecord, model: string, parent: Context): TraceScope {
    const span = this.#tracer.startSpan(`${OPERATION.invokeAgent} ${AGENT_NAME}`, { kind: SpanKind.INTERNAL }, parent);
    if (span.isRecording()) {
      const attributes: Attributes = {
        [GEN_AI.operationName]: OPERATION.invokeAgent,
        [GEN_AI.agentName]: AGENT_NAME,
        [GEN_AI.agentId]: run.id,
        [GEN_AI.conversationId]: run.sessionId ?? run.id,
        [GEN_AI.requestModel]: model,
        [MEDIA_AGENT.runId]: run.id,
        [MEDIA_AGENT.runMode]: run.mode,
      };
      if (run.parentRunId) attributes[MEDIA_AGENT.runParentId] = run.parentRunId;
      if (this.#captureContent)
        attributes[GEN_AI.inputMessages] = JSON.stringify([
          { role: 'user', parts: [{ type: 'text', content: redacted(run.goal) }] },
        ]);
      span.setAttributes(attributes);
    }
    return { span, context: trace.setSpan(parent, span) };
  }

  /** Ends a run span with the run as it was left (status, usage, final text when content is captured). */
  endRun(scope: TraceScope, run: RunRecord): void {
    const { span } = scope;
    if (span.isRecording()) {
      span.setAttributes({
        [MEDIA_AGENT.runStatus]: run.status,
        [GEN_AI.usageInputTokens]: run.usage.inputTokens,
        [GEN_AI.usageOutputTokens]: run.usage.outputTokens,
      });
      if (run.error) {
        span.setAttribute(GEN_AI.errorType, run.error.code);
        span.setStatus({ code: SpanStatusCode.ERROR, message: run.error.code });
      }
      if (this.#captureContent && run.finalText)
        span.setAttribute(
          GEN_AI.outputMessages,
          JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: redacted(run.finalText) }] }]),
        );
    }
    span.end();
  }

  /** Starts the `chat` span of one model call (a client call to the provider). */
  startChat(
    parent: Context,
    request: { providerId: string; model: string; maxTokens: number | undefined; messages: readonly ModelMessage[] },
  ): TraceScope {
    const span = this.#tracer.startSpan(`${OPERATION.chat} ${request.model}`, { kind: SpanKind.CLIENT }, parent);
    if (span.isRecording()) {
      span.setAttributes({
        [GEN_AI.operationName]: OPERATION.chat,
        [GEN_AI.providerName]: request.providerId,
        [GEN_AI.requestModel]: request.model,
      });
      if (request.maxTokens) span.setAttribute(GEN_AI.requestMaxTokens, request.maxTokens);
      if (this.#captureContent)
        span.setAttribute(GEN_AI.inputMessages, summarizeInput(request.messages.map(messageContent)));
    }
    return { span, context: trace.setSpan(parent, span) };
  }

  /** Ends a chat span with token usage, the finish reason, the error code of a failed call, the reply when captured. */
  endChat(
    scope: TraceScope,
    turn: {
      usage: ModelUsage;
      stopReason: StopReason | undefined;
      error?: { code?: string; message: string } | undefined;
      message?: ModelMessage;
    },
  ): void {
    const { span } = scope;
    if (span.isRecording()) {
      span.setAttributes({
        [GEN_AI.usageInputTokens]: turn.usage.inputTokens,
        [GEN_AI.usageOutputTokens]: turn.usage.outputTokens,
        [GEN_AI.usageCacheReadTokens]: turn.usage.cacheReadTokens,
        [GEN_AI.usageCacheCreationTokens]: turn.usage.cacheWriteTokens,
      });
      if (turn.stopReason) span.setAttribute(GEN_AI.responseFinishReasons, [turn.stopReason]);
      if (turn.error) failed(span, turn.error.code ?? 'MODEL_FAILED');
      if (this.#captureContent && turn.message !== undefined)
        span.setAttribute(GEN_AI.outputMessages, summarizeInput([messageContent(turn.message)]));
    }
    span.end();
  }

  /**
   * Starts the `execute_tool` span of one tool call.
   * @param redact - the capability's `redact` paths (applied to captured arguments)
   */
  startTool(
    parent: Context,
    call: Pick<ToolCallPart, 'id' | 'name' | 'input'>,
    capability: { kind: string; redact?: readonly string[] } | undefined,
  ): TraceScope {
    const span = this.#tracer.startSpan(`${OPERATION.executeTool} ${call.name}`, { kind: SpanKind.INTERNAL }, parent);
    if (span.isRecording()) {
      span.setAttributes({
        [GEN_AI.operationName]: OPERATION.executeTool,
        [GEN_AI.toolName]: call.name,
        [GEN_AI.toolType]: 'function',
        [GEN_AI.toolCallId]: call.id,
      });
      if (capability) {
        span.setAttribute(MEDIA_AGENT.capabilityId, call.name);
        span.setAttribute(MEDIA_AGENT.capabilityKind, capability.kind);
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

/** A text with secret-looking parts redacted, cut at 256 characters (the audit summary's rules). */
function redacted(text: string): unknown {
  return JSON.parse(summarizeInput(text));
}

/**
 * What a message's content is, for a content attribute: role, text, and tool calls by name and
 * (parsed, later redacted) input — never the raw argument text, thinking, provider signatures or
 * image data.
 */
function messageContent(message: ModelMessage): unknown {
  if (typeof message.content === 'string') return { role: message.role, content: message.content };
  const parts: ReadonlyArray<{ type: string }> = message.content;
  return {
    role: message.role,
    content: parts.map((part) =>
      part.type === 'tool_call'
        ? {
            type: 'tool_call',
            id: (part as ToolCallPart).id,
            name: (part as ToolCallPart).name,
            input: (part as ToolCallPart).input,
          }
        : part.type === 'text'
          ? part
          : { type: part.type },
    ),
  };
}

function failed(span: Span, code: string): void {
  span.setAttribute(GEN_AI.errorType, code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}
