import { planOfType } from '@media-agent/host-adapter-kit';
import { defineStandardCapability, MediaStateError, planReceipt } from '@media-agent/sdk/media';
import { kindOf, organizeRecord, typeName, v2MediaId } from '../mapping';
import { librarySpace } from './host-space';
import { organizeImpact, type V2ImpactContext } from './impact-rules';
import { type OrganizePayload, HOST_LIBRARY, TRANSFER_MODE } from './payloads';
import { checkOrganizePayload } from './plan-checks';
import { V2OrganizePlanPayloadSchema } from './plan-schemas';
import type { V2StandardDeps, V2StandardHelpers } from './services';
import { verifyV2OrganizeExecute } from './verifiers';

/** Id of the adapter capability that reverts a transfer (`organize.execute`'s inverse). @public */
export const V2_ORGANIZE_REVERT = 'moviepilot.organize.revert';

/**
 * Organize plans and executes (`POST /api/v1/transfer/manual`, superuser only).
 * @param deps - the host view and plan service
 * @param h - the shared reads and checks
 * @returns `organize.plan`, `organize.execute` by id
 * @internal
 */
export function v2OrganizeCapabilities(deps: V2StandardDeps, h: V2StandardHelpers) {
  const { plans, view } = deps;
  const { client, tracking } = view;
  const { downloadOrThrow, planOf, transferFor } = h;
  /**
   * The impact of transferring download `downloadId` of `entity`: its size (the downloader / the adapter's
   * submit), the library directory and its storage's free space, and whether the media server already lists
   * the title (its files are at the target).
   */
  const transferImpact = async (
    downloadId: string,
    entity: string,
    mode: OrganizePayload['mode'],
    files: number,
    ctx: V2ImpactContext,
  ) => {
    const d = await downloadOrThrow(downloadId, ctx.signal);
    const kind = kindOf(d.history?.type);
    const [space, existing] = await Promise.all([
      librarySpace(client, kind, ctx.signal),
      view.inLibrary(entity, kind, ctx.signal),
    ]);
    if ((await transferFor(downloadId, ctx.signal))?.status)
      space.notes.push(`download ${downloadId} is already organized: the host will not transfer it again`);
    return organizeImpact(mode, d.job.sizeBytes, files, space, existing.present, space.overwriteMode);
  };
  return {
    'organize.plan': defineStandardCapability(
      'organize.plan',
      async (input, ctx) => {
        const d = await downloadOrThrow(input.downloadId, ctx.signal);
        const identities = (await tracking.read()).identities;
        const entity =
          input.mediaSource && input.mediaId
            ? v2MediaId(input.mediaSource, input.mediaId)
            : (identities[`download:${d.job.id}`] ?? d.job.mediaEntityId);
        await tracking.touch(ctx.runId, { entities: [entity] });
        if (d.job.status !== 'completed')
          throw new MediaStateError(
            'MEDIA_INVALID_STATE',
            `download ${d.job.id} is ${d.job.status}; only a completed, not yet imported download can be organized`,
            { downloadId: d.job.id, status: d.job.status },
          );
        const path = d.history?.path;
        if (!path)
          throw new MediaStateError('MEDIA_INVALID_STATE', `the host's download history has no path for ${d.job.id}`, {
            downloadId: d.job.id,
          });
        const mode = input.mode ?? 'hardlink';
        const [source, id] = entity.split(':');
        const kind = kindOf(d.history?.type);
        const transfer: Record<string, unknown> = {
          fileitem: { storage: 'local', type: 'dir', path, name: path.split('/').pop() ?? path },
          ...(source === 'tmdb' ? { tmdbid: Number(id) } : { doubanid: id }),
          type_name: typeName(kind),
          transfer_type: TRANSFER_MODE[mode],
          scrape: false,
          from_history: false,
        };
        const payload: OrganizePayload = {
          type: 'organize',
          downloadId: d.job.id,
          mediaEntityId: entity,
          title: d.job.title,
          mode,
          targetPath: HOST_LIBRARY,
          files: [{ from: path, to: HOST_LIBRARY }],
          transfer,
        };
        const record = await plans.create({
          type: 'organize',
          payload: payload as never,
          actor: ctx.actor,
          mediaEntityId: entity,
          mediaKind: kind,
          bytes: 0,
        });
        await tracking.touch(ctx.runId, { plans: [record.id] });
        return {
          plan: planReceipt(record),
          organize: {
            downloadId: payload.downloadId,
            mediaEntityId: entity,
            title: payload.title,
            mode,
            targetPath: payload.targetPath,
            files: payload.files,
          },
        };
      },
      {
        impact: async (input, ctx) => {
          const d = await downloadOrThrow(input.downloadId, ctx.signal);
          const identities = (await tracking.read()).identities;
          const entity =
            input.mediaSource && input.mediaId
              ? v2MediaId(input.mediaSource, input.mediaId)
              : (identities[`download:${d.job.id}`] ?? d.job.mediaEntityId);
          return transferImpact(d.job.id, entity, input.mode ?? 'hardlink', 1, ctx);
        },
      },
    ),
    'organize.execute': defineStandardCapability(
      'organize.execute',
      async (input, ctx) => {
        const plan = planOf(ctx, 'organize', input.planId);
        const p = plan.payload as unknown as OrganizePayload;
        await tracking.touch(ctx.runId, { entities: [p.mediaEntityId], plans: [plan.id], downloads: [p.downloadId] });
        const done = await transferFor(p.downloadId, ctx.signal);
        if (!done?.status) {
          checkOrganizePayload(p, plan, (await downloadOrThrow(p.downloadId, ctx.signal)).history?.path);
          await client.call('transfer.manual', { query: { background: false }, body: p.transfer, signal: ctx.signal });
        }
        const record = await transferFor(p.downloadId, ctx.signal);
        if (!record)
          throw new MediaStateError(
            'MEDIA_INVALID_STATE',
            `MoviePilot accepted the transfer of ${p.downloadId} but its transfer history has no record`,
            { downloadId: p.downloadId },
          );
        await tracking.touch(ctx.runId, { organizes: [String(record.id)] });
        return { organize: organizeRecord(record, plan.id) };
      },
      {
        verify: verifyV2OrganizeExecute,
        aliases: ['transfer.file', '手动整理'],
        descriptionNote: 'On MoviePilot 2.x this is POST /api/v1/transfer/manual (host superusers only).',
        planPayload: V2OrganizePlanPayloadSchema,
        // Undone by deleting the transfer record with its library files (hardlink and copy only).
        inverse: { capability: V2_ORGANIZE_REVERT, input: (output) => ({ organizeId: output.organize.id }) },
        impact: async (input, ctx) => {
          const plan = ctx.plan?.id === input.planId ? ctx.plan : await plans.get(input.planId);
          const p = planOfType(plan, 'organize', input.planId).payload as unknown as OrganizePayload;
          return transferImpact(p.downloadId, p.mediaEntityId, p.mode, p.files.length, ctx);
        },
      },
    ),
  };
}
