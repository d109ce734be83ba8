import type { CapabilityRegistry } from '../../src/capabilities/capability-registry';
import type { GrantRecord } from '../../src/core/records';
import type { DecisionRecord } from '../../src/core/run-records';

/** An open download_failed decision about download d1; override what the test needs. */
export function decisionRecord(overrides: Partial<DecisionRecord> = {}): DecisionRecord {
  return {
    id: 'dec_1',
    kind: 'download_failed',
    dedupeKey: 'download_failed:download:d1',
    subjectType: 'download',
    subjectId: 'd1',
    rootCause: 'download_failed:d1',
    status: 'open',
    reason: 'the download failed',
    evidence: {},
    options: [],
    raisedBy: 'system:host',
    resolvedBy: null,
    resolution: null,
    revision: 1,
    createdAt: 10,
    updatedAt: 10,
    resolvedAt: null,
    ...overrides,
  };
}

/** A registry of the given capability ids (kind `read` unless named in `kinds`), each with the given input schema. */
export function registryOf(
  ids: readonly string[],
  options: { kinds?: Record<string, string>; input?: Record<string, unknown> } = {},
): Pick<CapabilityRegistry, 'has' | 'get' | 'list'> {
  const descriptor = (id: string) => ({
    id,
    kind: options.kinds?.[id] ?? 'read',
    input: options.input ?? { type: 'object' },
  });
  return {
    has: (id: string) => ids.includes(id),
    get: ((id: string) => descriptor(id)) as unknown as CapabilityRegistry['get'],
    list: ((filter?: { kind?: string }) =>
      ids
        .map(descriptor)
        .filter((d) => !filter?.kind || d.kind === filter.kind)) as unknown as CapabilityRegistry['list'],
  };
}

/** An active, unscoped, unlimited grant of `action`. */
export function grant(action: string, overrides: Partial<GrantRecord> = {}): GrantRecord {
  return {
    id: `grant_${action}`,
    action,
    status: 'active',
    expiresAt: null,
    policyRevisionId: null,
    scope: {},
    budget: {},
    reason: null,
    createdBy: 'user:admin',
    createdAt: 1,
    updatedAt: 1,
    ...overrides,
  };
}
