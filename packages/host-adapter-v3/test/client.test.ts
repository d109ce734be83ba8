import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, OutcomeUnknownError } from '@media-agent/sdk';
import {
  V3_OPERATIONS,
  V3AuthError,
  V3Client,
  V3PermissionDeniedError,
  V3ValidationError,
} from '@media-agent/host-adapter-v3';
import { MoviePilotV3Simulator } from '@media-agent/host-adapter-v3/testing';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

async function sim(options: ConstructorParameters<typeof MoviePilotV3Simulator>[0] = {}) {
  const s = new MoviePilotV3Simulator(options);
  await s.start();
  cleanup.push(() => s.close());
  return s;
}
function client(
  s: MoviePilotV3Simulator,
  auth: ConstructorParameters<typeof V3Client>[0]['auth'] = { apiKey: s.apiKey },
) {
  const c = new V3Client({ url: s.url, auth });
  cleanup.push(() => c.close());
  return c;
}

describe('contract files', () => {
  it('the generated operation module equals contracts/v3-operations.json (221 operations)', () => {
    const file = JSON.parse(
      readFileSync(new URL('../contracts/v3-operations.json', import.meta.url), 'utf8'),
    ) as unknown[];
    expect(V3_OPERATIONS).toEqual(file);
    expect(V3_OPERATIONS).toHaveLength(221);
  });
});

describe('V3 client (undici against the simulator)', () => {
  it('API key: sends X-API-KEY, unwraps the envelope and keeps the HTTP status', async () => {
    const s = await sim();
    const r = await client(s).call('library.exists', { query: { media_source: 'themoviedb', media_id: '329865' } });
    expect(r).toMatchObject({ status: 200, success: true, data: { item: { id: expect.any(String) } } });
    s.assertNoViolations();
  });

  it('paging headers become a collection', async () => {
    const s = await sim();
    const r = await client(s).call('search.torrents', {
      pathParams: { media_id: '693134' },
      query: { media_source: 'themoviedb', page: 1, count: 1 },
    });
    expect(r.collection).toEqual({ result_count: 1, total_count: 2, page: 1, count: 1 });
    expect(r.data).toHaveLength(1);
  });

  it('a 422 issue list becomes a typed validation error', async () => {
    const s = await sim();
    const e = await client(s)
      .call('library.exists', { query: { media_source: 'themoviedb' } })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(V3ValidationError);
    expect((e as V3ValidationError).issues.length).toBeGreaterThan(0);
    expect(s.violations).toHaveLength(1);
  });

  it('a non-superuser 400 "用户权限不足" becomes a permission-denied error', async () => {
    const s = await sim();
    const e = await client(s, { username: 'viewer', password: 'viewer-pass' })
      .call('plugin.installed')
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(V3PermissionDeniedError);
    expect((e as V3PermissionDeniedError).code).toBe('HOST_PERMISSION_DENIED');
  });

  it('password login: JWT from /api/v1/login/access-token, refreshed once on 401, superuser from the token', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const s = await sim({ clock });
    const c = client(s, { username: 'admin', password: 'admin-pass' });
    expect(await c.identity()).toEqual({ superuser: true, username: 'admin' });
    s.expireTokens();
    const r = await c.call('download.tasks.active');
    expect(r.success).toBe(true);
    expect(s.requestsFor('login.access_token')).toHaveLength(2);
  });

  it('a wrong password is a typed auth error that never contains the password', async () => {
    const s = await sim();
    const e = await client(s, { username: 'admin', password: 'wrong-secret' })
      .call('download.tasks.active')
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(V3AuthError);
    expect(JSON.stringify(e) + (e as Error).message).not.toContain('wrong-secret');
  });

  it('reads are retried after a 5xx; writes are never retried', async () => {
    const s = await sim();
    s.faults.fail5xx.push('download.tasks.active');
    expect((await client(s).call('download.tasks.active')).success).toBe(true);
    expect(s.requestsFor('download.tasks.active')).toHaveLength(2);
    s.faults.fail5xx.push('subscription.add');
    await expect(
      client(s).call('subscription.add', { body: { name: 'Dune', media_source: 'themoviedb', media_id: '438631' } }),
    ).rejects.toMatchObject({ status: 500 });
    expect(s.requestsFor('subscription.add')).toHaveLength(1);
  });

  it('a write whose connection drops after it was sent is OutcomeUnknownError, sent once', async () => {
    const s = await sim();
    s.faults.dropAfterAccept.push('download.add');
    const e = await client(s)
      .call('download.add', {
        body: {
          torrent_in: {
            title: 'Dune.Part.Two.2024.1080p.BluRay.H264-MP',
            enclosure: 'https://pt.example/download/1002',
            size: 1,
          },
          media_source: 'themoviedb',
          media_id: '693134',
        },
      })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect(s.requestsFor('download.add')).toHaveLength(1);
    expect(s.downloads()).toHaveLength(1);
  });

  it('search operations get a 300 s timeout, others 30 s', () => {
    const c = new V3Client({ url: 'http://127.0.0.1:9', auth: { apiKey: 'x' } });
    cleanup.push(() => c.close());
    expect(c.timeoutOf('search.torrents')).toBe(300_000);
    expect(c.timeoutOf('download.add')).toBe(30_000);
  });
});
