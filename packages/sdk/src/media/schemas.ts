import Type, { type Static } from 'typebox';
import { issuedId, untrustedText } from '../core/provenance-marks';
import { MediaEntityIdSchema, MediaIdSchema, MediaKindSchema, MediaSourceSchema } from './identity';

/**
 * Options of a string the host issues under `namespace` that is also a task id: a download or organize record id is
 * what `task.inspect`, `task.retry` and `task.cancel` take as `taskId`, so a value shown under it counts in both
 * namespaces (both marks sit in `allOf`, whose members the provenance walk reads at the same path; output only).
 */
const alsoTaskId = (namespace: string) => ({ allOf: [issuedId(namespace), issuedId('task')] });

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** Video resolutions a release can have, lowest first. @public */
export const RESOLUTIONS = ['480p', '720p', '1080p', '2160p'] as const;

/** TypeBox schema of a release resolution (one of {@link RESOLUTIONS}). @public */
export const ResolutionSchema = Type.Union(
  [Type.Literal('480p'), Type.Literal('720p'), Type.Literal('1080p'), Type.Literal('2160p')],
  {
    description: 'Vertical resolution: 480p, 720p, 1080p or 2160p (4K).',
  },
);

/**
 * TypeBox schema of a title in the metadata catalog (`catalog.lookup`, `inventory.query`):
 * identity, kind, titles, year and whether it is in the library now.
 * @public
 */
export const MediaItemSchema = Type.Object({
  mediaSource: MediaSourceSchema,
  mediaId: MediaIdSchema,
  mediaEntityId: MediaEntityIdSchema,
  kind: MediaKindSchema,
  title: Type.String({ description: 'Display title (English).' }),
  originalTitle: Type.String({ description: 'Title in the original language.' }),
  localizedTitle: Nullable(Type.String({ description: 'Chinese title, when known.' })),
  year: Type.Integer({ description: 'Release year (first air year for series).' }),
  overview: Type.String(),
  seasons: Nullable(Type.Integer({ minimum: 1, description: 'Number of seasons (series only).' })),
  inLibrary: Type.Boolean({ description: 'True when the title is in the library now.' }),
});
/** A title in the metadata catalog. @public */
export type MediaItem = Static<typeof MediaItemSchema>;

/**
 * TypeBox schema of a release (a torrent offered by an indexer site): its name, size in bytes,
 * quality, seeders and whether it (or its title) is already in the library.
 * @public
 */
export const ReleaseSchema = Type.Object({
  releaseId: Type.String({
    ...issuedId('release'),
    description: 'Release id; pass it to release.inspect or download.plan.',
  }),
  name: Type.String({ ...untrustedText, description: 'Release (torrent) name as published (written by strangers).' }),
  mediaEntityId: MediaEntityIdSchema,
  site: Type.String({ description: 'Indexer site offering it.' }),
  sizeBytes: Type.Integer({ minimum: 0, description: 'Total size in bytes.' }),
  resolution: ResolutionSchema,
  source: Type.Union([Type.Literal('WEB-DL'), Type.Literal('BluRay'), Type.Literal('Remux'), Type.Literal('HDTV')]),
  codec: Type.Union([Type.Literal('H.264'), Type.Literal('H.265')]),
  hdr: Type.Boolean(),
  season: Nullable(Type.Integer({ minimum: 1, description: 'Season of a season pack; null for films.' })),
  seeders: Type.Integer({ minimum: 0 }),
  inLibrary: Type.Boolean({ description: "True when this release's title is in the library already." }),
});
/** A release offered by an indexer. @public */
export type Release = Static<typeof ReleaseSchema>;

/**
 * Statuses of a downloader job: `queued` → `downloading` → `completed` → `imported` (organized into
 * the library); `stalled` (no progress), `failed`, `removed` (cancelled). : a finished
 * download is `completed`, imported into the library is a succeeded organize record.
 * @public
 */
export const DownloadStatusSchema = Type.Union([
  Type.Literal('queued'),
  Type.Literal('downloading'),
  Type.Literal('completed'),
  Type.Literal('imported'),
  Type.Literal('stalled'),
  Type.Literal('failed'),
  Type.Literal('removed'),
]);
/** Status of a downloader job (see {@link DownloadStatusSchema}). @public */
export type DownloadStatus = Static<typeof DownloadStatusSchema>;

/**
 * TypeBox schema of a downloader job: what was submitted (plan, release, title), its status and
 * progress (0–1), and when (ms since the epoch).
 * @public
 */
export const DownloadJobSchema = Type.Object({
  id: Type.String({ ...alsoTaskId('download'), description: 'Download (task) id.' }),
  planId: Type.String(issuedId('plan')),
  releaseId: Type.String(issuedId('release')),
  releaseName: Type.String({ ...untrustedText, description: 'Release name as published (written by strangers).' }),
  mediaEntityId: MediaEntityIdSchema,
  title: Type.String(),
  sizeBytes: Type.Integer({ minimum: 0 }),
  status: DownloadStatusSchema,
  progress: Type.Number({ minimum: 0, maximum: 1, description: 'Fraction downloaded, 0–1.' }),
  submittedAt: Type.Integer({ description: 'Submission time, ms since the epoch.' }),
  updatedAt: Type.Integer({ description: 'Time of the latest status change, ms since the epoch.' }),
  organizeId: Nullable(
    Type.String({ ...alsoTaskId('organize'), description: 'Organize record that imported it, once imported.' }),
  ),
});
/** A downloader job. @public */
export type DownloadJob = Static<typeof DownloadJobSchema>;

/** Status of an organize (import into the library) record. @public */
export const OrganizeStatusSchema = Type.Union([
  Type.Literal('running'),
  Type.Literal('succeeded'),
  Type.Literal('failed'),
]);

/** How files are put into the library. @public */
export const OrganizeModeSchema = Type.Union([Type.Literal('hardlink'), Type.Literal('copy'), Type.Literal('move')], {
  description: 'hardlink (default, keeps seeding), copy or move.',
});

/**
 * TypeBox schema of an organize record: one import of downloaded files into the library.
 * @public
 */
export const OrganizeRecordSchema = Type.Object({
  id: Type.String({ ...alsoTaskId('organize'), description: 'Organize record id.' }),
  downloadId: Nullable(Type.String(alsoTaskId('download'))),
  planId: Nullable(
    Type.String({ ...issuedId('plan'), description: 'The organize plan executed; null for automatic imports.' }),
  ),
  mediaEntityId: MediaEntityIdSchema,
  title: Type.String(),
  status: OrganizeStatusSchema,
  mode: OrganizeModeSchema,
  libraryPath: Nullable(
    Type.String({ ...issuedId('library-path'), description: 'Where the title now lives in the library.' }),
  ),
  automatic: Type.Boolean({ description: 'True when the downloader imported it on completion.' }),
  createdAt: Type.Integer({ description: 'ms since the epoch.' }),
  error: Nullable(
    Type.String({ ...untrustedText, description: 'Why it failed (may quote file names and remote messages).' }),
  ),
});
/** An organize (import) record. @public */
export type OrganizeRecord = Static<typeof OrganizeRecordSchema>;

/**
 * TypeBox schema of a business task as `task.inspect` shows it: a downloader job or an organize
 * record, with the idempotency key it was submitted under (so a verifier can match an unknown call).
 * @public
 */
export const TaskSchema = Type.Object({
  id: Type.String({ ...issuedId('task'), description: 'Task id (the download or organize record id).' }),
  type: Type.Union([Type.Literal('download'), Type.Literal('organize')]),
  status: Type.String({ description: 'Status of the download or organize record.' }),
  mediaEntityId: MediaEntityIdSchema,
  title: Type.String(),
  planId: Nullable(Type.String(issuedId('plan'))),
  idempotencyKey: Nullable(Type.String({ description: 'Idempotency key of the call that created it.' })),
  updatedAt: Type.Integer(),
  download: Nullable(DownloadJobSchema),
  organize: Nullable(OrganizeRecordSchema),
});
/** A business task. @public */
export type Task = Static<typeof TaskSchema>;

/**
 * TypeBox schema of the plan artifact a propose capability returns: the SDK plan record's id, type,
 * payload hash (approvals echo it) and revision (see {@link planReceipt}).
 * @public
 */
export const PlanReceiptSchema = Type.Object({
  id: Type.String({ ...issuedId('plan'), description: 'Plan id; download.submit / organize.execute take it.' }),
  type: Type.Union([Type.Literal('download'), Type.Literal('organize')]),
  payloadHash: Type.String({ description: 'SHA-256 of the frozen plan; an administrator echoes it to approve.' }),
  revision: Type.Integer({ minimum: 1 }),
  mediaEntityId: Nullable(MediaEntityIdSchema),
  mediaKind: Nullable(MediaKindSchema),
  bytes: Type.Integer({ minimum: 0, description: 'Bytes the plan will move.' }),
});
/** A plan receipt. @public */
export type PlanReceipt = Static<typeof PlanReceiptSchema>;

/** Policy kinds a policy (and a `policy.<kind>` grant) can have. @public */
export const PolicyKindSchema = Type.Union([
  Type.Literal('acquisition'),
  Type.Literal('organize'),
  Type.Literal('automation'),
  Type.Literal('identity'),
]);

/**
 * TypeBox schema of host policy settings (`policy.preview`, `policy.apply`); every field optional,
 * fields that do not belong to the policy kind are ignored.
 * @public
 */
export const PolicySettingsSchema = Type.Object(
  {
    minResolution: Type.Optional(ResolutionSchema),
    maxSizeBytes: Type.Optional(Type.Integer({ minimum: 0, description: 'Largest release to download, bytes.' })),
    preferredSites: Type.Optional(Type.Array(Type.String(), { maxItems: 20 })),
    organizeMode: Type.Optional(OrganizeModeSchema),
    autoImport: Type.Optional(Type.Boolean({ description: 'Import completed downloads automatically.' })),
    autoRecover: Type.Optional(Type.Boolean({ description: 'Let background runs recheck stalled downloads.' })),
    minIdentityConfidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  },
  { additionalProperties: false },
);
/** Host policy settings. @public */
export type PolicySettings = Static<typeof PolicySettingsSchema>;
