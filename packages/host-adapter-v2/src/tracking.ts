import type { SubmittedDownload } from '@media-agent/host-adapter-kit';
import type { JsonValue } from '@media-agent/sdk/storage';
import type { StorageAdapter } from '@media-agent/sdk';

/** What the adapter remembers about one download it submitted (adapter-local bookkeeping, never a host write). @public */
export interface TrackedDownload extends SubmittedDownload {
  /** True once `task.cancel` removed it. */
  cancelled: boolean;
}

/** What one run touched. @public */
export interface TrackedRun {
  /** Media entities looked up, planned, downloaded or organized. */
  entities: string[];
  /** Plan ids created or executed. */
  plans: string[];
  /** Download hashes submitted, rechecked, retried or cancelled. */
  downloads: string[];
  /** Transfer history ids organized. */
  organizes: string[];
}

/** The adapter's bookkeeping as stored: tracked downloads by hash, runs by id, identity corrections by `release:<id>` / `download:<hash>`. @public */
export interface V2TrackingState {
  /** Downloads by info hash. */
  downloads: Record<string, TrackedDownload>;
  /** Runs by id. */
  runs: Record<string, TrackedRun>;
  /** Identity corrections (`identity.resolve`): subject → media entity id. */
  identities: Record<string, string>;
}

const KEY = 'host-adapter-v2:tracking';

/**
 * The adapter's bookkeeping (which run touched what, which plan became which download, identity
 * corrections), kept in the SDK storage's settings repository so it survives a restart with SQLite.
 * @public
 */
export class V2Tracking {
  /** @param storage - the host's SDK storage */
  constructor(private readonly storage: StorageAdapter) {}

  /** The whole state (a copy). */
  async read(): Promise<V2TrackingState> {
    const v = (await this.storage.settings.get(KEY)) as unknown as V2TrackingState | undefined;
    return v ?? { downloads: {}, runs: {}, identities: {} };
  }

  /** Applies `change` atomically. */
  async update(change: (s: V2TrackingState) => void): Promise<void> {
    await this.storage.transaction(async (session) => {
      const s = ((await session.settings.get(KEY)) as unknown as V2TrackingState | undefined) ?? {
        downloads: {},
        runs: {},
        identities: {},
      };
      change(s);
      await session.settings.set(KEY, s as unknown as JsonValue);
    });
  }

  /** Records that a run touched entities, plans, downloads or organizes (no-op without a run id). */
  async touch(runId: string | undefined, what: Partial<TrackedRun>): Promise<void> {
    if (!runId) return;
    await this.update((s) => {
      const r = (s.runs[runId] ??= { entities: [], plans: [], downloads: [], organizes: [] });
      for (const k of ['entities', 'plans', 'downloads', 'organizes'] as const)
        for (const v of what[k] ?? []) if (!r[k].includes(v)) r[k].push(v);
    });
  }
}
