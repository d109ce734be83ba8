// The schemas of the plan payloads the sandbox world freezes (download.plan, organize.plan) and executes
// (download.submit, organize.execute): an approver's edit is checked against them (docs/sandbox.md#editing-a-plan).
import Type, { type Static } from 'typebox';
import { MediaEntityIdSchema, MediaKindSchema } from '../../media/identity';
import { OrganizeModeSchema, ResolutionSchema } from '../../media/schemas';

const strict = { additionalProperties: false } as const;
const Id = Type.String({ minLength: 1, maxLength: 128 });
const Path = Type.String({ minLength: 1, maxLength: 1000 });
const Size = Type.Integer({ minimum: 0 });

/**
 * A download plan payload of the sandbox world, as `download.plan` freezes it and `download.submit` executes it.
 * An approver may edit `releaseId` to another release of the same title ("yes, but the 1080p one"): the submit
 * reads the release again by that id and downloads it, whatever the informational fields (`releaseName`, `site`,
 * `sizeBytes`, `resolution`) still say. A season pack has one step per episode (`S01E03`): approving some steps
 * downloads only those episodes.
 * @public
 */
export const SandboxDownloadPlanPayloadSchema = Type.Object(
  {
    type: Type.Literal('download'),
    mediaEntityId: MediaEntityIdSchema,
    releaseId: Id,
    title: Type.Optional(Type.String({ maxLength: 300 })),
    kind: Type.Optional(MediaKindSchema),
    releaseName: Type.Optional(Type.String({ maxLength: 500 })),
    site: Type.Optional(Type.String({ maxLength: 100 })),
    sizeBytes: Type.Optional(Size),
    resolution: Type.Optional(ResolutionSchema),
    steps: Type.Optional(
      Type.Array(
        Type.Object(
          { id: Id, label: Type.String({ maxLength: 300 }), path: Type.Optional(Path), sizeBytes: Type.Optional(Size) },
          strict,
        ),
        { minItems: 1, maxItems: 1000 },
      ),
    ),
  },
  strict,
);
/** A sandbox download plan payload (see {@link SandboxDownloadPlanPayloadSchema}). @public */
export type SandboxDownloadPlanPayload = Static<typeof SandboxDownloadPlanPayloadSchema>;

/**
 * An organize plan payload of the sandbox world, as `organize.plan` freezes it and `organize.execute` executes it:
 * the files to put into the library (`files`, and the same files as `steps`, one step per file with its id, label
 * and size), and how (`mode`). An approver may change `mode`, leave files out or rename targets (inside the library
 * root); `files` and `steps` must then still list the same files. `organize.execute` checks the payload against the
 * world (the download is completed, every source is one of its files, every target is in the library).
 * @public
 */
export const SandboxOrganizePlanPayloadSchema = Type.Object(
  {
    type: Type.Literal('organize'),
    downloadId: Id,
    mediaEntityId: MediaEntityIdSchema,
    title: Type.Optional(Type.String({ maxLength: 300 })),
    mode: OrganizeModeSchema,
    targetPath: Path,
    files: Type.Array(Type.Object({ from: Path, to: Path }, strict), { minItems: 1, maxItems: 1000 }),
    steps: Type.Optional(
      Type.Array(
        Type.Object(
          { id: Id, label: Type.String({ maxLength: 300 }), from: Path, to: Path, sizeBytes: Type.Optional(Size) },
          strict,
        ),
        { minItems: 1, maxItems: 1000 },
      ),
    ),
  },
  strict,
);
/** A sandbox organize plan payload (see {@link SandboxOrganizePlanPayloadSchema}). @public */
export type SandboxOrganizePlanPayload = Static<typeof SandboxOrganizePlanPayloadSchema>;
