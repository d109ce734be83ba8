// The authorization a recorded run is replayed under: the grants, the policy revisions they and the called
// capabilities name, and the automation settings of the store it was exported from — read once (export), put back
// into a memory store of its own (replay), so the replay's verdicts are those of the original store.
import { AUTOMATION_SETTINGS_KEY } from '../../authorization/automation-settings';
import type { GrantRecord, JsonValue, PolicyRevisionRecord } from '../../core/records';
import type { StorageAdapter } from '../../ports/storage-adapter';
import { MemoryStorage } from '../../storage/memory/memory-storage';

/** Authorization records of a store, as JSON (the `recorded.authorization` part of a trajectory). @public */
export interface RecordedAuthorization {
  /** The store's active grants. */
  grants: JsonValue[];
  /** Policy revisions the grants and the called capabilities' policy kinds name. */
  policies: JsonValue[];
  /** The automation settings (`automation` key), or null when unset. */
  automation: JsonValue | null;
}

const json = (value: unknown): JsonValue => JSON.parse(JSON.stringify(value)) as JsonValue;

/**
 * Reads the authorization records a replay needs from a store (reads only).
 * @param storage - the store the run was read from
 * @param policyKinds - the policy kinds of the capabilities the run called
 * @returns the records, as JSON
 * @public
 */
export async function readRecordedAuthorization(
  storage: StorageAdapter,
  policyKinds: readonly string[],
): Promise<RecordedAuthorization> {
  const grants = await storage.grants.list({ status: 'active' });
  const revisions = new Map<string, PolicyRevisionRecord>();
  for (const kind of new Set(policyKinds))
    for (const r of await storage.policies.listByKind(kind)) revisions.set(r.id, r);
  for (const g of grants)
    if (g.policyRevisionId && !revisions.has(g.policyRevisionId)) {
      const r = await storage.policies.get(g.policyRevisionId);
      if (r) revisions.set(r.id, r);
    }
  const automation = await storage.settings.get(AUTOMATION_SETTINGS_KEY);
  return {
    grants: grants.map(json),
    policies: [...revisions.values()].map(json),
    automation: automation === undefined ? null : json(automation),
  };
}

/**
 * A new memory store holding the recorded authorization records (what a replay copies its verdicts' facts from).
 * @param recorded - the records
 * @returns the store (migrated)
 * @public
 */
export async function recordedAuthorizationStore(recorded: RecordedAuthorization): Promise<MemoryStorage> {
  const storage = new MemoryStorage();
  await storage.migrate();
  for (const p of recorded.policies) await storage.policies.put(p as unknown as PolicyRevisionRecord);
  for (const g of recorded.grants) await storage.grants.insert(g as unknown as GrantRecord);
  if (recorded.automation !== null) await storage.settings.set(AUTOMATION_SETTINGS_KEY, recorded.automation);
  return storage;
}
