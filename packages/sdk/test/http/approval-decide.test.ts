// The approvals routes with impact, steps and edits, and dry runs over HTTP: the router on a real port (undici), a host
// with a capability that declares its impact and the plan payloads it executes. A refused decision answers its stable
// code and decides nothing; a dry run answers the impact and the verdict and writes nothing to the ledger.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Type from 'typebox';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentHost,
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  describeImpact,
  type Impact,
  type ImpactReport,
} from '../../src/index';
import { createAgentRouter, toNodeListener } from '../../src/http';
import { canonicalHash } from '../../src/storage';

const TOKENS: Record<string, string> = { 'admin-token': 'user:admin', 'key-token': 'apikey:ci' };
type Json = Record<string, any>;

type Payload = { path: string; steps: { id: string; label: string; bytes: number }[] };
const payload: Payload = {
  path: '/media/movies',
  steps: [
    { id: 'dune', label: 'Dune: Part Two (2024) 2160p', bytes: 41_700_000_000 },
    { id: 'arrival', label: 'Arrival (2016) 1080p', bytes: 16_500_000_000 },
  ],
};
const impactOf = (p: Payload): Impact => ({
  downloadBytes: p.steps.reduce((sum, s) => sum + s.bytes, 0),
  path: p.path,
  freeBytesAfter: 470.2e9 - p.steps.reduce((sum, s) => sum + s.bytes, 0),
  reversible: true,
});
const known = (impact: Impact): ImpactReport => ({ status: 'known', impact, summary: describeImpact(impact) });

/** Calls of the handler (a dry run never makes one). */
let handled = 0;
const downloadBatch = defineCapability({
  id: 'download.batch',
  version: 1,
  title: 'Download a batch of releases',
  description: 'Downloads the releases of an approved download plan.',
  kind: 'execute',
  replay: 'never',
  input: Type.Object({ planId: Type.String(), steps: Type.Optional(Type.Array(Type.String())) }),
  output: Type.Object({ started: Type.Array(Type.String()) }),
  target: (input) => ({ planType: 'download', planId: input.planId, ...(input.steps ? { steps: input.steps } : {}) }),
  planPayload: Type.Object(
    {
      path: Type.String(),
      steps: Type.Array(
        Type.Object(
          { id: Type.String(), label: Type.String(), bytes: Type.Integer({ minimum: 0 }) },
          { additionalProperties: false },
        ),
        { minItems: 1 },
      ),
    },
    { additionalProperties: false },
  ),
  impact: (_input, ctx) => impactOf(ctx.plan?.payload as Payload),
  handler: async (input) => {
    handled++;
    return { started: input.steps ?? [] };
  },
});
const wipe = defineCapability({
  id: 'library.wipe',
  version: 1,
  title: 'Wipe the library',
  description: 'Administrators only.',
  kind: 'execute',
  replay: 'never',
  adminOnly: true,
  input: Type.Object({}),
  output: Type.Object({}),
  handler: async () => ({}),
});

describe('approvals with impact, steps and edits, and dry runs, over HTTP', () => {
  let host: AgentHost;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    host = createAgentHost({ logger: new ConsoleLogger('silent') });
    host.capabilities.register(downloadBatch);
    host.capabilities.register(wipe);
    await host.start({ workers: false });
    const router = createAgentRouter(host, {
      authenticate: (req) => TOKENS[req.headers.get('authorization')?.replace(/^Bearer /, '') ?? ''],
      consoleDir: false,
    });
    server = createServer(toNodeListener(router));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await host.stop();
  });

  async function call(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown, token = 'admin-token') {
    const res = await request(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.body.text();
    return {
      status: res.statusCode,
      type: String(res.headers['content-type']),
      body: (text ? JSON.parse(text) : {}) as Json,
    };
  }
  const expectProblem = (r: { status: number; type: string; body: Json }, status: number, code: string) => {
    expect(r.type).toContain('application/problem+json');
    expect(r.body).toMatchObject({ status, code, type: `urn:media-agent:error:${code}` });
  };
  /** A plan and its approval, asked for by `actor` (default an agent) for `capabilityId` (default download.batch). */
  const ask = async (options: { capabilityId?: string | null; actor?: string } = {}) => {
    const actor = options.actor ?? 'agent:run_http';
    const plan = await host.plans.create({ type: 'download', payload, actor });
    const capabilityId = options.capabilityId === undefined ? 'download.batch' : options.capabilityId;
    const approval = await host.approvals.request({
      planType: 'download',
      planId: plan.id,
      actor,
      impact: known(impactOf(payload)),
      ...(capabilityId !== null ? { capabilityId } : {}),
    });
    return { plan, approval };
  };

  it('lists and shows an approval with its impact, steps and proposed payload', async () => {
    const { plan, approval } = await ask();
    const shown = await call('GET', `/api/approvals/${approval.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.approval).toMatchObject({
      capabilityId: 'download.batch',
      impact: { status: 'known', summary: 'downloads 58.2 GB to /media/movies; 412 GB free after; can be undone' },
      steps: [
        { id: 'dune', label: 'Dune: Part Two (2024) 2160p', hash: canonicalHash(payload.steps[0]!) },
        { id: 'arrival', label: 'Arrival (2016) 1080p', hash: canonicalHash(payload.steps[1]!) },
      ],
      approvedSteps: null,
      proposedPayload: payload,
      proposedPayloadHash: plan.payloadHash,
      approvedPayload: null,
      executedPayloadHash: null,
    });
    const listed = await call('GET', '/api/approvals?status=requested');
    expect(listed.body.approvals.find((a: Json) => a.id === approval.id)).toEqual(shown.body.approval);
  });

  it('approves some steps; an unknown step or a malformed list is refused and decides nothing', async () => {
    const { plan, approval } = await ask();
    const path = `/api/approvals/${approval.id}`;
    const unknown = await call('PATCH', path, {
      status: 'approved',
      payloadHash: plan.payloadHash,
      steps: ['dune', 'heat'],
    });
    expectProblem(unknown, 422, 'APPROVAL_STEP_UNKNOWN');
    expectProblem(
      await call('PATCH', path, { status: 'approved', payloadHash: plan.payloadHash, steps: [] }),
      400,
      'HTTP_BODY_INVALID',
    );
    expectProblem(
      await call('PATCH', path, { status: 'approved', payloadHash: plan.payloadHash, steps: 'dune' }),
      400,
      'HTTP_BODY_INVALID',
    );
    expect((await host.approvals.get(approval.id)).status).toBe('requested');
    const decided = await call('PATCH', path, { status: 'approved', payloadHash: plan.payloadHash, steps: ['dune'] });
    expect(decided.status).toBe(200);
    expect(decided.body.approval).toMatchObject({ status: 'approved', approvedSteps: ['dune'], approvedPayload: null });
  });

  it('refuses edits for another capability, edits of an approval asked without one, and edits by a non-admin', async () => {
    // Asked for by the API key, so it sees the approval (and may not decide it).
    const { plan, approval } = await ask({ actor: 'apikey:ci' });
    const edit = { payload: { ...payload, steps: [payload.steps[1]] } };
    const path = `/api/approvals/${approval.id}`;
    expectProblem(
      await call('PATCH', path, {
        status: 'approved',
        payloadHash: plan.payloadHash,
        edits: { ...edit, capabilityId: 'library.wipe' },
      }),
      409,
      'APPROVAL_EDIT_WRONG_CAPABILITY',
    );
    expectProblem(
      await call('PATCH', path, { status: 'approved', payloadHash: plan.payloadHash, edits: edit }, 'key-token'),
      403,
      'ADMIN_FORBIDDEN',
    );
    expectProblem(
      await call('PATCH', path, { status: 'approved', payloadHash: plan.payloadHash, edits: { ...edit, extra: 1 } }),
      400,
      'HTTP_BODY_INVALID',
    );
    const bare = await ask({ capabilityId: null });
    expectProblem(
      await call('PATCH', `/api/approvals/${bare.approval.id}`, {
        status: 'approved',
        payloadHash: bare.plan.payloadHash,
        edits: edit,
      }),
      409,
      'APPROVAL_EDIT_UNSUPPORTED',
    );
    expect((await host.approvals.get(approval.id)).status).toBe('requested');
    expect((await host.plans.get(plan.id)).revision).toBe(plan.revision);
  });

  it('approves an edit: re-validated (an invalid one is refused), a new revision, the proposed payload kept apart', async () => {
    const { plan, approval } = await ask();
    const path = `/api/approvals/${approval.id}`;
    const invalid = await call('PATCH', path, {
      status: 'approved',
      payloadHash: plan.payloadHash,
      edits: { payload: { path: '/media/movies', steps: [{ id: 'dune' }] } },
    });
    expectProblem(invalid, 422, 'APPROVAL_EDIT_INVALID');
    expect((await host.plans.get(plan.id)).revision).toBe(plan.revision);
    const edited = { ...payload, steps: [payload.steps[1]!] };
    const decided = await call('PATCH', path, {
      status: 'approved',
      payloadHash: plan.payloadHash,
      edits: { payload: edited, capabilityId: 'download.batch' },
    });
    expect(decided.status).toBe(200);
    expect(decided.body.approval).toMatchObject({
      status: 'approved',
      approvedPayload: edited,
      payloadHash: canonicalHash(edited),
      proposedPayload: payload,
      proposedPayloadHash: plan.payloadHash,
      revision: plan.revision + 1,
      steps: [{ id: 'arrival' }],
    });
    const shown = await call('GET', path);
    expect(shown.body.plan).toMatchObject({ payload: edited, revision: plan.revision + 1 });
  });

  it('runs a dry run as the caller: the impact and the verdict, the handler never called', async () => {
    const { plan, approval } = await ask();
    const dry = await call(
      'POST',
      '/api/capabilities/download.batch/invoke',
      { input: { planId: plan.id }, dryRun: true },
      'key-token',
    );
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({
      status: 'dry_run',
      impact: { status: 'known', impact: { downloadBytes: 58_200_000_000, freeBytesAfter: 412e9 } },
      verdict: { allowed: false, approvalRequired: true },
    });
    expect(typeof dry.body.invocationId).toBe('string');
    expect(handled).toBe(0);
    // With its approval approved: allowed on it, and the approval is not consumed.
    await host.approvals.decide(approval.id, {
      status: 'approved',
      actor: 'user:admin',
      payloadHash: plan.payloadHash,
    });
    const approved = await call(
      'POST',
      '/api/capabilities/download.batch/invoke',
      { input: { planId: plan.id }, dryRun: true, approvalId: approval.id },
      'key-token',
    );
    expect(approved.body).toMatchObject({ status: 'dry_run', verdict: { allowed: true, basis: 'approval' } });
    expect(handled).toBe(0);
    expect((await host.approvals.get(approval.id)).status).toBe('approved');
    expectProblem(
      await call('POST', '/api/capabilities/download.batch/invoke', { input: { planId: 7 }, dryRun: true }),
      422,
      'INPUT_INVALID',
    );
    expectProblem(
      await call('POST', '/api/capabilities/download.batch/invoke', { input: { planId: plan.id } }),
      400,
      'HTTP_BODY_INVALID',
    );
    expectProblem(
      await call('POST', '/api/capabilities/download.batch/invoke', { input: { planId: plan.id }, dryRun: false }),
      400,
      'HTTP_BODY_INVALID',
    );
    expectProblem(
      await call('POST', '/api/capabilities/nope/invoke', { input: {}, dryRun: true }),
      404,
      'CAPABILITY_NOT_FOUND',
    );
    // An admin-only capability is not shown to others: 404, as if it did not exist.
    expectProblem(
      await call('POST', '/api/capabilities/library.wipe/invoke', { input: {}, dryRun: true }, 'key-token'),
      404,
      'CAPABILITY_NOT_FOUND',
    );
    const admin = await call('POST', '/api/capabilities/library.wipe/invoke', { input: {}, dryRun: true });
    expect(admin.body).toMatchObject({ status: 'dry_run', verdict: { allowed: true } });
  });
});
