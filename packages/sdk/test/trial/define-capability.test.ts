// Found by trying the SDK as a new user would: a `verify` (or `target`) that is not a function was accepted when
// the capability was defined and failed only at the run's read-back ("verifier is not a function").
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineCapability } from '@media-agent/sdk';

describe('trial: defineCapability checks its hooks', () => {
  it.each(['verify', 'target'] as const)('a %s that is not a function is refused when defined', (hook) => {
    expect(() =>
      defineCapability({
        id: 'settings.set',
        version: 1,
        title: 'Set a setting',
        description: 'Sets one setting.',
        kind: 'execute',
        replay: 'reconcile',
        effect: 'setting',
        input: Type.Object({ key: Type.String() }),
        output: Type.Object({ ok: Type.Boolean() }),
        [hook]: 'yes',
        handler: async () => ({ ok: true }),
      } as never),
    ).toThrow(
      expect.objectContaining({ code: 'CAPABILITY_DEFINITION_INVALID', message: expect.stringContaining(hook) }),
    );
  });
});
