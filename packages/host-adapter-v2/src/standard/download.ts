import { planOfType } from '@media-agent/host-adapter-kit';
import { defineStandardCapability, MediaStateError, planReceipt } from '@media-agent/sdk/media';
import { hashOfEnclosure, kindOf, releaseOf, v2MediaId } from '../mapping';
import type { TrackedDownload } from '../tracking';
import { downloadSpace } from './host-space';
import { downloadImpact, type V2ImpactContext } from './impact-rules';
import type { DownloadPayload } from './payloads';
import { checkDownloadPayload } from './plan-checks';
import { V2DownloadPlanPayloadSchema } from './plan-schemas';
import type { V2StandardDeps, V2StandardHelpers } from './services';
import { verifyV2DownloadSubmit } from './verifiers';

/**
 * Download plans and submits (`POST /api/v1/download/`) and rechecks (`GET /api/v1/download/start/{hash}`).
 * @param deps - the host view and plan service
 * @param h - the shared reads and checks
 * @returns `download.plan`, `download.submit`, `download.recheck` by id
 * @internal
 */
export function v2DownloadCapabilities(deps: V2StandardDeps, h: V2StandardHelpers) {
  const { view, plans } = deps;
  const { client, tracking } = view;
  const { findRelease, downloadOrThrow, planOf } = h;
  /** The download plan an impact is asked about: the one the call targets, else read from the plan service. */
  const payloadOf = async (planId: string, ctx: V2ImpactContext) => {
    const plan = ctx.plan?.id === planId ? ctx.plan : await plans.get(planId);
    return planOfType(plan, 'download', planId).payload as unknown as DownloadPayload;
  };
  return {
    'download.plan': defineStandardCapability(
      'download.plan',
      async (input, ctx) => {
        const entity = v2MediaId(input.mediaSource, input.mediaId);
        await tracking.touch(ctx.runId, { entities: [entity] });
        const r = await findRelease(input.releaseId, ctx.signal);
        const identities = (await tracking.read()).identities;
        const releaseEntity = identities[`release:${input.releaseId}`] ?? r.entity;
        if (releaseEntity !== entity)
          throw new MediaStateError(
            'MEDIA_INVALID_STATE',
            `release ${input.releaseId} is a release of ${releaseEntity}, not ${entity}`,
            { releaseId: input.releaseId, mediaEntityId: entity },
          );
        if (kindOf(r.media.type) !== input.kind)
          throw new MediaStateError(
            'MEDIA_INVALID_STATE',
            `${entity} is a ${kindOf(r.media.type)}, not a ${input.kind}`,
            { mediaEntityId: entity },
          );
        if ((await view.inLibrary(entity, input.kind, ctx.signal)).present)
          throw new MediaStateError(
            'MEDIA_ALREADY_IN_LIBRARY',
            `${r.media.en_title ?? r.media.title} (${entity}) is already in the library: nothing to download`,
            { mediaEntityId: entity },
          );
        const active = (await view.downloads(ctx.signal)).find(
          (d) => d.job.mediaEntityId === entity && ['queued', 'downloading', 'stalled'].includes(d.job.status),
        );
        if (active)
          throw new MediaStateError(
            'MEDIA_ALREADY_DOWNLOADING',
            `${active.job.title} is already being downloaded as ${active.job.id}`,
            { mediaEntityId: entity, downloadId: active.job.id },
          );
        const release = releaseOf(r.torrent, entity, false);
        const title = r.media.en_title ?? r.media.title ?? release.name;
        const payload: DownloadPayload = {
          type: 'download',
          mediaEntityId: entity,
          title,
          kind: input.kind,
          releaseId: release.releaseId,
          releaseName: release.name,
          site: release.site,
          sizeBytes: release.sizeBytes,
          resolution: release.resolution,
          hash: hashOfEnclosure(r.torrent.enclosure),
          media_in: r.media,
          torrent_in: r.torrent,
        };
        const record = await plans.create({
          type: 'download',
          payload: payload as never,
          actor: ctx.actor,
          mediaEntityId: entity,
          mediaKind: input.kind,
          bytes: release.sizeBytes,
        });
        await tracking.touch(ctx.runId, { plans: [record.id] });
        return {
          plan: planReceipt(record),
          download: { releaseId: release.releaseId, releaseName: release.name, title, sizeBytes: release.sizeBytes },
        };
      },
      {
        // The release's torrent size (the host's search result), its download directory (`Directories`)
        // and the downloader's free space (`GET /api/v1/dashboard/downloader`).
        impact: async (input, ctx) => {
          const r = await findRelease(input.releaseId, ctx.signal);
          const space = await downloadSpace(client, input.kind, ctx.signal);
          return downloadImpact(r.torrent.size ?? 0, space, true);
        },
      },
    ),
    'download.submit': defineStandardCapability(
      'download.submit',
      async (input, ctx) => {
        const plan = planOf(ctx, 'download', input.planId);
        const p = plan.payload as unknown as DownloadPayload;
        await tracking.touch(ctx.runId, { entities: [p.mediaEntityId], plans: [plan.id] });
        await checkDownloadPayload(p, plan, h, ctx.signal);
        const previous = await view.downloadForPlan(p, plan.id, ctx.signal);
        if (previous && previous.job.status !== 'removed')
          throw new MediaStateError(
            'MEDIA_PLAN_CONFLICT',
            `plan ${plan.id} was already submitted as download ${previous.job.id}`,
            { planId: plan.id, downloadId: previous.job.id },
          );
        const data = await client.call<{ download_id?: string }>('download.add', {
          body: { media_in: p.media_in, torrent_in: p.torrent_in },
          signal: ctx.signal,
        });
        const hash = data?.download_id ?? p.hash;
        if (!hash)
          throw new MediaStateError(
            'MEDIA_INVALID_STATE',
            'MoviePilot accepted the download but returned no download_id',
          );
        const tracked: TrackedDownload = {
          hash,
          planId: plan.id,
          releaseId: p.releaseId,
          releaseName: p.releaseName,
          mediaEntityId: p.mediaEntityId,
          title: p.title,
          sizeBytes: p.sizeBytes,
          submittedAt: ctx.clock.now(),
          idempotencyKey: ctx.idempotencyKey ?? null,
          cancelled: false,
        };
        await tracking.update((s) => void (s.downloads[hash] = tracked));
        await tracking.touch(ctx.runId, { downloads: [hash] });
        const d = (await view.downloads(ctx.signal)).find((x) => x.job.id === hash);
        return ctx.pending({
          download: d?.job ?? {
            id: hash,
            planId: plan.id,
            releaseId: p.releaseId,
            releaseName: p.releaseName,
            mediaEntityId: p.mediaEntityId,
            title: p.title,
            sizeBytes: p.sizeBytes,
            status: 'queued',
            progress: 0,
            submittedAt: tracked.submittedAt,
            updatedAt: tracked.submittedAt,
            organizeId: null,
          },
        });
      },
      {
        verify: verifyV2DownloadSubmit,
        descriptionNote: 'On MoviePilot 2.x this is POST /api/v1/download/.',
        planPayload: V2DownloadPlanPayloadSchema,
        // Undone by cancelling the download: the downloader delete removes the torrent and its files.
        inverse: { capability: 'task.cancel', input: (output) => ({ taskId: output.download.id }) },
        impact: async (input, ctx) => {
          const p = await payloadOf(input.planId, ctx);
          const space = await downloadSpace(client, p.kind, ctx.signal);
          return downloadImpact(p.torrent_in.size ?? p.sizeBytes, space, false);
        },
      },
    ),
    'download.recheck': defineStandardCapability('download.recheck', async (input, ctx) => {
      const d = await downloadOrThrow(input.downloadId, ctx.signal);
      if (d.job.status !== 'stalled' && d.job.status !== 'failed')
        throw new MediaStateError(
          'MEDIA_INVALID_STATE',
          `download ${d.job.id} is ${d.job.status}; only stalled or failed downloads can be rechecked or resumed`,
          { downloadId: d.job.id },
        );
      await client.call('download.start', { pathParams: { hashString: d.job.id }, signal: ctx.signal });
      await tracking.touch(ctx.runId, { downloads: [d.job.id], entities: [d.job.mediaEntityId] });
      return { action: input.action ?? 'recheck', download: (await downloadOrThrow(d.job.id, ctx.signal)).job };
    }),
  };
}
