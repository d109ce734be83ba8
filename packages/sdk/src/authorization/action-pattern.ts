/**
 * Whether a grant's `action` covers a capability:
 * `*` covers everything; an exact capability id covers that capability; `policy.<kind>` covers
 * capabilities whose `policy` is `<kind>` (grants generated when a policy of that kind is
 * published); `<family>.*` covers every id that starts with `<family>.`.
 *
 * @param action - the grant's action pattern
 * @param capability - id and optional policy kind of the capability
 * @public
 */
export function actionCovers(action: string, capability: { id: string; policy?: string | undefined }): boolean {
  if (action === '*' || action === capability.id) return true;
  if (action.endsWith('.*')) return capability.id.startsWith(action.slice(0, -1));
  if (action.startsWith('policy.') && capability.policy !== undefined) return action === `policy.${capability.policy}`;
  return false;
}
