// The reservation of a compaction summary call: the run's own model call, reserved for the run's owner like
// every other (docs/budgets.md).
import { runOwner } from '../../authorization/run-owner';
import type { BudgetAmounts } from '../../core/budget-records';
import { priceFor } from '../../models/cost';
import type { Clock } from '../../ports/clock';
import type { StorageAdapter } from '../../ports/storage-adapter';
import type { SpendLedger } from './spend-ledger';
import { DEFAULT_RESERVED_OUTPUT_TOKENS, worstCaseOf } from './worst-case';

/** A summary call's reservation: settle it to what the call cost, or release it when the call failed. */
export interface SummaryReservation {
  /** Settles to the real usage. */
  settle(spent: BudgetAmounts): Promise<void>;
  /** Releases it (the call failed without usage). */
  release(): Promise<void>;
}

/**
 * Reserves a summary call's worst case (its estimated input, the default output reserve, the model's price) for
 * the run's owner, under the key `<runId>:summary:<messages summarized>:<time>`.
 * @throws an error when a cap has no room (the summary call is then not made)
 */
export async function reserveSummary(
  deps: {
    spending?: SpendLedger;
    storage: StorageAdapter;
    clock: Clock;
    settings: { model: string; maxTokens: number | undefined };
  },
  run: { id: string; startedBy: string; parentRunId: string | null },
  inputTokens: number,
): Promise<SummaryReservation | undefined> {
  const ledger = deps.spending;
  if (!ledger) return undefined;
  const key = `${run.id}:summary:${inputTokens}:${deps.clock.now()}`;
  const outcome = await ledger.reserve({
    key,
    subject: await runOwner(deps.storage.runs, run),
    runId: run.id,
    amounts: worstCaseOf(
      inputTokens,
      deps.settings.maxTokens ?? DEFAULT_RESERVED_OUTPUT_TOKENS,
      priceFor(deps.settings.model),
    ),
  });
  if (!outcome.ok)
    throw new Error(
      `the ${outcome.breach.period} ${outcome.breach.budget} budget of ${outcome.breach.subject} has no room for a summary call`,
    );
  return {
    settle: async (spent) => void (await ledger.settle(key, spent)),
    release: async () => void (await ledger.release(key)),
  };
}
