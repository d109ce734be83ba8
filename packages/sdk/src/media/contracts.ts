import Type, { type Static, type TSchema } from 'typebox';
import { issuedId, PROVENANCE_MARK, untrustedText } from '../core/provenance-marks';
import type { CapabilityKind, EffectKind, InvocationTarget, ReplayPolicy } from '../core/capability-descriptor';
import { MediaEntityIdSchema, MediaIdSchema, MediaKindSchema, MediaSourceSchema, mediaEntityId } from './identity';
import {
  DownloadJobSchema,
  MediaItemSchema,
  OrganizeModeSchema,
  OrganizeRecordSchema,
  PlanReceiptSchema,
  PolicyKindSchema,
  PolicySettingsSchema,
  ReleaseSchema,
  ResolutionSchema,
  TaskSchema,
} from './schemas';

/**
 * The fixed part of a standard media capability: everything but the handler.
 * Host adapters implement the contract with {@link defineStandardCapability}.
 * @public
 */
export interface StandardCapabilityContract<I extends TSchema = TSchema, O extends TSchema = TSchema> {
  /** Standard id, e.g. `download.submit`. */
  readonly id: string;
  /** Contract version (part of the idempotency key). */
  readonly version: number;
  /** Short human title. */
  readonly title: string;
  /** What it does, written for the model. */
  readonly description: string;
  /** Kind (decides authorization and ledger use). */
  readonly kind: CapabilityKind;
  /** Replay policy. */
  readonly replay: ReplayPolicy;
  /** Policy kind whose `policy.<kind>` grants cover it, or undefined (only exact, family or `*` grants). */
  readonly policy: string | undefined;
  /** Input schema (unknown fields rejected). */
  readonly input: I;
  /** Output schema. */
  readonly output: O;
  /** Search tags (English). */
  readonly tags: readonly string[];
  /** Other names, English and Chinese (e.g. 整理, 入库, 下载, 搜索, 库存). */
  readonly aliases: readonly string[];
  /** Input paths stored redacted in ledger and audit summaries. */
  readonly redact: readonly string[];
  /** What the call touches (media entity, plan), for grant scopes and approvals. */
  readonly target: ((input: Static<I>) => InvocationTarget) | undefined;
  /** For `execute` contracts: what a successful call changes, deciding when the run is complete (see `EffectKind`). */
  readonly effect: EffectKind | undefined;
  /**
   * One intent, one job (docs/intents.md): the effect class a call takes on its media entity — `download` for
   * `download.plan` and `download.submit`, `organize` for `organize.plan` and `organize.execute`; undefined for the
   * others.
   */
  readonly intent: { readonly effectClass: string } | undefined;
}

function contract<I extends TSchema, O extends TSchema>(
  c: Omit<StandardCapabilityContract<I, O>, 'version' | 'redact' | 'target' | 'policy' | 'effect' | 'intent'> & {
    policy?: string;
    effect?: EffectKind;
    intent?: { readonly effectClass: string };
    redact?: string[];
    target?: (input: NoInfer<Static<I>>) => InvocationTarget;
  },
): StandardCapabilityContract<I, O> {
  return Object.freeze({
    version: 1,
    policy: undefined,
    redact: [],
    target: undefined,
    effect: undefined,
    intent: undefined,
    ...c,
  });
}

const strict = { additionalProperties: false } as const;
/** The intent classes of the standard capabilities (docs/intents.md). */
const DOWNLOAD_INTENT = Object.freeze({ effectClass: 'download' });
const ORGANIZE_INTENT = Object.freeze({ effectClass: 'organize' });
const Limit = (max: number, def: number) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum: max, description: `Maximum results (default ${def}).` }));
const Ref = { mediaSource: MediaSourceSchema, mediaId: MediaIdSchema };
const ExecutePlanInput = Type.Object(
  {
    planId: Type.String({
      ...issuedId('plan'),
      minLength: 1,
      maxLength: 128,
      description: 'Id of the plan to execute.',
    }),
    steps: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
        minItems: 1,
        maxItems: 1000,
        uniqueItems: true,
        description:
          'Only these steps of the plan (ids from its steps); omit to execute the whole plan. When the approver approved only some steps, give exactly those.',
      }),
    ),
  },
  strict,
);
const mediaTarget = (i: {
  mediaSource: 'tmdb' | 'douban' | 'imdb' | 'tvdb' | 'bangumi';
  mediaId: string;
  kind?: 'movie' | 'tv';
}): InvocationTarget => ({
  mediaEntityId: mediaEntityId(i),
  ...(i.kind ? { mediaKind: i.kind } : {}),
});

/**
 * The 15 standard media capability contracts of (能力) / keyed by id: kind,
 * replay policy, policy kind, TypeBox schemas, model-facing title and description, tags and aliases
 * (English and Chinese), redaction and target functions.
 *
 * @remarks
 * Policy kinds: `acquisition` for `download.plan`, `download.submit` and `task.cancel`; `automation`
 * for `download.recheck` and `task.retry`; `identity` for `identity.resolve`; `organize` for
 * `organize.plan` and `organize.execute`; none for `policy.apply` (a policy grant must never cover
 * changing policy). `download.submit` and `organize.execute` execute a plan (`{ planId }` input,
 * target `{ planType, planId }`), so single-use approvals bind to that plan's payload hash and
 * revision. `download.plan` and `organize.plan` create SDK plan artifacts and return
 * `{ plan: PlanReceipt, ... }`.
 *
 * Provenance (docs/untrusted-text.md): output fields the host issues carry `x-media-agent-id` with their namespace
 * (`media`, `media-entity`, `release`, `plan`, `download`, `organize`, `task`, `library-path`); output text written by
 * strangers (release names, torrent file paths, NFO text, organize errors) carries `x-media-agent-text: untrusted`.
 * The id fields of the propose and execute inputs carry the same namespaces, so they take only ids a host read
 * returned to the run (or a person typed); their other strings are free text. `policy.apply` is declared with
 * nothing to mark. `identity.resolve`'s `subjectId` is free text (its namespace depends on `subjectType`).
 * @public
 */
export const STANDARD_CAPABILITIES = Object.freeze({
  'catalog.lookup': contract({
    id: 'catalog.lookup',
    title: 'Look up a title in the metadata catalog',
    description:
      'Finds films and series by name (English or Chinese), year, or an exact id like "tmdb:693134". Returns each title\'s mediaSource/mediaId pair, mediaEntityId, kind, year and whether it is already in the library (inLibrary). Use it first to identify what the user means.',
    kind: 'read',
    replay: 'safe',
    tags: ['catalog', 'metadata', 'search', 'lookup', 'tmdb', 'movie', 'tv'],
    aliases: ['查找影片', '搜索影片', '影片信息', '元数据', '搜索', 'find movie'],
    input: Type.Object(
      {
        query: Type.String({
          minLength: 1,
          maxLength: 200,
          description: 'Title (any language), optionally with year, or a media entity id like tmdb:693134.',
        }),
        kind: Type.Optional(MediaKindSchema),
        year: Type.Optional(Type.Integer({ minimum: 1870, maximum: 2100 })),
        limit: Limit(50, 10),
      },
      strict,
    ),
    output: Type.Object({ items: Type.Array(MediaItemSchema) }),
  }),
  'release.search': contract({
    id: 'release.search',
    title: 'Search releases of a title',
    description:
      "Searches the indexer sites for releases (torrents) of one title, given its mediaSource and mediaId from catalog.lookup. Returns each release's releaseId, name, size in bytes, resolution, source, codec and seeders, best first. Searching downloads nothing.",
    kind: 'read',
    replay: 'safe',
    tags: ['release', 'search', 'torrent', 'indexer', 'quality'],
    aliases: ['搜索资源', '搜索种子', '搜索', '资源', '种子'],
    input: Type.Object(
      {
        ...Ref,
        season: Type.Optional(Type.Integer({ minimum: 1, description: 'Season (series only).' })),
        minResolution: Type.Optional(ResolutionSchema),
        maxSizeBytes: Type.Optional(Type.Integer({ minimum: 0 })),
        limit: Limit(50, 10),
      },
      strict,
    ),
    output: Type.Object({
      mediaEntityId: MediaEntityIdSchema,
      // The pair searched, as the host recognised it: a media id (namespace `media`) download.plan can take.
      mediaSource: Type.Optional(MediaSourceSchema),
      mediaId: Type.Optional(MediaIdSchema),
      releases: Type.Array(ReleaseSchema),
    }),
    target: mediaTarget,
  }),
  'release.inspect': contract({
    id: 'release.inspect',
    title: 'Inspect a release',
    description:
      'Shows one release in detail (files, size in bytes, quality, seeders, free-leech) by its releaseId from release.search.',
    kind: 'read',
    replay: 'safe',
    tags: ['release', 'inspect', 'torrent', 'files'],
    aliases: ['查看资源', '资源详情', '种子详情'],
    input: Type.Object({ releaseId: Type.String({ minLength: 1, maxLength: 128 }) }, strict),
    output: Type.Object({
      release: ReleaseSchema,
      files: Type.Array(
        Type.Object({
          path: Type.String({ ...untrustedText, description: 'File path inside the torrent (written by strangers).' }),
          sizeBytes: Type.Integer({ minimum: 0 }),
        }),
      ),
      freeleech: Type.Boolean(),
      publishedAt: Type.Integer({ description: 'ms since the epoch.' }),
      nfo: Type.Optional(
        Type.String({
          ...untrustedText,
          description:
            'The release NFO or description text as the indexer publishes it (written by strangers), when known.',
        }),
      ),
    }),
  }),
  'identity.resolve': contract({
    id: 'identity.resolve',
    title: 'Resolve the media identity of a release or download',
    description:
      'Binds a release or a download to the title it really is (mediaSource + mediaId), when recognition was ambiguous or wrong. Changes how it will be organized. Needs an approval or a grant (policy.identity).',
    kind: 'execute',
    effect: 'other',
    replay: 'reconcile',
    policy: 'identity',
    tags: ['identity', 'recognize', 'match', 'metadata'],
    aliases: ['识别', '身份', '识别纠正', '匹配'],
    input: Type.Object(
      {
        subjectType: Type.Union([Type.Literal('release'), Type.Literal('download')]),
        // Free text, not an issued id: its namespace (release or download) depends on subjectType.
        subjectId: Type.String({ minLength: 1, maxLength: 128 }),
        ...Ref,
        kind: Type.Optional(MediaKindSchema),
        evidence: Type.Optional(Type.String({ maxLength: 2000, description: 'Why this is the right title.' })),
      },
      strict,
    ),
    output: Type.Object({
      subjectType: Type.Union([Type.Literal('release'), Type.Literal('download')]),
      subjectId: Type.String(),
      mediaEntityId: MediaEntityIdSchema,
      previousMediaEntityId: Type.Union([MediaEntityIdSchema, Type.Null()]),
    }),
    target: mediaTarget,
  }),
  'download.plan': contract({
    id: 'download.plan',
    title: 'Plan a download',
    description:
      'Freezes a download plan for one release of one title (a draft: nothing is downloaded, no budget is used). Returns plan { id, payloadHash, revision }. Submit it with download.submit { planId }; without a standing grant a console administrator must approve the plan first. Fails with MEDIA_ALREADY_IN_LIBRARY when the title is in the library.',
    kind: 'propose',
    replay: 'reconcile',
    policy: 'acquisition',
    intent: DOWNLOAD_INTENT,
    tags: ['download', 'plan', 'acquire', 'propose'],
    aliases: ['下载', '下载计划', '计划下载', '收录', 'acquire'],
    redact: ['note'],
    input: Type.Object(
      {
        ...Ref,
        kind: MediaKindSchema,
        releaseId: Type.String({
          ...issuedId('release'),
          minLength: 1,
          maxLength: 128,
          description: 'Release to download, from release.search.',
        }),
        note: Type.Optional(Type.String({ maxLength: 500 })),
      },
      strict,
    ),
    output: Type.Object({
      plan: PlanReceiptSchema,
      download: Type.Object({
        releaseId: Type.String(issuedId('release')),
        releaseName: Type.String({
          ...untrustedText,
          description: 'Release name as published (written by strangers).',
        }),
        title: Type.String(),
        sizeBytes: Type.Integer({ minimum: 0 }),
      }),
    }),
    target: (i) => ({ ...mediaTarget(i), bytes: 0 }),
  }),
  'download.submit': contract({
    id: 'download.submit',
    title: 'Submit a planned download',
    description:
      'Sends a download plan (from download.plan) to the downloader. The result is pending: the job is accepted, not finished — follow it with task.inspect; it is done only when imported into the library. Never repeat a submit whose outcome is unknown: check task.inspect first.',
    kind: 'execute',
    effect: 'download',
    replay: 'never',
    policy: 'acquisition',
    intent: DOWNLOAD_INTENT,
    tags: ['download', 'submit', 'execute', 'torrent'],
    aliases: ['下载', '提交下载', '开始下载'],
    input: ExecutePlanInput,
    output: Type.Object({ download: DownloadJobSchema }),
    target: (i) => ({ planType: 'download', planId: i.planId, ...(i.steps ? { steps: i.steps } : {}) }),
  }),
  'download.recheck': contract({
    id: 'download.recheck',
    title: 'Recheck or resume a download',
    description:
      'Forces the downloader to recheck one stalled, failed or paused download (action "recheck", the default) or to resume it ("resume"). Touches only that download: no new source, nothing deleted.',
    kind: 'execute',
    effect: 'download',
    replay: 'never',
    policy: 'automation',
    tags: ['download', 'recheck', 'resume', 'recover', 'stalled'],
    aliases: ['下载', '重新校验', '恢复下载', '校验'],
    input: Type.Object(
      {
        downloadId: Type.String({ ...issuedId('download'), minLength: 1, maxLength: 128 }),
        action: Type.Optional(Type.Union([Type.Literal('recheck'), Type.Literal('resume')])),
      },
      strict,
    ),
    output: Type.Object({
      action: Type.Union([Type.Literal('recheck'), Type.Literal('resume')]),
      download: DownloadJobSchema,
    }),
  }),
  'organize.plan': contract({
    id: 'organize.plan',
    title: 'Plan organizing a download into the library',
    description:
      'Freezes an organize plan for a completed download: which files go where in the library, and how (hardlink, copy, move). Returns plan { id, payloadHash, revision }; execute it with organize.execute { planId }. Completed downloads are normally imported automatically; use this for a download that was not.',
    kind: 'propose',
    replay: 'reconcile',
    policy: 'organize',
    intent: ORGANIZE_INTENT,
    tags: ['organize', 'import', 'library', 'transfer', 'plan'],
    aliases: ['整理', '入库', '整理计划', '转移', 'import'],
    input: Type.Object(
      {
        downloadId: Type.String({ ...issuedId('download'), minLength: 1, maxLength: 128 }),
        mode: Type.Optional(OrganizeModeSchema),
        mediaSource: Type.Optional(MediaSourceSchema),
        mediaId: Type.Optional(MediaIdSchema),
      },
      strict,
    ),
    output: Type.Object({
      plan: PlanReceiptSchema,
      organize: Type.Object({
        downloadId: Type.String(issuedId('download')),
        mediaEntityId: MediaEntityIdSchema,
        title: Type.String(),
        mode: OrganizeModeSchema,
        targetPath: Type.String({ ...issuedId('library-path'), description: 'Library directory the files go to.' }),
        files: Type.Array(
          Type.Object({
            from: Type.String({
              ...untrustedText,
              description: 'Downloaded file (its name comes from the release, written by strangers).',
            }),
            to: Type.String({ ...issuedId('library-path'), description: 'Library file it becomes.' }),
          }),
        ),
      }),
    }),
    target: (i) =>
      i.mediaSource && i.mediaId
        ? { mediaEntityId: mediaEntityId({ mediaSource: i.mediaSource, mediaId: i.mediaId }) }
        : {},
  }),
  'organize.execute': contract({
    id: 'organize.execute',
    title: 'Organize files into the library',
    description:
      'Executes an organize plan (from organize.plan): puts the files into the library and records an organize record. Re-freezes the plan first and fails with MEDIA_PLAN_CONFLICT when it changed.',
    kind: 'execute',
    effect: 'organize',
    replay: 'reconcile',
    policy: 'organize',
    intent: ORGANIZE_INTENT,
    tags: ['organize', 'import', 'library', 'transfer', 'execute'],
    aliases: ['整理', '入库', '执行整理', '转移'],
    input: ExecutePlanInput,
    output: Type.Object({ organize: OrganizeRecordSchema }),
    target: (i) => ({ planType: 'organize', planId: i.planId, ...(i.steps ? { steps: i.steps } : {}) }),
  }),
  'task.inspect': contract({
    id: 'task.inspect',
    title: 'Inspect downloads and organize tasks',
    description:
      'Lists business tasks (downloads and organize records) with their status: by task id, plan id, media entity id, the idempotency key of the call that created them, or status. Use it to follow a submitted download (queued → downloading → completed → imported) and to check an unknown outcome before retrying.',
    kind: 'read',
    replay: 'safe',
    tags: ['task', 'status', 'progress', 'download', 'organize', 'inspect'],
    aliases: ['任务', '查看任务', '下载进度', '任务状态'],
    input: Type.Object(
      {
        taskId: Type.Optional(Type.String({ maxLength: 128 })),
        planId: Type.Optional(Type.String({ maxLength: 128 })),
        mediaEntityId: Type.Optional(MediaEntityIdSchema),
        idempotencyKey: Type.Optional(Type.String({ maxLength: 512 })),
        type: Type.Optional(Type.Union([Type.Literal('download'), Type.Literal('organize')])),
        status: Type.Optional(Type.String({ maxLength: 32 })),
        limit: Limit(100, 20),
      },
      strict,
    ),
    output: Type.Object({ tasks: Type.Array(TaskSchema) }),
  }),
  'task.retry': contract({
    id: 'task.retry',
    title: 'Retry a failed or stalled task',
    description:
      'Retries one failed or stalled download (restarts it) or failed organize record. Side effects are deduplicated by the host.',
    kind: 'execute',
    effect: 'download',
    replay: 'reconcile',
    policy: 'automation',
    tags: ['task', 'retry', 'recover'],
    aliases: ['任务', '重试', '重试任务'],
    input: Type.Object({ taskId: Type.String({ ...issuedId('task'), minLength: 1, maxLength: 128 }) }, strict),
    output: Type.Object({ task: TaskSchema }),
  }),
  'task.cancel': contract({
    id: 'task.cancel',
    title: 'Cancel a download',
    description:
      'Cancels (removes) one download that is not imported yet. Files already in the library are not touched.',
    kind: 'execute',
    effect: 'cancel',
    replay: 'reconcile',
    policy: 'acquisition',
    tags: ['task', 'cancel', 'remove', 'download'],
    aliases: ['任务', '取消', '取消下载', '删除任务'],
    input: Type.Object(
      {
        taskId: Type.String({ ...issuedId('task'), minLength: 1, maxLength: 128 }),
        reason: Type.Optional(Type.String({ maxLength: 500 })),
      },
      strict,
    ),
    output: Type.Object({ task: TaskSchema }),
  }),
  'policy.preview': contract({
    id: 'policy.preview',
    title: 'Preview a policy change',
    description:
      'Shows what changing a policy (acquisition, organize, automation, identity) would change, without applying it.',
    kind: 'preview',
    replay: 'safe',
    tags: ['policy', 'preview', 'rules', 'settings'],
    aliases: ['策略', '预览策略', '规则'],
    input: Type.Object({ kind: PolicyKindSchema, settings: PolicySettingsSchema }, strict),
    output: Type.Object({
      kind: PolicyKindSchema,
      revision: Type.Integer({ minimum: 0, description: 'Current revision.' }),
      current: PolicySettingsSchema,
      proposed: PolicySettingsSchema,
      changes: Type.Array(Type.Object({ field: Type.String(), from: Type.Unknown(), to: Type.Unknown() })),
    }),
  }),
  'policy.apply': contract({
    id: 'policy.apply',
    title: 'Apply a policy change',
    description:
      'Applies new policy settings as a new revision. Needs an approval or an exact grant; policy grants never cover it.',
    kind: 'execute',
    effect: 'setting',
    replay: 'reconcile',
    tags: ['policy', 'apply', 'rules', 'settings'],
    aliases: ['策略', '应用策略', '修改规则'],
    redact: ['note'],
    input: Type.Object(
      { kind: PolicyKindSchema, settings: PolicySettingsSchema, note: Type.Optional(Type.String({ maxLength: 500 })) },
      // Declared with nothing to mark: settings hold no issued ids; their strings (preferredSites) and note are free text.
      { ...strict, [PROVENANCE_MARK]: 'declared' },
    ),
    output: Type.Object({
      kind: PolicyKindSchema,
      revision: Type.Integer({ minimum: 1 }),
      settings: PolicySettingsSchema,
    }),
  }),
  'inventory.query': contract({
    id: 'inventory.query',
    title: 'Query the library inventory',
    description:
      'Lists titles in the media library (what is already there), by name (any language), media entity id like tmdb:693134, or kind. An empty query lists everything. Check it before planning a download.',
    kind: 'read',
    replay: 'safe',
    tags: ['inventory', 'library', 'collection', 'owned'],
    aliases: ['库存', '媒体库', '查库存', '片库', '已入库'],
    input: Type.Object(
      {
        query: Type.Optional(
          Type.String({ maxLength: 200, description: 'Title (any language) or media entity id; empty lists all.' }),
        ),
        kind: Type.Optional(MediaKindSchema),
        limit: Limit(200, 50),
      },
      strict,
    ),
    output: Type.Object({
      total: Type.Integer({ minimum: 0 }),
      items: Type.Array(
        Type.Object({
          mediaEntityId: MediaEntityIdSchema,
          kind: MediaKindSchema,
          title: Type.String(),
          localizedTitle: Type.Union([Type.String(), Type.Null()]),
          year: Type.Integer(),
          libraryPath: Type.String({
            ...issuedId('library-path'),
            description: 'Directory of the title in the library.',
          }),
          sizeBytes: Type.Integer({ minimum: 0 }),
          resolution: Type.Union([ResolutionSchema, Type.Null()]),
          addedAt: Type.Integer({ description: 'ms since the epoch.' }),
        }),
      ),
    }),
  }),
});

/** The contracts table's type. @public */
export type StandardCapabilities = typeof STANDARD_CAPABILITIES;

/** One of the 15 standard capability ids. @public */
export type StandardCapabilityId = keyof StandardCapabilities;

/**
 * The 15 standard ids in the order of (能力). A host registers all of them; a registration
 * count different from `STANDARD_CAPABILITY_IDS.length` fails start-up — see {@link registerStandardCapabilities}.
 * @public
 */
export const STANDARD_CAPABILITY_IDS: readonly StandardCapabilityId[] = Object.freeze([
  'catalog.lookup',
  'release.search',
  'release.inspect',
  'identity.resolve',
  'download.plan',
  'download.submit',
  'download.recheck',
  'organize.plan',
  'organize.execute',
  'task.inspect',
  'task.retry',
  'task.cancel',
  'policy.preview',
  'policy.apply',
  'inventory.query',
] as const);

/** Input type of a standard capability, inferred from its schema. @public */
export type StandardInput<Id extends StandardCapabilityId> = Static<StandardCapabilities[Id]['input']>;

/** Output type of a standard capability, inferred from its schema. @public */
export type StandardOutput<Id extends StandardCapabilityId> = Static<StandardCapabilities[Id]['output']>;

/**
 * True when `id` is one of the 15 standard capability ids.
 * @param id - any capability id
 * @public
 */
export function isStandardCapabilityId(id: string): id is StandardCapabilityId {
  return Object.hasOwn(STANDARD_CAPABILITIES, id);
}
