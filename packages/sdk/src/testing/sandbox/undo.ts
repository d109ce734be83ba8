// The sandbox world's inverse capabilities: organize.revert (undoes organize.execute), task.restore (undoes
// task.cancel from quarantine) and policy.restore (undoes policy.apply) (docs/sandbox.md#undo).
import Type from 'typebox';
import { defineCapability } from '../../capabilities/define-capability';
import { issuedId, PROVENANCE_MARK } from '../../core/provenance-marks';
import type { Capability } from '../../capabilities/types';
import { MediaStateError } from '../../media/errors';
import { OrganizeRecordSchema, PolicyKindSchema, PolicySettingsSchema, TaskSchema } from '../../media/schemas';
import { policyImpact, restoreImpact, revertImpact } from './impacts';
import type { SandboxWorld } from './world';

const strict = { additionalProperties: false } as const;

/** Ids of the sandbox world's inverse capabilities. @public */
export const SANDBOX_UNDO_CAPABILITY_IDS = ['organize.revert', 'task.restore', 'policy.restore'] as const;

/**
 * The sandbox world's inverse capabilities, registered by `registerSandboxCapabilities`:
 * - `organize.revert { organizeId }` (execute, policy `organize`): undoes an organize — removes the library files it
 *   created (their data is still in the download folder), moves moved files back, restores the files it overwrote
 *   from quarantine and the library item it replaced; the download is `completed` again and is not imported
 *   automatically. `MEDIA_INVALID_STATE` once the overwritten files were purged from quarantine. The inverse of
 *   `organize.execute`.
 * - `task.restore { taskId }` (execute, policy `acquisition`): brings a cancelled download back from quarantine in
 *   the phase it had. `MEDIA_INVALID_STATE` once its files were purged. The inverse of `task.cancel`; its own inverse
 *   is `task.cancel`.
 * - `policy.restore { kind, revision, ifRevision? }` (execute, no policy kind: like `policy.apply`, never covered by
 *   a policy grant): applies the settings the policy had at `revision` (0: never applied, no settings) as a new
 *   revision; with `ifRevision`, only while the policy is still at that revision (`MEDIA_INVALID_STATE` otherwise).
 *   The inverse of `policy.apply` (`policy.apply` merges settings, so it cannot remove a setting a change added);
 *   it declares no inverse itself (a capability cannot be its own inverse): restore again to go forward.
 * @param world - the sandbox world
 * @returns the three capabilities
 * @public
 */
export function sandboxUndoCapabilities(world: SandboxWorld): Capability<any, any>[] {
  const jobOf = (taskId: string) => {
    const job = world.mutate((s) => s.downloads.find((d) => d.id === taskId));
    if (!job) throw new MediaStateError('MEDIA_NOT_FOUND', `no task ${JSON.stringify(taskId)}`, { taskId });
    return job;
  };
  const orgOf = (organizeId: string) => {
    const org = world.organizes().find((o) => o.id === organizeId);
    if (!org) throw new MediaStateError('MEDIA_NOT_FOUND', `no organize ${JSON.stringify(organizeId)}`, { organizeId });
    return org;
  };

  const revert = defineCapability({
    id: 'organize.revert',
    version: 1,
    title: 'Revert an organize',
    description:
      'Undoes one organize (organize.execute or an automatic import): removes the files it put into the library, restores the files it overwrote from quarantine; the download stays completed in the download folder.',
    kind: 'execute',
    replay: 'reconcile',
    policy: 'organize',
    tags: ['organize', 'revert', 'undo', 'library'],
    aliases: ['撤销整理', '还原整理', 'undo organize'],
    input: Type.Object({ organizeId: Type.String({ ...issuedId('organize'), minLength: 1, maxLength: 128 }) }, strict),
    output: Type.Object({ organize: OrganizeRecordSchema }),
    target: (input) => {
      const org = world.organizes().find((o) => o.id === input.organizeId);
      return org ? { mediaEntityId: org.mediaEntityId } : {};
    },
    impact: (input) => revertImpact(world, orgOf(input.organizeId)),
    handler: async (input, ctx) => {
      world.recordHandlerCall('organize.revert', input, ctx.runId);
      return { organize: world.organizeView(world.revertOrganize(input.organizeId, ctx.runId)) };
    },
  });

  const restore = defineCapability({
    id: 'task.restore',
    version: 1,
    title: 'Restore a cancelled download',
    description:
      'Brings a cancelled download back from quarantine (its files and its progress), while the quarantine still keeps them.',
    kind: 'execute',
    replay: 'reconcile',
    policy: 'acquisition',
    tags: ['task', 'restore', 'undo', 'download', 'quarantine'],
    aliases: ['恢复任务', '恢复下载', 'undo cancel'],
    input: Type.Object({ taskId: Type.String({ ...issuedId('task'), minLength: 1, maxLength: 128 }) }, strict),
    output: Type.Object({ task: TaskSchema }),
    target: (input) => {
      const job = world.downloads().find((d) => d.id === input.taskId);
      return job ? { mediaEntityId: job.mediaEntityId } : {};
    },
    impact: (input) => restoreImpact(world, jobOf(input.taskId)),
    inverse: { capability: 'task.cancel', input: (output) => ({ taskId: output.task.id, reason: 'undo restore' }) },
    handler: async (input, ctx) => {
      world.recordHandlerCall('task.restore', input, ctx.runId);
      const job = jobOf(input.taskId);
      world.restoreDownload(job, ctx.runId);
      return { task: world.tasks().find((t) => t.id === job.id)! };
    },
  });

  const policyRestore = defineCapability({
    id: 'policy.restore',
    version: 1,
    title: 'Restore a policy revision',
    description:
      'Applies the settings a policy had at an earlier revision (0: never applied) as a new revision; with ifRevision, only while the policy is still at that revision.',
    kind: 'execute',
    replay: 'reconcile',
    tags: ['policy', 'restore', 'undo', 'settings'],
    aliases: ['恢复策略', '撤销策略', 'undo policy'],
    input: Type.Object(
      {
        kind: PolicyKindSchema,
        revision: Type.Integer({ minimum: 0, description: 'The revision whose settings to restore.' }),
        ifRevision: Type.Optional(
          Type.Integer({ minimum: 1, description: 'Only while the policy is at this revision.' }),
        ),
      },
      // Declared with nothing to mark: no strings besides the policy kind.
      { ...strict, [PROVENANCE_MARK]: 'declared' },
    ),
    output: Type.Object({
      kind: PolicyKindSchema,
      revision: Type.Integer({ minimum: 1 }),
      settings: PolicySettingsSchema,
      restoredFrom: Type.Integer({ minimum: 0 }),
    }),
    impact: (input) => {
      const settings = world.policyAt(input.kind, input.revision);
      if (!settings) throw new Error(`revision ${input.revision} of the ${input.kind} policy is not known`);
      return policyImpact(world.policy(input.kind).settings, settings);
    },
    handler: async (input, ctx) => {
      world.recordHandlerCall('policy.restore', input, ctx.runId);
      return world.mutate((s) => {
        const key = ctx.idempotencyKey;
        const recorded = key ? (s.results[key] as Record<string, unknown> | undefined) : undefined;
        if (recorded) return recorded as never;
        const current = world.policy(input.kind);
        if (input.ifRevision !== undefined && current.revision !== input.ifRevision)
          throw new MediaStateError(
            'MEDIA_INVALID_STATE',
            `the ${input.kind} policy is at revision ${current.revision}, not ${input.ifRevision}: it changed since; nothing restored`,
            { kind: input.kind, revision: current.revision },
          );
        const settings = world.policyAt(input.kind, input.revision);
        if (!settings)
          throw new MediaStateError(
            'MEDIA_NOT_FOUND',
            `revision ${input.revision} of the ${input.kind} policy is not known`,
            { kind: input.kind, revision: input.revision },
          );
        const next = world.setPolicy(s, input.kind, settings);
        const out = {
          kind: input.kind,
          revision: next.revision,
          settings: next.settings,
          restoredFrom: input.revision,
        };
        if (key) s.results[key] = out;
        return out;
      });
    },
  });
  return [revert, restore, policyRestore];
}
