// Trial of the approvals HTTP surface (docs/http.md): dry-run route, PATCH approvals with steps and edits, POST
// /api/undo, with malformed bodies; real port, undici, SQLite file, only user:admin an administrator.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentRouter, toNodeListener } from '../../src/http';
import { DUNE_2, REMUX, SHOGUN, admin, downloadPlan, makeTrialHost, snapshot } from './approvals-trial-helpers';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serve() {
  const t = await makeTrialHost();
  const router = createAgentRouter(t.host, {
    authenticate: (req) => req.headers.get('authorization')?.replace(/^Bearer /, '') || undefined,
    consoleDir: false,
  });
  const server: Server = createServer(toNodeListener(router));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await t.cleanup();
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async (method: 'POST' | 'PATCH' | 'GET', path: string, as: string, body?: string) => {
    const res = await request(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body } : {}),
    });
    const text = await res.body.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.statusCode, body: json };
  };
  return { t, call };
}

describe('trial: approvals over HTTP', () => {
  it('the dry-run route: never runs, malformed bodies are 4xx with a code, a truthy non-boolean dryRun never executes', async () => {
    const { t, call } = await serve();
    const p = await downloadPlan(t, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    const before = snapshot(t.world);
    const ledger = t.count('ledger');
    const path = '/api/capabilities/download.submit/invoke';
    const ok = await call('POST', path, 'user:bob', JSON.stringify({ input: { planId: p.id }, dryRun: true }));
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'dry_run', verdict: { allowed: false, approvalRequired: true } });
    const bodies: Record<string, string> = {
      notJson: '{',
      array: '[]',
      nullBody: 'null',
      noDryRun: JSON.stringify({ input: { planId: p.id } }),
      dryRunFalse: JSON.stringify({ input: { planId: p.id }, dryRun: false }),
      dryRunString: JSON.stringify({ input: { planId: p.id }, dryRun: 'true' }),
      dryRunOne: JSON.stringify({ input: { planId: p.id }, dryRun: 1 }),
      extra: JSON.stringify({ input: { planId: p.id }, dryRun: true, actor: 'user:admin' }),
      badInput: JSON.stringify({ input: { planId: 5 }, dryRun: true }),
      approvalIdNumber: JSON.stringify({ input: { planId: p.id }, dryRun: true, approvalId: 5 }),
      protoKey: `{"input":{"planId":"${p.id}"},"dryRun":true,"__proto__":{"dryRun":false}}`,
    };
    const statuses: Record<string, string> = {};
    for (const [name, body] of Object.entries(bodies)) {
      const r = await call('POST', path, 'user:admin', body);
      statuses[name] = `${r.status} ${r.body?.code ?? r.body?.status}`;
    }
    for (const [name, s] of Object.entries(statuses)) expect(s, name).toMatch(/^4\d\d [A-Z_]+$/);
    const unknown = await call(
      'POST',
      '/api/capabilities/nope.nope/invoke',
      'user:admin',
      JSON.stringify({ input: {}, dryRun: true }),
    );
    expect(unknown.status).toBe(404);
    expect(snapshot(t.world)).toBe(before);
    expect(t.count('ledger')).toBe(ledger);
  });

  it('PATCH /api/approvals/:id with malformed steps and edits: 4xx with a code, nothing decided', async () => {
    const { t, call } = await serve();
    const p = await downloadPlan(t, { ...SHOGUN, kind: 'tv', releaseId: 'rel-126308-1' });
    const a = await t.host.approvals.request({
      planType: 'download',
      planId: p.id,
      actor: 'user:bob',
      capabilityId: 'download.submit',
    });
    const proposed = a.proposedPayload as Record<string, unknown>;
    let deep = '"x"';
    for (let i = 0; i < 15_000; i++) deep = `[${deep}]`;
    const bodies: Record<string, string> = {
      stepsString: JSON.stringify({ status: 'approved', payloadHash: a.payloadHash, steps: 'S01E01' }),
      stepsNumbers: JSON.stringify({ status: 'approved', payloadHash: a.payloadHash, steps: [1, 2] }),
      stepsEmpty: JSON.stringify({ status: 'approved', payloadHash: a.payloadHash, steps: [] }),
      stepsUnknown: JSON.stringify({ status: 'approved', payloadHash: a.payloadHash, steps: ['S09E09'] }),
      stepsNull: JSON.stringify({ status: 'approved', payloadHash: a.payloadHash, steps: null }),
      editsString: JSON.stringify({ status: 'approved', payloadHash: a.payloadHash, edits: 'x' }),
      editsNoPayload: JSON.stringify({ status: 'approved', payloadHash: a.payloadHash, edits: {} }),
      editsExtra: JSON.stringify({
        status: 'approved',
        payloadHash: a.payloadHash,
        edits: { payload: proposed, x: 1 },
      }),
      editsWrongCap: JSON.stringify({
        status: 'approved',
        payloadHash: a.payloadHash,
        edits: { payload: proposed, capabilityId: 'organize.execute' },
      }),
      editsNullPayload: JSON.stringify({ status: 'approved', payloadHash: a.payloadHash, edits: { payload: null } }),
      editsDeep: `{"status":"approved","payloadHash":"${a.payloadHash}","edits":{"payload":{"type":"download","nested":${deep}}}}`,
      rejectWithEdits: JSON.stringify({ status: 'rejected', payloadHash: a.payloadHash, edits: { payload: proposed } }),
      noHash: JSON.stringify({ status: 'approved', steps: ['S01E01'] }),
      statusOther: JSON.stringify({ status: 'consumed', payloadHash: a.payloadHash }),
    };
    const statuses: Record<string, string> = {};
    for (const [name, body] of Object.entries(bodies)) {
      const r = await call('PATCH', `/api/approvals/${a.id}`, 'user:admin', body);
      statuses[name] = `${r.status} ${r.body?.code}`;
    }
    expect(Object.entries(statuses).filter(([, s]) => !/^4\d\d [A-Z_]+$/.test(s))).toEqual([]);
    expect((await t.host.approvals.get(a.id)).status).toBe('requested');
    // An API key and an ordinary user may not decide, also with steps.
    for (const who of ['apikey:kitchen', 'user:bob']) {
      const r = await call(
        'PATCH',
        `/api/approvals/${a.id}`,
        who,
        JSON.stringify({ status: 'approved', payloadHash: a.payloadHash, steps: ['S01E01'] }),
      );
      // 404 when the approval is not theirs to see (as for a run of another person), else 403 ADMIN_FORBIDDEN.
      expect([403, 404], who).toContain(r.status);
    }
    expect((await t.host.approvals.get(a.id)).status).toBe('requested');
    const partial = await call(
      'PATCH',
      `/api/approvals/${a.id}`,
      'user:admin',
      JSON.stringify({ status: 'approved', payloadHash: a.payloadHash, steps: ['S01E01', 'S01E02'] }),
    );
    expect(partial.status).toBe(200);
    expect((await t.host.approvals.get(a.id)).approvedSteps).toEqual(['S01E01', 'S01E02']);
  });

  it("POST /api/undo with malformed bodies is 400 HTTP_BODY_INVALID; another user's effect is 403; a dry run's id undoes nothing", async () => {
    const { t, call } = await serve();
    const p = await downloadPlan(t, { ...DUNE_2, kind: 'movie', releaseId: REMUX });
    const r = await t.host.invoke('download.submit', { planId: p.id }, admin);
    expect(r.status).toBe('pending');
    const bodies: Record<string, string> = {
      empty: '{}',
      both: JSON.stringify({ invocationId: r.invocationId, runId: 'run-x' }),
      number: JSON.stringify({ invocationId: 5 }),
      emptyString: JSON.stringify({ invocationId: '' }),
      long: JSON.stringify({ invocationId: 'x'.repeat(201) }),
      extra: JSON.stringify({ invocationId: r.invocationId, actor: 'user:admin' }),
      array: JSON.stringify([r.invocationId]),
      notJson: 'invocationId=1',
    };
    for (const [name, body] of Object.entries(bodies)) {
      const res = await call('POST', '/api/undo', 'user:admin', body);
      expect(`${res.status} ${res.body?.code}`, name).toBe('400 HTTP_BODY_INVALID');
    }
    const forbidden = await call('POST', '/api/undo', 'user:bob', JSON.stringify({ invocationId: r.invocationId }));
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 'UNDO_FORBIDDEN']);
    const nf = await call('POST', '/api/undo', 'user:bob', JSON.stringify({ invocationId: 'inv_nope' }));
    expect([nf.status, nf.body.code]).toEqual([404, 'UNDO_NOT_FOUND']);
    expect(t.world.quarantine()).toEqual([]);
  });
});
