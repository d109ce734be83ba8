// Sizes and durations in words, for messages the model reads.

/**
 * A byte count in words: MiB or KiB with at most one decimal from 1 KiB on, else bytes.
 * @param bytes - the count
 * @internal
 */
export function formatBytes(bytes: number): string {
  if (bytes >= 1_048_576) return `${+(bytes / 1_048_576).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/**
 * A duration in words: whole minutes when it is one, else rounded seconds.
 * @param ms - the duration, ms
 * @internal
 */
export function formatDuration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} minutes`;
  return `${Math.round(ms / 1000)} seconds`;
}
