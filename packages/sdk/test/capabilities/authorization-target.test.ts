// The authorization target of a call: its own target first, the plan for what it does not say.
import { describe, expect, it } from 'vitest';
import { authorizationTarget } from '../../src/capabilities/authorization-target';
import type { PlanRecord } from '../../src/storage';

const plan = { mediaEntityId: 'tmdb:1', mediaKind: 'movie', bytes: 5 } as PlanRecord;

describe('authorizationTarget', () => {
  it('takes media entity, kind and bytes from the plan when the call does not say', () => {
    expect(authorizationTarget({ planType: 'download', planId: 'p1', steps: ['a'] }, plan)).toEqual({
      planType: 'download',
      planId: 'p1',
      mediaEntityId: 'tmdb:1',
      mediaKind: 'movie',
      bytes: 5,
      steps: ['a'],
    });
  });
  it("the call's own target wins; no plan and no bytes is 0 bytes", () => {
    expect(authorizationTarget({ mediaEntityId: 'tmdb:2', bytes: 0 }, plan)).toMatchObject({
      mediaEntityId: 'tmdb:2',
      bytes: 0,
    });
    expect(authorizationTarget({}, undefined)).toMatchObject({ bytes: 0, mediaEntityId: undefined });
  });
});
