// The replay route (docs/http.md#replay): host.replayRun over HTTP, as the caller — a stored run re-driven through the
// current runtime with its recorded model turns and tool results, nothing real run, and where it diverges.
import type { Hono } from 'hono';
import Type from 'typebox';
import type { AgentHost } from '../runtime/agent-host';
import { readBody } from './body';
import type { RouterVars } from './context';

/**
 * What the replay route needs of the host; access (the run's owner or an administrator: another person's run answers
 * `RUN_NOT_FOUND`), validation and the isolated replay are the host's own.
 * @internal
 */
export type ReplayRouteHost = Pick<AgentHost, 'replayRun'>;

/**
 * The body of `POST /api/runs/:id/replay`: `{}` or empty, or a real-time limit `timeoutMs`. Only the shape (an integer)
 * is checked here; its range (1 to 600 000 ms) is the host's rule (`RUN_REQUEST_INVALID`: 422).
 */
const ReplayBody = Type.Object({ timeoutMs: Type.Optional(Type.Integer()) }, { additionalProperties: false });

/**
 * Adds `POST /api/runs/:id/replay` (`{ timeoutMs? }`, or an empty JSON body) to the router's app (after its
 * authentication step): **200** with the `RunReplayReport` itself — `{ runId, status: 'same' | 'diverged', modelCalls,
 * handlerCalls, ledgerWrites, turns, toolCalls, divergences, storedReport, replayedReport }`; a divergence is a result,
 * not an error. Errors (problem+json, nothing written): **400** `HTTP_BODY_INVALID`, **404** `RUN_NOT_FOUND` (also a
 * run the caller may not read), **409** `RUN_PRUNED`, **422** `RUN_REQUEST_INVALID` (`timeoutMs` out of range).
 * @param app - the router's app
 * @param host - the agent host
 * @internal
 */
export function addReplayRoutes(app: Hono<RouterVars>, host: ReplayRouteHost): void {
  app.post('/api/runs/:id/replay', async (c) => {
    const body = await readBody(c, ReplayBody, true);
    const report = await host.replayRun(c.req.param('id'), {
      actor: c.var.actor,
      ...(body.timeoutMs !== undefined ? { timeoutMs: body.timeoutMs } : {}),
    });
    return c.json(report);
  });
}
