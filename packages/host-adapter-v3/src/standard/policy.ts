import { settingChanges } from '@media-agent/host-adapter-kit';
import { defineStandardCapability } from '@media-agent/sdk/media';
import type { V3Services, V3StandardHelpers } from './services';

/**
 * Acquisition and organize policies, kept by the adapter per host.
 * @param s - the services of one host
 * @param h - the shared reads and views
 * @returns `policy.preview`, `policy.apply` by id
 * @internal
 */
export function v3PolicyCapabilities(s: V3Services, _h: V3StandardHelpers) {
  return {
    'policy.preview': defineStandardCapability('policy.preview', async (input) => {
      const current = s.policies.get(input.kind) ?? { revision: 0, settings: {} };
      const { proposed, changes } = settingChanges(current.settings, input.settings);
      return { kind: input.kind, revision: current.revision, current: current.settings, proposed, changes };
    }),
    'policy.apply': defineStandardCapability('policy.apply', async (input) => {
      const current = s.policies.get(input.kind) ?? { revision: 0, settings: {} };
      const next = { revision: current.revision + 1, settings: { ...current.settings, ...input.settings } };
      s.policies.set(input.kind, next);
      return { kind: input.kind, revision: next.revision, settings: next.settings };
    }),
  };
}
