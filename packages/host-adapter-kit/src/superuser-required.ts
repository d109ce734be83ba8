// The denial both MoviePilot adapters give an actor that is not a host superuser.

/**
 * The stable denial code for a capability the host allows only to its superusers (administrators of the
 * MoviePilot host: V2 `get_current_active_superuser`, "用户权限不足"; V3 `admin_only` catalog operations),
 * invoked by an actor whose principal is not one. The adapter's authorizer denies it before any request.
 * No approval or grant lifts it (the check runs before them, whatever the approval), so a dry run says
 * `approvalRequired: false` and a run asks no one for an approval.
 * @example
 * ```ts
 * if (result.status === 'denied' && result.error?.code === HOST_SUPERUSER_REQUIRED) showAdminOnly();
 * ```
 * @public
 */
export const HOST_SUPERUSER_REQUIRED = 'AUTH_HOST_SUPERUSER_REQUIRED';
