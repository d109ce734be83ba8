// The sandbox world's disk: volumes with capacity, the files on them (hardlinks share a blob, so they take space
// once) and the quarantine folder where deletes and overwrites go first (docs/sandbox.md#disk).
import type { SandboxVolume } from './data';

/**
 * A file on the sandbox disk. Hardlinks of one file share its `blob` (its data), which takes space once.
 * @public
 */
export interface SandboxFile {
  /** Absolute path. */
  path: string;
  /** Size in bytes. */
  sizeBytes: number;
  /** Id of its data (`b-<n>`); hardlinks share it, a copy gets a new one. */
  blob: string;
  /** Media entity it belongs to, when known. */
  mediaEntityId: string | null;
  /** What it is of that title: `movie`, or an episode code such as `S01E03`. */
  item: string | null;
}

/**
 * Files the sandbox world moved to its quarantine folder instead of deleting or overwriting them; kept until
 * `expiresAt`, then purged (their space freed).
 * @public
 */
export interface SandboxQuarantineEntry {
  /** Entry id (`q-<n>`). */
  id: string;
  /** Why: a cancelled download's files, or library files an organize overwrote. */
  reason: 'cancel' | 'overwrite';
  /** The download whose cancel deleted them (`cancel`), else null. */
  taskId: string | null;
  /** The organize record that overwrote them (`overwrite`), else null. */
  organizeId: string | null;
  /** The phase the cancelled download had (`cancel`), restored with the files; else null. */
  phase: 'active' | 'completed' | 'stalled' | 'failed' | null;
  /** Files: where they are now (under `<volume>/.quarantine/<id>/`) and where they were. */
  files: Array<{ path: string; originalPath: string }>;
  /** When they were quarantined (ms). */
  createdAt: number;
  /** When they are purged (ms). */
  expiresAt: number;
}

/** A volume as the world keeps it: the household's other data as `otherUsedBytes`. @public */
export interface SandboxVolumeState {
  /** Volume name. */
  id: string;
  /** Directories on it. */
  paths: string[];
  /** Capacity in bytes. */
  capacityBytes: number;
  /** Bytes used by data the world does not model (everything but its files). */
  otherUsedBytes: number;
}

/** The disk part of the sandbox state. @public */
export interface SandboxDisk {
  /** Volumes. */
  volumes: SandboxVolumeState[];
  /** Every file (library, downloads, quarantine). */
  files: SandboxFile[];
  /** Quarantined deletes and overwrites, oldest first. */
  quarantine: SandboxQuarantineEntry[];
  /** Days quarantined files are kept. */
  quarantineDays: number;
  /** Id counters. */
  counters: { blob: number; quarantine: number };
}

/** A disk with the given volumes and no files (`otherUsedBytes` set later by {@link settleFreeBytes}). @internal */
export function emptyDisk(volumes: readonly SandboxVolume[], quarantineDays: number): SandboxDisk {
  return {
    volumes: volumes.map((v) => ({
      id: v.id,
      paths: v.paths.map((p) => p.replace(/\/+$/, '')),
      capacityBytes: v.capacityBytes,
      otherUsedBytes: 0,
    })),
    files: [],
    quarantine: [],
    quarantineDays,
    counters: { blob: 0, quarantine: 0 },
  };
}

/** Sets each volume's other data so that it has the seeded free bytes with the files now on it. @internal */
export function settleFreeBytes(disk: SandboxDisk, volumes: readonly SandboxVolume[]): void {
  for (const v of disk.volumes) {
    const seed = volumes.find((x) => x.id === v.id);
    if (seed) v.otherUsedBytes = Math.max(0, v.capacityBytes - seed.freeBytes - filesBytes(disk, v));
  }
}

const under = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

/** The volume a path lives on (the longest matching directory; the first volume for any other path). @internal */
export function volumeOf(disk: SandboxDisk, path: string): SandboxVolumeState {
  let best: { v: SandboxVolumeState; len: number } | undefined;
  for (const v of disk.volumes)
    for (const p of v.paths) if (under(path, p) && (!best || p.length > best.len)) best = { v, len: p.length };
  return best?.v ?? disk.volumes[0]!;
}

/** Bytes the world's files take on a volume (each blob once). */
function filesBytes(disk: SandboxDisk, volume: SandboxVolumeState): number {
  const blobs = new Map<string, number>();
  for (const f of disk.files) if (volumeOf(disk, f.path) === volume) blobs.set(f.blob, f.sizeBytes);
  let sum = 0;
  for (const size of blobs.values()) sum += size;
  return sum;
}

/** Free bytes on the volume of `path` now (quarantined files still take space). @internal */
export function freeBytesAt(disk: SandboxDisk, path: string): number {
  const v = volumeOf(disk, path);
  return v.capacityBytes - v.otherUsedBytes - filesBytes(disk, v);
}

/** The quarantine folder of the volume of `path`: `<first directory of the volume>/.quarantine`. @internal */
export function quarantineDirOf(disk: SandboxDisk, path: string): string {
  return `${volumeOf(disk, path).paths[0] ?? ''}/.quarantine`;
}

/** Whether a path is in a quarantine folder. @internal */
export function inQuarantine(path: string): boolean {
  return /\/\.quarantine(\/|$)/.test(path);
}

/** The file at a path, if any. @internal */
export function fileAt(disk: SandboxDisk, path: string): SandboxFile | undefined {
  return disk.files.find((f) => f.path === path);
}

/** Writes a new file (new data). @internal */
export function writeFile(disk: SandboxDisk, file: Omit<SandboxFile, 'blob'>): SandboxFile {
  disk.counters.blob += 1;
  const f = { ...file, blob: `b-${disk.counters.blob}` };
  disk.files.push(f);
  return f;
}

/** Puts `from` at `to` by `mode`: a hardlink shares the data, a copy writes new data, a move renames. @internal */
export function transfer(disk: SandboxDisk, from: string, to: string, mode: 'hardlink' | 'copy' | 'move'): void {
  const src = fileAt(disk, from);
  if (!src) return;
  if (mode === 'move') src.path = to;
  else if (mode === 'hardlink') disk.files.push({ ...src, path: to });
  else writeFile(disk, { path: to, sizeBytes: src.sizeBytes, mediaEntityId: src.mediaEntityId, item: src.item });
}

/** Deletes a file for good (its space is freed when no other link shares its data). @internal */
export function removeFile(disk: SandboxDisk, path: string): void {
  const i = disk.files.findIndex((f) => f.path === path);
  if (i >= 0) disk.files.splice(i, 1);
}

/**
 * Moves files into a new quarantine entry (`<volume>/.quarantine/<id>/<original path>`), kept for the disk's
 * `quarantineDays`. Paths with no file are skipped; returns null when none was moved.
 * @internal
 */
export function quarantine(
  disk: SandboxDisk,
  paths: readonly string[],
  meta: Pick<SandboxQuarantineEntry, 'reason' | 'taskId' | 'organizeId' | 'phase'>,
  now: number,
): SandboxQuarantineEntry | null {
  const present = paths.map((p) => fileAt(disk, p)).filter((f): f is SandboxFile => f !== undefined);
  if (present.length === 0) return null;
  disk.counters.quarantine += 1;
  const id = `q-${disk.counters.quarantine}`;
  const entry: SandboxQuarantineEntry = {
    id,
    ...meta,
    files: [],
    createdAt: now,
    expiresAt: now + disk.quarantineDays * 86_400_000,
  };
  for (const f of present) {
    const path = `${quarantineDirOf(disk, f.path)}/${id}${f.path}`;
    entry.files.push({ path, originalPath: f.path });
    f.path = path;
  }
  disk.quarantine.push(entry);
  return entry;
}

/** Puts a quarantine entry's files back where they were and drops the entry; false when it is gone (purged). @internal */
export function restoreQuarantine(disk: SandboxDisk, id: string): boolean {
  const i = disk.quarantine.findIndex((q) => q.id === id);
  if (i < 0) return false;
  for (const { path, originalPath } of disk.quarantine[i]!.files) {
    const f = fileAt(disk, path);
    if (f) f.path = originalPath;
  }
  disk.quarantine.splice(i, 1);
  return true;
}

/** Purges the entries whose time is up (their files deleted for good); true when any was purged. @internal */
export function purgeExpired(disk: SandboxDisk, now: number): boolean {
  const expired = disk.quarantine.filter((q) => q.expiresAt <= now);
  if (expired.length === 0) return false;
  for (const q of expired) for (const f of q.files) removeFile(disk, f.path);
  disk.quarantine = disk.quarantine.filter((q) => q.expiresAt > now);
  return true;
}
