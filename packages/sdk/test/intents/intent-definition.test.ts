import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineCapability } from '../../src/capabilities/define-capability';
import { STANDARD_CAPABILITIES, STANDARD_CAPABILITY_IDS } from '../../src/media';

const base = {
  id: 'x.do',
  version: 1,
  title: 'Do',
  description: 'Does.',
  replay: 'never',
  input: Type.Object({}),
  output: Type.Object({}),
  handler: async () => ({}),
} as const;

describe('the intent class of a capability', () => {
  it('is declared on side-effecting kinds only, as lowercase dotted words', () => {
    expect(defineCapability({ ...base, kind: 'execute', intent: { effectClass: 'download' } }).intent).toEqual({
      effectClass: 'download',
    });
    for (const kind of ['read', 'preview'] as const)
      expect(() => defineCapability({ ...base, kind, replay: 'safe', intent: { effectClass: 'download' } })).toThrow(
        expect.objectContaining({ code: 'CAPABILITY_DEFINITION_INVALID' }),
      );
    for (const effectClass of ['', 'Download', 'a|b', 'x'.repeat(65), 42])
      expect(() => defineCapability({ ...base, kind: 'propose', intent: { effectClass } as never })).toThrow(
        expect.objectContaining({ code: 'CAPABILITY_DEFINITION_INVALID' }),
      );
  });

  it('the standard contracts: download for download.plan and download.submit, organize for organize.plan and organize.execute, none for the rest', () => {
    const classes = Object.fromEntries(
      STANDARD_CAPABILITY_IDS.map((id) => [id, STANDARD_CAPABILITIES[id].intent?.effectClass]).filter(([, c]) => c),
    );
    expect(classes).toEqual({
      'download.plan': 'download',
      'download.submit': 'download',
      'organize.plan': 'organize',
      'organize.execute': 'organize',
    });
  });
});
