// The shape of the runtime's own tools (the rows of the tool table).
import type { InvocationResult } from '../../capabilities/invocation';
import { MediaAgentError } from '../../core/errors';
import type { ModelTool, ToolCallPart } from '../../models/types';
import type { RunRecord, RunUsage } from '../../core/run-records';
import type { RunSession } from '../loop/run-session';
import type { Context } from '@opentelemetry/api';

/** One call of a runtime tool, as its `run` function gets it. */
export interface RuntimeToolCall {
  /** The run (its writes are part of the current step). */
  session: RunSession;
  /** The call. */
  call: ToolCallPart;
  /** Commits the step so far (before a long external action the run must find after a crash); false when the lease was lost. */
  checkpoint(): Promise<boolean>;
  /** The OpenTelemetry context of the call's `execute_tool` span (what a subagent's span starts in). */
  trace: Context;
}

/** What a runtime tool call produced. */
export interface RuntimeToolOutcome {
  /** The result the model gets (status, output or error). */
  result: Pick<InvocationResult, 'status' | 'output' | 'error'>;
  /** Usage of a subagent driven by the call, added to the run's. */
  childUsage?: RunUsage;
}

/**
 * A tool the runtime answers itself (never a capability, never on the invocation path): a row of
 * the tool table.
 */
export interface RuntimeTool {
  /** The name the model calls. */
  readonly name: string;
  /** Its definition as offered to models. */
  readonly modelTool: ModelTool;
  /** Offered only with a tool discovery (`search_tools`). */
  readonly discoveryOnly: boolean;
  /** Whether the run may use it (e.g. `delegate` below the subagent depth limit). */
  available(run: RunRecord): boolean;
  /** Answers one call. */
  run(call: RuntimeToolCall): Promise<RuntimeToolOutcome>;
}

/** A failed outcome from an error: its code when it is a `MediaAgentError`, else `fallbackCode`. */
export function failedOutcome(error: unknown, fallbackCode: string): RuntimeToolOutcome {
  const code = error instanceof MediaAgentError ? error.code : fallbackCode;
  return {
    result: { status: 'failed', error: { code, message: error instanceof Error ? error.message : String(error) } },
  };
}
