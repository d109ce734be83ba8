// The impact records of the sandbox world's side effects, from its own data: release sizes, the files an organize
// moves or creates, free space on the volume, the quarantine (docs/sandbox.md#impact).
import type { Impact } from '../../core/impact';
import { formatBytes } from '../../core/impact-text';
import type { PolicySettings } from '../../media/schemas';
import { SANDBOX_DOWNLOAD_ROOT } from './data';
import type { ResolvedDownloadPlan, ResolvedOrganizePlan } from './plan-checks';
import type { SandboxDownload, SandboxOrganize, SandboxWorld } from './world';

const DRAFT_NOTE = 'a plan only: nothing changes until it is executed';

/**
 * What downloading a resolved plan does: bytes downloaded into the download folder, free space before and after on
 * its volume, the files it writes, how long it takes; undone by `task.cancel`.
 * @param draft - true for `download.plan` (only freezes the plan; the numbers are what submitting it will do)
 * @internal
 */
export function downloadImpact(world: SandboxWorld, plan: ResolvedDownloadPlan, draft: boolean): Impact {
  const path = `${SANDBOX_DOWNLOAD_ROOT}/${plan.release.name}`;
  const before = world.freeBytes(path);
  const notes: string[] = draft ? [DRAFT_NOTE] : [];
  if (world.autoImports()) {
    const mode = world.policy('organize').settings.organizeMode ?? 'hardlink';
    notes.push(
      `imported into ${world.libraryPathOf(plan.mediaEntityId)} by ${mode} when complete${mode === 'copy' ? ` (writes ${formatBytes(plan.bytes)} more)` : ' (no extra space)'}`,
    );
  }
  return {
    downloadBytes: plan.bytes,
    path,
    freeBytesBefore: before,
    freeBytesAfter: before - plan.bytes,
    filesCreated: plan.files.length,
    reversible: true,
    reversibleBy: 'inverse',
    estimatedDurationMs: world.durations.queuedMs + world.durations.downloadMs,
    ...(plan.release.season !== null
      ? { steps: plan.files.map((f) => ({ id: f.episode!, label: f.path.split('/').pop()!, bytes: f.sizeBytes })) }
      : {}),
    notes,
  };
}

/**
 * What organizing a resolved plan does: files created (hardlink, copy) or moved, library files overwritten (kept in
 * quarantine), bytes written, free space before and after on the library's volume; undone by `organize.revert`.
 * @param draft - true for `organize.plan`
 * @internal
 */
export function organizeImpact(world: SandboxWorld, plan: ResolvedOrganizePlan, draft: boolean): Impact {
  const effect = world.organizeEffect(plan.files, plan.mode, plan.mediaEntityId);
  const notes: string[] = draft ? [DRAFT_NOTE] : [];
  if (effect.overwrites.length > 0)
    notes.push(
      `replaces ${effect.overwrites.length} library file${effect.overwrites.length === 1 ? '' : 's'}; kept in quarantine for ${world.quarantineDays} days`,
    );
  if (effect.missing.length > 0)
    notes.push(`${effect.missing.length} source file(s) are missing: the plan no longer applies`);
  return {
    ...(effect.writeBytes > 0 ? { writeBytes: effect.writeBytes } : {}),
    filesCreated: effect.filesCreated,
    filesMoved: effect.filesMoved,
    filesOverwritten: effect.overwrites.length,
    path: plan.targetPath,
    freeBytesBefore: effect.freeBytesBefore,
    freeBytesAfter: effect.freeBytesAfter,
    transferMode: plan.mode,
    reversible: true,
    reversibleBy: 'inverse',
    ...(effect.overwrites.length > 0 ? { quarantineDays: world.quarantineDays } : {}),
    steps: plan.files.map((f) => ({ id: f.id, label: f.label, bytes: f.sizeBytes })),
    notes,
  };
}

/**
 * What cancelling a download does: its files are deleted into quarantine (kept {@link SandboxWorld.quarantineDays}
 * days; the space is freed when they are purged), so `task.restore` can bring it back.
 * @internal
 */
export function cancelImpact(world: SandboxWorld, job: SandboxDownload): Impact {
  const present = new Set(world.files().map((f) => f.path));
  const files = job.phase === 'removed' || job.phase === 'imported' ? [] : job.files.filter((f) => present.has(f.path));
  const path = `${SANDBOX_DOWNLOAD_ROOT}/${job.releaseName}`;
  const before = world.freeBytes(path);
  const bytes = files.reduce((s, f) => s + f.sizeBytes, 0);
  const notes =
    job.phase === 'imported'
      ? [`download ${job.id} is already imported: it cannot be cancelled`]
      : job.phase === 'removed'
        ? [`download ${job.id} is already cancelled`]
        : [`the ${formatBytes(bytes)} are freed when the quarantine is purged after ${world.quarantineDays} days`];
  return {
    deleteBytes: bytes,
    filesDeleted: files.length,
    path,
    freeBytesBefore: before,
    freeBytesAfter: before,
    reversible: true,
    reversibleBy: 'quarantine',
    quarantineDays: world.quarantineDays,
    notes,
  };
}

/**
 * What reverting an organize does: created library files deleted (their data is still in the download folder),
 * moved files moved back, overwritten files restored from quarantine, the space copies took freed.
 * @internal
 */
export function revertImpact(world: SandboxWorld, org: SandboxOrganize): Impact {
  const present = new Map(world.files().map((f) => [f.path, f]));
  const placed = org.revertedAt === null ? org.files.filter((f) => present.has(f.to)) : [];
  const before = world.freeBytes(org.libraryPath ?? world.libraryRoot);
  const freed = org.mode === 'copy' ? placed.reduce((s, f) => s + present.get(f.to)!.sizeBytes, 0) : 0;
  const restored =
    org.revertedAt === null && org.quarantineId !== null
      ? (world.quarantine().find((q) => q.id === org.quarantineId)?.files.length ?? 0)
      : 0;
  return {
    ...(org.mode === 'move' ? { filesMoved: placed.length } : { filesDeleted: placed.length, deleteBytes: freed }),
    filesCreated: restored,
    path: org.libraryPath ?? world.libraryRoot,
    freeBytesBefore: before,
    freeBytesAfter: before + freed,
    reversible: false,
    notes: [
      ...(restored > 0 ? [`restores ${restored} overwritten file(s) from quarantine`] : []),
      'the download stays completed in the download folder: organize it again to redo',
    ],
  };
}

/** What restoring a cancelled download does: its files back from quarantine, the job resumed. @internal */
export function restoreImpact(world: SandboxWorld, job: SandboxDownload): Impact {
  const entry = [...world.quarantine()].reverse().find((q) => q.reason === 'cancel' && q.taskId === job.id);
  const files = job.phase === 'removed' && entry ? entry.files.length : 0;
  const path = `${SANDBOX_DOWNLOAD_ROOT}/${job.releaseName}`;
  const before = world.freeBytes(path);
  return {
    filesMoved: files,
    path,
    freeBytesBefore: before,
    freeBytesAfter: before,
    reversible: true,
    reversibleBy: 'inverse',
    notes:
      job.phase !== 'removed'
        ? [`download ${job.id} is not cancelled: nothing to restore`]
        : entry
          ? [`restores ${files} file(s) from quarantine and resumes the download`]
          : ['its files were purged from quarantine: it cannot be restored'],
  };
}

/** What applying policy settings changes, field by field; undone by `policy.restore`. @internal */
export function policyImpact(from: PolicySettings, to: PolicySettings): Impact {
  const changes = policyChanges(from, to);
  return {
    reversible: true,
    reversibleBy: 'inverse',
    notes:
      changes.length === 0
        ? ['no setting changes']
        : changes
            .slice(0, 20)
            .map((c) =>
              `${c.field}: ${JSON.stringify(c.from ?? null)} → ${JSON.stringify(c.to ?? null)}`.slice(0, 300),
            ),
  };
}

/** The fields two policy settings differ in, sorted. @internal */
export function policyChanges(
  from: PolicySettings,
  to: PolicySettings,
): Array<{ field: string; from: unknown; to: unknown }> {
  const keys = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort();
  return keys
    .filter(
      (k) =>
        JSON.stringify((from as Record<string, unknown>)[k]) !== JSON.stringify((to as Record<string, unknown>)[k]),
    )
    .map((k) => ({
      field: k,
      from: (from as Record<string, unknown>)[k] ?? null,
      to: (to as Record<string, unknown>)[k] ?? null,
    }));
}
