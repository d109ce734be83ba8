import type { PlanService } from '../../authorization/plan-service';
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import { OutcomeUnknownError } from '../../capabilities/errors';
import type { HandlerContext } from '../../capabilities/types';
import type { PlanRecord } from '../../core/records';
import type { StandardOutput } from '../../media/contracts';
import {
  defineStandardCapability as defineStandard,
  planReceipt,
  registerStandardCapabilities,
  verifyDownloadSubmit,
  type StandardImplementations,
} from '../../media/define-standard';
import { MediaStateError } from '../../media/errors';
import { parseMediaEntityId } from '../../media/identity';
import { RESOLUTIONS, type Release } from '../../media/schemas';
import { sandboxReleaseFiles, type SandboxRelease, type SandboxTitle } from './data';
import { cancelImpact, downloadImpact, organizeImpact, policyChanges, policyImpact } from './impacts';
import { resolveDownloadPlan, resolveOrganizePlan } from './plan-checks';
import {
  SandboxDownloadPlanPayloadSchema,
  SandboxOrganizePlanPayloadSchema,
  type SandboxDownloadPlanPayload,
  type SandboxOrganizePlanPayload,
} from './plan-payloads';
import { sandboxPosterCapability } from './poster';
import { sandboxUndoCapabilities } from './undo';
import { addRun, entityOf, type SandboxDownload, type SandboxPlan, type SandboxWorld } from './world';

const notFound = (what: string, id: string) =>
  new MediaStateError('MEDIA_NOT_FOUND', `no ${what} ${JSON.stringify(id)}`, { [what]: id });
const norm = (s: string) =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s\p{P}\p{S}]+/gu, '');
const rank = (r: string) => RESOLUTIONS.indexOf(r as (typeof RESOLUTIONS)[number]);

/**
 * The sandbox world's implementations of the 15 standard media capabilities, with
 * the standard read-only verifier of `download.submit` (it reads `task.inspect` by idempotency key).
 * @param world - the sandbox world
 * @param services - the host's plan service (`host.plans`): `download.plan` and `organize.plan` create SDK plan artifacts with it
 * @returns the 15 capabilities by id, for {@link registerStandardCapabilities}
 * @public
 */
export function sandboxCapabilities(world: SandboxWorld, services: { plans: PlanService }): StandardImplementations {
  const { plans } = services;
  // Every handler records the call it received first (world.handlerCalls()).
  const defineStandardCapability: typeof defineStandard = (id, handler, extras) =>
    defineStandard(
      id,
      (input, ctx) => {
        world.recordHandlerCall(id, input, ctx.runId);
        return handler(input, ctx);
      },
      extras,
    );

  const titleOrThrow = (source: string, id: string): SandboxTitle => {
    const t = world.resolveTitle(`${source}:${id}`);
    if (!t) throw notFound('title', `${source}:${id}`);
    return t;
  };
  const releaseView = (r: SandboxRelease): Release => {
    const entity = world.releaseEntity(r);
    return {
      releaseId: r.releaseId,
      name: r.name,
      mediaEntityId: entity,
      site: r.site,
      sizeBytes: r.sizeBytes,
      resolution: r.resolution,
      source: r.source,
      codec: r.codec,
      hdr: r.hdr,
      season: r.season,
      seeders: r.seeders,
      inLibrary: world.inLibrary(entity),
    };
  };
  const releaseOrThrow = (id: string) => {
    const r = world.releases().find((x) => x.releaseId === id);
    if (!r) throw notFound('release', id);
    return r;
  };
  const jobOrThrow = (id: string): SandboxDownload => {
    const job = world.mutate((s) => s.downloads.find((d) => d.id === id));
    if (!job) throw notFound('download', id);
    return job;
  };
  const planRecord = (
    id: string,
    type: 'download' | 'organize',
    fill: () => Omit<SandboxPlan, 'id' | 'type' | 'runIds' | 'createdAt'>,
    runId: string | undefined,
  ): SandboxPlan =>
    world.mutate((s, now) => {
      let p = s.plans.find((x) => x.id === id);
      if (!p) {
        p = { id, type, runIds: [], createdAt: now, ...fill() };
        s.plans.push(p);
      }
      addRun(p.runIds, runId);
      return p;
    });
  const planOf = (ctx: HandlerContext, type: 'download' | 'organize', planId: string) => {
    const plan = ctx.plan;
    if (!plan) throw new MediaStateError('MEDIA_NOT_FOUND', `no ${type} plan ${JSON.stringify(planId)}`, { planId });
    if (plan.type !== type)
      throw new MediaStateError('MEDIA_PLAN_CONFLICT', `plan ${plan.id} is a ${plan.type} plan, not a ${type} plan`, {
        planId: plan.id,
      });
    return plan;
  };
  const taskView = (id: string) => world.tasks().find((t) => t.id === id)!;
  /** The organize plan payload: the files, and the same files as steps (one per file) a person may approve in part. */
  const organizePayload = (
    job: SandboxDownload,
    mode: 'hardlink' | 'copy' | 'move',
    entity: string,
  ): SandboxOrganizePlanPayload => {
    const steps = world.organizeSteps(job, entity);
    return {
      type: 'organize',
      downloadId: job.id,
      mediaEntityId: entity,
      title: world.titleOf(entity),
      mode,
      targetPath: world.libraryPathOf(entity),
      files: steps.map((s) => ({ from: s.from, to: s.to })),
      steps: steps.map((s) => ({ id: s.id, label: s.label, from: s.from, to: s.to, sizeBytes: s.sizeBytes })),
    };
  };
  const planOfImpact = (plan: PlanRecord | undefined, type: 'download' | 'organize', planId: string) => {
    if (!plan || plan.type !== type) throw notFound(`${type} plan`, planId);
    return plan;
  };
  const noSpace = (needed: number, path: string, planId: string) => {
    const free = world.freeBytes(path);
    if (needed > free)
      throw new MediaStateError(
        'MEDIA_INVALID_STATE',
        `not enough space on the volume of ${path}: ${needed} bytes needed, ${free} free`,
        { planId, neededBytes: needed, freeBytes: free },
      );
  };

  const implementations = {
    'catalog.lookup': defineStandardCapability('catalog.lookup', async (input, ctx) => {
      const query = input.query.trim();
      const year = input.year;
      const exact = parseMediaEntityId(query);
      let found: SandboxTitle[];
      if (exact) found = [world.resolveTitle(query)].filter((t): t is SandboxTitle => t !== undefined);
      else {
        const search = (text: string, inYear: number | undefined) => {
          const q = norm(text);
          return world
            .titles()
            .map((t) => {
              const names = [t.title, t.originalTitle, t.localizedTitle ?? ''].map(norm).filter(Boolean);
              const score = names.some((n) => n === q)
                ? 3
                : names.some((n) => n.startsWith(q))
                  ? 2
                  : names.some((n) => n.includes(q))
                    ? 1
                    : 0;
              return { t, score };
            })
            .filter(
              (x) =>
                x.score > 0 &&
                (input.kind === undefined || x.t.kind === input.kind) &&
                (inYear === undefined || x.t.year === inYear),
            )
            .sort((a, b) => b.score - a.score || b.t.year - a.t.year)
            .map((x) => x.t);
        };
        // The title first ("Blade Runner 2049" is a title); a trailing year filters only when the whole text matches nothing.
        found = search(query, year);
        const y = /(?:^|\s|\()(\d{4})\)?\s*$/.exec(query);
        if (
          found.length === 0 &&
          y &&
          year === undefined &&
          Number(y[1]) >= 1870 &&
          Number(y[1]) <= 2100 &&
          norm(query.slice(0, y.index))
        ) {
          found = search(query.slice(0, y.index), Number(y[1]));
        }
      }
      const items = found.slice(0, input.limit ?? 10).map((t) => world.mediaItem(t));
      if (items.length === 1) world.touch(ctx.runId, items[0]!.mediaEntityId);
      return { items };
    }),

    'release.search': defineStandardCapability('release.search', async (input, ctx) => {
      const t = titleOrThrow(input.mediaSource, input.mediaId);
      const entity = entityOf(t);
      world.touch(ctx.runId, entity);
      const policy = world.policy('acquisition').settings;
      const minRes = [input.minResolution, policy.minResolution].filter((r) => r !== undefined).map(rank);
      const maxSize = Math.min(input.maxSizeBytes ?? Infinity, policy.maxSizeBytes ?? Infinity);
      const releases = world
        .releases()
        .filter((r) => world.releaseEntity(r) === entity)
        .filter(
          (r) =>
            (input.season === undefined || r.season === input.season) &&
            minRes.every((m) => rank(r.resolution) >= m) &&
            r.sizeBytes <= maxSize,
        )
        .sort(
          (a, b) =>
            rank(b.resolution) - rank(a.resolution) || b.seeders - a.seeders || a.releaseId.localeCompare(b.releaseId),
        )
        .slice(0, input.limit ?? 10)
        .map(releaseView);
      return { mediaEntityId: entity, mediaSource: 'tmdb' as const, mediaId: t.mediaId, releases };
    }),

    'release.inspect': defineStandardCapability('release.inspect', async (input, ctx) => {
      const r = releaseOrThrow(input.releaseId);
      world.touch(ctx.runId, world.releaseEntity(r));
      const files = sandboxReleaseFiles(r).map((f) => ({ path: f.path, sizeBytes: f.sizeBytes }));
      return {
        release: releaseView(r),
        files,
        freeleech: r.freeleech,
        publishedAt: r.publishedAt,
        ...(r.nfo !== undefined ? { nfo: r.nfo } : {}),
      };
    }),

    'identity.resolve': defineStandardCapability('identity.resolve', async (input, ctx) => {
      const t = titleOrThrow(input.mediaSource, input.mediaId);
      const entity = entityOf(t);
      const key = ctx.idempotencyKey ?? `identity:${input.subjectType}:${input.subjectId}`;
      return world.mutate((s) => {
        const recorded = s.results[key] as StandardOutput<'identity.resolve'> | undefined;
        if (recorded) return recorded;
        let previous: string;
        if (input.subjectType === 'release') {
          const r = releaseOrThrow(input.subjectId);
          previous = world.releaseEntity(r);
          s.identities[`release:${r.releaseId}`] = entity;
        } else {
          const job = s.downloads.find((d) => d.id === input.subjectId);
          if (!job) throw notFound('download', input.subjectId);
          if (job.phase === 'imported')
            throw new MediaStateError(
              'MEDIA_INVALID_STATE',
              `download ${job.id} is already imported; organize it again instead`,
              { downloadId: job.id },
            );
          previous = job.mediaEntityId;
          job.mediaEntityId = entity;
          addRun(job.runIds, ctx.runId);
        }
        if (ctx.runId) addRun((s.touches[ctx.runId] ??= []), entity);
        const out = {
          subjectType: input.subjectType,
          subjectId: input.subjectId,
          mediaEntityId: entity,
          previousMediaEntityId: previous,
        };
        s.results[key] = out;
        return out;
      });
    }),

    'download.plan': defineStandardCapability(
      'download.plan',
      async (input, ctx) => {
        const t = titleOrThrow(input.mediaSource, input.mediaId);
        const entity = entityOf(t);
        world.touch(ctx.runId, entity);
        const existing = ctx.idempotencyKey
          ? world.plans().find((p) => p.idempotencyKey === ctx.idempotencyKey)
          : undefined;
        const r = releaseOrThrow(input.releaseId);
        const download = { releaseId: r.releaseId, releaseName: r.name, title: t.title, sizeBytes: r.sizeBytes };
        if (existing) return { plan: planReceipt(await plans.get(existing.id)), download };
        if (t.kind !== input.kind)
          throw new MediaStateError('MEDIA_INVALID_STATE', `${entity} is a ${t.kind}, not a ${input.kind}`, {
            mediaEntityId: entity,
          });
        if (world.releaseEntity(r) !== entity)
          throw new MediaStateError('MEDIA_INVALID_STATE', `release ${r.releaseId} is not a release of ${entity}`, {
            releaseId: r.releaseId,
            mediaEntityId: entity,
          });
        if (world.inLibrary(entity))
          throw new MediaStateError(
            'MEDIA_ALREADY_IN_LIBRARY',
            `${t.title} (${entity}) is already in the library: nothing to download`,
            { mediaEntityId: entity },
          );
        const active = world
          .downloads()
          .find(
            (d) =>
              d.mediaEntityId === entity &&
              ['queued', 'downloading', 'completed', 'stalled'].includes(world.downloadStatus(d)),
          );
        if (active)
          throw new MediaStateError(
            'MEDIA_ALREADY_DOWNLOADING',
            `${t.title} is already being downloaded as ${active.id}`,
            { mediaEntityId: entity, downloadId: active.id },
          );
        const episodes = sandboxReleaseFiles(r).filter((f) => f.episode !== null);
        const payload: SandboxDownloadPlanPayload = {
          type: 'download',
          mediaEntityId: entity,
          title: t.title,
          kind: t.kind,
          releaseId: r.releaseId,
          releaseName: r.name,
          site: r.site,
          sizeBytes: r.sizeBytes,
          resolution: r.resolution,
          // A season pack: one step per episode, so a person may approve some episodes.
          ...(episodes.length > 0
            ? {
                steps: episodes.map((f) => ({
                  id: f.episode!,
                  label: f.path.split('/').pop()!,
                  path: `/downloads/${f.path}`,
                  sizeBytes: f.sizeBytes,
                })),
              }
            : {}),
        };
        const record = await plans.create({
          type: 'download',
          payload,
          actor: ctx.actor,
          mediaEntityId: entity,
          mediaKind: t.kind,
          bytes: r.sizeBytes,
        });
        planRecord(
          record.id,
          'download',
          () => ({
            mediaEntityId: entity,
            releaseId: r.releaseId,
            downloadId: null,
            organizeId: null,
            idempotencyKey: ctx.idempotencyKey ?? null,
            failedReason: null,
          }),
          ctx.runId,
        );
        return { plan: planReceipt(record), download };
      },
      {
        impact: (input) => {
          const t = titleOrThrow(input.mediaSource, input.mediaId);
          return downloadImpact(
            world,
            resolveDownloadPlan(world, { releaseId: input.releaseId, mediaEntityId: entityOf(t) }, undefined),
            true,
          );
        },
      },
    ),

    'download.submit': defineStandardCapability(
      'download.submit',
      async (input, ctx) => {
        const plan = planOf(ctx, 'download', input.planId);
        const payload = plan.payload as SandboxDownloadPlanPayload;
        // The payload as approved (an approver may have edited releaseId): the release is read again by its id.
        const wanted = resolveDownloadPlan(
          world,
          { ...payload, mediaEntityId: payload.mediaEntityId ?? plan.mediaEntityId ?? '' },
          input.steps,
          plan.id,
        );
        const r = wanted.release;
        const entity = wanted.mediaEntityId;
        const known = planRecord(
          plan.id,
          'download',
          () => ({
            mediaEntityId: entity,
            releaseId: r.releaseId,
            downloadId: null,
            organizeId: null,
            idempotencyKey: null,
            failedReason: null,
          }),
          ctx.runId,
        );
        world.touch(ctx.runId, entity);
        const byKey = ctx.idempotencyKey
          ? world.downloads().find((d) => d.idempotencyKey === ctx.idempotencyKey)
          : undefined;
        if (byKey) return ctx.pending({ download: world.downloadView(byKey) });
        const refuse = (error: MediaStateError) => {
          world.mutate((s) => {
            const p = s.plans.find((x) => x.id === known.id);
            if (p && p.downloadId === null) p.failedReason = error.code;
          });
          return error;
        };
        const previous = world
          .downloads()
          .find((d) => d.planId === plan.id && d.phase !== 'removed' && d.phase !== 'failed');
        if (previous)
          throw new MediaStateError(
            'MEDIA_PLAN_CONFLICT',
            `plan ${plan.id} was already submitted as download ${previous.id}`,
            { planId: plan.id, downloadId: previous.id },
          );
        if (world.inLibrary(entity))
          throw refuse(
            new MediaStateError(
              'MEDIA_ALREADY_IN_LIBRARY',
              `${world.titleOf(entity)} (${entity}) is already in the library: nothing submitted`,
              { mediaEntityId: entity },
            ),
          );
        noSpace(wanted.bytes, `/downloads/${r.name}`, plan.id);
        const job = world.addDownload(
          {
            planId: plan.id,
            releaseId: r.releaseId,
            releaseName: r.name,
            mediaEntityId: entity,
            sizeBytes: wanted.bytes,
            resolution: r.resolution,
            idempotencyKey: ctx.idempotencyKey ?? null,
            runIds: ctx.runId ? [ctx.runId] : [],
          },
          wanted.episodes,
        );
        world.mutate((s) => {
          const p = s.plans.find((x) => x.id === known.id)!;
          p.downloadId = job.id;
          p.failedReason = null;
        });
        if (world.faults.submitTimesOutAfterEffect)
          throw new OutcomeUnknownError(
            'the downloader did not answer within the timeout; the job may have been added',
          );
        return ctx.pending({ download: world.downloadView(job) });
      },
      {
        verify: verifyDownloadSubmit,
        impact: (input, ctx) => {
          const plan = planOfImpact(ctx.plan, 'download', input.planId);
          const payload = plan.payload as SandboxDownloadPlanPayload;
          return downloadImpact(world, resolveDownloadPlan(world, payload, input.steps, plan.id), false);
        },
        inverse: {
          capability: 'task.cancel',
          input: (output) => ({ taskId: output.download.id, reason: 'undo download.submit' }),
        },
        planPayload: SandboxDownloadPlanPayloadSchema,
      },
    ),

    'download.recheck': defineStandardCapability('download.recheck', async (input, ctx) => {
      const job = jobOrThrow(input.downloadId);
      const action = input.action ?? 'recheck';
      if (!(job.phase === 'stalled' || job.phase === 'failed'))
        throw new MediaStateError(
          'MEDIA_INVALID_STATE',
          `download ${job.id} is ${world.downloadStatus(job)}; only stalled or failed downloads can be rechecked or resumed`,
          { downloadId: job.id },
        );
      world.restartDownload(job, true, ctx.idempotencyKey ?? null, ctx.runId);
      return { action, download: world.downloadView(job) };
    }),

    'organize.plan': defineStandardCapability(
      'organize.plan',
      async (input, ctx) => {
        const job = jobOrThrow(input.downloadId);
        const entity =
          input.mediaSource && input.mediaId
            ? entityOf(titleOrThrow(input.mediaSource, input.mediaId))
            : job.mediaEntityId;
        world.touch(ctx.runId, entity);
        const existing = ctx.idempotencyKey
          ? world.plans().find((p) => p.idempotencyKey === ctx.idempotencyKey)
          : undefined;
        const status = world.downloadStatus(job);
        if (!existing && status !== 'completed')
          throw new MediaStateError(
            'MEDIA_INVALID_STATE',
            `download ${job.id} is ${status}; only a completed, not yet imported download can be organized`,
            { downloadId: job.id, status },
          );
        const mode = input.mode ?? world.policy('organize').settings.organizeMode ?? 'hardlink';
        const payload = organizePayload(job, mode, entity);
        const record = existing
          ? await plans.get(existing.id)
          : await plans.create({
              type: 'organize',
              payload,
              actor: ctx.actor,
              mediaEntityId: entity,
              mediaKind: world.resolveTitle(entity)?.kind ?? undefined,
              bytes: 0,
            });
        if (!existing)
          planRecord(
            record.id,
            'organize',
            () => ({
              mediaEntityId: entity,
              releaseId: job.releaseId,
              downloadId: job.id,
              organizeId: null,
              idempotencyKey: ctx.idempotencyKey ?? null,
              failedReason: null,
            }),
            ctx.runId,
          );
        const frozen = record.payload as typeof payload;
        return {
          plan: planReceipt(record),
          organize: {
            downloadId: frozen.downloadId,
            mediaEntityId: frozen.mediaEntityId,
            title: frozen.title ?? world.titleOf(frozen.mediaEntityId),
            mode: frozen.mode,
            targetPath: frozen.targetPath,
            files: frozen.files,
          },
        };
      },
      {
        impact: (input) => {
          const job = jobOrThrow(input.downloadId);
          const entity =
            input.mediaSource && input.mediaId
              ? entityOf(titleOrThrow(input.mediaSource, input.mediaId))
              : job.mediaEntityId;
          const mode = input.mode ?? world.policy('organize').settings.organizeMode ?? 'hardlink';
          return organizeImpact(world, resolveOrganizePlan(world, organizePayload(job, mode, entity), undefined), true);
        },
      },
    ),

    'organize.execute': defineStandardCapability(
      'organize.execute',
      async (input, ctx) => {
        const plan = planOf(ctx, 'organize', input.planId);
        const done = ctx.idempotencyKey
          ? world.organizes().find((o) => o.idempotencyKey === ctx.idempotencyKey)
          : undefined;
        if (done) return { organize: world.organizeView(done) };
        // The payload as approved (possibly edited by the approver), checked against the world as it is now: the
        // download, its files, the library targets; only the steps asked for.
        const wanted = resolveOrganizePlan(world, plan.payload as SandboxOrganizePlanPayload, input.steps, plan.id);
        const job = jobOrThrow(wanted.job.id);
        const status = world.downloadStatus(job);
        if (status !== 'completed')
          throw new MediaStateError(
            'MEDIA_PLAN_CONFLICT',
            `download ${job.id} is ${status} now; the organize plan no longer applies`,
            { planId: plan.id, downloadId: job.id, status },
          );
        const effect = world.organizeEffect(wanted.files, wanted.mode, wanted.mediaEntityId);
        if (effect.missing.length > 0)
          throw new MediaStateError(
            'MEDIA_PLAN_CONFLICT',
            `organize plan ${plan.id} no longer applies: ${effect.missing.join(', ')} missing; plan again`,
            { planId: plan.id, missing: effect.missing },
          );
        if (effect.freeBytesAfter < 0) noSpace(effect.writeBytes, wanted.targetPath, plan.id);
        if (wanted.mediaEntityId !== job.mediaEntityId)
          world.mutate(() => void (job.mediaEntityId = wanted.mediaEntityId));
        const runIds = [...job.runIds];
        addRun(runIds, ctx.runId);
        const org = world.importDownload(job, plan.id, wanted.mode, ctx.idempotencyKey ?? null, runIds, wanted.files);
        world.mutate((s) => {
          const p = s.plans.find((x) => x.id === plan.id);
          if (p) {
            p.organizeId = org.id;
            addRun(p.runIds, ctx.runId);
          } else
            s.plans.push({
              id: plan.id,
              type: 'organize',
              mediaEntityId: org.mediaEntityId,
              releaseId: job.releaseId,
              downloadId: job.id,
              organizeId: org.id,
              idempotencyKey: null,
              failedReason: null,
              runIds: ctx.runId ? [ctx.runId] : [],
              createdAt: org.createdAt,
            });
        });
        return { organize: world.organizeView(org) };
      },
      {
        impact: (input, ctx) => {
          const plan = planOfImpact(ctx.plan, 'organize', input.planId);
          const payload = plan.payload as SandboxOrganizePlanPayload;
          return organizeImpact(world, resolveOrganizePlan(world, payload, input.steps, plan.id), false);
        },
        inverse: { capability: 'organize.revert', input: (output) => ({ organizeId: output.organize.id }) },
        planPayload: SandboxOrganizePlanPayloadSchema,
      },
    ),

    'task.inspect': defineStandardCapability('task.inspect', async (input) => {
      const tasks = world
        .tasks()
        .filter(
          (t) =>
            (input.taskId === undefined || t.id === input.taskId) &&
            (input.planId === undefined || t.planId === input.planId) &&
            (input.mediaEntityId === undefined || t.mediaEntityId === input.mediaEntityId) &&
            (input.idempotencyKey === undefined || t.idempotencyKey === input.idempotencyKey) &&
            (input.type === undefined || t.type === input.type) &&
            (input.status === undefined || t.status === input.status),
        )
        .slice(0, input.limit ?? 20);
      return { tasks };
    }),

    'task.retry': defineStandardCapability('task.retry', async (input, ctx) => {
      const job = world.downloads().find((d) => d.id === input.taskId);
      if (!job) {
        if (world.organizes().some((o) => o.id === input.taskId))
          throw new MediaStateError('MEDIA_INVALID_STATE', `organize ${input.taskId} did not fail; nothing to retry`, {
            taskId: input.taskId,
          });
        throw notFound('task', input.taskId);
      }
      const live = jobOrThrow(job.id);
      if (ctx.idempotencyKey && live.lastActionKey === ctx.idempotencyKey) return { task: taskView(live.id) };
      if (!(live.phase === 'stalled' || live.phase === 'failed'))
        throw new MediaStateError(
          'MEDIA_INVALID_STATE',
          `download ${live.id} is ${world.downloadStatus(live)}; only stalled or failed downloads are retried`,
          { taskId: live.id },
        );
      world.restartDownload(live, false, ctx.idempotencyKey ?? null, ctx.runId);
      return { task: taskView(live.id) };
    }),

    'task.cancel': defineStandardCapability(
      'task.cancel',
      async (input, ctx) => {
        const job = world.downloads().find((d) => d.id === input.taskId);
        if (!job) throw notFound('task', input.taskId);
        const live = jobOrThrow(job.id);
        if (live.phase === 'imported')
          throw new MediaStateError(
            'MEDIA_INVALID_STATE',
            `download ${live.id} is already imported; the library is not touched`,
            { taskId: live.id },
          );
        // Its files go to quarantine (kept world.quarantineDays days), so task.restore can bring it back.
        world.cancelDownload(live, ctx.runId);
        return { task: taskView(live.id) };
      },
      {
        impact: (input) => cancelImpact(world, jobOrThrow(input.taskId)),
        inverse: { capability: 'task.restore', input: (output) => ({ taskId: output.task.id }) },
      },
    ),

    'policy.preview': defineStandardCapability('policy.preview', async (input) => {
      const current = world.policy(input.kind);
      const proposed = { ...current.settings, ...input.settings };
      return {
        kind: input.kind,
        revision: current.revision,
        current: current.settings,
        proposed,
        changes: policyChanges(current.settings, proposed),
      };
    }),

    'policy.apply': defineStandardCapability(
      'policy.apply',
      async (input, ctx) =>
        world.mutate((s) => {
          const key = ctx.idempotencyKey;
          const recorded = key ? (s.results[key] as StandardOutput<'policy.apply'> | undefined) : undefined;
          if (recorded) return recorded;
          const current = s.policies[input.kind] ?? { revision: 0, settings: {} };
          const next = world.setPolicy(s, input.kind, { ...current.settings, ...input.settings });
          const out = { kind: input.kind, revision: next.revision, settings: next.settings };
          if (key) s.results[key] = out;
          return out;
        }),
      {
        impact: (input) => {
          const current = world.policy(input.kind).settings;
          return policyImpact(current, { ...current, ...input.settings });
        },
        // policy.apply merges settings, so applying the old ones cannot remove a setting the change added:
        // policy.restore puts the previous revision's settings back (only while the policy is still at this revision).
        inverse: {
          capability: 'policy.restore',
          input: (output) => ({ kind: output.kind, revision: output.revision - 1, ifRevision: output.revision }),
        },
      },
    ),

    'inventory.query': defineStandardCapability('inventory.query', async (input, ctx) => {
      const q = (input.query ?? '').trim();
      const exact = q ? world.resolveTitle(q) : undefined;
      const nq = norm(q);
      const items = world
        .library()
        .map((l) => ({ l, t: world.resolveTitle(l.mediaEntityId) }))
        .filter(({ l, t }) => {
          if (input.kind !== undefined && t?.kind !== input.kind) return false;
          if (!q) return true;
          if (exact) return l.mediaEntityId === entityOf(exact);
          return (
            !!t &&
            [t.title, t.originalTitle, t.localizedTitle ?? '']
              .map(norm)
              .some((n) => n && (n.includes(nq) || nq.includes(n)))
          );
        })
        .map(({ l, t }) => ({
          mediaEntityId: l.mediaEntityId,
          kind: t?.kind ?? 'movie',
          title: t?.title ?? l.mediaEntityId,
          localizedTitle: t?.localizedTitle ?? null,
          year: t?.year ?? 0,
          libraryPath: l.libraryPath,
          sizeBytes: l.sizeBytes,
          resolution: l.resolution,
          addedAt: l.addedAt,
        }));
      if (q && (exact || items.length === 1)) world.touch(ctx.runId, exact ? entityOf(exact) : items[0]!.mediaEntityId);
      return { total: items.length, items: items.slice(0, input.limit ?? 50) };
    }),
  };
  return implementations;
}

/**
 * Registers the sandbox world's 15 standard capabilities (and the `download.submit` verifier) on a
 * host: `registerSandboxCapabilities(host, world)`; with `{ poster: true }` also `media.poster`, a
 * read capability returning an image.
 * @param host - anything with the host's capability registry and plan service (an `AgentHost`)
 * @param world - the sandbox world
 * @param options - `poster`: register `media.poster` too (default false)
 * @throws `CAPABILITY_DUPLICATE` when one of the 15 ids is already registered (nothing registered then)
 * @public
 */
export function registerSandboxCapabilities(
  host: { capabilities: CapabilityRegistry; plans: PlanService },
  world: SandboxWorld,
  options: { poster?: boolean } = {},
): void {
  registerStandardCapabilities(host.capabilities, sandboxCapabilities(world, { plans: host.plans }));
  for (const capability of sandboxUndoCapabilities(world)) host.capabilities.register(capability);
  if (options.poster) host.capabilities.register(sandboxPosterCapability(world));
}
