// The one-line, human summary of an impact: "downloads 58.2 GB to /media/movies; 412 GB free after".
import type { Impact } from './impact';

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'] as const;

/**
 * Bytes in decimal units with one decimal below 100 (`58.2 GB`, `412 GB`, `900 B`), as disks and torrent sites
 * state sizes. Negative values keep their sign.
 * @public
 */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'unknown size';
  const sign = bytes < 0 ? '-' : '';
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  const shown = unit === 0 || value >= 100 ? Math.round(value).toString() : value.toFixed(1).replace(/\.0$/, '');
  return `${sign}${shown} ${UNITS[unit]}`;
}

/** A duration in the largest whole unit people read (`45 s`, `12 min`, `3 h`). @public */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${Math.max(1, Math.round(ms / 1000))} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 360_000) / 10} h`;
}

const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;

/**
 * The impact in one line, in the order a person weighs it: what is downloaded, written, moved, created, overwritten
 * and deleted; the free space after; the quota; the duration; whether it can be undone.
 * @example
 * ```ts
 * describeImpact({ downloadBytes: 58.2e9, path: '/media/movies', freeBytesAfter: 412e9, reversible: true });
 * // 'downloads 58.2 GB to /media/movies; 412 GB free after; can be undone'
 * ```
 * @public
 */
export function describeImpact(impact: Impact): string {
  const parts: string[] = [];
  const to = impact.path ? ` to ${impact.path}` : '';
  if (impact.downloadBytes !== undefined) parts.push(`downloads ${formatBytes(impact.downloadBytes)}${to}`);
  if (impact.writeBytes !== undefined)
    parts.push(`writes ${formatBytes(impact.writeBytes)}${impact.downloadBytes === undefined ? to : ''}`);
  const moved = impact.filesMoved ?? 0;
  const overwritten = impact.filesOverwritten ?? 0;
  if (moved > 0) parts.push(`moves ${files(moved)}${overwritten > 0 ? `, overwrites ${overwritten}` : ''}`);
  else if (overwritten > 0) parts.push(`overwrites ${files(overwritten)}`);
  if ((impact.filesCreated ?? 0) > 0) parts.push(`creates ${files(impact.filesCreated ?? 0)}`);
  const deleted = impact.filesDeleted ?? 0;
  if (impact.deleteBytes !== undefined || deleted > 0)
    parts.push(
      `deletes ${[
        impact.deleteBytes !== undefined ? formatBytes(impact.deleteBytes) : '',
        deleted > 0 ? `${files(deleted)}` : '',
      ]
        .filter(Boolean)
        .join(' in ')}`,
    );
  if (impact.transferMode) parts.push(`by ${impact.transferMode}`);
  if (impact.freeBytesAfter !== undefined)
    parts.push(
      impact.freeBytesAfter < 0
        ? `does not fit: ${formatBytes(-impact.freeBytesAfter)} short`
        : `${formatBytes(impact.freeBytesAfter)} free after`,
    );
  if (impact.quota)
    parts.push(`${impact.quota.name}: ${impact.quota.used} of ${impact.quota.limit} ${impact.quota.unit} used`);
  if (impact.estimatedDurationMs !== undefined) parts.push(`about ${formatDuration(impact.estimatedDurationMs)}`);
  if (impact.steps && impact.steps.length > 1) parts.push(`${impact.steps.length} steps`);
  if (!impact.reversible) parts.push('cannot be undone');
  else if (impact.reversibleBy === 'quarantine')
    parts.push(`kept in quarantine${impact.quarantineDays !== undefined ? ` for ${impact.quarantineDays} days` : ''}`);
  else parts.push('can be undone');
  return parts.length > 1 || parts[0] !== 'can be undone' ? parts.join('; ') : 'no lasting effect; can be undone';
}
