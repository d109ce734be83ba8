import { AUTHENTICATE_TIMEOUT_MS, answerWithin } from '../core/deadline';
import type { Actor } from '../core/actor';
import { parseActor } from '../core/actor';
import { MediaAgentError } from '../core/errors';

/**
 * What the host's authentication hook learns about an MCP request: the transport and what the transport
 * itself established. Never the request body, the tool arguments or `_meta`: an identity a client writes
 * into a message is text, not authentication.
 * @public
 */
export interface McpCaller {
  /** `stdio` (the process that spawned this server) or `http` (Streamable HTTP). */
  transport: 'stdio' | 'http';
  /**
   * The access token's verified facts, when the host's HTTP middleware authenticated the request and set
   * `req.auth` (see the MCP SDK's bearer-auth middleware); undefined on stdio.
   */
  authInfo?: { token: string; clientId: string; scopes: string[]; extra?: Record<string, unknown> };
  /** The HTTP request headers (lower-case names), for hosts that authenticate by header; undefined on stdio. */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  /** The MCP session id, when the transport keeps sessions. */
  sessionId?: string;
}

/**
 * Resolves who an MCP request acts as. Return the actor (`apikey:<id>` for a client key, `user:<id>` only
 * for a person the host authenticated as a console administrator); throw (or return nothing) to refuse the
 * request with `MCP_UNAUTHENTICATED` (so does a hook that has not answered within `AUTHENTICATE_TIMEOUT_MS`,
 * 10 000 ms).
 * @public
 */
export type McpAuthenticate = (caller: McpCaller) => Actor | undefined | Promise<Actor | undefined>;

/**
 * The request's actor from the hook.
 * @throws `MCP_UNAUTHENTICATED` ({@link MediaAgentError}) when the hook threw or gave no valid actor
 */
export async function resolveActor(authenticate: McpAuthenticate, caller: McpCaller): Promise<Actor> {
  let actor: Actor | undefined;
  try {
    actor = await answerWithin(authenticate(caller), AUTHENTICATE_TIMEOUT_MS);
    parseActor(actor);
  } catch (cause) {
    throw new MediaAgentError('MCP_UNAUTHENTICATED', 'the MCP request is not authenticated', {}, { cause });
  }
  return actor as Actor;
}
