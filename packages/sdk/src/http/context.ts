// What the router's authentication step leaves on each API request's context.
import type { Context } from 'hono';
import type { ActorRole } from '../core/actor';

/**
 * The variables of an authenticated API request: `actor` (what the host's `authenticate` hook returned) and
 * `role` (`admin` only for a person the host's identity resolver names an administrator).
 * @internal
 */
export type RouterVars = { Variables: { actor: string; role: ActorRole } };

/** The context of an authenticated API request. @internal */
export type RouterContext = Context<RouterVars>;
