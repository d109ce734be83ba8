import { parseActor } from '../core/actor';

/** What an actor may do through the HTTP surface: `admin` sees every run and decides; `user` sees its own runs. @public */
export type HttpRole = 'admin' | 'user';

/**
 * The role of an actor: the host's own resolver when it has one (`roleOf`), else the SDK's default
 * (`user:*` is a console administrator, every other actor kind a user).
 * @internal
 */
export async function resolveRole(host: object, actor: string): Promise<HttpRole> {
  const withRoles = host as { roleOf?: (actor: string) => Promise<HttpRole> | HttpRole };
  if (typeof withRoles.roleOf === 'function') return withRoles.roleOf(actor);
  return parseActor(actor).kind === 'user' ? 'admin' : 'user';
}

/**
 * Whether an actor may see a run: an admin sees every run, anyone else only the runs they started.
 * @param run - the run's `startedBy`
 * @param actor - the caller
 * @param role - the caller's role
 * @internal
 */
export function mayReadRun(run: { startedBy: string }, actor: string, role: HttpRole): boolean {
  return role === 'admin' || run.startedBy === actor;
}

/**
 * The run an approval was asked for (`agent:<runId>` requests), or undefined.
 * @internal
 */
export function approvalRunId(requestedBy: string): string | undefined {
  return requestedBy.startsWith('agent:') ? requestedBy.slice('agent:'.length) : undefined;
}
