import { describe, expect, it } from 'vitest';
import { REDACTED, summarizeInput } from '../../src/capabilities/input-summary';
import { STORAGE_KINDS, approvePlan, makeHost, makePlan } from '../helpers';

describe('redacted input summary (seed 004, 审计)', () => {
  it('redacts fields named in the capability’s redact list, including nested paths and * wildcards', () => {
    const summary = JSON.parse(
      summarizeInput({ a: { b: 'secret-b', c: 'ok' }, list: [{ x: 'hide-1' }, { x: 'hide-2' }] }, ['a.b', 'list.*.x']),
    );
    expect(summary).toEqual({ a: { b: REDACTED, c: 'ok' }, list: [{ x: REDACTED }, { x: REDACTED }] });
  });

  it('always redacts names like token, password, apikey, cookie, secret and authorization at any depth', () => {
    const input = {
      apiKey: 'k1',
      api_key: 'k2',
      'x-api-key': 'k3',
      accessToken: 't',
      password: 'p',
      Cookie: 'c',
      clientSecret: 's',
      Authorization: 'Bearer z',
      nested: [{ refresh_token: 'r' }],
      safe: 'visible',
    };
    const text = summarizeInput(input);
    for (const secret of ['k1', 'k2', 'k3', '"t"', '"p"', '"c"', '"s"', 'Bearer z', '"r"'])
      expect(text).not.toContain(secret);
    expect(JSON.parse(text).safe).toBe('visible');
  });

  it('redacts private-tracker keys, auth fields, credentials inside URLs and query strings, and name/value pairs', () => {
    const text = summarizeInput({
      passkey: 'pk1',
      rsskey: 'rk1',
      auth: 'a1',
      jwt: 'j1',
      pwd: 'w1',
      url: 'https://alice:S3cr3t@tracker.example/announce?passkey=PK2&x=1',
      rss: 'https://site.example/rss?sign=SG3&uid=5',
      header: 'Bearer eyJabc.def',
      pair: { key: 'password', value: 'PV4' },
      named: { name: 'api_token', value: 'PV5' },
      list: ['password', 'PV6', 'visible'],
    });
    for (const secret of ['pk1', 'rk1', '"a1"', 'j1', 'w1', 'S3cr3t', 'PK2', 'SG3', 'eyJabc', 'PV4', 'PV5', 'PV6'])
      expect(text).not.toContain(secret);
    expect(text).toContain('visible');
    expect(text).toContain('uid=5');
  });

  it('summarizes an array carrying an own constructor property (host code can build one) without throwing', () => {
    const sites = ['site-a'];
    Object.defineProperty(sites, 'constructor', { value: null, enumerable: true });
    expect(JSON.parse(summarizeInput({ preferredSites: sites }))).toEqual({ preferredSites: ['site-a'] });
  });

  it('keeps a __proto__ key as data in the summary', () => {
    expect(JSON.parse(summarizeInput(JSON.parse('{"__proto__":{"polluted":true},"x":2}')))).toEqual(
      JSON.parse('{"__proto__":{"polluted":true},"x":2}'),
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('cuts long strings, long arrays and the whole summary', () => {
    const summary = JSON.parse(summarizeInput({ s: 'x'.repeat(1000), arr: Array.from({ length: 50 }, (_, i) => i) }));
    expect(summary.s).toMatch(/^x{256}…\(\+744 chars\)$/);
    expect(summary.arr).toHaveLength(21);
    expect(
      summarizeInput({
        many: Array.from({ length: 20 }, () => 'y'.repeat(256)),
        more: Array.from({ length: 20 }, () => 'z'.repeat(256)),
      }).length,
    ).toBeLessThanOrEqual(4096);
  });
});

describe.each(STORAGE_KINDS)('audit rows of the invocation path on %s storage', (kind) => {
  it('every invocation writes capability.invoke with outcome, grant id, idempotency key and a redacted input summary', async () => {
    const { host } = await makeHost({ kind });
    const plan = await makePlan(host);
    const grant = await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const result = await host.invoke(
      'download.submit',
      { planId: plan.id, password: 'hunter2', note: 'call me at 555' },
      { actor: 'agent:run-1', runId: 'run-1', callId: 'c1' },
    );
    const rows = await host.audit({ invocationId: result.invocationId });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      action: 'capability.invoke',
      outcome: 'succeeded',
      actor: 'agent:run-1',
      capabilityId: 'download.submit',
      runId: 'run-1',
      grantId: grant.id,
      approvalId: null,
      idempotencyKey: result.idempotencyKey,
    });
    expect(rows[0]!.inputSummary).not.toMatch(/hunter2|555/);
    expect(JSON.parse(rows[0]!.inputSummary)).toEqual({ planId: plan.id, password: REDACTED, note: REDACTED });
  });

  it('a denial writes capability.denied with the reason', async () => {
    const { host } = await makeHost({ kind });
    const plan = await makePlan(host);
    const result = await host.invoke('download.submit', { planId: plan.id }, { actor: 'apikey:k1' });
    const [row] = await host.audit({ invocationId: result.invocationId });
    expect(row).toMatchObject({
      action: 'capability.denied',
      outcome: 'denied',
      actor: 'apikey:k1',
      idempotencyKey: result.idempotencyKey,
    });
    expect(row!.reason).toMatch(/^AUTH_NO_AUTHORIZATION: /);
  });

  it('an approval-authorized call records the approval id; reads, failures, unknowns and replays are audited too', async () => {
    const { host, faults } = await makeHost({ kind });
    const plan = await makePlan(host);
    const approval = await approvePlan(host, plan.id);
    const ok = await host.invoke(
      'download.submit',
      { planId: plan.id },
      { actor: 'agent:run-1', runId: 'run-1', approvalId: approval.id },
    );
    const replay = await host.invoke(
      'download.submit',
      { planId: plan.id },
      { actor: 'agent:run-1', runId: 'run-1', approvalId: approval.id },
    );
    const read = await host.invoke('inventory.query', { query: 'x' }, { actor: 'agent:run-1' });
    faults.submitFail = true;
    const failed = await host.invoke('download.submit', { planId: plan.id }, { actor: 'user:admin' });
    const rows = await host.audit();
    const byInvocation = (id: string) =>
      rows.filter((r) => r.invocationId === id).map((r) => [r.action, r.outcome, r.approvalId]);
    expect(byInvocation(ok.invocationId)).toEqual([['capability.invoke', 'succeeded', approval.id]]);
    expect(byInvocation(replay.invocationId)).toEqual([['capability.invoke', 'succeeded', approval.id]]);
    expect(byInvocation(read.invocationId)).toEqual([['capability.invoke', 'succeeded', null]]);
    expect(byInvocation(failed.invocationId)).toEqual([['capability.invoke', 'failed', null]]);
    expect(rows.map((r) => r.seq)).toEqual([...rows.map((r) => r.seq)].sort((a, b) => a - b));
  });

  it("a read's audit row is batched, not waited for, yet listed as soon as the read returns, in invocation order with the rows of executions", async () => {
    const { host } = await makeHost({ kind });
    const plan = await makePlan(host);
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const ctx = { actor: 'agent:run-1' as const, runId: 'run-1' };
    const order = [
      await host.invoke('inventory.query', { query: 'a' }, ctx),
      await host.invoke('inventory.query', { query: 'b' }, ctx),
      await host.invoke('download.submit', { planId: plan.id }, ctx),
      await host.invoke('inventory.query', { query: 'c' }, ctx),
    ];
    const rows = await host.audit();
    expect(rows.map((r) => r.invocationId)).toEqual(order.map((r) => r.invocationId));
    expect(rows.map((r) => [r.capabilityId, r.outcome])).toEqual([
      ['inventory.query', 'succeeded'],
      ['inventory.query', 'succeeded'],
      ['download.submit', 'succeeded'],
      ['inventory.query', 'succeeded'],
    ]);
    expect(JSON.parse(rows[3]!.inputSummary)).toEqual({ query: 'c' });
  });

  it('a refused invocation (invalid, oversized or non-JSON input, unknown capability, bad context) runs nothing and no ledger entry, and is audited as capability.refused with the reason and a redacted summary', async () => {
    const { host, storage, jobs } = await makeHost({ kind, maxInputBytes: 2048 });
    await expect(
      host.invoke('download.submit', { planId: 7, password: 'hunter2' }, { actor: 'apikey:k1', runId: 'run-9' }),
    ).rejects.toMatchObject({ code: 'INPUT_INVALID' });
    await expect(
      host.invoke('download.submit', { planId: 'x'.repeat(5000) }, { actor: 'apikey:k1' }),
    ).rejects.toMatchObject({ code: 'INPUT_TOO_LARGE' });
    await expect(host.invoke('no.such', { a: 1 }, { actor: 'apikey:k1' })).rejects.toMatchObject({
      code: 'CAPABILITY_NOT_FOUND',
    });
    await expect(
      host.invoke('download.submit', { planId: 'p' }, { actor: 'apikey:k1', runId: '' }),
    ).rejects.toMatchObject({ code: 'CONTEXT_INVALID' });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(host.invoke('download.submit', cyclic, { actor: 'apikey:k1' })).rejects.toMatchObject({
      code: 'INPUT_INVALID',
    });
    expect(jobs).toHaveLength(0);
    expect(await storage.ledger.listByState(['running', 'succeeded', 'failed', 'pending', 'unknown'])).toEqual([]);
    const rows = await host.audit({ action: 'capability.refused' });
    expect(rows.map((r) => [r.capabilityId, r.reason?.split(':')[0]])).toEqual([
      ['download.submit', 'INPUT_INVALID'],
      ['download.submit', 'INPUT_TOO_LARGE'],
      ['no.such', 'CAPABILITY_NOT_FOUND'],
      ['download.submit', 'CONTEXT_INVALID'],
      ['download.submit', 'INPUT_INVALID'],
    ]);
    expect(rows.every((r) => r.actor === 'apikey:k1' && r.outcome === 'refused')).toBe(true);
    expect(rows[0]!.runId).toBe('run-9');
    expect(JSON.parse(rows[0]!.inputSummary)).toEqual({ planId: 7, password: REDACTED });
    expect(JSON.parse(rows[1]!.inputSummary)).toEqual({ omitted: true, bytes: expect.any(Number) });
    expect(rows[1]!.inputSummary.length).toBeLessThan(100);
  });
});
