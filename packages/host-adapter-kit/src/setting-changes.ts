/** One setting a `policy.apply` would change: its name, its current and its proposed value (`null` when absent). @public */
export interface SettingChange {
  /** The setting's name. */
  field: string;
  /** The current value, or `null`. */
  from: unknown;
  /** The proposed value, or `null`. */
  to: unknown;
}

/**
 * What a policy patch would change (`policy.preview` on both host generations): the proposed settings
 * (the patch over the current ones) and each setting whose value differs, by name in sorted order
 * (values compared as JSON).
 * @param current - the settings in force
 * @param patch - the settings to change
 * @returns `{ proposed, changes }`
 * @public
 */
export function settingChanges(
  current: Readonly<Record<string, unknown>>,
  patch: Readonly<Record<string, unknown>>,
): { proposed: Record<string, unknown>; changes: SettingChange[] } {
  const proposed = { ...current, ...patch };
  const changes = [...new Set([...Object.keys(current), ...Object.keys(proposed)])]
    .sort()
    .filter((field) => JSON.stringify(current[field]) !== JSON.stringify(proposed[field]))
    .map((field) => ({ field, from: current[field] ?? null, to: proposed[field] ?? null }));
  return { proposed, changes };
}
