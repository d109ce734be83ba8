// Limits on what one person can open, over real HTTP (undici against the router on a real port, a host on
// a SQLite file): open event streams per person and in total (HTTP SSE and host.events subscriptions
// share them), runs started per minute per person and in total (POST /api/runs and host.startRun share
// them). Over a limit: 429 problem+json with a stable code and Retry-After in seconds; nothing changes.
//
// Public reports of the same kind, turned into tests here:
// - sockudo/sockudo#51: once max_connections was reached, new clients stayed refused after the others
//   disconnected (the count was not decremented on disconnect) — a closed stream must free its slot.
// - BerriAI/litellm#39309: a request rejected by one limit still consumed the RPM quota — a refused (or
//   invalid) start must use none of the allowance.
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { openStream, postRun, serveHousehold, SseClient, type Household } from './household-server';

let h: Household | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function refusedStream(base: string, token: string) {
  const opened = await SseClient.open(base, token);
  if (opened instanceof SseClient) {
    await opened.close();
    throw new Error('the stream was accepted');
  }
  return opened;
}

async function startOverHttp(base: string, token: string, goal = 'look around') {
  const res = await request(`${base}/api/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ goal, mode: 'plan_only' }),
  });
  return { status: res.statusCode, headers: res.headers, body: JSON.parse(await res.body.text()) };
}

describe('limits on open event streams', () => {
  it('accepts 8 streams from one person (the default), refuses the 9th with 429 STREAM_LIMIT_REACHED and Retry-After; others still connect', async () => {
    h = await serveHousehold();
    const bobs: SseClient[] = [];
    for (let i = 0; i < 8; i++) bobs.push(await openStream(h.base, 'bob-token'));
    const refused = await refusedStream(h.base, 'bob-token');
    expect(refused.status).toBe(429);
    expect(String(refused.headers['content-type'])).toContain('application/problem+json');
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.body).toMatchObject({
      status: 429,
      code: 'STREAM_LIMIT_REACHED',
      details: { actor: 'user:bob', limit: 'perActor', max: 8 },
    });
    expect(h.router.openStreams).toBe(8);
    const carol = await openStream(h.base, 'carol-token');
    await Promise.all([...bobs, carol].map((s) => s.close()));
  });

  it('a closed stream frees its slot: a client that left, and a stream ended by access_lost (sockudo/sockudo#51)', async () => {
    h = await serveHousehold({ host: { limits: { streamsPerActor: 2 } } });
    const first = await openStream(h.base, 'bob-token');
    const second = await openStream(h.base, 'bob-token');
    expect((await refusedStream(h.base, 'bob-token')).status).toBe(429);
    await first.close(); // the client leaves
    await expect.poll(() => h!.router.openStreams, { timeout: 10_000 }).toBe(1);
    const third = await openStream(h.base, 'bob-token');

    // Signed out: both streams end with access_lost and give their slots back.
    h.tokens.delete('bob-token');
    h.host.identityChanged('user:bob', { signedOut: true });
    await Promise.all([second.ended(), third.ended()]);
    await expect.poll(() => h!.router.openStreams, { timeout: 10_000 }).toBe(0);
    h.tokens.set('bob-token', 'user:bob');
    const again = [await openStream(h.base, 'bob-token'), await openStream(h.base, 'bob-token')];
    await Promise.all(again.map((s) => s.close()));
  });

  it('the total limit refuses anyone once the host holds streamsTotal; in-process subscriptions count too', async () => {
    h = await serveHousehold({ host: { limits: { streamsPerActor: 2, streamsTotal: 3 } } });
    const inProcess = new AbortController();
    h.host.events({ actor: 'user:bob', signal: inProcess.signal });
    const bob = await openStream(h.base, 'bob-token');
    expect((await refusedStream(h.base, 'bob-token')).body.details).toMatchObject({ limit: 'perActor', max: 2 });
    const carol = await openStream(h.base, 'carol-token');
    const admin = await refusedStream(h.base, 'admin-token');
    expect(admin.status).toBe(429);
    expect(admin.body).toMatchObject({
      code: 'STREAM_LIMIT_REACHED',
      details: { actor: 'user:admin', limit: 'total', max: 3 },
    });
    inProcess.abort();
    const adminStream = await openStream(h.base, 'admin-token');
    await Promise.all([bob, carol, adminStream].map((s) => s.close()));
  });
});

describe('limits on runs started per minute', () => {
  it('accepts 10 starts a minute from one person (the default), refuses the 11th with 429 RUN_START_RATE_LIMITED and Retry-After; nothing is stored; the next minute frees it', async () => {
    h = await serveHousehold();
    for (let i = 0; i < 10; i++) await postRun(h.base, 'bob-token');
    h.clock.advance(15_000);
    const stored = (await h.host.listRuns({ limit: 1000 })).length;
    const refused = await startOverHttp(h.base, 'bob-token');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('45');
    expect(refused.body).toMatchObject({
      code: 'RUN_START_RATE_LIMITED',
      details: { actor: 'user:bob', limit: 'perActor', max: 10, retryAfterMs: 45_000 },
    });
    // The host API applies the same limit to the same person.
    await expect(h.host.startRun({ goal: 'again', actor: 'user:bob' })).rejects.toMatchObject({
      code: 'RUN_START_RATE_LIMITED',
    });
    expect((await h.host.listRuns({ limit: 1000 })).length).toBe(stored);
    await postRun(h.base, 'carol-token');
    h.clock.advance(45_000);
    await postRun(h.base, 'bob-token');
  });

  it('refused and invalid starts use none of the allowance; the total limit refuses everyone (BerriAI/litellm#39309)', async () => {
    h = await serveHousehold({ host: { limits: { runStartsPerMinutePerActor: 2, runStartsPerMinuteTotal: 3 } } });
    expect((await startOverHttp(h.base, 'bob-token', '   ')).status).toBe(422); // invalid: not counted
    await postRun(h.base, 'bob-token');
    await postRun(h.base, 'bob-token');
    expect((await startOverHttp(h.base, 'bob-token')).status).toBe(429); // refused: not counted
    await h.host.startRun({ goal: 'look', mode: 'plan_only', actor: 'user:carol' });
    const total = await startOverHttp(h.base, 'admin-token');
    expect(total.status).toBe(429);
    expect(total.body.details).toMatchObject({ actor: 'user:admin', limit: 'total', max: 3 });
    expect((await h.host.listRuns({ limit: 1000 })).length).toBe(3);
  });
});
