// The schemas of the plan payloads download.plan and organize.plan freeze (mapping.ts), so an approver's edit
// of a plan (another release, another organize mode) is validated before it can be approved. What a schema
// cannot say (the torrent must be the release's, the mode and the transfer type must agree) the execute
// handlers check again before sending anything (plan-checks.ts).
import Type from 'typebox';

const EntityId = Type.String({ pattern: '^[a-z]+:[A-Za-z0-9_-]{1,64}$' });
const Identity = Type.Object(
  { media_source: Type.String({ minLength: 1 }), media_id: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);

/**
 * The payload of a MoviePilot 3.x download plan: the release by id, name, site and size, the identity and the
 * `torrent_in` `download.add` is sent (the host's own `TorrentInfo` of the release), and whether it may be
 * sent unrecognised.
 * @public
 */
export const V3DownloadPlanPayloadSchema = Type.Object(
  {
    type: Type.Literal('download'),
    mediaEntityId: EntityId,
    title: Type.String({ maxLength: 500 }),
    kind: Type.Union([Type.Literal('movie'), Type.Literal('tv')]),
    releaseId: Type.String({ pattern: '^r[0-9a-f]{16}$', description: 'Release id from release.search.' }),
    releaseName: Type.String({ minLength: 1, maxLength: 1000 }),
    site: Type.String({ maxLength: 200 }),
    sizeBytes: Type.Integer({ minimum: 0 }),
    identity: Identity,
    torrent_in: Type.Object(
      {
        title: Type.String({ minLength: 1 }),
        enclosure: Type.String({ minLength: 1 }),
        size: Type.Number({ minimum: 0 }),
        site_name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      },
      { additionalProperties: true },
    ),
    allowUnrecognized: Type.Boolean(),
  },
  { additionalProperties: false },
);

/**
 * The payload of a MoviePilot 3.x organize plan: the download, the mode, the files the host's preview
 * listed and the `transfer.file` request.
 * @public
 */
export const V3OrganizePlanPayloadSchema = Type.Object(
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
      { maxItems: 1000 },
    ),
    request: Type.Object(
      {
        fileitem: Type.Object(
          { storage: Type.String(), type: Type.String(), path: Type.String({ minLength: 1 }), name: Type.String() },
          { additionalProperties: false },
        ),
        media_source: Type.String({ minLength: 1 }),
        media_id: Type.String({ minLength: 1, maxLength: 64 }),
        transfer_type: Type.Union([Type.Literal('link'), Type.Literal('copy'), Type.Literal('move')]),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
