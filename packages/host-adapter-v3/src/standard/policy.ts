import { defineStandardCapability } from '@media-agent/sdk/media';
import type { V3Services, V3StandardHelpers } from './services';

/**
 * Acquisition and organize policies, kept by the adapter per host.
 * @param s - the services of one host
 * @param h - the shared reads and views
 * @returns `policy.preview`, `policy.apply` by id
 * @internal
 */
export function v3PolicyCapabilities(s: V3Services, h: V3StandardHelpers) {
  return {
    'policy.preview': defineStandardCapability('policy.preview', async (input) => {
      const current = s.policies.get(input.kind) ?? { revision: 0, settings: {} };
      const proposed = { ...current.settings, ...input.settings };
      const keys = [...new Set([...Object.keys(current.settings), ...Object.keys(proposed)])].sort();
      const changes = keys
        .filter(
          (k) =>
            JSON.stringify((current.settings as Record<string, unknown>)[k]) !==
            JSON.stringify((proposed as Record<string, unknown>)[k]),
        )
        .map((k) => ({
          field: k,
          from: (current.settings as Record<string, unknown>)[k] ?? null,
          to: (proposed as Record<string, unknown>)[k] ?? null,
        }));
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
