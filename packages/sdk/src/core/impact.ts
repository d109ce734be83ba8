// What a side effect will do, in the household's own units: the record a capability's `impact(input, ctx)` returns
// and what an approval, a dry run and the console show (docs/approvals.md#impact).
import Type, { type Static } from 'typebox';

const Count = Type.Optional(Type.Integer({ minimum: 0, maximum: 1e9 }));
const Bytes = Type.Optional(Type.Number({ minimum: 0, maximum: 1e18 }));

/**
 * One step of a plan as an impact lists it (see {@link ImpactSchema}): the step's id, a label for people, and the
 * bytes it downloads or writes when known.
 * @public
 */
export const ImpactStepSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128 }),
    label: Type.String({ maxLength: 300 }),
    bytes: Bytes,
  },
  { additionalProperties: false },
);

/**
 * The schema of an {@link Impact} record; `impact()` results that do not match it are `IMPACT_INVALID`.
 * @public
 */
export const ImpactSchema = Type.Object(
  {
    downloadBytes: Bytes,
    writeBytes: Bytes,
    deleteBytes: Bytes,
    filesCreated: Count,
    filesMoved: Count,
    filesOverwritten: Count,
    filesDeleted: Count,
    path: Type.Optional(Type.String({ maxLength: 1000 })),
    freeBytesBefore: Bytes,
    freeBytesAfter: Type.Optional(Type.Number({ minimum: -1e18, maximum: 1e18 })),
    quota: Type.Optional(
      Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 100 }),
          used: Type.Number({ minimum: 0 }),
          limit: Type.Number({ minimum: 0 }),
          unit: Type.String({ minLength: 1, maxLength: 20 }),
        },
        { additionalProperties: false },
      ),
    ),
    reversible: Type.Boolean(),
    reversibleBy: Type.Optional(Type.Union([Type.Literal('inverse'), Type.Literal('quarantine')])),
    quarantineDays: Type.Optional(Type.Number({ minimum: 0, maximum: 3650 })),
    transferMode: Type.Optional(Type.String({ maxLength: 40 })),
    estimatedDurationMs: Type.Optional(Type.Number({ minimum: 0, maximum: 1e12 })),
    steps: Type.Optional(Type.Array(ImpactStepSchema, { maxItems: 1000 })),
    notes: Type.Optional(Type.Array(Type.String({ maxLength: 300 }), { maxItems: 20 })),
  },
  { additionalProperties: false },
);

/**
 * What a side-effecting call will do, in real units. Every field but `reversible` is optional: a capability fills in
 * what it knows.
 *
 * - `downloadBytes`, `writeBytes`, `deleteBytes`: bytes downloaded, written (copied) and deleted.
 * - `filesCreated`, `filesMoved`, `filesOverwritten`, `filesDeleted`: file counts.
 * - `path`: the directory the effect lands in (e.g. `/media/movies`).
 * - `freeBytesBefore`, `freeBytesAfter`: free bytes on `path`'s volume before and after the call (after may be
 *   negative: the call would not fit).
 * - `quota`: a quota the call uses (`used` after the call, out of `limit`, in `unit`).
 * - `reversible`: whether the effect can be undone; `reversibleBy`: `inverse` (a declared inverse capability) or
 *   `quarantine` (deleted and overwritten files are kept in a quarantine folder for `quarantineDays` days).
 * - `transferMode`: how files are put in place (`copy`, `move`, `link`, `hardlink`, `softlink`, …).
 * - `estimatedDurationMs`: how long the effect should take, in ms.
 * - `steps`: the plan's steps, for a plan a person may approve in part.
 * - `notes`: anything else a person should read before approving.
 * @public
 */
export type Impact = Static<typeof ImpactSchema>;

/** One step of an {@link Impact}. @public */
export type ImpactStep = Static<typeof ImpactStepSchema>;

/**
 * Why an impact is unknown: `IMPACT_NOT_DECLARED` (the capability has no `impact`), `IMPACT_FAILED` (it threw),
 * `IMPACT_TIMEOUT` (it took longer than the host's `impactTimeoutMs`), `IMPACT_INVALID` (its result did not match
 * {@link ImpactSchema}), `IMPACT_WITHHELD` (a dry run by someone the capability is closed to: administrators only).
 * @public
 */
export type ImpactUnknownCode =
  | 'IMPACT_NOT_DECLARED'
  | 'IMPACT_FAILED'
  | 'IMPACT_TIMEOUT'
  | 'IMPACT_INVALID'
  | 'IMPACT_WITHHELD';

/**
 * An impact as stored with an approval and shown to people and the model: `known` with the record and its
 * one-line summary (see `describeImpact`), or `unknown` with why (the approval still works; people see
 * "impact unknown").
 * @public
 */
export type ImpactReport =
  | { status: 'known'; impact: Impact; summary: string }
  | { status: 'unknown'; code: ImpactUnknownCode; reason: string; summary: string };
