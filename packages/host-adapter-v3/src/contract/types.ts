/**
 * Side-effect classes of MoviePilot 3.x operations (`ActionEffect` in `app/agent/policy/contracts.py`;
 * the catalog uses four of them).
 * @public
 */
export type V3Effect =
  | 'safe_read'
  | 'sensitive_read'
  | 'reversible_write'
  | 'destructive_write'
  | 'external_side_effect'
  | 'arbitrary_execution'
  | 'unknown';

/**
 * One operation of the MoviePilot 3.x agent/MCP catalog (`contracts/v3-operations.json`).
 * @public
 */
export interface V3Operation {
  /** Stable operation id, e.g. `download.add`. */
  operation_id: string;
  /** HTTP method. */
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Route template under the host root, e.g. `/api/v1/search/media/{media_id}`. */
  path: string;
  /** Side-effect class. */
  effect: V3Effect;
  /** True when only host superusers may call it (`required_role == system_admin`). */
  admin_only: boolean;
  /** Role the host requires. */
  required_role: 'user' | 'channel_admin' | 'system_admin' | 'system_internal';
  /** `required`: the host's agent gateway asks the user before calling it. */
  confirmation: 'none' | 'required' | 'unsupported';
  /** How a failed or interrupted call is recovered (`idempotent`, `reconcile`, `transaction`, …). */
  recovery: 'none' | 'transaction' | 'before_state' | 'recoverable_delete' | 'idempotent' | 'reconcile' | 'manual_only';
  /** Sensitivity of the result. */
  result_sensitivity: 'normal' | 'private' | 'secret' | 'unknown';
  /** Registry batch the operation came from. */
  registry_group: string;
  /** Request/response facts from the sources (null for a few operations). */
  notes: string | null;
}
