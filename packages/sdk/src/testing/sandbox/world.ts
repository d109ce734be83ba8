import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { MediaAgentError } from '../../core/errors';
import { MediaStateError, type MediaStateCode } from '../../media/errors';
import { mediaEntityId as entityIdOf, parseMediaEntityId } from '../../media/identity';
import type {
  DownloadJob,
  DownloadStatus,
  MediaItem,
  OrganizeRecord,
  PolicySettings,
  Release,
  Task,
} from '../../media/schemas';
import { SystemClock, type Clock } from '../../ports/clock';
import type { GoalFacts, GoalFactsSnapshot } from '../../runtime/goal-facts';
import {
  SANDBOX_DEFAULT_LIBRARY,
  SANDBOX_DOWNLOAD_ROOT,
  SANDBOX_QUARANTINE_DAYS,
  SANDBOX_TITLES,
  SANDBOX_VOLUMES,
  sandboxReleaseFiles,
  sandboxReleases,
  type SandboxRelease,
  type SandboxTitle,
  type SandboxVolume,
} from './data';
import { hostileReleases, type InjectionItem } from './injection-corpus';
import {
  emptyDisk,
  fileAt,
  freeBytesAt,
  inQuarantine,
  purgeExpired,
  quarantine,
  removeFile,
  restoreQuarantine,
  settleFreeBytes,
  transfer,
  volumeOf,
  writeFile,
  type SandboxDisk,
  type SandboxFile,
  type SandboxQuarantineEntry,
} from './disk';

/**
 * Fault switches of the sandbox world. Not persisted: they come from the options
 * and {@link SandboxWorld.setFaults}.
 * @public
 */
export interface SandboxFaults {
  /** `download.submit` adds the job to the downloader, then throws `OutcomeUnknownError` (a timeout after the effect). */
  submitTimesOutAfterEffect: boolean;
  /** Jobs stop progressing and report `stalled` (from the moment the switch is on; new jobs stall at once) until rechecked or retried with the switch off. */
  stallDownloads: boolean;
  /** Jobs stop and report `failed` (like `stallDownloads`), until retried with the switch off. */
  failDownloads: boolean;
}

/**
 * How long each downloader phase takes, in milliseconds of the world's clock.
 * @public
 */
export interface SandboxDurations {
  /**
   * `queued` before downloading starts.
   * @defaultValue 2 000
   */
  queuedMs: number;
  /**
   * `downloading` from 0 to 100 %.
   * @defaultValue 10 000
   */
  downloadMs: number;
  /**
   * `completed` before the automatic import.
   * @defaultValue 2 000
   */
  importMs: number;
}

/** Options of {@link SandboxWorld}. @public */
export interface SandboxWorldOptions {
  /** Time source; give it the host's clock (`ManualClock` in tests, `SystemClock` in a demo). Default `SystemClock`. */
  clock?: Clock;
  /** Phase durations in ms (defaults in {@link SandboxDurations}). */
  durations?: Partial<SandboxDurations>;
  /** Fault switches (all off by default). */
  faults?: Partial<SandboxFaults>;
  /**
   * Import completed downloads into the library automatically, like MoviePilot's transfer.
   * @defaultValue true
   */
  autoImport?: boolean;
  /**
   * Catalog; used only when the world is created empty.
   * @defaultValue {@link SANDBOX_TITLES}
   */
  titles?: readonly SandboxTitle[];
  /**
   * Media entity ids (`tmdb:<id>`) in the library at creation; used only when the world is created empty.
   * @defaultValue {@link SANDBOX_DEFAULT_LIBRARY}
   */
  library?: readonly string[];
  /**
   * Library root directory.
   * @defaultValue `/media/library`
   */
  libraryRoot?: string;
  /** JSON file: loaded at creation when it exists, written (atomically) after every mutation. */
  filePath?: string;
  /**
   * Disk volumes (capacity, free bytes at creation); used only when the world is created empty (or loaded from a
   * state saved before the disk model).
   * @defaultValue {@link SANDBOX_VOLUMES} (one 4 TB volume for `/media` and `/downloads`, 412 GB free)
   */
  volumes?: readonly SandboxVolume[];
  /**
   * Days deleted and overwritten files stay in the quarantine folder before they are purged.
   * @defaultValue {@link SANDBOX_QUARANTINE_DAYS} (14)
   */
  quarantineDays?: number;
  /**
   * Seeds the indexer with hostile releases made from injection corpus items (see `hostileReleases`): their text
   * as release names or NFO texts, on every catalog title or those in `mediaIds` (TMDB ids). Used only when the
   * world is created empty. Default: off.
   */
  injection?: { items: readonly InjectionItem[]; mediaIds?: readonly string[] };
}

/** One call a sandbox capability's handler received (kept in memory, not in the state). @public */
export interface SandboxHandlerCall {
  /** Capability id. */
  capability: string;
  /** The input the handler received. */
  input: unknown;
  /** The run it was called for, or null (a person's `host.invoke`). */
  runId: string | null;
  /** World time of the call (ms). */
  at: number;
}

/** One file an organize put into the library: from the download folder to the library, by the organize's mode. @public */
export interface SandboxOrganizeFile {
  /** Step id of the organize plan (`movie` or an episode code such as `S01E03`). */
  id: string;
  /** Source path (download folder). */
  from: string;
  /** Target path (library). */
  to: string;
}

/** One file of a download (absolute path in the download folder). @public */
export interface SandboxDownloadFile {
  /** Absolute path. */
  path: string;
  /** Size in bytes. */
  sizeBytes: number;
  /** Episode code (`S01E03`), or null for a film. */
  episode: string | null;
}

/** One step of an organize plan: one file to put into the library. @public */
export interface SandboxOrganizeStep extends SandboxOrganizeFile {
  /** What people read: the target file name. */
  label: string;
  /** Size in bytes. */
  sizeBytes: number;
}

/** What putting some files into the library would do, in bytes and files (see {@link SandboxWorld.organizeEffect}). @public */
export interface SandboxOrganizeEffect {
  /** Files created in the library (hardlink, copy). */
  filesCreated: number;
  /** Files moved from the download folder (move). */
  filesMoved: number;
  /** Library files replaced (they go to quarantine). */
  overwrites: string[];
  /** Bytes written (copy, or a move across volumes). */
  writeBytes: number;
  /** Bytes freed on the source volume (a move across volumes). */
  freedBytes: number;
  /** Free bytes on the target's volume before. */
  freeBytesBefore: number;
  /** Free bytes on the target's volume after. */
  freeBytesAfter: number;
  /** Sources that do not exist (any: the plan no longer applies). */
  missing: string[];
}

/** An item of the sandbox library. @public */
export interface SandboxLibraryItem {
  /** Media entity id (`tmdb:<id>`). */
  mediaEntityId: string;
  /** Directory in the library. */
  libraryPath: string;
  /** Size in bytes. */
  sizeBytes: number;
  /** Resolution, when known. */
  resolution: Release['resolution'] | null;
  /** When it was added (ms). */
  addedAt: number;
  /** Organize record that put it there, or null for seeded items. */
  organizeId: string | null;
}

/** A plan as the sandbox knows it (the SDK plan record is in the host's storage). @public */
export interface SandboxPlan {
  /** SDK plan id. */
  id: string;
  /** Plan type. */
  type: 'download' | 'organize';
  /** Target media entity. */
  mediaEntityId: string;
  /** Release (download plans). */
  releaseId: string | null;
  /** Download (organize plans: the one to organize; download plans: the job it created). */
  downloadId: string | null;
  /** Organize record it created (organize plans). */
  organizeId: string | null;
  /** Idempotency key of the propose call. */
  idempotencyKey: string | null;
  /** Set when executing it was refused for good. */
  failedReason: string | null;
  /** Runs that touched it. */
  runIds: string[];
  /** Creation time (ms). */
  createdAt: number;
}

/** A downloader job with its timeline (status is derived from the clock). @public */
export interface SandboxDownload {
  /** Download id (`dl-<n>`). */
  id: string;
  /** SDK plan id it executes. */
  planId: string;
  /** Release. */
  releaseId: string;
  /** Release name. */
  releaseName: string;
  /** Media entity. */
  mediaEntityId: string;
  /** Size in bytes. */
  sizeBytes: number;
  /** Resolution of the release. */
  resolution: Release['resolution'];
  /** Idempotency key of the submit call that created it. */
  idempotencyKey: string | null;
  /** Its files in the download folder (the downloader allocates them whole at submit); some episodes of a season pack when only those steps were submitted. */
  files: SandboxDownloadFile[];
  /** True after its organize was reverted: the automatic import leaves it alone. */
  holdImport: boolean;
  /** Stored phase: `active` (status derived from the timeline), else fixed. */
  phase: 'active' | 'completed' | 'imported' | 'stalled' | 'failed' | 'removed';
  /** Submission time (ms). */
  submittedAt: number;
  /** Start of the current active stretch (ms). */
  startedAt: number;
  /** Progress (0–1) at `startedAt`; 0 means it queues first. */
  baseProgress: number;
  /** When it completed (ms), once completed. */
  completedAt: number | null;
  /** Time of the latest stored change (ms). */
  updatedAt: number;
  /** Organize record that imported it. */
  organizeId: string | null;
  /** Idempotency key of the latest retry/recheck call (reconcile). */
  lastActionKey: string | null;
  /** Runs that touched it. */
  runIds: string[];
}

/** An organize record of the sandbox. @public */
export interface SandboxOrganize {
  /** Organize id (`org-<n>`). */
  id: string;
  /** Download imported. */
  downloadId: string | null;
  /** Organize plan executed, or null for automatic imports. */
  planId: string | null;
  /** Media entity. */
  mediaEntityId: string;
  /** Status. */
  status: 'running' | 'succeeded' | 'failed';
  /** Mode. */
  mode: 'hardlink' | 'copy' | 'move';
  /** Library directory. */
  libraryPath: string | null;
  /** True for automatic imports. */
  automatic: boolean;
  /** Idempotency key of the execute call, or null. */
  idempotencyKey: string | null;
  /** Creation time (ms). */
  createdAt: number;
  /** Failure reason. */
  error: string | null;
  /** Runs that touched it. */
  runIds: string[];
  /** The files it put into the library. */
  files: SandboxOrganizeFile[];
  /** Quarantine entry holding the library files it overwrote, or null. */
  quarantineId: string | null;
  /** The library item it replaced (restored by a revert), or null when the title was not in the library. */
  previousItem: SandboxLibraryItem | null;
  /** When `organize.revert` undid it (ms), else null. */
  revertedAt: number | null;
}

/**
 * The serializable state of a {@link SandboxWorld} (`toJSON()` / `fromJSON()`, the file option).
 * @public
 */
export interface SandboxWorldState {
  /** Format version (1). */
  version: 1;
  /** Catalog. */
  titles: SandboxTitle[];
  /** Indexer releases. */
  releases: SandboxRelease[];
  /** Library. */
  library: SandboxLibraryItem[];
  /** Plans known to the world. */
  plans: SandboxPlan[];
  /** Downloader jobs. */
  downloads: SandboxDownload[];
  /** Organize records. */
  organizes: SandboxOrganize[];
  /** Identity overrides (`release:<id>` → media entity id) by `identity.resolve`. */
  identities: Record<string, string>;
  /** Policies by kind: revision and settings. */
  policies: Record<string, { revision: number; settings: PolicySettings }>;
  /** Media entities each run looked up (by run id). */
  touches: Record<string, string[]>;
  /** Id counters. */
  counters: { download: number; organize: number };
  /** Idempotency results of reconcile calls (`identity.resolve`, `policy.apply`) by key. */
  results: Record<string, unknown>;
  /** Volumes, files and the quarantine. */
  disk: SandboxDisk;
  /** Settings of every applied revision by policy kind (for `policy.restore`). */
  policyHistory: Record<string, Array<{ revision: number; settings: PolicySettings }>>;
}

/**
 * The sandbox state is not usable (wrong version or shape in `fromJSON` / the state file).
 * @public
 */
export class SandboxStateError extends MediaAgentError {
  /** @param reason - what is wrong; @param options - `{ cause }` */
  constructor(reason: string, options?: ErrorOptions) {
    super('SANDBOX_STATE_INVALID', `sandbox world state is invalid: ${reason}`, {}, options);
  }
}

const DEFAULT_DURATIONS: SandboxDurations = { queuedMs: 2_000, downloadMs: 10_000, importMs: 2_000 };

/**
 * The sandbox media world: an in-memory media manager — catalog, indexer, downloader,
 * organizer, library, policies — for tests and the demo. Register its 15 standard capabilities with
 * `registerSandboxCapabilities(host, world)`; it also implements the {@link GoalFacts} port.
 *
 * @remarks
 * Downloader jobs move `queued` → `downloading` → `completed` → `imported` over the world's clock
 * (no timers: status is derived from the clock when observed, and transitions are stored with the
 * times they happened on the timeline). An automatic import creates a `succeeded` organize record and
 * puts the title in the library. Every job records the idempotency key it was submitted with and
 * every object the run ids that touched it. State is plain JSON (`toJSON` / `fromJSON`, `filePath`).
 * @public
 */
export class SandboxWorld implements GoalFacts {
  /** Time source. */
  readonly clock: Clock;
  /** Phase durations (ms). */
  readonly durations: Readonly<SandboxDurations>;
  readonly #faults: SandboxFaults;
  readonly #autoImport: boolean;
  readonly #libraryRoot: string;
  readonly #filePath: string | undefined;
  #state: SandboxWorldState;
  readonly #calls: SandboxHandlerCall[] = [];

  /**
   * @param options - clock, durations, faults, catalog, library, file path
   * @param state - a saved state to start from (prefer {@link SandboxWorld.fromJSON}); else the file at `filePath`, else a new world
   * @throws {@link SandboxStateError} when `filePath` exists but is not a sandbox state
   */
  constructor(options: SandboxWorldOptions = {}, state?: SandboxWorldState) {
    this.clock = options.clock ?? new SystemClock();
    this.durations = Object.freeze({ ...DEFAULT_DURATIONS, ...options.durations });
    this.#faults = { submitTimesOutAfterEffect: false, stallDownloads: false, failDownloads: false, ...options.faults };
    this.#autoImport = options.autoImport ?? true;
    this.#libraryRoot = (options.libraryRoot ?? '/media/library').replace(/\/+$/, '');
    this.#filePath = options.filePath;
    const volumes = options.volumes ?? SANDBOX_VOLUMES;
    const quarantineDays = options.quarantineDays ?? SANDBOX_QUARANTINE_DAYS;
    if (state) this.#state = checkState(structuredClone(state));
    else if (this.#filePath && existsSync(this.#filePath)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(readFileSync(this.#filePath, 'utf8'));
      } catch (cause) {
        throw new SandboxStateError(`${this.#filePath} is not JSON`, { cause });
      }
      this.#state = checkState(parsed);
    } else {
      const titles = [...(options.titles ?? SANDBOX_TITLES)].map((t) => structuredClone(t));
      this.#state = {
        version: 1,
        titles,
        releases: [
          ...sandboxReleases(titles),
          ...(options.injection ? hostileReleases(titles, options.injection.items, options.injection.mediaIds) : []),
        ],
        library: [],
        plans: [],
        downloads: [],
        organizes: [],
        identities: {},
        policies: {},
        touches: {},
        counters: { download: 0, organize: 0 },
        results: {},
        disk: emptyDisk(volumes, quarantineDays),
        policyHistory: {},
      };
      const now = this.clock.now();
      for (const id of options.library ?? SANDBOX_DEFAULT_LIBRARY) this.#seedLibrary(id, now);
      settleFreeBytes(this.#state.disk, volumes);
      this.#save();
      return;
    }
    if (!this.#state.disk) this.#addDisk(volumes, quarantineDays);
  }

  /** A state saved before the disk model: files for its library and downloads, the seeded free bytes. */
  #addDisk(volumes: readonly SandboxVolume[], quarantineDays: number): void {
    const s = this.#state;
    s.disk = emptyDisk(volumes, quarantineDays);
    s.policyHistory ??= {};
    for (const item of s.library) this.#seedFiles(item.mediaEntityId, item.libraryPath);
    for (const job of s.downloads) {
      job.holdImport ??= false;
      const r = s.releases.find((x) => x.releaseId === job.releaseId);
      job.files ??= r ? this.#downloadFiles(r, null) : [];
      if (job.phase !== 'removed' && job.phase !== 'imported')
        for (const f of job.files) this.#writeDownloadFile(job, f);
    }
    for (const o of s.organizes) {
      o.files ??= [];
      o.quarantineId ??= null;
      o.previousItem ??= null;
      o.revertedAt ??= null;
    }
    settleFreeBytes(s.disk, volumes);
  }

  /**
   * A world from a saved state (options as for the constructor; `filePath`, when given, is written on the next mutation).
   * @throws {@link SandboxStateError} for a state of another version or shape
   */
  static fromJSON(state: SandboxWorldState, options: SandboxWorldOptions = {}): SandboxWorld {
    return new SandboxWorld(options, state);
  }

  /** The whole state as plain JSON (transitions up to now are materialized first). */
  toJSON(): SandboxWorldState {
    this.sync();
    return structuredClone(this.#state);
  }

  /** Library root directory (no trailing slash), e.g. `/media/library`. */
  get libraryRoot(): string {
    return this.#libraryRoot;
  }

  /** Current fault switches (a copy). */
  get faults(): Readonly<SandboxFaults> {
    return { ...this.#faults };
  }

  /**
   * Changes fault switches. Transitions up to now are materialized first; turning `stallDownloads`
   * or `failDownloads` on stops every unfinished job at its current progress.
   */
  setFaults(faults: Partial<SandboxFaults>): void {
    this.sync();
    Object.assign(this.#faults, faults);
    this.sync();
  }

  /**
   * Puts a catalog title into the library directly (seeding: "already in the library").
   * @param mediaEntityId - e.g. `tmdb:693134`, or `douban:<id>` / `imdb:<id>` of a catalog title
   * @throws `MEDIA_NOT_FOUND` for a title not in the catalog
   */
  addToLibrary(mediaEntityId: string): void {
    const title = this.resolveTitle(mediaEntityId);
    if (!title) throw mediaError('MEDIA_NOT_FOUND', `no catalog title ${mediaEntityId}`, { mediaEntityId });
    this.#seedLibrary(entityOf(title), this.clock.now());
    this.#save();
  }

  /**
   * Materializes every transition that happened on the timeline up to now (completions, automatic
   * imports, stalls). Reads call it; call it yourself before reading the state directly.
   */
  sync(): void {
    const now = this.clock.now();
    let changed = purgeExpired(this.#state.disk, now);
    for (const job of this.#state.downloads) {
      if (job.phase === 'active') {
        const { completedAt, progress } = this.#timeline(job, now);
        if (completedAt !== null && completedAt <= now) {
          job.phase = 'completed';
          job.completedAt = completedAt;
          job.updatedAt = completedAt;
          changed = true;
        } else if (this.#faults.stallDownloads || this.#faults.failDownloads) {
          job.phase = this.#faults.failDownloads ? 'failed' : 'stalled';
          job.baseProgress = progress;
          job.updatedAt = now;
          changed = true;
        }
      }
      if (
        job.phase === 'completed' &&
        this.#autoImportOn() &&
        !job.holdImport &&
        job.completedAt !== null &&
        job.completedAt + this.durations.importMs <= now
      ) {
        const at = job.completedAt + this.durations.importMs;
        this.#import(job, at, null, 'hardlink', null, job.runIds, this.organizeSteps(job, job.mediaEntityId));
        changed = true;
      }
    }
    if (changed) this.#save();
  }

  /** {@inheritDoc GoalFacts.forRun} */
  async forRun(runId: string, signal?: AbortSignal): Promise<GoalFactsSnapshot> {
    signal?.throwIfAborted();
    this.sync();
    const s = this.#state;
    const entities = new Set<string>(s.touches[runId] ?? []);
    const plans = s.plans.filter((p) => p.runIds.includes(runId));
    const downloads = s.downloads.filter((d) => d.runIds.includes(runId));
    const organizes = s.organizes.filter((o) => o.runIds.includes(runId));
    for (const x of [...plans, ...downloads, ...organizes]) entities.add(x.mediaEntityId);
    return {
      plans: plans.map((p) => ({ id: p.id, type: p.type, mediaEntityId: p.mediaEntityId, status: this.planStatus(p) })),
      downloads: downloads.map((d) => ({
        id: d.id,
        mediaEntityId: d.mediaEntityId,
        title: this.titleOf(d.mediaEntityId),
        status: this.downloadStatus(d),
      })),
      organizes: organizes.map((o) => ({
        id: o.id,
        downloadId: o.downloadId,
        mediaEntityId: o.mediaEntityId,
        status: o.status,
        libraryPath: o.libraryPath,
      })),
      library: [...entities]
        .sort()
        .map((id) => ({ mediaEntityId: id, title: this.titleOf(id), present: this.inLibrary(id) })),
    };
  }

  /**
   * Records a call a handler received (the sandbox capabilities call it first thing), so a test can assert what
   * reached the handlers: see {@link SandboxWorld.handlerCalls}.
   * @param capability - capability id
   * @param input - the input as the handler received it (a copy is kept)
   * @param runId - the run, or undefined
   */
  recordHandlerCall(capability: string, input: unknown, runId: string | undefined): void {
    this.#calls.push({ capability, input: structuredClone(input), runId: runId ?? null, at: this.clock.now() });
  }

  /** Every call the sandbox capabilities' handlers received since the world was made, oldest first (copies). */
  handlerCalls(): SandboxHandlerCall[] {
    return structuredClone(this.#calls);
  }

  // ---- reads used by the capabilities and by tests -------------------------------------------

  /** The catalog. */
  titles(): readonly SandboxTitle[] {
    return this.#state.titles;
  }

  /** The catalog title of a media entity id (`tmdb:`, or `douban:` / `imdb:` through external ids). */
  resolveTitle(id: string): SandboxTitle | undefined {
    const ref = parseMediaEntityId(id);
    if (!ref) return undefined;
    if (ref.mediaSource === 'tmdb') return this.#state.titles.find((t) => t.mediaId === ref.mediaId);
    if (ref.mediaSource === 'douban' || ref.mediaSource === 'imdb')
      return this.#state.titles.find((t) => t.externalIds[ref.mediaSource as 'douban' | 'imdb'] === ref.mediaId);
    return undefined;
  }

  /** Display title of a media entity id (the id itself when unknown). */
  titleOf(id: string): string {
    return this.resolveTitle(id)?.title ?? id;
  }

  /** Whether the media entity is in the library now. */
  inLibrary(id: string): boolean {
    this.sync();
    const t = this.resolveTitle(id);
    const key = t ? entityOf(t) : id;
    return this.#state.library.some((l) => l.mediaEntityId === key);
  }

  /** The library now (a copy). */
  library(): SandboxLibraryItem[] {
    this.sync();
    return structuredClone(this.#state.library);
  }

  /** Every downloader job with its stored fields (a copy); see {@link SandboxWorld.downloadView} for the status now. */
  downloads(): SandboxDownload[] {
    this.sync();
    return structuredClone(this.#state.downloads);
  }

  /** Every organize record (a copy). */
  organizes(): SandboxOrganize[] {
    this.sync();
    return structuredClone(this.#state.organizes);
  }

  /** Every plan the world knows (a copy). */
  plans(): SandboxPlan[] {
    return structuredClone(this.#state.plans);
  }

  /** Releases of the indexer. */
  releases(): readonly SandboxRelease[] {
    return this.#state.releases;
  }

  /** The media entity a release belongs to (after `identity.resolve` overrides). */
  releaseEntity(release: SandboxRelease): string {
    return this.#state.identities[`release:${release.releaseId}`] ?? `tmdb:${release.mediaId}`;
  }

  /** Status of a job now, derived from its timeline and the clock. */
  downloadStatus(job: SandboxDownload): DownloadStatus {
    if (job.phase !== 'active') return job.phase;
    const now = this.clock.now();
    if (job.baseProgress === 0 && now - job.startedAt < this.durations.queuedMs) return 'queued';
    const { completedAt } = this.#timeline(job, now);
    return completedAt !== null && completedAt <= now ? 'completed' : 'downloading';
  }

  /** Status of a plan now: `draft`, `submitted`, `done` or `failed`. */
  planStatus(plan: SandboxPlan): 'draft' | 'submitted' | 'done' | 'failed' {
    if (plan.failedReason !== null) return 'failed';
    if (plan.type === 'download') {
      const job = plan.downloadId === null ? undefined : this.#state.downloads.find((d) => d.id === plan.downloadId);
      if (!job) return 'draft';
      const st = this.downloadStatus(job);
      return st === 'imported' ? 'done' : st === 'failed' || st === 'removed' ? 'failed' : 'submitted';
    }
    const org = plan.organizeId === null ? undefined : this.#state.organizes.find((o) => o.id === plan.organizeId);
    if (!org) return 'draft';
    return org.status === 'succeeded' ? 'done' : org.status === 'failed' ? 'failed' : 'submitted';
  }

  /** A job as the `DownloadJob` schema shows it (status and progress now). */
  downloadView(job: SandboxDownload): DownloadJob {
    const status = this.downloadStatus(job);
    const progress =
      status === 'queued'
        ? 0
        : job.phase === 'active'
          ? this.#timeline(job, this.clock.now()).progress
          : job.phase === 'stalled' || job.phase === 'failed' || job.phase === 'removed'
            ? job.baseProgress
            : 1;
    return {
      id: job.id,
      planId: job.planId,
      releaseId: job.releaseId,
      releaseName: job.releaseName,
      mediaEntityId: job.mediaEntityId,
      title: this.titleOf(job.mediaEntityId),
      sizeBytes: job.sizeBytes,
      status,
      progress: Math.round(progress * 1000) / 1000,
      submittedAt: job.submittedAt,
      updatedAt: job.updatedAt,
      organizeId: job.organizeId,
    };
  }

  /** An organize record as the `OrganizeRecord` schema shows it. */
  organizeView(o: SandboxOrganize): OrganizeRecord {
    return {
      id: o.id,
      downloadId: o.downloadId,
      planId: o.planId,
      mediaEntityId: o.mediaEntityId,
      title: this.titleOf(o.mediaEntityId),
      status: o.status,
      mode: o.mode,
      libraryPath: o.libraryPath,
      automatic: o.automatic,
      createdAt: o.createdAt,
      error: o.error,
    };
  }

  /** Tasks (downloads, then organize records) as `task.inspect` shows them. */
  tasks(): Task[] {
    this.sync();
    const downloads = this.#state.downloads.map((d): Task => {
      const view = this.downloadView(d);
      return {
        id: d.id,
        type: 'download',
        status: view.status,
        mediaEntityId: d.mediaEntityId,
        title: view.title,
        planId: d.planId,
        idempotencyKey: d.idempotencyKey,
        updatedAt: d.updatedAt,
        download: view,
        organize: null,
      };
    });
    const organizes = this.#state.organizes.map((o): Task => {
      const view = this.organizeView(o);
      return {
        id: o.id,
        type: 'organize',
        status: o.status,
        mediaEntityId: o.mediaEntityId,
        title: view.title,
        planId: o.planId,
        idempotencyKey: o.idempotencyKey,
        updatedAt: o.createdAt,
        download: null,
        organize: view,
      };
    });
    return [...downloads, ...organizes];
  }

  /** A catalog title as the `MediaItem` schema shows it. */
  mediaItem(t: SandboxTitle): MediaItem {
    const id = entityOf(t);
    return {
      mediaSource: 'tmdb',
      mediaId: t.mediaId,
      mediaEntityId: id,
      kind: t.kind,
      title: t.title,
      originalTitle: t.originalTitle,
      localizedTitle: t.localizedTitle,
      year: t.year,
      overview: t.overview,
      seasons: t.seasons,
      inLibrary: this.#state.library.some((l) => l.mediaEntityId === id),
    };
  }

  /** Library directory of a title: `<root>/Movies/<Title> (<year>)` or `<root>/TV Shows/<Title> (<year>)`. */
  libraryPathOf(mediaEntityId: string): string {
    const t = this.resolveTitle(mediaEntityId);
    const name = t ? `${t.title.replace(/[\\/:*?"<>|]+/g, '')} (${t.year})` : mediaEntityId.replace(':', '-');
    return `${this.#libraryRoot}/${t?.kind === 'tv' ? 'TV Shows' : 'Movies'}/${name}`;
  }

  /** Policy of a kind: revision (0 = never applied) and settings. */
  policy(kind: string): { revision: number; settings: PolicySettings } {
    return structuredClone(this.#state.policies[kind] ?? { revision: 0, settings: {} });
  }

  /** Settings a policy had at a revision (0: never applied, `{}`), or undefined when that revision is not known. */
  policyAt(kind: string, revision: number): PolicySettings | undefined {
    if (revision === 0) return {};
    const found = this.#state.policyHistory[kind]?.find((h) => h.revision === revision)?.settings;
    return found === undefined ? undefined : structuredClone(found);
  }

  // ---- disk ------------------------------------------------------------------------------------

  /** Free bytes now on the volume of a path (quarantined files still take space until purged). */
  freeBytes(path: string): number {
    this.sync();
    return freeBytesAt(this.#state.disk, path);
  }

  /** Volumes now: id, directories, capacity, used and free bytes. */
  volumes(): Array<{ id: string; paths: string[]; capacityBytes: number; usedBytes: number; freeBytes: number }> {
    this.sync();
    const d = this.#state.disk;
    return d.volumes.map((v) => {
      const free = freeBytesAt(d, v.paths[0] ?? '/');
      return {
        id: v.id,
        paths: [...v.paths],
        capacityBytes: v.capacityBytes,
        usedBytes: v.capacityBytes - free,
        freeBytes: free,
      };
    });
  }

  /** Whether two paths are on the same volume (a hardlink needs it). */
  sameVolume(a: string, b: string): boolean {
    return volumeOf(this.#state.disk, a) === volumeOf(this.#state.disk, b);
  }

  /** Every file now (library, downloads, quarantine; a copy). */
  files(): SandboxFile[] {
    this.sync();
    return structuredClone(this.#state.disk.files);
  }

  /** The quarantine now, oldest first (expired entries are purged first; a copy). */
  quarantine(): SandboxQuarantineEntry[] {
    this.sync();
    return structuredClone(this.#state.disk.quarantine);
  }

  /** Days deleted and overwritten files are kept in quarantine. */
  get quarantineDays(): number {
    return this.#state.disk.quarantineDays;
  }

  /**
   * The files organizing a download would put into the library, one step per file: `movie` for a film, the episode
   * code (`S01E03`) for each episode of a season pack, from the download folder to `libraryPathOf(entity)`.
   */
  organizeSteps(job: SandboxDownload, mediaEntityId: string): SandboxOrganizeStep[] {
    const dir = this.libraryPathOf(mediaEntityId);
    const t = this.resolveTitle(mediaEntityId);
    return job.files.map((f) => {
      const name = t
        ? `${cleanTitle(t.title)} (${t.year})${f.episode ? ` - ${f.episode}` : ''} - ${job.resolution}.mkv`
        : (f.path.split('/').pop() ?? f.path);
      return { id: f.episode ?? 'movie', label: name, from: f.path, to: `${dir}/${name}`, sizeBytes: f.sizeBytes };
    });
  }

  /**
   * What putting these files into the library by `mode` would do now: files created or moved, library files of the
   * same title and item (the film, or the same episode) or at the same path that would be overwritten (moved to
   * quarantine), bytes written and the free space before and after on the target's volume.
   */
  organizeEffect(
    files: ReadonlyArray<{ from: string; to: string }>,
    mode: 'hardlink' | 'copy' | 'move',
    mediaEntityId: string,
  ): SandboxOrganizeEffect {
    this.sync();
    const d = this.#state.disk;
    const target = files[0]?.to ?? this.libraryPathOf(mediaEntityId);
    const before = freeBytesAt(d, target);
    const overwrites = this.#overwrites(files, mediaEntityId);
    let writeBytes = 0;
    let freedBytes = 0;
    const missing: string[] = [];
    for (const f of files) {
      const src = fileAt(d, f.from);
      if (!src) {
        missing.push(f.from);
        continue;
      }
      const cross = volumeOf(d, f.from) !== volumeOf(d, f.to);
      if (mode === 'copy' || (mode === 'move' && cross)) writeBytes += src.sizeBytes;
      if (mode === 'move' && cross) freedBytes += src.sizeBytes;
    }
    return {
      filesCreated: mode === 'move' ? 0 : files.length - missing.length,
      filesMoved: mode === 'move' ? files.length - missing.length : 0,
      overwrites,
      writeBytes,
      freedBytes,
      freeBytesBefore: before,
      freeBytesAfter: before - writeBytes,
      missing,
    };
  }

  /** Library files the organize of these files would replace (same title and item, or the same path). */
  #overwrites(files: ReadonlyArray<{ from: string; to: string }>, mediaEntityId: string): string[] {
    const d = this.#state.disk;
    const out = new Set<string>();
    for (const f of files) {
      const src = fileAt(d, f.from);
      for (const x of d.files) {
        if (x.path === f.from || inQuarantine(x.path) || x.path.startsWith(`${SANDBOX_DOWNLOAD_ROOT}/`)) continue;
        if (x.path === f.to || (src && x.mediaEntityId === mediaEntityId && x.item !== null && x.item === src.item))
          out.add(x.path);
      }
    }
    return [...out];
  }

  // ---- mutations used by the capabilities ---------------------------------------------------

  /** Records that `runId` looked up a media entity (for {@link SandboxWorld.forRun}). @internal */
  touch(runId: string | undefined, mediaEntityId: string): void {
    if (!runId) return;
    const list = (this.#state.touches[runId] ??= []);
    if (!list.includes(mediaEntityId)) {
      list.push(mediaEntityId);
      this.#save();
    }
  }

  /** Runs `fn` on the live state and saves. @internal */
  mutate<T>(fn: (state: SandboxWorldState, now: number) => T): T {
    this.sync();
    const result = fn(this.#state, this.clock.now());
    this.#save();
    return result;
  }

  /** Adds a job to the downloader (phase per the fault switches). @internal */
  addDownload(
    fields: Omit<
      SandboxDownload,
      | 'id'
      | 'phase'
      | 'submittedAt'
      | 'startedAt'
      | 'baseProgress'
      | 'completedAt'
      | 'updatedAt'
      | 'organizeId'
      | 'lastActionKey'
      | 'files'
      | 'holdImport'
    >,
    episodes: readonly string[] | null = null,
  ): SandboxDownload {
    return this.mutate((s, now) => {
      const release = s.releases.find((r) => r.releaseId === fields.releaseId);
      s.counters.download += 1;
      const job: SandboxDownload = {
        ...fields,
        id: `dl-${s.counters.download}`,
        phase: this.#faults.failDownloads ? 'failed' : this.#faults.stallDownloads ? 'stalled' : 'active',
        submittedAt: now,
        startedAt: now,
        baseProgress: 0,
        completedAt: null,
        updatedAt: now,
        organizeId: null,
        lastActionKey: null,
        files: release ? this.#downloadFiles(release, episodes) : [],
        holdImport: false,
      };
      if (release) job.sizeBytes = job.files.reduce((sum, f) => sum + f.sizeBytes, 0);
      for (const f of job.files) this.#writeDownloadFile(job, f);
      s.downloads.push(job);
      return job;
    });
  }

  /** Restarts a stalled or failed job (`keepProgress`: recheck/resume; else retry from 0). @internal */
  restartDownload(job: SandboxDownload, keepProgress: boolean, key: string | null, runId: string | undefined): void {
    this.mutate((_s, now) => {
      job.phase = this.#faults.failDownloads ? 'failed' : this.#faults.stallDownloads ? 'stalled' : 'active';
      job.startedAt = now;
      if (!keepProgress) job.baseProgress = 0;
      job.updatedAt = now;
      job.lastActionKey = key;
      addRun(job.runIds, runId);
    });
  }

  /** Imports a completed job into the library (explicit organize). @internal */
  importDownload(
    job: SandboxDownload,
    planId: string | null,
    mode: SandboxOrganize['mode'],
    key: string | null,
    runIds: string[],
    files: readonly SandboxOrganizeFile[] = this.organizeSteps(job, job.mediaEntityId),
  ): SandboxOrganize {
    return this.mutate((_s, now) => this.#import(job, now, planId, mode, key, runIds, files));
  }

  /**
   * Puts a download's files into the library: library files it replaces go to quarantine first, then each file is
   * hardlinked, copied or moved; the library item is (re)made from the title's library files.
   */
  #import(
    job: SandboxDownload,
    at: number,
    planId: string | null,
    requestedMode: SandboxOrganize['mode'],
    key: string | null,
    runIds: string[],
    files: readonly SandboxOrganizeFile[],
  ): SandboxOrganize {
    const s = this.#state;
    const d = s.disk;
    s.counters.organize += 1;
    const entity = job.mediaEntityId;
    const libraryPath = this.libraryPathOf(entity);
    const mode = planId === null ? (this.policy('organize').settings.organizeMode ?? requestedMode) : requestedMode;
    const id = `org-${s.counters.organize}`;
    const existing = s.library.find((l) => l.mediaEntityId === entity);
    const replaced = this.#overwrites(files, entity);
    const q = quarantine(d, replaced, { reason: 'overwrite', taskId: null, organizeId: id, phase: null }, at);
    for (const f of files) {
      transfer(d, f.from, f.to, mode);
      const placed = fileAt(d, f.to);
      if (placed) placed.mediaEntityId = entity;
    }
    const org: SandboxOrganize = {
      id,
      downloadId: job.id,
      planId,
      mediaEntityId: entity,
      status: 'succeeded',
      mode,
      libraryPath,
      automatic: planId === null,
      idempotencyKey: key,
      createdAt: at,
      error: null,
      runIds: [...new Set(runIds)],
      files: files.map((f) => ({ id: f.id, from: f.from, to: f.to })),
      quarantineId: q?.id ?? null,
      previousItem: existing ? structuredClone(existing) : null,
      revertedAt: null,
    };
    s.organizes.push(org);
    job.phase = 'imported';
    job.organizeId = org.id;
    job.updatedAt = at;
    const sizeBytes = this.#libraryBytes(entity);
    if (existing)
      Object.assign(existing, { libraryPath, sizeBytes, resolution: job.resolution, addedAt: at, organizeId: org.id });
    else
      s.library.push({
        mediaEntityId: entity,
        libraryPath,
        sizeBytes,
        resolution: job.resolution,
        addedAt: at,
        organizeId: org.id,
      });
    return org;
  }

  /**
   * Undoes an organize: removes the files it created (their data is still in the download folder), moves moved
   * files back, restores the library files it overwrote from quarantine and the library item it replaced; the
   * download is `completed` again and left alone by the automatic import. Idempotent.
   * @throws `MEDIA_NOT_FOUND` for an unknown organize; `MEDIA_INVALID_STATE` when it did not succeed, its download
   *   is gone, or the files it overwrote were purged from quarantine (nothing is changed then)
   * @internal
   */
  revertOrganize(organizeId: string, runId: string | undefined): SandboxOrganize {
    return this.mutate((s, now) => {
      const org = s.organizes.find((o) => o.id === organizeId);
      if (!org) throw mediaError('MEDIA_NOT_FOUND', `no organize ${JSON.stringify(organizeId)}`, { organizeId });
      if (org.revertedAt !== null) return org;
      const job = s.downloads.find((x) => x.id === org.downloadId);
      if (org.status !== 'succeeded' || !job)
        throw mediaError('MEDIA_INVALID_STATE', `organize ${org.id} did not put a download into the library`, {
          organizeId,
        });
      const d = s.disk;
      if (org.quarantineId !== null && !d.quarantine.some((q) => q.id === org.quarantineId))
        throw mediaError(
          'MEDIA_INVALID_STATE',
          `the library files organize ${org.id} overwrote were purged from quarantine; it can no longer be reverted`,
          { organizeId, quarantineId: org.quarantineId },
        );
      for (const f of org.files) {
        if (org.mode === 'move') {
          const moved = fileAt(d, f.to);
          if (moved) moved.path = f.from;
        } else removeFile(d, f.to);
      }
      if (org.quarantineId !== null) restoreQuarantine(d, org.quarantineId);
      const i = s.library.findIndex((l) => l.mediaEntityId === org.mediaEntityId);
      if (i >= 0) s.library.splice(i, 1);
      if (org.previousItem) s.library.push(structuredClone(org.previousItem));
      org.revertedAt = now;
      addRun(org.runIds, runId);
      job.phase = 'completed';
      job.organizeId = null;
      job.holdImport = true;
      job.updatedAt = now;
      addRun(job.runIds, runId);
      return org;
    });
  }

  /**
   * Cancels a download that is not imported: it is `removed` and its files go to quarantine for
   * {@link SandboxWorld.quarantineDays} days. Idempotent.
   * @internal
   */
  cancelDownload(job: SandboxDownload, runId: string | undefined): void {
    this.mutate((s, now) => {
      if (job.phase === 'removed' || job.phase === 'imported') return;
      const phase = job.phase;
      job.baseProgress = this.downloadView(job).progress;
      job.phase = 'removed';
      job.updatedAt = now;
      addRun(job.runIds, runId);
      const paths = job.files.map((f) => f.path);
      quarantine(s.disk, paths, { reason: 'cancel', taskId: job.id, organizeId: null, phase }, now);
    });
  }

  /**
   * Restores a cancelled download from quarantine: its files back in the download folder, the job in the phase it
   * had (an active one resumes from its progress). Idempotent for a download that is not `removed`.
   * @throws `MEDIA_INVALID_STATE` when its files are no longer in quarantine (purged, or it never had any)
   * @internal
   */
  restoreDownload(job: SandboxDownload, runId: string | undefined): void {
    this.mutate((s, now) => {
      if (job.phase !== 'removed') return;
      const entry = [...s.disk.quarantine].reverse().find((q) => q.reason === 'cancel' && q.taskId === job.id);
      if (!entry)
        throw mediaError(
          'MEDIA_INVALID_STATE',
          `the files of download ${job.id} are no longer in quarantine (kept ${s.disk.quarantineDays} days); it cannot be restored`,
          { taskId: job.id },
        );
      restoreQuarantine(s.disk, entry.id);
      job.phase = entry.phase ?? 'stalled';
      if (job.phase === 'active') job.startedAt = now;
      job.updatedAt = now;
      addRun(job.runIds, runId);
    });
  }

  /** Applies policy settings as the next revision and records them for {@link SandboxWorld.policyAt}. @internal */
  setPolicy(
    s: SandboxWorldState,
    kind: string,
    settings: PolicySettings,
  ): { revision: number; settings: PolicySettings } {
    const current = s.policies[kind] ?? { revision: 0, settings: {} };
    const next = { revision: current.revision + 1, settings };
    s.policies[kind] = next;
    (s.policyHistory[kind] ??= []).push(structuredClone(next));
    return next;
  }

  /** Bytes of a title's files in the library. */
  #libraryBytes(mediaEntityId: string): number {
    return this.#state.disk.files
      .filter(
        (f) =>
          f.mediaEntityId === mediaEntityId && !inQuarantine(f.path) && !f.path.startsWith(`${SANDBOX_DOWNLOAD_ROOT}/`),
      )
      .reduce((sum, f) => sum + f.sizeBytes, 0);
  }

  /** A release's files in the download folder (only the given episodes, when given). */
  #downloadFiles(release: SandboxRelease, episodes: readonly string[] | null): SandboxDownloadFile[] {
    return sandboxReleaseFiles(release)
      .filter((f) => episodes === null || (f.episode !== null && episodes.includes(f.episode)))
      .map((f) => ({ path: `${SANDBOX_DOWNLOAD_ROOT}/${f.path}`, sizeBytes: f.sizeBytes, episode: f.episode }));
  }

  #writeDownloadFile(job: SandboxDownload, f: SandboxDownloadFile): void {
    if (fileAt(this.#state.disk, f.path)) return;
    writeFile(this.#state.disk, {
      path: f.path,
      sizeBytes: f.sizeBytes,
      mediaEntityId: job.mediaEntityId,
      item: f.episode ?? 'movie',
    });
  }

  /** Whether completed downloads are imported automatically now (the automation policy's `autoImport`, else the option). */
  autoImports(): boolean {
    return this.#autoImportOn();
  }

  #autoImportOn(): boolean {
    return this.policy('automation').settings.autoImport ?? this.#autoImport;
  }

  #timeline(job: SandboxDownload, now: number): { progress: number; completedAt: number | null } {
    const { queuedMs, downloadMs } = this.durations;
    const start = job.startedAt + (job.baseProgress === 0 ? queuedMs : 0);
    const completedAt = start + Math.round((1 - job.baseProgress) * downloadMs);
    const progress =
      now <= start ? job.baseProgress : Math.min(1, job.baseProgress + (now - start) / Math.max(1, downloadMs));
    return { progress, completedAt };
  }

  #seedLibrary(id: string, now: number): void {
    const t = this.resolveTitle(id);
    if (!t) throw mediaError('MEDIA_NOT_FOUND', `no catalog title ${id}`, { mediaEntityId: id });
    const key = entityOf(t);
    if (this.#state.library.some((l) => l.mediaEntityId === key)) return;
    const release = this.#seedFiles(key, this.libraryPathOf(key));
    this.#state.library.push({
      mediaEntityId: key,
      libraryPath: this.libraryPathOf(key),
      sizeBytes: release?.sizeBytes ?? 0,
      resolution: release?.resolution ?? null,
      addedAt: now,
      organizeId: null,
    });
  }

  /** Writes a seeded title's files (its first 1080p release) into its library directory; returns that release. */
  #seedFiles(mediaEntityId: string, dir: string): SandboxRelease | undefined {
    const t = this.resolveTitle(mediaEntityId);
    const release = t && this.#state.releases.find((r) => r.mediaId === t.mediaId && r.resolution === '1080p');
    if (!t || !release) return undefined;
    for (const f of sandboxReleaseFiles(release)) {
      const name = `${cleanTitle(t.title)} (${t.year})${f.episode ? ` - ${f.episode}` : ''} - ${release.resolution}.mkv`;
      if (!fileAt(this.#state.disk, `${dir}/${name}`))
        writeFile(this.#state.disk, {
          path: `${dir}/${name}`,
          sizeBytes: f.sizeBytes,
          mediaEntityId,
          item: f.episode ?? 'movie',
        });
    }
    return release;
  }

  #save(): void {
    if (!this.#filePath) return;
    mkdirSync(dirname(this.#filePath), { recursive: true });
    const tmp = `${this.#filePath}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.#state, null, 2));
    renameSync(tmp, this.#filePath);
  }
}

/** A title as a file or directory name (characters file systems refuse removed). @internal */
export function cleanTitle(title: string): string {
  return title.replace(/[\\/:*?"<>|]+/g, '');
}

/** `tmdb:<id>` of a catalog title. @internal */
export function entityOf(t: SandboxTitle): string {
  return entityIdOf({ mediaSource: 'tmdb', mediaId: t.mediaId });
}

/** Adds a run id to a list once. @internal */
export function addRun(list: string[], runId: string | undefined): void {
  if (runId && !list.includes(runId)) list.push(runId);
}

function mediaError(code: MediaStateCode, message: string, details: Record<string, unknown>): MediaStateError {
  return new MediaStateError(code, message, details);
}

function checkState(value: unknown): SandboxWorldState {
  const s = value as Partial<SandboxWorldState> | null;
  if (!s || typeof s !== 'object') throw new SandboxStateError('not an object');
  if (s.version !== 1) throw new SandboxStateError(`version ${String(s.version)} (expected 1)`);
  for (const k of ['titles', 'releases', 'library', 'plans', 'downloads', 'organizes'] as const)
    if (!Array.isArray(s[k])) throw new SandboxStateError(`${k} is not an array`);
  for (const k of ['identities', 'policies', 'touches', 'counters', 'results'] as const)
    if (!s[k] || typeof s[k] !== 'object') throw new SandboxStateError(`${k} is not an object`);
  return s as SandboxWorldState;
}
