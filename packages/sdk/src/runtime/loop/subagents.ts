// Subagent runs seen from their parent: the budgets a child gets, its result, and a child left
// behind by a crash.
import type { InvocationResult } from '../../capabilities/invocation';
import type { RunEventBus } from '../events/run-event-bus';
import type { ModelMessage } from '../../models/types';
import type { Clock } from '../../ports/clock';
import type { JsonValue } from '../../core/records';
import type { RunRecord, RunUsage } from '../../core/run-records';
import type { StorageAdapter } from '../../ports/storage-adapter';
import { subagentFindings } from '../delegate-tool';
import { DEFAULT_RUN_BUDGETS, type RunBudgets } from '../run-budgets';
import { heldMs, SPEND_HOLD_STATE_KEY } from '../budgets/held-time';

/** Key of the parent's runtime state that maps a `delegate` call id to its child run id. */
export const SUBAGENTS_STATE_KEY = 'subagents';

/**
 * The budgets of a child: what is left of its parent's (they share them).
 * @param parent - the delegating run
 * @param usage - the parent's usage now
 * @param now - ms since epoch
 */
export function childBudgets(parent: RunRecord, usage: RunUsage, now: number): RunBudgets {
  const budgets = parent.budgets as unknown as RunBudgets;
  const left = (limit: number | null, used: number) => (limit === null ? null : Math.max(0, limit - used));
  return {
    maxToolCalls: Math.max(0, budgets.maxToolCalls - usage.toolCalls),
    maxDurationSec: Math.max(
      0,
      budgets.maxDurationSec -
        Math.floor(
          (now -
            (parent.startedAt ?? parent.createdAt) -
            heldMs((parent.runtimeState as Record<string, JsonValue> | null)?.[SPEND_HOLD_STATE_KEY])) /
            1000,
        ),
    ),
    maxTokensPerRun: left(budgets.maxTokensPerRun, usage.inputTokens + usage.outputTokens),
    maxCostUsdPerRun: left(budgets.maxCostUsdPerRun, usage.costUsd),
    maxModelCalls: Math.max(0, (budgets.maxModelCalls ?? DEFAULT_RUN_BUDGETS.maxModelCalls) - usage.modelCalls),
  };
}

/** The delegate tool result of a child run that ended: its report, and what it had read when it ended without one. */
export async function subagentResult(
  storage: StorageAdapter,
  child: RunRecord,
): Promise<Pick<InvocationResult, 'status' | 'output' | 'error'>> {
  const report = child.report as { summary?: string } | null;
  const output: Record<string, JsonValue> = {
    runId: child.id,
    status: child.status,
    finalText: child.finalText,
    summary: report?.summary ?? null,
    note: 'the subagent only read; its text is its own account, not verified facts',
  };
  if (child.status === 'succeeded') return { status: 'succeeded', output };
  const { findings, lastText } = subagentFindings(
    (await storage.messages.list(child.id)).map((m) => m.message as unknown as ModelMessage),
  );
  output.findings = findings as unknown as JsonValue;
  if (output.finalText === null && lastText !== null) output.lastText = lastText;
  if (findings.length > 0)
    output.note =
      'the subagent ended before its report; these are the results it had read so far (use them instead of reading again)';
  return {
    status: 'failed',
    output,
    error: { code: `SUBAGENT_${child.status.toUpperCase()}`, message: child.error?.message ?? child.status },
  };
}

/**
 * A child the parent was driving when it was interrupted: ended now if it has not ended (a live
 * driver elsewhere is asked to abort; nobody driving it: cancelled here), and its record read.
 */
export async function endOrphanedChild(
  deps: { storage: StorageAdapter; bus: RunEventBus; clock: Clock },
  childId: string,
  parent: RunRecord,
): Promise<RunRecord | undefined> {
  const now = deps.clock.now();
  const { storage, bus } = deps;
  const reason = `the parent run ${parent.id} was interrupted and resumed`;
  const outcome = await storage.transaction(async (s) => {
    const child = await s.runs.get(childId);
    if (!child || child.endedAt !== null) return { child, event: undefined };
    const live = child.leaseOwner !== null && (child.leaseExpiresAt ?? 0) > now;
    if (live)
      return {
        child: (await s.runs.patch(childId, { abortRequested: true, abortReason: reason, updatedAt: now })) ?? child,
        event: undefined,
      };
    const cancelled = await s.runs.patch(childId, {
      status: 'cancelled',
      abortReason: reason,
      endedAt: now,
      updatedAt: now,
      notBefore: null,
      wakeRequested: false,
      leaseOwner: null,
      leaseExpiresAt: null,
    });
    return {
      child: cancelled ?? child,
      event: await bus.emit(childId, 'run_status', { status: 'cancelled', step: child.step, reason }, s),
    };
  });
  if (outcome.event) bus.publish(outcome.event);
  // A live driver elsewhere (the process that took the child over) was asked to abort: its answer is the child's
  // end, so the parent reads the child once it ended, not while it is still running.
  if (outcome.child && outcome.child.endedAt === null) return (await childEnded(storage, childId)) ?? outcome.child;
  return outcome.child;
}

/** How long a resumed parent waits for a child whose live driver was asked to abort, in ms. */
const ORPHAN_ABORT_WAIT_MS = 15_000;
/** How often it looks, in ms. */
const ORPHAN_ABORT_POLL_MS = 50;

/** The child's record once it has ended, read every {@link ORPHAN_ABORT_POLL_MS} ms; undefined when it had not within {@link ORPHAN_ABORT_WAIT_MS} ms. */
async function childEnded(storage: StorageAdapter, childId: string): Promise<RunRecord | undefined> {
  const deadline = Date.now() + ORPHAN_ABORT_WAIT_MS;
  while (Date.now() < deadline) {
    const child = await storage.runs.get(childId);
    if (!child || child.endedAt !== null) return child ?? undefined;
    await new Promise((resolve) => setTimeout(resolve, ORPHAN_ABORT_POLL_MS));
  }
  return undefined;
}
