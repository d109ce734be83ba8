// Open event streams lose access when access is lost: the HTTP event stream re-checks its subscriber's
// identity (the router's authenticate hook, run again on the stream's request) and role every
// `accessRecheckMs` by the host's clock, and at once on `host.identityChanged`; a subscriber who lost access
// gets one `access_lost` frame and the stream closes. Real HTTP (undici) against the router on a real port,
// a host on a SQLite file, a ManualClock for the periodic path.
//
// Public reports of the same kind, turned into tests here:
// - HarperFast/harper#1414: live subscriptions kept delivering events after drop_user / role revocation,
//   while a REST request with the same credentials got 401 (subscribe-time permissions only).
// - pubky/pubky-homeserver#492: private event streams authorized at connect kept receiving events after the
//   session was revoked; expected: revoke, write a new matching event, the revoked stream does not get it.
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { openStream, postRun, serveHousehold, type Frame, type Household } from './household-server';

let h: Household | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const runIds = (frames: Frame[]) => frames.filter((f) => f.event !== 'access_lost').map((f) => f.data.runId);
const terminal = (frames: Frame[]) => frames.filter((f) => f.event === 'access_lost');

describe('open event streams lose access when access is lost (HTTP)', () => {
  it('an administrator demoted and signed out through the hook gets one access_lost frame, the stream closes, and no later event of another person arrives (HarperFast/harper#1414, pubky/pubky-homeserver#492)', async () => {
    h = await serveHousehold();
    const admin = await openStream(h.base, 'admin-token');
    const before = await postRun(h.base, 'bob-token');
    await admin.waitFor((f) => runIds(f).includes(before));
    expect(h.router.openStreams).toBe(1);

    // The host's sign-out path: the session is gone, the role table changed, then the hook.
    h.tokens.delete('admin-token');
    h.roles.set('user:admin', 'user');
    expect(h.host.identityChanged('user:admin', { signedOut: true })).toBe(1);
    const after = await postRun(h.base, 'bob-token');
    await admin.ended();

    const lost = terminal(admin.frames);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.id).toBeUndefined();
    expect(lost[0]!.data).toMatchObject({
      type: 'access_lost',
      code: 'STREAM_ACCESS_LOST',
      reason: 'unauthenticated',
      actor: 'user:admin',
    });
    expect(admin.frames.at(-1)!.event).toBe('access_lost');
    expect(runIds(admin.frames)).not.toContain(after);
    expect(h.router.openStreams).toBe(0);
    // A new request with the same token is refused too.
    const again = await request(`${h.base}/api/runs`, { headers: { authorization: 'Bearer admin-token' } });
    expect(again.statusCode).toBe(401);
    await again.body.text();
  });

  it('a demotion alone (still signed in) ends an every-run stream with role_changed; reconnecting gives only their own runs', async () => {
    h = await serveHousehold();
    const admin = await openStream(h.base, 'admin-token');
    h.roles.set('user:admin', 'user');
    h.host.identityChanged('user:admin');
    await admin.ended();
    expect(terminal(admin.frames).map((f) => f.data.reason)).toEqual(['role_changed']);

    const demoted = await openStream(h.base, 'admin-token');
    const bobs = await postRun(h.base, 'bob-token');
    const own = await postRun(h.base, 'admin-token');
    await demoted.waitFor((f) => runIds(f).includes(own));
    expect(runIds(demoted.frames)).not.toContain(bobs);
    await demoted.close();
  });

  it('the periodic re-check (30 s by the host clock, no hook) ends the stream of a signed-out token', async () => {
    h = await serveHousehold();
    const admin = await openStream(h.base, 'admin-token');
    h.tokens.delete('admin-token'); // signed out without telling the host
    h.clock.advance(29_999);
    await new Promise((resolve) => setTimeout(resolve, 150)); // several clock looks (pollMs 20): not due yet
    expect(admin.done).toBe(false);
    h.clock.advance(1);
    await admin.ended();
    expect(terminal(admin.frames).map((f) => f.data.reason)).toEqual(['unauthenticated']);
    const later = await postRun(h.base, 'bob-token');
    expect(runIds(admin.frames)).not.toContain(later);
  });

  it('the periodic re-check follows a configured accessRecheckMs and ends a demoted administrator’s stream', async () => {
    h = await serveHousehold({ host: { accessRecheckMs: 5_000 } });
    const admin = await openStream(h.base, 'admin-token');
    h.roles.set('user:admin', 'user'); // the role table changed, nobody told the host
    h.clock.advance(5_000);
    await admin.ended();
    expect(terminal(admin.frames).map((f) => f.data.reason)).toEqual(['role_changed']);
  });

  it('following another person’s run ends with run_not_visible once demoted; a person following their own run keeps it', async () => {
    h = await serveHousehold();
    const bobs = await postRun(h.base, 'bob-token');
    const admin = await openStream(h.base, 'admin-token', `/api/events?runId=${bobs}`);
    const bob = await openStream(h.base, 'bob-token', `/api/events?runId=${bobs}`);
    await admin.waitFor((f) => runIds(f).includes(bobs));
    await bob.waitFor((f) => runIds(f).includes(bobs));

    h.roles.set('user:admin', 'user');
    expect(h.host.identityChanged()).toBe(2); // everyone re-checks
    await admin.ended();
    expect(terminal(admin.frames).map((f) => f.data.reason)).toEqual(['run_not_visible']);

    // Bob's stream is still open and still delivers his run's events.
    const message = await request(`${h.base}/api/runs/${bobs}/messages`, {
      method: 'POST',
      headers: { authorization: 'Bearer bob-token', 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'prefer 1080p' }),
    });
    expect(message.statusCode).toBe(202);
    await message.body.text();
    await bob.waitFor((f) => f.some((x) => x.event === 'inbox_queued'));
    expect(bob.done).toBe(false);
    expect(terminal(bob.frames)).toEqual([]);
    await bob.close();
  });
});
