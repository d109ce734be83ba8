// The tool calls of one model turn: opened one at a time in model order (budget, abort, the
// middleware's verdict), answered "blocked" when refused, and closed when none is left.
import type { JsonValue } from '../../core/records';
import type { ToolCallPart } from '../../models/types';
import type { GuardCallKind } from '../guardrails/types';
import { checkRunBudgets, type RunBudgets } from '../run-budgets';
import { toolResultMessage } from '../tool-result';
import { askPerson, type GoalTargetQuestion } from './goal-targets';
import type { Loop } from './loop';
import { interruptedBy, type DriveEnd } from './outcomes';
import type { RunSession, StopRequest } from './run-session';
import { originRules } from '../unattended-origin';

/**
 * Runtime-state key of the calls of the latest turn that must not run, by call id (`{ code, message }`):
 * written with the turn's step (its assistant message), so a crash that loses the step answering them
 * still finds why they never ran (see `reconcile.ts`). Absent or `null` when the latest turn had none.
 */
export const TURN_FAILURES_STATE_KEY = 'turn_failures';

/** The call that is open (its `started` event written), about to run. */
export interface OpenCall {
  /** The call. */
  call: ToolCallPart;
  /** Its position in the turn. */
  index: number;
  /** What it runs (a capability kind, or `internal`). */
  kind: GuardCallKind;
}

/** The calls of one model turn and how far the run got through them. */
export class TurnCalls {
  /** Index of the next call to open. */
  next = 0;
  /** Calls the middleware let run. */
  ran = 0;
  /** The call opened last, until it has run. */
  current: OpenCall | undefined;
  /** A call found the goal ambiguous: the question for a person. */
  asked: GoalTargetQuestion | undefined;
  /** The failures were written to the run's state (with the turn's step). */
  recorded = false;

  /**
   * @param calls - the turn's calls in model order
   * @param failures - calls that must not run, by call id
   */
  constructor(
    readonly calls: readonly ToolCallPart[],
    readonly failures: ReadonlyMap<string, { code: string; message: string }>,
  ) {}
}

/** What opening the next call led to: a call to run, the end of the turn, or the end of the drive. */
export type CallOpening = { kind: 'run' } | { kind: 'turn_done' } | DriveEnd;

/**
 * Writes the turn's failures to the run's state with the step that opens its first call (the turn's
 * step: the assistant message commits in the same transaction), or clears those of an earlier turn.
 * A turn without failures after one without failures writes nothing.
 */
function recordFailures(session: RunSession, turn: TurnCalls): void {
  turn.recorded = true;
  if (turn.failures.size > 0)
    session.setState(TURN_FAILURES_STATE_KEY, Object.fromEntries(turn.failures) as unknown as JsonValue);
  else if ((session.getState(TURN_FAILURES_STATE_KEY) ?? null) !== null)
    session.setState(TURN_FAILURES_STATE_KEY, null);
}

/** The kind of what a call runs, as the loop guard and middleware see it. */
function callKind(loop: Loop, name: string): GuardCallKind {
  if (loop.tools.has(name)) return 'internal';
  return loop.deps.capabilities.has(name) ? loop.deps.capabilities.get(name).kind : 'internal';
}

/** The answer of a call a stopping host did not start (`host.stop()`'s drain). */
const HOST_STOPPING = Object.freeze({
  code: 'HOST_STOPPING',
  message:
    'the agent host was stopping before this call started, so it was not run; call it again if it is still needed',
});

/** A call that is not run: the model is told why; the event says blocked. */
function answerBlocked(
  session: RunSession,
  call: ToolCallPart,
  action: 'block' | 'stop',
  error: { code: string; message: string },
): void {
  session.emit('tool_call', { callId: call.id, capabilityId: call.name, phase: 'blocked', error });
  session.append(
    toolResultMessage(
      call.id,
      call.name,
      { status: 'failed', error },
      { blocked: action === 'stop' ? 'the run is stopping' : 'this call was not run' },
    ),
  );
}

/**
 * Opens the next call of the turn: calls after a stop, and while the host drains (`HOST_STOPPING`), are
 * answered blocked; every call the model
 * makes counts toward `maxToolCalls` (refused ones included); `beforeToolCall` may refuse it (blocked)
 * or stop the run. The first call let through gets its `started` event and is returned to run.
 * With no call left, the turn is closed.
 */
export async function openNextCall(loop: Loop, session: RunSession, turn: TurnCalls): Promise<CallOpening> {
  const budgets = session.run.budgets as unknown as RunBudgets;
  turn.current = undefined;
  if (!turn.recorded) recordFailures(session, turn);
  while (turn.next < turn.calls.length) {
    const index = turn.next;
    const call = turn.calls[index]!;
    if (session.stop) {
      answerBlocked(session, call, 'stop', { code: session.stop.code, message: session.stop.message });
      turn.next++;
      continue;
    }
    if (session.lease.drain?.aborted) {
      // The host is stopping: no call starts now; the model is told it did not run (the next worker's turn may ask again).
      answerBlocked(session, call, 'block', HOST_STOPPING);
      turn.next++;
      continue;
    }
    const overBudget = checkRunBudgets({ ...session.usage, toolCalls: session.usage.toolCalls + 1 }, budgets, 0);
    if (overBudget?.budget === 'maxToolCalls') return { kind: 'budget', breach: overBudget };
    if (session.lease.signal.aborted) return interruptedBy(session.lease);
    session.addUsage({ toolCalls: 1 });
    turn.next++;
    const kind = callKind(loop, call.name);
    const refused = await loop.pipeline.beforeToolCall(session, call, index, kind);
    if (refused) {
      const { action, code, message } = refused.verdict;
      if (action === 'stop')
        session.stop ??= { code, message, kind: 'stop', by: refused.entry.by, source: refused.entry.source };
      answerBlocked(session, call, action === 'stop' ? 'stop' : 'block', { code, message });
      continue;
    }
    const stop = session.stop as StopRequest | undefined; // may be set by a hook that let the call through
    if (stop) {
      // A middleware ended the run without refusing the call: it is not run either.
      answerBlocked(session, call, 'stop', { code: stop.code, message: stop.message });
      continue;
    }
    turn.ran++;
    session.emit('tool_call', { callId: call.id, capabilityId: call.name, phase: 'started' });
    turn.current = { call, index, kind };
    return { kind: 'run' };
  }
  return closeTurn(loop, session, turn);
}

/**
 * Closes a turn: counts a turn whose every call was refused (the next model call waits first),
 * puts an ambiguous goal to a person, and ends the drive when something asked it to stop.
 */
async function closeTurn(loop: Loop, session: RunSession, turn: TurnCalls): Promise<CallOpening> {
  session.refusedTurns = turn.ran === 0 ? session.refusedTurns + 1 : 0;
  if (session.refusedTurns === 0) session.pausedFor = 0;
  if (turn.asked) {
    await askPerson(loop.deps, session, turn.asked);
    return { kind: 'paused', code: 'GOAL_TARGET_AMBIGUOUS', reason: `${turn.asked.question} Reply to continue.` };
  }
  if (session.stop) return stopDrive(session, session.stop);
  return { kind: 'turn_done' };
}

/**
 * The end of a drive something asked for: `fail` ends it failed; `stop` is announced by a `warning`
 * event, then an interactive run waits for its user and other runs end failed.
 */
export function stopDrive(session: RunSession, stop: StopRequest): DriveEnd {
  if (stop.kind === 'fail') return { kind: 'failed', code: stop.code, message: stop.message };
  session.emit('warning', {
    source: stop.source,
    code: stop.code,
    message: stop.message,
    ...(stop.source === 'runtime' ? { details: { stoppedBy: stop.by } } : {}),
  });
  // An attended run waits for its user; background, channel and scheduled runs end.
  if (originRules(session.run.origin).attended)
    return {
      kind: 'paused',
      code: stop.code,
      reason: `paused by ${stop.by} (${stop.code}): send a message to continue`,
    };
  return { kind: 'failed', code: stop.code, message: `stopped by ${stop.by}: ${stop.message}` };
}
