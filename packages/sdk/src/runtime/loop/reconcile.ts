// Crash reconciliation of a run's dangling tool calls.
import type { InvocationResult } from '../../capabilities/invocation';
import type { AssistantMessage, ToolCallPart, ToolResultMessage } from '../../models/types';
import type { LedgerEntry } from '../../core/records';
import { DELEGATE_TOOL } from '../delegate-tool';
import { toolResultMessage } from '../tool-result';
import type { Loop } from './loop';
import type { RunSession } from './run-session';
import { runRefusal } from './run-rule';
import { endOrphanedChild, SUBAGENTS_STATE_KEY, subagentResult } from './subagents';
import { TURN_FAILURES_STATE_KEY } from './turn-calls';
import { fencedResult } from './fenced-result';
import { mergeShown, recordShown, shownToChild } from './run-provenance-state';

/**
 * Answers the tool calls of the last assistant message that have no result (the process died after
 * the model asked for them, or before their step committed): a `delegate` call gets its child's
 * result (the child is ended first if it still runs); a call refused before the invocation path
 * (unknown tool, invalid, truncated or too large arguments: the turn's failures, stored with it) the
 * answer it got then, which never ran anything; any other call the ledger's record, else "outcome
 * unknown — verify before retrying". Nothing is run again. The results and their `tool_call` events
 * are written with the caller's step.
 */
export async function reconcileDanglingCalls(loop: Loop, session: RunSession): Promise<void> {
  const { deps } = loop;
  const messages = session.messages;
  const answered = new Set(messages.filter((m): m is ToolResultMessage => m.role === 'tool').map((m) => m.toolCallId));
  const last = [...messages].reverse().find((m): m is AssistantMessage => m.role === 'assistant');
  if (!last) return;
  const dangling = last.content.filter((p): p is ToolCallPart => p.type === 'tool_call' && !answered.has(p.id));
  if (dangling.length === 0) return;
  await deps.ledger.recover({ claimedBefore: deps.clock.now() + 1, runId: session.id });
  const children = (session.getState(SUBAGENTS_STATE_KEY) ?? {}) as Record<string, string>;
  const refused = new Map(Object.entries((session.getState(TURN_FAILURES_STATE_KEY) ?? {}) as Failures));
  for (const call of dangling) {
    const childId = call.name === DELEGATE_TOOL ? children[call.id] : undefined;
    const child = childId ? await endOrphanedChild(deps, childId, session.run) : undefined;
    if (child) {
      const result = await subagentResult(deps.storage, child);
      session.emit('tool_call', {
        callId: call.id,
        capabilityId: call.name,
        phase: result.status === 'succeeded' ? 'succeeded' : 'failed',
        ...(result.error ? { error: result.error } : {}),
      });
      // What the child was shown, the parent may now read in its findings.
      mergeShown(session, shownToChild(child));
      session.append(toolResultMessage(call.id, call.name, result, { recovered: true }));
      continue;
    }
    const failure = refused.get(call.id);
    const result = failure
      ? // Refused before the invocation path: answered as `tool-dispatch.ts` did, the run rule first.
        neverRan(runRefusal(deps.capabilities, session.run, call.name), failure)
      : outcomeOf(await deps.storage.ledger.findByCall(session.id, call.id));
    session.emit('tool_call', {
      callId: call.id,
      capabilityId: call.name,
      phase: result.status === 'succeeded' ? 'succeeded' : result.status,
      ...(result.error ? { error: result.error } : {}),
    });
    const descriptor = deps.capabilities.has(call.name) ? deps.capabilities.get(call.name) : undefined;
    if (descriptor && (result.status === 'succeeded' || result.status === 'pending'))
      recordShown(session, descriptor, result.output);
    // The recovered output reaches the model as a fresh one does: its untrusted text fenced.
    const shown = descriptor ? fencedResult(descriptor, result) : { result };
    session.append(
      toolResultMessage(call.id, call.name, shown.result, {
        recovered: true,
        ...(shown.dataNote ? { dataNote: shown.dataNote } : {}),
      }),
    );
  }
}

/** The calls of a turn that must not run, by call id, as `turn-calls.ts` stores them. */
type Failures = Record<string, { code: string; message: string }>;

type Outcome = Pick<InvocationResult, 'status' | 'output' | 'error'>;

/** The answer of a call that never reached a handler: denied by the run rule, else its failure. */
function neverRan(
  refusal: { code: string; message: string } | undefined,
  failure: { code: string; message: string },
): Outcome {
  return refusal ? { status: 'denied', error: refusal } : { status: 'failed', error: failure };
}

/** The ledger's record of a call, else "outcome unknown". */
function outcomeOf(entry: LedgerEntry | undefined): Outcome {
  if (entry && (entry.state === 'succeeded' || entry.state === 'pending'))
    return { status: entry.state, output: entry.output };
  if (entry?.state === 'failed')
    return { status: 'failed', error: entry.error ?? { code: 'FAILED', message: 'failed' } };
  return {
    status: 'unknown',
    error: {
      code: 'OUTCOME_UNKNOWN',
      message: 'the run was interrupted during this call and no receipt was recorded; verify before retrying',
    },
  };
}
