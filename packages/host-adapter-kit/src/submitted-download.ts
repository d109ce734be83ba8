/**
 * A download an adapter submitted, as it remembers it (adapter-local bookkeeping, never a host write):
 * what both adapters keep to tell later what a run did.
 * @public
 */
export interface SubmittedDownload {
  /** The torrent's info hash (the host's `download_id`). */
  hash: string;
  /** The SDK plan id it executed. */
  planId: string;
  /** The release id. */
  releaseId: string;
  /** The torrent title. */
  releaseName: string;
  /** The media entity (`tmdb:…`, `douban:…`). */
  mediaEntityId: string;
  /** The display title. */
  title: string;
  /** Size in bytes. */
  sizeBytes: number;
  /** The idempotency key of the submit call, when known. */
  idempotencyKey: string | null;
  /** Submitted at (ms since the epoch, the host's clock). */
  submittedAt: number;
}
