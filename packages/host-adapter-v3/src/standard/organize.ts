import {
  MediaStateError,
  defineStandardCapability,
  mediaEntityId,
  planReceipt,
  type StandardOutput,
} from '@media-agent/sdk/media';
import { HostOperationError } from '@media-agent/host-adapter-kit';
import { fromV3Identity, toV3Identity } from '../identity';
import {
  type V3TransferRecord,
  TRANSFER_TYPE,
  downloadStatusOf,
  organizeStatusOf,
  type OrganizePlanPayload,
} from './mapping';
import { readHostState } from './host-state';
import type { V3Services, V3StandardHelpers } from './services';
import { planOfType } from '@media-agent/host-adapter-kit';
import { librarySpace } from './host-space';
import { organizeImpact, type V3ImpactContext } from './impact-rules';
import { checkOrganizePayload } from './plan-checks';
import { V3OrganizePlanPayloadSchema } from './plan-schemas';
import { kindOf } from './mapping';
import { parseMediaEntityId } from '@media-agent/sdk/media';

/** Id of the adapter capability that reverts a transfer (`organize.execute`'s inverse). @public */
export const V3_ORGANIZE_REVERT = 'moviepilot.organize.revert';

/**
 * Organize plans (a `transfer.file` preview) and executes (`transfer.file`, per-item receipts, never resubmitted).
 * @param s - the services of one host
 * @param h - the shared reads and views
 * @returns `organize.plan`, `organize.execute` by id
 * @internal
 */
export function v3OrganizeCapabilities(s: V3Services, h: V3StandardHelpers) {
  const { client, plans, journal } = s;
  const { planOf, lookupLibrary } = h;
  /**
   * The impact of transferring download `downloadId` of `entity`: its size (the downloader's task), the library
   * directory (the plan's target, else `storage.settings`) and the library storage's free space
   * (`dashboard.storage`), and whether the library already has the title (`library.exists`).
   */
  const transferImpact = async (
    downloadId: string,
    entity: string | undefined,
    mode: OrganizePlanPayload['mode'],
    files: number,
    targetPath: string | undefined,
    ctx: V3ImpactContext,
  ) => {
    const { tasks, transfers } = await readHostState(client, ctx.signal);
    const task = tasks.find((t) => t.hash === downloadId);
    const size = Number((task as { size?: number } | undefined)?.size ?? journal.download(downloadId)?.sizeBytes ?? 0);
    const kind = kindOf((task?.media as { type?: unknown } | undefined)?.type);
    const [space, existing] = await Promise.all([
      librarySpace(client, kind, ctx.signal, targetPath),
      entity ? lookupLibrary(entity, ctx.signal) : Promise.resolve(null),
    ]);
    if (transfers.some((t) => t.download_hash === downloadId && organizeStatusOf(t) === 'succeeded'))
      space.notes.push(`download ${downloadId} is already organized: the host will not transfer it again`);
    return organizeImpact(mode, size, files, space, existing !== null, space.overwriteMode);
  };
  return {
    'organize.plan': defineStandardCapability(
      'organize.plan',
      async (input, ctx) => {
        const { tasks, transfers } = await readHostState(client, ctx.signal);
        const task = tasks.find((t) => t.hash === input.downloadId);
        const known = journal.download(input.downloadId);
        const mine = transfers.filter((t) => t.download_hash === input.downloadId);
        // Neither the downloader, this adapter nor the transfer history knows the id: not found, not "removed".
        if (!task && !known && mine.length === 0)
          throw new MediaStateError(
            'MEDIA_NOT_FOUND',
            `no download ${JSON.stringify(input.downloadId)} on the MoviePilot host: it is not in the downloader, the transfer history or this adapter's submits; list downloads with task.inspect`,
            { downloadId: input.downloadId },
          );
        const status = downloadStatusOf(task, mine);
        if (status !== 'completed')
          throw new MediaStateError(
            'MEDIA_INVALID_STATE',
            `download ${input.downloadId} is ${status}; only a completed, not yet organized download can be organized`,
            { downloadId: input.downloadId, status },
          );
        const history = await client.ok<
          Array<{ path?: string; download_hash?: string; media_source?: string; media_id?: string; title?: string }>
        >('download.history.list', { query: { page: 1, count: 200 }, signal: ctx.signal });
        const h = (Array.isArray(history.data) ? history.data : []).find((x) => x.download_hash === input.downloadId);
        if (!h?.path)
          throw new MediaStateError(
            'MEDIA_NOT_FOUND',
            `MoviePilot has no download history (save path) for ${input.downloadId}`,
            { downloadId: input.downloadId },
          );
        const id =
          input.mediaSource && input.mediaId
            ? {
                mediaSource: input.mediaSource,
                mediaId: input.mediaId,
                mediaEntityId: mediaEntityId({ mediaSource: input.mediaSource, mediaId: input.mediaId }),
              }
            : fromV3Identity(h.media_source, h.media_id);
        if (!id)
          throw new MediaStateError(
            'MEDIA_INVALID_STATE',
            `download ${input.downloadId} has no media identity; give mediaSource and mediaId`,
            { downloadId: input.downloadId },
          );
        const mode = input.mode ?? s.policies.get('organize')?.settings.organizeMode ?? 'hardlink';
        const fileitem = {
          storage: s.settings.storage ?? 'local',
          type: 'dir',
          path: h.path,
          name: h.path.split('/').pop() ?? h.path,
        };
        const request = { fileitem, ...toV3Identity(id), transfer_type: TRANSFER_TYPE[mode] };
        const preview = await client.ok<{ items?: Array<{ source: string; target: string; target_dir?: string }> }>(
          'transfer.file',
          { body: { ...request, preview: true }, signal: ctx.signal },
        );
        const items = preview.data?.items ?? [];
        const title = known?.title ?? h.title ?? id.mediaEntityId;
        journal.touch(ctx.runId, id.mediaEntityId, title);
        const payload = {
          type: 'organize',
          downloadId: input.downloadId,
          mediaEntityId: id.mediaEntityId,
          title,
          mode,
          targetPath: items[0]?.target_dir ?? '',
          files: items.map((i) => ({ from: i.source, to: i.target })),
          request,
        };
        const record = await plans.create({
          type: 'organize',
          payload: payload as never,
          actor: ctx.actor,
          mediaEntityId: id.mediaEntityId,
          bytes: 0,
        });
        journal.addPlan(ctx.runId, { id: record.id, type: 'organize', mediaEntityId: id.mediaEntityId });
        return {
          plan: planReceipt(record),
          organize: {
            downloadId: payload.downloadId,
            mediaEntityId: payload.mediaEntityId,
            title,
            mode,
            targetPath: payload.targetPath,
            files: payload.files,
          },
        };
      },
      {
        impact: async (input, ctx) => {
          const entity =
            input.mediaSource && input.mediaId
              ? mediaEntityId({ mediaSource: input.mediaSource, mediaId: input.mediaId })
              : journal.download(input.downloadId)?.mediaEntityId;
          return transferImpact(
            input.downloadId,
            entity && parseMediaEntityId(entity) ? entity : undefined,
            input.mode ?? s.policies.get('organize')?.settings.organizeMode ?? 'hardlink',
            1,
            undefined,
            ctx,
          );
        },
      },
    ),
    'organize.execute': defineStandardCapability(
      'organize.execute',
      async (input, ctx) => {
        const plan = planOf(ctx.plan, 'organize', input.planId) as NonNullable<typeof ctx.plan>;
        const p = plan.payload as unknown as OrganizePlanPayload;
        checkOrganizePayload(p, plan);
        journal.addPlan(ctx.runId, { id: plan.id, type: 'organize', mediaEntityId: p.mediaEntityId });
        journal.addOrganize(ctx.runId, {
          planId: plan.id,
          downloadId: p.downloadId,
          mediaEntityId: p.mediaEntityId,
          idempotencyKey: ctx.idempotencyKey ?? null,
        });
        const view = (records: V3TransferRecord[], error: string | null) => {
          const states = records.map(organizeStatusOf);
          const status =
            states.length > 0 && states.every((x) => x === 'succeeded')
              ? 'succeeded'
              : states.some((x) => x === 'running')
                ? 'running'
                : states.length === 0
                  ? 'running'
                  : 'failed';
          return {
            organize: {
              id: records.length ? `th-${records[0]!.id}` : `plan-${plan.id}`,
              downloadId: p.downloadId,
              planId: plan.id,
              mediaEntityId: p.mediaEntityId,
              title: p.title,
              status,
              mode: p.mode,
              libraryPath: status === 'succeeded' ? (records[0]?.dest ?? p.targetPath) : null,
              automatic: false,
              createdAt: ctx.clock.now(),
              error,
            } as StandardOutput<'organize.execute'>['organize'],
          };
        };
        // Reconcile: a batch the host already holds (any receipt for these files) is never resubmitted.
        const before = (await readHostState(client, ctx.signal)).transfers.filter(
          (t) => t.download_hash === p.downloadId || t.src === p.request.fileitem.path,
        );
        if (before.length > 0) {
          const out = view(before, null);
          if (out.organize.status === 'running') return ctx.pending(out);
          if (out.organize.status === 'failed')
            throw new MediaStateError(
              'MEDIA_INVALID_STATE',
              `MoviePilot already holds a failed transfer of these files (history ${before.map((t) => t.id).join(', ')}); retry it with task.retry`,
              { planId: plan.id },
            );
          return out;
        }
        const r = await client.call<{
          items?: Array<{
            source: string;
            target?: string;
            target_dir?: string;
            state: string;
            message?: string;
            history_id?: number;
          }>;
        }>('transfer.file', { body: { ...p.request }, signal: ctx.signal });
        const receipts = r.data?.items ?? [];
        if (receipts.length === 0)
          throw new HostOperationError('transfer.file', r.message || 'no receipts', { status: r.status, data: r.data });
        const records: V3TransferRecord[] = receipts.map((x, i) => ({
          id: x.history_id ?? i,
          src: x.source,
          dest: x.target_dir ?? x.target ?? '',
          state: x.state,
          download_hash: p.downloadId,
        }));
        const states = receipts.map((x) => x.state);
        if (states.every((x) => x === 'completed')) return view(records, null);
        if (states.some((x) => x === 'accepted' || x === 'retry_wait'))
          return ctx.pending(
            view(
              records.filter((x) => x.state !== 'failed'),
              states.includes('failed')
                ? 'part of the batch failed; the accepted part is pending and is never resubmitted'
                : null,
            ),
          );
        throw new MediaStateError(
          'MEDIA_INVALID_STATE',
          `MoviePilot did not organize the files: ${receipts.map((x) => `${x.source}: ${x.state}${x.message ? ` (${x.message})` : ''}`).join('; ')}`,
          { planId: plan.id },
        );
      },
      {
        planPayload: V3OrganizePlanPayloadSchema,
        // Undone by deleting the transfer record with its library files (hardlink and copy only).
        inverse: { capability: V3_ORGANIZE_REVERT, input: (output) => ({ organizeId: output.organize.id }) },
        impact: async (input, ctx) => {
          const plan = ctx.plan?.id === input.planId ? ctx.plan : await plans.get(input.planId);
          const p = planOfType(plan, 'organize', input.planId).payload as unknown as OrganizePlanPayload;
          return transferImpact(
            p.downloadId,
            p.mediaEntityId,
            p.mode,
            Math.max(1, p.files.length),
            p.targetPath || undefined,
            ctx,
          );
        },
      },
    ),
  };
}
