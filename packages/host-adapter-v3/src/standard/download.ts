import { MediaStateError, defineStandardCapability, mediaEntityId, planReceipt } from '@media-agent/sdk/media';
import { MediaAgentError } from '@media-agent/sdk';
import { HostOperationError } from '@media-agent/host-adapter-kit';
import { v3Unsupported } from '../errors';
import { fromV3Identity, toV3Identity } from '../identity';
import type { V3JournalDownload } from '../journal';
import type { V3ErrorCode } from '../error-codes';
import { releaseIdOf, type V3Context, type V3DownloadTask, type DownloadPlanPayload } from './mapping';
import type { V3Services, V3StandardHelpers } from './services';
import { verifyV3DownloadSubmit } from './verifiers';
import { planOfType } from '@media-agent/host-adapter-kit';
import { downloadSpace } from './host-space';
import { downloadImpact } from './impact-rules';
import { checkDownloadPayload } from './plan-checks';
import { V3DownloadPlanPayloadSchema } from './plan-schemas';

/**
 * Download plans and submits (`download.add`, with the host's confirmation of unrecognised media); rechecks are not in the V3 catalog.
 * @param s - the services of one host
 * @param h - the shared reads and views
 * @returns `download.plan`, `download.submit`, `download.recheck` by id
 * @internal
 */
export function v3DownloadCapabilities(s: V3Services, h: V3StandardHelpers) {
  const { client, plans, journal } = s;
  const { lookupLibrary, searchReleases, jobView, planOf } = h;
  return {
    'download.plan': defineStandardCapability(
      'download.plan',
      async (input, ctx) => {
        const entity = mediaEntityId(input);
        journal.touch(ctx.runId, entity, entity);
        let known = s.releases.get(input.releaseId);
        if (!known || known.mediaEntityId !== entity) {
          await searchReleases(input, input.kind, ctx.signal);
          known = s.releases.get(input.releaseId);
        }
        if (!known)
          throw new MediaStateError('MEDIA_NOT_FOUND', `no release ${JSON.stringify(input.releaseId)} for ${entity}`, {
            releaseId: input.releaseId,
            mediaEntityId: entity,
          });
        const title = String(known.context.media_info?.title ?? known.context.meta_info?.name ?? entity);
        journal.touch(ctx.runId, entity, title);
        const torrent = known.context.torrent_info;
        const download = {
          releaseId: input.releaseId,
          releaseName: torrent.title,
          title,
          sizeBytes: Math.max(0, Math.round(torrent.size ?? 0)),
        };
        if ((await lookupLibrary(entity, ctx.signal)) !== null)
          throw new MediaStateError(
            'MEDIA_ALREADY_IN_LIBRARY',
            `${title} (${entity}) is already in the library: nothing to download`,
            { mediaEntityId: entity },
          );
        const active = await client.ok<V3DownloadTask[]>('download.tasks.active', { signal: ctx.signal });
        const same = (Array.isArray(active.data) ? active.data : []).find(
          (t) =>
            t.title === torrent.title ||
            (fromV3Identity(t.media?.media_source, t.media?.media_id)?.mediaEntityId === entity &&
              t.state !== 'completed'),
        );
        if (same)
          throw new MediaStateError(
            'MEDIA_ALREADY_DOWNLOADING',
            `${title} is already being downloaded as ${same.hash}`,
            {
              mediaEntityId: entity,
              downloadId: same.hash,
            },
          );
        const payload = {
          type: 'download',
          mediaEntityId: entity,
          title,
          kind: input.kind,
          releaseId: input.releaseId,
          releaseName: torrent.title,
          site: torrent.site_name ?? '',
          sizeBytes: download.sizeBytes,
          identity: toV3Identity(input),
          torrent_in: JSON.parse(JSON.stringify(torrent)) as Record<string, unknown>,
          allowUnrecognized: false,
        };
        const record = await plans.create({
          type: 'download',
          payload: payload as never,
          actor: ctx.actor,
          mediaEntityId: entity,
          mediaKind: input.kind,
          bytes: download.sizeBytes,
        });
        journal.addPlan(ctx.runId, { id: record.id, type: 'download', mediaEntityId: entity });
        return { plan: planReceipt(record), download };
      },
      {
        // The release's torrent size (this adapter's search, else the host's search results), the download
        // path (`download.paths`) and the downloader's free space (`dashboard.downloader`).
        impact: async (input, ctx) => {
          let known = s.releases.get(input.releaseId);
          if (!known) {
            const r = await client.ok<V3Context[]>('search.results', { signal: ctx.signal });
            const c = (Array.isArray(r.data) ? r.data : []).find(
              (x) => x.torrent_info && releaseIdOf(x) === input.releaseId,
            );
            if (c) known = { context: c, mediaEntityId: mediaEntityId(input) };
          }
          if (!known)
            throw new MediaStateError('MEDIA_NOT_FOUND', `no release ${JSON.stringify(input.releaseId)}`, {
              releaseId: input.releaseId,
            });
          const space = await downloadSpace(client, input.kind, ctx.signal, s.settings.savePath);
          return downloadImpact(known.context.torrent_info.size ?? 0, space, true);
        },
      },
    ),
    'download.submit': defineStandardCapability(
      'download.submit',
      async (input, ctx) => {
        const plan = planOf(ctx.plan, 'download', input.planId) as NonNullable<typeof ctx.plan>;
        const p = plan.payload as unknown as DownloadPlanPayload;
        journal.addPlan(ctx.runId, { id: plan.id, type: 'download', mediaEntityId: p.mediaEntityId });
        await checkDownloadPayload(p, plan, s, ctx.signal);
        const body: Record<string, unknown> = {
          torrent_in: p.torrent_in,
          ...p.identity,
          ...(p.allowUnrecognized ? { allow_unrecognized: true } : {}),
        };
        if (s.settings.downloader) body.downloader = s.settings.downloader;
        if (s.settings.savePath) body.save_path = s.settings.savePath;
        const r = await client.call<{ download_id?: string; requires_confirmation?: boolean } | null>('download.add', {
          body,
          signal: ctx.signal,
        });
        if (!r.success && r.data?.requires_confirmation && !p.allowUnrecognized) {
          // The host could not recognise the media: a person must confirm. The plan is revised (new
          // payload hash and revision), so the next submit is denied until that revision is approved.
          await plans.revise(plan.id, { ...(plan.payload as object), allowUnrecognized: true } as never, plan.revision);
          throw new MediaAgentError<V3ErrorCode>(
            'HOST_REQUIRES_CONFIRMATION',
            `MoviePilot could not recognise the media of ${p.releaseName} (${r.message}); the plan was revised to download it unrecognised — a person must approve the new revision before submitting again`,
            { planId: plan.id },
          );
        }
        if (!r.success || !r.data?.download_id)
          throw new HostOperationError('download.add', r.message, { status: r.status, data: r.data });
        const d: V3JournalDownload = {
          hash: r.data.download_id,
          planId: plan.id,
          releaseId: p.releaseId,
          releaseName: p.releaseName,
          mediaEntityId: p.mediaEntityId,
          title: p.title,
          sizeBytes: p.sizeBytes,
          idempotencyKey: ctx.idempotencyKey ?? null,
          submittedAt: ctx.clock.now(),
        };
        journal.addDownload(ctx.runId, d);
        return ctx.pending({
          download: jobView(
            d,
            { hash: d.hash, title: d.releaseName, state: 'queued', progress: 0 },
            [],
            ctx.clock.now(),
          ),
        });
      },
      {
        verify: verifyV3DownloadSubmit(s),
        planPayload: V3DownloadPlanPayloadSchema,
        // No inverse: deleting a torrent left the V3 operation catalog (task.cancel is unsupported).
        impact: async (input, ctx) => {
          const plan = ctx.plan?.id === input.planId ? ctx.plan : await plans.get(input.planId);
          const p = planOfType(plan, 'download', input.planId).payload as unknown as DownloadPlanPayload & {
            kind?: 'movie' | 'tv';
          };
          const space = await downloadSpace(client, p.kind ?? 'movie', ctx.signal, s.settings.savePath);
          return downloadImpact(Number(p.torrent_in.size ?? p.sizeBytes), space, false);
        },
        descriptionNote:
          'On MoviePilot V3 this calls download.add; when the host cannot recognise the media, the plan is revised and needs a new approval before it is sent with allow_unrecognized.',
      },
    ),
    'download.recheck': defineStandardCapability('download.recheck', async () => {
      throw v3Unsupported(
        'download.recheck',
        'torrent start/stop/recheck left the V3 operation catalog (downloader-operation skill); ask a person to use the downloader',
      );
    }),
  };
}
