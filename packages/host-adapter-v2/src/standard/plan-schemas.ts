// The schemas of the plan payloads download.plan and organize.plan freeze (payloads.ts), so an approver's
// edit of a plan (another release, another organize mode) is validated before it can be approved. What a
// schema cannot say (the torrent must be the release's, the mode and the transfer type must agree) the
// execute handlers check again before sending anything (plan-checks.ts).
import Type from 'typebox';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));
const EntityId = Type.String({ pattern: '^(tmdb|douban):[A-Za-z0-9_-]{1,64}$' });

/**
 * The payload of a MoviePilot 2.x download plan (`DownloadPayload`): the release by id, name, site and size,
 * and the `media_in` / `torrent_in` bodies `POST /api/v1/download/` is sent (the host's own `MediaInfo` and
 * `TorrentInfo` of the release).
 * @public
 */
export const V2DownloadPlanPayloadSchema = Type.Object(
  {
    type: Type.Literal('download'),
    mediaEntityId: EntityId,
    title: Type.String({ maxLength: 500 }),
    kind: Type.Union([Type.Literal('movie'), Type.Literal('tv')]),
    releaseId: Type.String({ pattern: '^r[0-9a-f]{20}$', description: 'Release id from release.search.' }),
    releaseName: Type.String({ minLength: 1, maxLength: 1000 }),
    site: Type.String({ maxLength: 200 }),
    sizeBytes: Type.Integer({ minimum: 0 }),
    resolution: Type.String({ maxLength: 20 }),
    hash: Type.Union([Type.String({ pattern: '^[0-9a-f]{40}$' }), Type.Null()]),
    media_in: Type.Object(
      {
        type: Nullable(Type.String()),
        tmdb_id: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
        douban_id: Nullable(Type.String()),
      },
      { additionalProperties: true },
    ),
    torrent_in: Type.Object(
      {
        title: Type.String({ minLength: 1 }),
        enclosure: Type.String({ minLength: 1 }),
        size: Type.Number({ minimum: 0 }),
        site_name: Nullable(Type.String()),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: false },
);

/**
 * The payload of a MoviePilot 2.x organize plan (`OrganizePayload`): the download, the mode, the files and the
 * `ManualTransferItem` `POST /api/v1/transfer/manual` is sent.
 * @public
 */
export const V2OrganizePlanPayloadSchema = Type.Object(
  {
    type: Type.Literal('organize'),
    downloadId: Type.String({ minLength: 1, maxLength: 128 }),
    mediaEntityId: EntityId,
    title: Type.String({ maxLength: 500 }),
    mode: Type.Union([Type.Literal('hardlink'), Type.Literal('copy'), Type.Literal('move')]),
    targetPath: Type.String({ maxLength: 1000 }),
    files: Type.Array(
      Type.Object(
        { from: Type.String({ minLength: 1, maxLength: 1000 }), to: Type.String({ maxLength: 1000 }) },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 1000 },
    ),
    transfer: Type.Object(
      {
        fileitem: Type.Object(
          { storage: Type.String(), type: Type.String(), path: Type.String({ minLength: 1 }), name: Type.String() },
          { additionalProperties: true },
        ),
        tmdbid: Type.Optional(Type.Integer()),
        doubanid: Type.Optional(Type.String()),
        type_name: Type.String(),
        transfer_type: Type.Union([Type.Literal('link'), Type.Literal('copy'), Type.Literal('move')]),
        scrape: Type.Boolean(),
        from_history: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
