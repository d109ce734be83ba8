/**
 * Business facts about what one run touched, for the verified goal report. Built by the host from its own records —
 * never from model text.
 * @public
 */
export interface GoalFactsSnapshot {
  /**
   * Plans (SDK plan artifacts) the run created: `draft` not submitted or executed yet; `submitted` handed
   * to the downloader or organizer, not finished; `done` its effect is complete (the download was
   * imported, the organize succeeded); `failed` it will not complete (download failed or removed,
   * organize failed, submit refused).
   */
  plans: Array<{
    /** Plan id (as returned in `plan.id` by `download.plan` / `organize.plan`). */
    id: string;
    /** `download` or `organize`. */
    type: 'download' | 'organize';
    /** Media entity the plan targets (`<source>:<id>`, e.g. `tmdb:693134`), or null when unknown. */
    mediaEntityId: string | null;
    /** Where the plan stands now. */
    status: 'draft' | 'submitted' | 'done' | 'failed';
  }>;
  /**
   * Downloader jobs the run submitted (or rechecked, retried or cancelled), with their status now:
   * `queued` → `downloading` → `completed` (files downloaded, not in the library) → `imported` (in the
   * library); `stalled` (no progress), `failed`, `removed` (cancelled). "Submitted" is never "imported".
   */
  downloads: Array<{
    /** Download (task) id. */
    id: string;
    /** Media entity downloaded (`<source>:<id>`). */
    mediaEntityId: string;
    /** Display title of the media entity. */
    title: string;
    /** Status now; see the list above. */
    status: 'queued' | 'downloading' | 'completed' | 'imported' | 'stalled' | 'failed' | 'removed';
  }>;
  /**
   * Organize (import into the library) records of the run: those it executed, and automatic imports of
   * downloads it submitted. `succeeded` means the files are in the library.
   */
  organizes: Array<{
    /** The host's id of the organize (import) record. */
    id: string;
    /** Download it imported, or null when it organized something else. */
    downloadId: string | null;
    /** Media entity organized (`<source>:<id>`). */
    mediaEntityId: string;
    /** `running`, `succeeded` (the files are in the library) or `failed`. */
    status: 'running' | 'succeeded' | 'failed';
    /** Where the title is in the library (set when `succeeded`), else null. */
    libraryPath: string | null;
  }>;
  /** Media entities the run looked up, planned, downloaded or organized, and whether each is in the library now. */
  library: Array<{
    /** Media entity id (`<source>:<id>`). */
    mediaEntityId: string;
    /** Display title. */
    title: string;
    /** True when the title is in the library now. */
    present: boolean;
  }>;
}

/**
 * The port through which the host tells the run driver what a run touched: the
 * goal-settled step polls it until every plan, download and organize is settled, and finalize
 * builds the `AgentGoalReport` from it.
 * @public
 */
export interface GoalFacts {
  /**
   * The facts about one run, as of now.
   * @param runId - the run id (the `runId` its capability calls carried)
   * @param signal - aborts the read
   * @returns a snapshot; empty arrays when the run touched nothing
   */
  forRun(runId: string, signal?: AbortSignal): Promise<GoalFactsSnapshot>;
}
