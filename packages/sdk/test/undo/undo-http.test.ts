// POST /api/undo against a real local port (Node's http, requests with undici), on a SQLite file: the body is checked
// before the host sees it, the caller undoes as themselves, refusals are problem responses with the stable code.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { createAgentRouter, toNodeListener } from '../../src/http';
import type { UndoResult } from '../../src/index';
import { ADMIN, ALICE, BOB, undoHost } from './fixtures';

const TOKENS: Record<string, string> = { admin: ADMIN, alice: ALICE, bob: BOB };
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serve() {
  const made = await undoHost('sqlite');
  const router = createAgentRouter(made.host, {
    authenticate: (req) => TOKENS[req.headers.get('authorization')?.replace(/^Bearer /, '') ?? ''],
    consoleDir: false,
  });
  const server: Server = createServer(toNodeListener(router));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await made.host.stop().catch(() => undefined);
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const post = async (as: string, body: unknown, contentType = 'application/json') => {
    const res = await request(`${base}/api/undo`, {
      method: 'POST',
      headers: { authorization: `Bearer ${as}`, 'content-type': contentType },
      body: JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, type: String(res.headers['content-type']), body: JSON.parse(text) as any };
  };
  return { ...made, post };
}

it('undoes an invocation as the caller; refuses other people, bad bodies and unknown ids with problem responses', async () => {
  const { host, world, post } = await serve();
  await host.grants.create({ action: 'files.move', actor: ADMIN });
  const moved = await host.invoke('files.move', { from: 'a.mkv', to: 'movies/a.mkv' }, { actor: ALICE });
  expect(moved.status).toBe('succeeded');

  // Bob may not undo Alice's move: 403, nothing runs.
  const forbidden = await post('bob', { invocationId: moved.invocationId });
  expect(forbidden.status).toBe(403);
  expect(forbidden.type).toContain('application/problem+json');
  expect(forbidden.body).toMatchObject({ code: 'UNDO_FORBIDDEN', type: 'urn:media-agent:error:UNDO_FORBIDDEN' });

  // Alice may, but the inverse needs her an approval or a grant: a 200 whose undo was denied.
  const denied = await post('alice', { invocationId: moved.invocationId });
  expect(denied.status).toBe(200);
  expect((denied.body.undo as UndoResult).status).toBe('denied');
  expect((denied.body.undo as UndoResult).stoppedAt?.error?.code).toBe('AUTH_NO_AUTHORIZATION');
  expect(world.files.has('movies/a.mkv')).toBe(true);

  // The administrator's undo runs the inverse.
  const undone = await post('admin', { invocationId: moved.invocationId });
  expect(undone.status).toBe(200);
  expect(undone.body.undo).toMatchObject({ status: 'undone', undone: [{ inverseCapabilityId: 'files.restore' }] });
  expect(world.files.has('a.mkv')).toBe(true);

  // Bodies of any other shape never reach the host; an unknown id is 404.
  for (const body of [{}, { invocationId: moved.invocationId, runId: 'run_1' }, { runId: '' }, { planId: 'p' }]) {
    const bad = await post('admin', body);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('HTTP_BODY_INVALID');
  }
  expect((await post('admin', { runId: 'run_1' }, 'text/plain')).status).toBe(415);
  const missing = await post('admin', { runId: 'run_nope' });
  expect(missing.status).toBe(404);
  expect(missing.body.code).toBe('UNDO_NOT_FOUND');
  expect((await host.audit({ action: 'undo.refused' })).map((r) => [r.actor, r.reason])).toEqual([
    [BOB, 'UNDO_FORBIDDEN'],
    [ADMIN, 'UNDO_NOT_FOUND'],
  ]);
});
