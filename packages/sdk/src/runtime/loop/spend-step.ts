// The run loop's side of the spending budgets: who a run spends for, the reservation of each model call around
// the call, the charge of a run's start, and the decision a resumed run no longer needs (docs/budgets.md).
import { runOwner } from '../../authorization/run-owner';
import type { BudgetAmounts } from '../../core/budget-records';
import type { DecisionRecord } from '../../core/run-records';
import { priceFor } from '../../models/cost';
import type { ModelMessage, ModelTool } from '../../models/types';
import { estimateRequestTokens } from '../context/compaction';
import { BUDGET_REACHED_KIND, BUDGETS_ACTOR } from '../budgets/budget-reached';
import type { SpendBreach } from '../budgets/cap-check';
import { modelCallKey, runStartKey } from '../budgets/reservation-key';
import { reservationNeeded } from '../budgets/reservation-needed';
import { DEFAULT_RESERVED_OUTPUT_TOKENS, spentOf, worstCaseOf } from '../budgets/worst-case';
import type { Loop } from './loop';
import type { RunSession } from './run-session';
import { flushWaitingWrites } from './deferred-commit';
import { decisionEventData } from '../decisions/decision-events';

/** Thrown by {@link reservedCall} when a cap has no room for the call: nothing was sent, nothing charged. */
export class SpendCapReached extends Error {
  constructor(readonly breach: SpendBreach) {
    super(`the ${breach.period} ${breach.budget} budget of ${breach.subject} is reached`);
  }
}

/**
 * Thrown inside the start's step transaction when a runs cap has no room for the run's start: the transaction rolls
 * back (nothing of the start is stored) and the drive ends `budget_reached`.
 */
export class StartChargeRefused extends Error {
  constructor(readonly breach: SpendBreach) {
    super(`the ${breach.period} ${breach.budget} budget of ${breach.subject} is reached`);
  }
}

/** Per processing of a run: its owner, the model-call counter of the current turn, and whether it resumed from a budget pause. */
interface SpendState {
  owner?: string;
  turn: number;
  attempt: number;
  resumed: boolean;
  /** The start's step carries a start charge a runs cap may refuse when it commits. */
  refusable?: boolean;
}
const states = new WeakMap<RunSession, SpendState>();
function stateOf(session: RunSession): SpendState {
  let state = states.get(session);
  if (!state) states.set(session, (state = { turn: -1, attempt: 0, resumed: false }));
  return state;
}

/** The subject a run spends for: its owner (who started it; for a subagent, who started its top-level run). */
export async function spender(loop: Loop, session: RunSession): Promise<string> {
  const state = stateOf(session);
  state.owner ??= await runOwner(loop.deps.storage.runs, session.run);
  return state.owner;
}

/**
 * True when the step in progress carries a run start charge that a runs cap may refuse when it commits
 * ({@link StartChargeRefused}): that step commits before the run's first model call.
 */
export function startChargeRefusable(session: RunSession): boolean {
  return stateOf(session).refusable === true;
}

/** Marks a processing that resumed a run paused at a spending cap: its decision is resolved once it spends again. */
export function markBudgetResume(session: RunSession): void {
  stateOf(session).resumed = true;
}

/**
 * Counts the start of a top-level run against its owner's and the household's runs caps (a subagent is part of
 * its parent's run and does not count). Idempotent per run. A first start rides on the start's step (see
 * `StepWrites.riding`): checked and charged inside that transaction, which a refusal rolls back
 * ({@link StartChargeRefused}); a run resuming from a budget hold is checked and charged in a transaction of its own
 * before anything of the start is written.
 * @returns the cap it would pass, or null (counted, or nothing to count)
 */
export async function chargeRunStart(loop: Loop, session: RunSession): Promise<SpendBreach | null> {
  const spending = loop.deps.spending;
  if (!spending || session.run.parentRunId !== null) return null;
  const subject = await spender(loop, session);
  const amounts: BudgetAmounts = { runs: 1, modelCalls: 0, tokens: 0, costUsd: 0 };
  const key = runStartKey(session.id);
  // A start that resumes nothing (no budget decision waits to be resolved) is charged in the start's step, checked
  // against the caps inside that transaction: refused, the whole step rolls back (StartChargeRefused) and nothing of
  // the start is stored; no runs cap limits it, it is only recorded. Its key makes it count once.
  if (!stateOf(session).resumed) {
    const caps = await spending.capsOf(subject);
    const checked = reservationNeeded(caps, amounts) ? caps : null;
    stateOf(session).refusable = checked !== null;
    session.writes.riding.push(async (s) => {
      const outcome = await spending.reserveIn(s, { key, subject, runId: session.id, amounts, settled: true }, checked);
      if (!outcome.ok) throw new StartChargeRefused(outcome.breach);
    });
    return null;
  }
  const outcome = await spending.reserve({ key, subject, runId: session.id, amounts, settled: true });
  if (!outcome.ok) return outcome.breach;
  await resolveBudgetDecisions(loop, session);
  return null;
}

/**
 * One model call with its reservation: the worst case (estimated input tokens + max output tokens, priced when
 * the model's price is known) is reserved for the run's owner before `call` runs, under the key of this turn and
 * attempt — when a cap limits it ({@link reservationNeeded}) — then settled to the reported usage, or released
 * when the call failed without usage, in the transaction of the step that used the call (released at once when
 * it threw). A call no cap limits is not reserved: its cost is recorded, settled, with that step.
 * @throws {@link SpendCapReached} when a cap has no room (the call is not made)
 */
export async function reservedCall<
  T extends {
    usage: { inputTokens: number; outputTokens: number };
    costUsd: number;
    error?: unknown;
    aborted: boolean;
  },
>(
  loop: Loop,
  session: RunSession,
  request: { messages: readonly ModelMessage[]; tools: readonly ModelTool[] },
  call: () => Promise<T>,
): Promise<T> {
  const spending = loop.deps.spending;
  if (!spending) return call();
  const { settings, counter, logger } = loop.deps;
  const state = stateOf(session);
  if (state.turn !== session.storedCount) {
    state.turn = session.storedCount;
    state.attempt = 0;
  } else state.attempt++;
  const key = modelCallKey(session.id, state.turn, state.attempt);
  const input = estimateRequestTokens(counter, request.messages, request.tools, settings.model);
  const amounts: BudgetAmounts = worstCaseOf(
    input,
    settings.maxTokens ?? DEFAULT_RESERVED_OUTPUT_TOKENS,
    priceFor(settings.model),
  );
  const subject = await spender(loop, session);
  const caps = await spending.capsOf(subject);
  // Reserved (its own commit) only when a cap limits what it may cost; else its cost rides on the step's commit.
  const reserved = reservationNeeded(caps, amounts);
  if (reserved) {
    const outcome = await spending.reserve({ key, subject, runId: session.id, amounts });
    if (!outcome.ok) throw new SpendCapReached(outcome.breach);
  }
  if (state.resumed) await resolveBudgetDecisions(loop, session);
  let result: T;
  try {
    result = await call();
  } catch (error) {
    if (reserved)
      await spending
        .release(key)
        .catch((e: Error) => logger.warn('a budget reservation could not be released', { key, message: e.message }));
    throw error;
  }
  const spent = spentOf({ ...result.usage, costUsd: result.costUsd });
  const nothing = spent.tokens === 0 && spent.costUsd === 0;
  const failed = (result.error !== undefined || result.aborted) && nothing;
  // Settled (or recorded) with the step that used the call; a crash before that commit leaves a reservation's
  // worst case counted, and the resent call (the same key) settles it.
  if (reserved)
    session.writes.riding.push((s) => (failed ? spending.releaseIn(s, key) : spending.settleIn(s, key, spent)));
  else if (!failed)
    session.writes.riding.push((s) =>
      spending.reserveIn(s, { key, subject, runId: session.id, amounts: spent, settled: true }, null),
    );
  return result;
}

/** Resolves the open `budget_reached` decisions of the run: it spends again (the cap was raised or the period ended). */
async function resolveBudgetDecisions(loop: Loop, session: RunSession): Promise<void> {
  const state = stateOf(session);
  if (!state.resumed) return;
  state.resumed = false;
  const { storage, bus, clock } = loop.deps;
  const open = await storage.decisions.list({ subjectId: session.id, kind: BUDGET_REACHED_KIND, status: 'open' });
  // Written in transactions of their own: what waits of earlier steps (the run's start) commits first (event order).
  if (open.length > 0) await flushWaitingWrites(session);
  for (const d of open) {
    const now = clock.now();
    const record: DecisionRecord = {
      ...d,
      status: 'resolved',
      resolvedBy: BUDGETS_ACTOR,
      resolution: { optionId: null, note: 'the budget has room again: the run resumed', execution: { kind: 'none' } },
      revision: d.revision + 1,
      updatedAt: now,
      resolvedAt: now,
    };
    const event = await storage.transaction(async (s) => {
      if (!(await s.decisions.update(record, d.revision))) return undefined;
      return bus.emit(
        session.id,
        'decision.updated',
        { ...decisionEventData(record, BUDGETS_ACTOR), change: 'resolved' },
        s,
      );
    });
    if (event) bus.publish(event);
  }
}
