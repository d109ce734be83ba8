import type { SubmittedDownload } from '@media-agent/host-adapter-kit';
/** A download the adapter submitted, as the journal keeps it. @public */
export type V3JournalDownload = SubmittedDownload;

/** An organize the adapter executed. @public */
export interface V3JournalOrganize {
  /** Organize plan id. */
  planId: string;
  /** Download hash it organized. */
  downloadId: string;
  /** Media entity. */
  mediaEntityId: string;
  /** Idempotency key of the execute. */
  idempotencyKey: string | null;
}

/**
 * What each run touched on the host (media entities, plans, downloads, organizes), kept by the
 * adapter so `GoalFacts` can ask the host about exactly those. In memory, per process; `V3GoalFacts`
 * completes it from the run's stored `tool_call` receipts, so a run resumed by another process (or after
 * a restart) reports the same facts.
 * @public
 */
export class V3RunJournal {
  readonly #touched = new Map<string, Map<string, string>>();
  readonly #plans = new Map<
    string,
    Array<{ id: string; type: 'download' | 'organize'; mediaEntityId: string | null }>
  >();
  readonly #downloads = new Map<string, V3JournalDownload>();
  readonly #downloadRuns = new Map<string, Set<string>>();
  readonly #organizes = new Map<string, V3JournalOrganize[]>();

  /** Records that a run looked at a media entity. @param runId - run (ignored when undefined); @param mediaEntityId - entity; @param title - display title */
  touch(runId: string | undefined, mediaEntityId: string, title: string): void {
    if (!runId) return;
    let m = this.#touched.get(runId);
    if (!m) this.#touched.set(runId, (m = new Map()));
    if (!m.has(mediaEntityId) || title !== mediaEntityId) m.set(mediaEntityId, title);
  }

  /** Records a plan a run created. @param runId - run; @param plan - id, type, entity */
  addPlan(
    runId: string | undefined,
    plan: { id: string; type: 'download' | 'organize'; mediaEntityId: string | null },
  ): void {
    if (!runId) return;
    const list = this.#plans.get(runId) ?? [];
    if (!list.some((p) => p.id === plan.id)) list.push(plan);
    this.#plans.set(runId, list);
  }

  /** Records a submitted download (and which run submitted it). @param runId - run; @param d - the download */
  addDownload(runId: string | undefined, d: V3JournalDownload): void {
    this.#downloads.set(d.hash, d);
    if (!runId) return;
    const set = this.#downloadRuns.get(runId) ?? new Set();
    set.add(d.hash);
    this.#downloadRuns.set(runId, set);
    this.touch(runId, d.mediaEntityId, d.title);
  }

  /** Records an executed organize. @param runId - run; @param o - the organize */
  addOrganize(runId: string | undefined, o: V3JournalOrganize): void {
    const key = runId ?? '';
    const list = this.#organizes.get(key) ?? [];
    if (!list.some((x) => x.planId === o.planId)) list.push(o);
    this.#organizes.set(key, list);
  }

  /** A download by hash. @param hash - torrent hash */
  download(hash: string): V3JournalDownload | undefined {
    return this.#downloads.get(hash);
  }

  /** Every download submitted through the adapter. */
  downloads(): V3JournalDownload[] {
    return [...this.#downloads.values()];
  }

  /** Every organize executed through the adapter. */
  organizes(): V3JournalOrganize[] {
    return [...this.#organizes.values()].flat();
  }

  /** What one run touched. @param runId - run id */
  forRun(runId: string): {
    touched: Array<{ mediaEntityId: string; title: string }>;
    plans: Array<{ id: string; type: 'download' | 'organize'; mediaEntityId: string | null }>;
    downloads: V3JournalDownload[];
    organizes: V3JournalOrganize[];
  } {
    return {
      touched: [...(this.#touched.get(runId) ?? new Map()).entries()].map(([mediaEntityId, title]) => ({
        mediaEntityId,
        title,
      })),
      plans: [...(this.#plans.get(runId) ?? [])],
      downloads: [...(this.#downloadRuns.get(runId) ?? [])].map((h) => this.#downloads.get(h)!).filter(Boolean),
      organizes: [...(this.#organizes.get(runId) ?? [])],
    };
  }
}
