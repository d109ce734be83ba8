// The undo route (docs/approvals.md#undo): host.undo over HTTP, as the authenticated caller.
import type { Hono } from 'hono';
import Type from 'typebox';
import type { UndoOptions, UndoResult, UndoTarget } from '../runtime/undo/undo-types';
import { readBody } from './body';
import type { RouterVars } from './context';

/** What the undo route needs of the host. @internal */
export interface UndoRouteHost {
  /** `host.undo`: access (own effects, or an administrator), validation and audit are its own. */
  undo(target: UndoTarget, options: UndoOptions): Promise<UndoResult>;
}

const Id = Type.String({ minLength: 1, maxLength: 200 });
/** Exactly one of `invocationId` or `runId`. */
const UndoBody = Type.Union([
  Type.Object({ invocationId: Id }, { additionalProperties: false }),
  Type.Object({ runId: Id }, { additionalProperties: false }),
]);

/**
 * Adds `POST /api/undo` to the router's app (after its authentication step, so every request has an actor): the body
 * is `{ "invocationId": "…" }` or `{ "runId": "…" }` (anything else: 400 `HTTP_BODY_INVALID`, nothing undone); the
 * answer is `200 { undo: UndoResult }` whatever the undo's status (`undone`, `partial`, `failed`, `denied`,
 * `nothing_to_undo`). The caller undoes as themselves: another person's effect answers 403 `UNDO_FORBIDDEN` unless
 * they are an administrator; nothing recorded answers 404 `UNDO_NOT_FOUND`.
 * @internal
 */
export function addUndoRoutes(app: Hono<RouterVars>, host: UndoRouteHost): void {
  app.post('/api/undo', async (c) => {
    const body = await readBody(c, UndoBody);
    return c.json({ undo: await host.undo(body, { actor: c.var.actor }) });
  });
}
