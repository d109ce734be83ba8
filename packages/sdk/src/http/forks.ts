// The fork routes (docs/http.md#forks-and-undo, docs/forks.md): a run's fork points, a fork from one of them, and undoing the last
// turn of a conversation — host.listForkPoints, host.forkRun and host.undoLastTurn over HTTP, as the caller.
import type { Hono } from 'hono';
import Type from 'typebox';
import type { AgentHost } from '../runtime/agent-host';
import { readBody } from './body';
import type { RouterVars } from './context';

/**
 * What the fork routes need of the host; access (the run's owner or an administrator: another person's run answers
 * `RUN_NOT_FOUND`), validation and lineage are the host's own.
 * @internal
 */
export type ForkRouteHost = Pick<AgentHost, 'listForkPoints' | 'forkRun' | 'undoLastTurn'>;

/**
 * The body of `POST /api/runs/:id/fork`: the fork point's event sequence number, and optionally another model id and
 * another goal. Only the shape is checked here (an integer, strings); whether `atSeq` is a fork point and whether the
 * model and goal are acceptable are the host's rules (`FORK_POINT_INVALID`, `RUN_REQUEST_INVALID`: 422).
 */
const ForkBody = Type.Object(
  {
    atSeq: Type.Integer(),
    model: Type.Optional(Type.String()),
    goal: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
/** Undo takes no fields; the body must still be declared JSON (`{}` or empty), like abort. */
const NoFields = Type.Object({}, { additionalProperties: false });

/**
 * Adds the fork routes to the router's app (after its authentication step, so every request has an actor):
 *
 * - `GET /api/runs/:id/fork-points` → **200** `{ forkPoints: ForkPoint[] }` (oldest first);
 * - `POST /api/runs/:id/fork` `{ atSeq, model?, goal? }` → **201** `{ run }`: the fork, `queued`, owned by the caller;
 * - `POST /api/runs/:id/undo` (`{}` or an empty JSON body) → **201** `UndoTurnResult`
 *   `{ run, forkedAt, undoneMessage: { inboxId, text }, originalCancelled }`: the fork, `waiting` for the person.
 *
 * Errors (problem+json, nothing written): a body of another shape **400** `HTTP_BODY_INVALID`; a run that does not
 * exist or the caller may not read **404** `RUN_NOT_FOUND`; `atSeq` that is not a fork point **422**
 * `FORK_POINT_INVALID` (`details.before` / `details.after`: the nearest fork points, or null); a bad model or goal
 * **422** `RUN_REQUEST_INVALID`; the run's state refusing the fork or the undo **409**: `RUN_PRUNED`,
 * `FORK_SUBAGENT_RUN`, `UNDO_NOT_INTERACTIVE`, `UNDO_NO_TURN`, `UNDO_MESSAGE_PENDING`.
 * @param app - the router's app
 * @param host - the agent host
 * @internal
 */
export function addForkRoutes(app: Hono<RouterVars>, host: ForkRouteHost): void {
  app.get('/api/runs/:id/fork-points', async (c) => {
    const forkPoints = await host.listForkPoints(c.req.param('id'), { actor: c.var.actor });
    return c.json({ forkPoints });
  });
  app.post('/api/runs/:id/fork', async (c) => {
    const body = await readBody(c, ForkBody);
    const run = await host.forkRun(c.req.param('id'), {
      atSeq: body.atSeq,
      actor: c.var.actor,
      ...(body.model !== undefined ? { model: body.model } : {}),
      ...(body.goal !== undefined ? { goal: body.goal } : {}),
    });
    return c.json({ run }, 201);
  });
  app.post('/api/runs/:id/undo', async (c) => {
    await readBody(c, NoFields, true);
    const result = await host.undoLastTurn(c.req.param('id'), c.var.actor);
    return c.json(result, 201);
  });
}
