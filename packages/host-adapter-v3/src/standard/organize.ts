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

/**
 * Organize plans (a `transfer.file` preview) and executes (`transfer.file`, per-item receipts, never resubmitted).
 * @param s - the services of one host
 * @param h - the shared reads and views
 * @returns `organize.plan`, `organize.execute` by id
 * @internal
 */
export function v3OrganizeCapabilities(s: V3Services, h: V3StandardHelpers) {
  const { client, plans, journal } = s;
  const { planOf } = h;
  return {
    'organize.plan': defineStandardCapability('organize.plan', async (input, ctx) => {
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
    }),
    'organize.execute': defineStandardCapability('organize.execute', async (input, ctx) => {
      const plan = planOf(ctx.plan, 'organize', input.planId) as NonNullable<typeof ctx.plan>;
      const p = plan.payload as unknown as OrganizePlanPayload;
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
    }),
  };
}
