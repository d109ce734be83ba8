// Realistic capability schemas with provenance marks, shared by the provenance tests.
import Type from 'typebox';
import { issuedId, PROVENANCE_MARK, untrustedText } from '../../src/core/provenance-marks';

/** A release search: ids the host issued, names and descriptions written by uploaders. */
export const SearchOutput = Type.Object({
  hits: Type.Array(
    Type.Object({
      releaseId: Type.String(issuedId('release')),
      title: Type.String(untrustedText),
      tmdbId: Type.Union([Type.Integer(issuedId('media')), Type.Null()]),
      description: Type.Optional(Type.Union([Type.String(untrustedText), Type.Null()])),
      size: Type.Integer(),
      tags: Type.Record(Type.String(), Type.String(untrustedText)),
    }),
  ),
  libraryPaths: Type.Array(Type.String(issuedId('library-path'))),
  page: Type.Integer(),
});

/** Plans a download: ids, a free save path and note, a closed choice of priority. */
export const DownloadPlanInput = Type.Object({
  releaseId: Type.String(issuedId('release')),
  mediaId: Type.Optional(Type.Integer(issuedId('media'))),
  savePath: Type.Optional(Type.String({ description: 'where to save' })),
  note: Type.Union([Type.String(), Type.Null()]),
  priority: Type.Union([Type.Literal('low'), Type.Literal('normal'), Type.Literal('high')]),
  when: Type.Optional(Type.String({ format: 'date-time' })),
  planId: Type.Optional(Type.String({ format: 'uuid' })),
  mode: Type.Optional(Type.Enum(['copy', 'move'])),
});

/** Organizes files: each step moves a listed library path to a target path. */
export const OrganizeInput = Type.Object({
  steps: Type.Array(
    Type.Object({
      sourcePath: Type.String(issuedId('library-path')),
      path: Type.String(),
    }),
  ),
  labels: Type.Optional(Type.Record(Type.String(), Type.String())),
});

/** A capability that declared its provenance and has nothing to mark. */
export const DeclaredEmpty = Type.Object({ ok: Type.Boolean() }, { [PROVENANCE_MARK]: 'declared' });
