/**
 * `@media-agent/sdk/http`: the host's HTTP surface — the runs API, the global event stream (server-sent
 * events and JSON pages), approvals, grants and decisions, and a web console — as one web-standard
 * router (`Request` → `Response`, built on Hono) that mounts in Node's `http`, Fastify, Express or Hono.
 * The host's `authenticate` hook turns each request into an actor; the SDK never invents identities.
 *
 * See docs/http.md.
 *
 * @packageDocumentation
 */
import { fileURLToPath } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { AgentHost } from './runtime/agent-host';
import { createAgentRouter as createRouter, type AgentRouter, type AgentRouterOptions } from './http/router';
import type { ScheduleView } from './http/schedules';

export * from './http/index';

/**
 * The folder of the web console's static files shipped with the package (plain HTML, CSS and
 * JavaScript; no framework, no CDN, nothing fetched at run time).
 * @public
 */
export const CONSOLE_ASSETS_DIR: string = fileURLToPath(new URL('../console/', import.meta.url));

/**
 * Creates the HTTP surface of an agent host, with the web console at its root (pass `consoleDir: false`
 * for the API alone).
 *
 * Routes (below wherever it is mounted): `POST /api/runs`, `GET /api/runs`, `GET /api/runs/:id?afterSeq&limit`,
 * `POST /api/runs/:id/messages`, `POST /api/runs/:id/abort`, `GET /api/runs/:id/fork-points`, `POST /api/runs/:id/fork`
 * (`{ atSeq, model?, goal? }`), `POST /api/runs/:id/undo` (undo a conversation's last turn), `POST /api/runs/:id/replay` (a replay without side
 * effects), `GET /api/events?after&limit` (server-sent events
 * when the request accepts `text/event-stream`, honouring `Last-Event-ID`; JSON pages otherwise),
 * `GET /api/approvals`, `GET|PATCH /api/approvals/:id`, `GET|POST /api/grants`, `PATCH /api/grants/:id`,
 * `GET /api/decisions`, `POST /api/decisions/:id/choice`, `GET|POST /api/schedules`,
 * `GET|PATCH|DELETE /api/schedules/:id`, `POST /api/schedules/:id/pause|resume`, `GET /api/schedules/:id/ticks`
 * (each schedule a {@link ScheduleView}); errors are `application/problem+json` with the
 * SDK's stable `code`. An admin sees every run; anyone else only the runs they started (another user's
 * run answers 404 `RUN_NOT_FOUND`, like a missing one); deciding approvals and managing grants need an
 * admin (403 `ADMIN_FORBIDDEN`).
 * @param host - a started agent host
 * @param options - `authenticate` (required: the request → actor hook), body and stream limits, decisions
 * @returns the router; `router.fetch(request)` answers a web-standard request
 * @throws `OPTIONS_INVALID` (a `MediaAgentError`) when `authenticate` is not a function
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createAgentRouter, toNodeListener } from '@media-agent/sdk/http';
 *
 * const router = createAgentRouter(host, {
 *   authenticate: (request) => sessions.actorOf(request.headers.get('cookie')), // e.g. 'user:alice'
 * });
 * createServer(toNodeListener(router)).listen(8080, '127.0.0.1');
 * ```
 * @public
 */
export function createAgentRouter(host: AgentHost, options: AgentRouterOptions): AgentRouter {
  return createRouter(host, { consoleDir: CONSOLE_ASSETS_DIR, ...options });
}

/**
 * Adapts a router to Node's `http` request listener (`http.createServer(toNodeListener(router))`), with
 * `@hono/node-server`: response streams honour the socket's back-pressure. For Express use it as a
 * handler (`app.use('/agent', toNodeListener(router))`); for Fastify create the router with `basePath` and call
 * the listener on `request.raw` and `reply.raw` after `reply.hijack()` (docs/http.md). In Hono:
 * `app.mount('/agent', router.fetch)`.
 *
 * A response sent before the request's body was read whole (413 `HTTP_BODY_TOO_LARGE`, 401, 415 …) says
 * `Connection: close`: Node closes such a connection instead of reading the rest, and a client that reused it
 * would see its next request fail.
 * @param router - the router
 * @public
 */
export function toNodeListener(
  router: Pick<AgentRouter, 'fetch'>,
): (req: IncomingMessage, res: ServerResponse) => void {
  const listener = getRequestListener((request) => router.fetch(request));
  return (req, res) => {
    const writeHead = res.writeHead;
    res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
      if (!req.complete && !res.headersSent) res.setHeader('connection', 'close');
      return writeHead.apply(this, args);
    } as ServerResponse['writeHead'];
    void listener(req, res);
  };
}
