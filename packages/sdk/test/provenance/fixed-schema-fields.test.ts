// A defined capability's schemas are walked once per role: later calls get equal fields, each call its own
// copy; a schema that is not a defined capability's is walked afresh every time (it may have changed).
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineCapability } from '../../src/capabilities/define-capability';
import { issuedId, provenanceFields, untrustedText } from '../../src/core/provenance-marks';
import { DownloadPlanInput, SearchOutput } from './schemas';

describe('provenanceFields of fixed schemas', () => {
  it('gives the same fields as a fresh walk, a new copy every call', () => {
    const expectedOut = provenanceFields(structuredClone(SearchOutput), 'output');
    const expectedIn = provenanceFields(structuredClone(DownloadPlanInput), 'input');
    const capability = defineCapability({
      id: 'fixed.schema',
      version: 1,
      title: 'fixed',
      description: 'a capability whose schemas become fixed',
      kind: 'read',
      replay: 'safe',
      input: DownloadPlanInput,
      output: SearchOutput,
      handler: async () => ({ page: 1, hits: [], libraryPaths: [] }),
    });
    for (let i = 0; i < 3; i++) {
      const out = provenanceFields(capability.output, 'output');
      expect(out).toEqual(expectedOut);
      expect(provenanceFields(capability.input, 'input')).toEqual(expectedIn);
      // The copy handed out is the caller's: changing it changes nothing for the next call.
      (out[0]!.path as string[]).push('changed');
      out.pop();
    }
  });

  it('walks a schema that is no capability’s afresh, so a change to it shows', () => {
    const schema = Type.Object({ a: Type.String(issuedId('media')) }) as unknown as Record<string, unknown>;
    expect(provenanceFields(schema, 'output')).toEqual([{ path: ['a'], mark: 'id', namespace: 'media' }]);
    (schema.properties as Record<string, unknown>).b = Type.String({ ...untrustedText });
    expect(provenanceFields(schema, 'output')).toEqual([
      { path: ['a'], mark: 'id', namespace: 'media' },
      { path: ['b'], mark: 'untrusted' },
    ]);
  });
});
