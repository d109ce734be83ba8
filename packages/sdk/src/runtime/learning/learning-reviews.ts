// The background reviews of one host process: at most one per conversation, cancellable, and the
// usage each one still owes its conversation.
import type { RunUsage } from '../../core/run-records';
import type { ReviewUsage } from '../../skills/review-run';

/** A running review. */
interface Running {
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

/** Usage a review added to the stored run while no drive held it, and the run's usage before and after. */
export interface SavedReviewUsage {
  /** The run's stored usage before the review's was added. */
  readonly before: RunUsage;
  /** What was added. */
  readonly delta: ReviewUsage;
}

/**
 * The background learning reviews running in this process (`host.learning`).
 * @public
 */
export interface LearningReviewsHandle {
  /** Ids of the conversations (runs) whose review is running now. */
  running(): string[];
  /** Resolves when no review is running (tests, orderly shutdown). */
  idle(): Promise<void>;
}

/**
 * The reviews of one process. A conversation has at most one review (reviews never stack); a newer
 * review never loses its slot to an older one that finishes late.
 */
export class LearningReviews implements LearningReviewsHandle {
  readonly #running = new Map<string, Running>();
  readonly #owed = new Map<string, ReviewUsage>();
  readonly #saved = new Map<string, SavedReviewUsage>();
  #sealed = false;

  /** Whether a review of `runId` is running. */
  has(runId: string): boolean {
    return this.#running.has(runId);
  }

  /** {@inheritDoc LearningReviewsHandle.running} */
  running(): string[] {
    return [...this.#running.keys()];
  }

  /**
   * Starts a review of `runId` unless one is running or the host stopped.
   * @param review - the review; it gets the signal that cancels it
   * @returns whether it started
   */
  launch(runId: string, review: (signal: AbortSignal) => Promise<void>): boolean {
    if (this.#sealed || this.#running.has(runId)) return false;
    const controller = new AbortController();
    const done = review(controller.signal).finally(() => {
      if (this.#running.get(runId)?.controller === controller) this.#running.delete(runId);
    });
    this.#running.set(runId, { controller, done });
    return true;
  }

  /**
   * Cancels the review of `runId` and waits for it at most `waitMs`. A review still running after that
   * (a provider that ignores the abort) is abandoned: it keeps its signal aborted, so every later write of
   * it is refused, but it no longer holds the conversation's slot, so `idle()` resolves and the next due
   * review can start.
   * @returns whether the review was abandoned
   */
  async cancel(runId: string, waitMs: number): Promise<boolean> {
    const review = this.#running.get(runId);
    if (!review) return false;
    review.controller.abort();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = await Promise.race([
      review.done.then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), waitMs))),
    ]);
    clearTimeout(timer);
    if (ended || this.#running.get(runId) !== review) return false;
    this.#running.delete(runId);
    return true;
  }

  /** {@inheritDoc LearningReviewsHandle.idle} */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running.values()].map((r) => r.done));
  }

  /** Cancels every review, waits at most `waitMs` for them, and starts no more. */
  async stop(waitMs: number): Promise<void> {
    this.#sealed = true;
    await Promise.all(this.running().map((id) => this.cancel(id, waitMs)));
  }

  /** Usage a review could not save on its run (a drive held it): the next drive charges it. */
  owe(runId: string, usage: ReviewUsage): void {
    const prior = this.#owed.get(runId);
    this.#owed.set(runId, prior ? addReviewUsage(prior, usage) : usage);
  }

  /** Usage a review saved on its run while no drive held it (the next drive checks it took it in). */
  saved(runId: string, saved: SavedReviewUsage): void {
    this.#saved.set(runId, saved);
  }

  /** Takes only what `runId` is owed (a drive in progress charges it, or its end saves it). */
  takeOwed(runId: string): ReviewUsage | undefined {
    const owed = this.#owed.get(runId);
    this.#owed.delete(runId);
    return owed;
  }

  /** Takes what `runId` is owed and what was saved on it since its last drive. */
  take(runId: string): { owed: ReviewUsage | undefined; saved: SavedReviewUsage | undefined } {
    const owed = this.#owed.get(runId);
    const saved = this.#saved.get(runId);
    this.#owed.delete(runId);
    this.#saved.delete(runId);
    return { owed, saved };
  }
}

/** The sum of two usages. */
export function addReviewUsage(a: ReviewUsage, b: ReviewUsage): ReviewUsage {
  return {
    modelCalls: a.modelCalls + b.modelCalls,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    costUsd: a.costUsd + b.costUsd,
  };
}
