import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineCapability, OutcomeUnknownError } from '../../src/index';
import { nextClaimAction } from '../../src/ledger/claim-rules';
import { VerifierNotReadOnlyError } from '../../src/capabilities/errors';
import { approvePlan, makeHost, makePlan } from '../helpers';
import { STORAGE_KINDS } from '../helpers';
import { ledgerEntry } from '../storage/ledger-entry';

const run = { actor: 'user:admin' as const, runId: 'run-1' };

describe('claim rule (DESIGN.md §6)', () => {
  it('maps each existing state and replay policy to one action', () => {
    expect(nextClaimAction(undefined, 'never')).toBe('insert');
    expect(nextClaimAction('succeeded', 'reconcile')).toBe('return-recorded');
    expect(nextClaimAction('pending', 'never')).toBe('return-recorded');
    expect(nextClaimAction('failed', 'never')).toBe('reclaim');
    expect(nextClaimAction('running', 'reconcile')).toBe('in-progress');
    expect(nextClaimAction('unknown', 'reconcile')).toBe('reclaim');
    expect(nextClaimAction('unknown', 'safe')).toBe('reclaim');
    expect(nextClaimAction('unknown', 'never')).toBe('verify');
  });
});

describe.each(STORAGE_KINDS)(
  'InvocationLedger (DESIGN.md §6; seed 004 幂等键与操作账本; seed 000 写工具的持久执行记录) on %s storage',
  (kind) => {
    it('claims before the side effect and settles succeeded with the recorded output', async () => {
      const { host, storage, jobs } = await makeHost({ kind });
      const plan = await makePlan(host);
      const result = await host.invoke('download.submit', { planId: plan.id }, run);
      expect(result.idempotencyKey).toMatch(/^download\.submit:v1:run-1:[0-9a-f]{64}$/);
      expect(jobs[0]?.key).toBe(result.idempotencyKey);
      const entry = await storage.ledger.get(result.idempotencyKey!);
      expect(entry).toMatchObject({
        state: 'succeeded',
        output: { jobId: 'job-1' },
        attempts: 1,
        actor: 'user:admin',
        runId: 'run-1',
      });
      expect(entry?.settledAt).not.toBeNull();
    });

    it('succeeded returns the recorded result without calling the handler', async () => {
      const { host, calls } = await makeHost({ kind });
      const plan = await makePlan(host);
      const first = await host.invoke('download.submit', { planId: plan.id }, { ...run, callId: 'call-1' });
      const second = await host.invoke('download.submit', { planId: plan.id }, { ...run, callId: 'call-2' });
      expect(calls['download.submit']).toBe(1);
      expect(second).toMatchObject({
        status: 'succeeded',
        output: first.output,
        idempotencyKey: first.idempotencyKey,
        replayed: true,
      });
    });

    it('pending returns the recorded receipt and never submits the same execution identity twice', async () => {
      const { host } = await makeHost({ kind });
      let submitted = 0;
      host.capabilities.register(
        defineCapability({
          id: 'transfer.file',
          version: 1,
          title: 'Transfer',
          description: 'async transfer',
          kind: 'execute',
          replay: 'never',
          input: Type.Object({ path: Type.String() }),
          output: Type.Object({ receipt: Type.Integer() }),
          handler: async (_input, ctx) => ctx.pending({ receipt: ++submitted }),
        }),
      );
      const a = await host.invoke('transfer.file', { path: '/a' }, run);
      const b = await host.invoke('transfer.file', { path: '/a' }, run);
      expect(a.status).toBe('pending');
      expect(b).toMatchObject({ status: 'pending', output: { receipt: 1 }, replayed: true });
      expect(submitted).toBe(1);
    });

    it('a reused call id with other arguments is refused before any effect', async () => {
      const { host, jobs, storage } = await makeHost({ kind });
      const p1 = await makePlan(host);
      const p2 = await makePlan(host);
      await host.invoke('download.submit', { planId: p1.id }, { ...run, callId: 'call-1' });
      await expect(
        host.invoke('download.submit', { planId: p2.id }, { ...run, callId: 'call-1' }),
      ).rejects.toMatchObject({ code: 'LEDGER_CALL_ID_CONFLICT' });
      await expect(host.invoke('organize.execute', { path: '/x' }, { ...run, callId: 'call-1' })).rejects.toMatchObject(
        { code: 'LEDGER_CALL_ID_CONFLICT' },
      );
      expect(jobs).toHaveLength(1);
      expect(await storage.ledger.listByState(['running', 'succeeded', 'failed', 'pending', 'unknown'])).toHaveLength(
        1,
      );
    });

    it('the same call id with the same arguments returns the recorded result', async () => {
      const { host, calls } = await makeHost({ kind });
      const plan = await makePlan(host);
      await host.invoke('download.submit', { planId: plan.id }, { ...run, callId: 'call-1' });
      expect(await host.invoke('download.submit', { planId: plan.id }, { ...run, callId: 'call-1' })).toMatchObject({
        status: 'succeeded',
        replayed: true,
      });
      expect(calls['download.submit']).toBe(1);
    });

    it('canonically equal arguments in one run share one execution identity; another run executes again', async () => {
      const { host, calls } = await makeHost({ kind });
      await host.invoke('organize.execute', { path: '/dl/Dune' }, run);
      await host.invoke('organize.execute', JSON.parse('{ "path" : "/dl/Dune" }'), run);
      expect(calls['organize.execute']).toBe(1);
      await host.invoke('organize.execute', { path: '/dl/Dune' }, { ...run, runId: 'run-2' });
      expect(calls['organize.execute']).toBe(2);
    });

    it('parallel identical calls run the handler once (atomic claim)', async () => {
      const { host } = await makeHost({ kind });
      let entered = 0;
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      host.capabilities.register(
        defineCapability({
          id: 'gate.write',
          version: 1,
          title: 'Gate',
          description: 'waits',
          kind: 'execute',
          replay: 'reconcile',
          input: Type.Object({ n: Type.Integer() }),
          output: Type.Object({ n: Type.Integer() }),
          handler: async (input) => {
            entered++;
            await gate;
            return input;
          },
        }),
      );
      const results = Promise.allSettled([1, 2, 3].map(() => host.invoke('gate.write', { n: 1 }, run)));
      await new Promise((r) => setTimeout(r, 20));
      release();
      const settled = await results;
      expect(entered).toBe(1);
      expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(1);
      expect(
        settled.filter((s) => s.status === 'rejected').map((s) => (s as PromiseRejectedResult).reason.code),
      ).toEqual(['LEDGER_IN_PROGRESS', 'LEDGER_IN_PROGRESS']);
    });

    it('a failed call did not take effect and may be claimed again', async () => {
      const { host, faults, storage } = await makeHost({ kind });
      const plan = await makePlan(host);
      faults.submitFail = true;
      const failed = await host.invoke('download.submit', { planId: plan.id }, run);
      expect((await storage.ledger.get(failed.idempotencyKey!))?.state).toBe('failed');
      faults.submitFail = false;
      const ok = await host.invoke('download.submit', { planId: plan.id }, run);
      expect(ok.status).toBe('succeeded');
      expect((await storage.ledger.get(ok.idempotencyKey!))?.attempts).toBe(2);
    });

    it('unknown with replay policy never is not re-run without a verifier', async () => {
      const { host, faults, jobs } = await makeHost({ kind });
      const plan = await makePlan(host);
      faults.submitUnknown = true;
      expect(await host.invoke('download.submit', { planId: plan.id }, run)).toMatchObject({
        status: 'unknown',
        error: { code: 'OUTCOME_UNKNOWN' },
      });
      faults.submitUnknown = false;
      const again = await host.invoke('download.submit', { planId: plan.id }, run);
      expect(again).toMatchObject({ status: 'unknown', replayed: true, error: { code: 'OUTCOME_UNKNOWN' } });
      expect(again.error?.message).toMatch(/verify/);
      expect(jobs).toHaveLength(1);
    });

    it('unknown with replay policy reconcile re-runs the handler with the same key', async () => {
      const { host, storage } = await makeHost({ kind });
      const keys: Array<string | undefined> = [];
      let fail = true;
      host.capabilities.register(
        defineCapability({
          id: 'idem.write',
          version: 1,
          title: 'Idempotent write',
          description: 'x',
          kind: 'execute',
          replay: 'reconcile',
          input: Type.Object({ v: Type.String() }),
          output: Type.Object({ ok: Type.Boolean() }),
          handler: async (_input, ctx) => {
            keys.push(ctx.idempotencyKey);
            if (fail) throw new OutcomeUnknownError('timeout');
            return { ok: true };
          },
        }),
      );
      const first = await host.invoke('idem.write', { v: 'a' }, run);
      expect(first.status).toBe('unknown');
      fail = false;
      const second = await host.invoke('idem.write', { v: 'a' }, run);
      expect(second).toMatchObject({ status: 'succeeded', output: { ok: true } });
      expect(keys).toEqual([first.idempotencyKey, first.idempotencyKey]);
      expect((await storage.ledger.get(first.idempotencyKey!))?.attempts).toBe(2);
    });

    it('a registered read-only verifier is the only way out of unknown: verified succeeded is recorded without re-running', async () => {
      const { host, faults, jobs, storage } = await makeHost({ kind });
      host.capabilities.register(
        defineCapability({
          id: 'downloader.jobs',
          version: 1,
          title: 'List downloader jobs',
          description: 'read',
          kind: 'read',
          replay: 'safe',
          input: Type.Object({ planId: Type.String() }),
          output: Type.Object({ jobIds: Type.Array(Type.String()) }),
          handler: async (input) => ({
            jobIds: jobs.filter((j) => j.planId === input.planId).map((_, i) => `job-${i + 1}`),
          }),
        }),
      );
      host.capabilities.registerVerifier('download.submit', async ({ input, read }) => {
        const { jobIds } = (await read('downloader.jobs', { planId: (input as { planId: string }).planId })) as {
          jobIds: string[];
        };
        return jobIds.length > 0
          ? { status: 'succeeded', output: { jobId: jobIds[0]! } }
          : { status: 'failed', reason: 'no job for the plan' };
      });
      const plan = await makePlan(host);
      faults.submitUnknown = true;
      const first = await host.invoke('download.submit', { planId: plan.id }, run);
      expect(first.status).toBe('unknown');
      faults.submitUnknown = false;
      const second = await host.invoke('download.submit', { planId: plan.id }, run);
      expect(second).toMatchObject({ status: 'succeeded', output: { jobId: 'job-1' }, replayed: true });
      expect(jobs).toHaveLength(1);
      expect((await storage.ledger.get(first.idempotencyKey!))?.state).toBe('succeeded');
    });

    it('a verifier that finds the effect absent lets the call execute once', async () => {
      const { host, storage } = await makeHost({ kind });
      let sent = 0;
      let applied = 0;
      let dropConnection = true;
      host.capabilities.register(
        defineCapability({
          id: 'config.set',
          version: 1,
          title: 'Set config',
          description: 'x',
          kind: 'execute',
          replay: 'never',
          input: Type.Object({ value: Type.String() }),
          output: Type.Object({ ok: Type.Boolean() }),
          verify: async () =>
            applied > 0 ? { status: 'succeeded', output: { ok: true } } : { status: 'failed', reason: 'value not set' },
          handler: async () => {
            sent++;
            if (dropConnection) throw new OutcomeUnknownError('connection dropped before the request reached the host');
            applied++;
            return { ok: true };
          },
        }),
      );
      const first = await host.invoke('config.set', { value: 'x' }, run);
      expect(first.status).toBe('unknown');
      dropConnection = false;
      const second = await host.invoke('config.set', { value: 'x' }, run);
      expect(second).toMatchObject({ status: 'succeeded' });
      expect([sent, applied]).toEqual([2, 1]);
      expect((await storage.ledger.get(first.idempotencyKey!))?.state).toBe('succeeded');
    });

    it('a verifier that cannot tell leaves the entry unknown', async () => {
      const { host, storage } = await makeHost({ kind });
      host.capabilities.register(
        defineCapability({
          id: 'list.append',
          version: 1,
          title: 'Append',
          description: 'x',
          kind: 'execute',
          replay: 'never',
          input: Type.Object({}),
          output: Type.Object({}),
          verify: async () => ({ status: 'unknown', reason: 'list appends cannot be told apart' }),
          handler: async () => {
            throw new OutcomeUnknownError();
          },
        }),
      );
      const first = await host.invoke('list.append', {}, run);
      const second = await host.invoke('list.append', {}, run);
      expect(second).toMatchObject({ status: 'unknown' });
      expect(second.error?.message).toContain('list appends cannot be told apart');
      expect((await storage.ledger.get(first.idempotencyKey!))?.state).toBe('unknown');
    });

    it('a verifier may only read: invoking a write from it is refused and the entry stays unknown', async () => {
      const { host, faults, storage, calls } = await makeHost({ kind });
      let thrown: unknown;
      host.capabilities.registerVerifier('download.submit', async ({ read }) => {
        try {
          await read('organize.execute', { path: '/x' });
        } catch (e) {
          thrown = e;
          throw e;
        }
        return { status: 'succeeded', output: { jobId: 'forged' } };
      });
      const plan = await makePlan(host);
      faults.submitUnknown = true;
      const first = await host.invoke('download.submit', { planId: plan.id }, run);
      faults.submitUnknown = false;
      expect((await host.invoke('download.submit', { planId: plan.id }, run)).status).toBe('unknown');
      expect(thrown).toBeInstanceOf(VerifierNotReadOnlyError);
      expect(calls['organize.execute']).toBeUndefined();
      expect((await storage.ledger.get(first.idempotencyKey!))?.state).toBe('unknown');
    });

    it('verifiers can only be registered for side-effecting capabilities', async () => {
      const { host } = await makeHost({ kind });
      expect(() =>
        host.capabilities.registerVerifier('inventory.query', async () => ({ status: 'unknown', reason: '' })),
      ).toThrow(expect.objectContaining({ code: 'CAPABILITY_DEFINITION_INVALID' }));
      expect(() => host.capabilities.registerVerifier('nope', async () => ({ status: 'unknown', reason: '' }))).toThrow(
        expect.objectContaining({ code: 'CAPABILITY_NOT_FOUND' }),
      );
    });

    it('cold-start recovery turns running into unknown with a new token, and the old token can no longer settle', async () => {
      const { host, storage } = await makeHost({ kind });
      await storage.transaction(async (s) => {
        await s.ledger.insert(
          ledgerEntry('download.submit:v1:run-1:abc', {
            capabilityId: 'download.submit',
            scopeId: 'run-1',
            argsHash: 'abc',
            token: 'tok_old',
            invocationId: 'inv_x',
            runId: 'run-1',
          }),
        );
      });
      const report = await host.start();
      expect(report.recovered.map((e) => e.key)).toEqual(['download.submit:v1:run-1:abc']);
      const entry = await storage.ledger.get('download.submit:v1:run-1:abc');
      expect(entry?.state).toBe('unknown');
      expect(entry?.token).not.toBe('tok_old');
      await expect(
        storage.transaction((s) => host.ledger.settle(s, entry!.key, 'tok_old', { state: 'succeeded', output: {} })),
      ).rejects.toMatchObject({ code: 'LEDGER_STALE_EXECUTOR' });
      expect((await storage.ledger.get(entry!.key))?.state).toBe('unknown');
    });

    it('a claim another machine made (a shared database) is left to it at start; recovered only once it stayed running past the 10-minute grace', async () => {
      const { host, clock, storage } = await makeHost({ kind });
      const key = 'download.submit:v1:run-2:def';
      await storage.transaction(async (s) => {
        await s.ledger.insert(
          ledgerEntry(key, {
            capabilityId: 'download.submit',
            scopeId: 'run-2',
            argsHash: 'def',
            token: 'another-machine:4242@0f0e-1d2c.98765~tok_there',
            actor: 'agent:run-2',
            invocationId: 'inv_y',
            runId: 'run-2',
            claimedAt: clock.now() - 60_000,
            updatedAt: clock.now() - 60_000,
          }),
        );
      });
      expect((await host.start()).recovered).toEqual([]);
      expect((await storage.ledger.get(key))?.state).toBe('running');
      clock.advance(9 * 60_000);
      expect(await host.ledger.recover()).toHaveLength(1);
      expect((await storage.ledger.get(key))?.state).toBe('unknown');
    });

    it('retention cleanup deletes old settled entries, keeps running and unknown, and 0 means off', async () => {
      const { host, clock, storage } = await makeHost({ kind });
      const plan = await makePlan(host);
      const ok = await host.invoke('download.submit', { planId: plan.id }, run);
      const unknown = await (async () => {
        host.capabilities.register(
          defineCapability({
            id: 'u.write',
            version: 1,
            title: 'U',
            description: 'x',
            kind: 'execute',
            replay: 'never',
            input: Type.Object({}),
            output: Type.Object({}),
            handler: async () => {
              throw new OutcomeUnknownError();
            },
          }),
        );
        return host.invoke('u.write', {}, run);
      })();
      clock.advance(10 * 86_400_000);
      expect(await host.ledger.cleanup(0)).toBe(0);
      expect(await storage.ledger.get(ok.idempotencyKey!)).toBeDefined();
      expect(await host.ledger.cleanup(7 * 86_400_000)).toBe(1);
      expect(await storage.ledger.get(ok.idempotencyKey!)).toBeUndefined();
      expect((await storage.ledger.get(unknown.idempotencyKey!))?.state).toBe('unknown');
    });

    it('stores a redacted input summary, never the raw secret arguments', async () => {
      const { host, storage } = await makeHost({ kind });
      const plan = await makePlan(host);
      const r = await host.invoke(
        'download.submit',
        { planId: plan.id, apiToken: 'sk-live-123', password: 'hunter2', note: 'private note' },
        run,
      );
      const entry = await storage.ledger.get(r.idempotencyKey!);
      expect(entry?.inputSummary).not.toMatch(/sk-live-123|hunter2|private note/);
      expect(JSON.parse(entry!.inputSummary)).toEqual({
        planId: plan.id,
        apiToken: '[REDACTED]',
        password: '[REDACTED]',
        note: '[REDACTED]',
      });
    });
  },
);

describe.each(STORAGE_KINDS)('recorded results are returned only to authorized callers on %s storage', (kind) => {
  it('an unauthorized caller with the same scope and input is denied, not given the recorded result', async () => {
    const { host, calls } = await makeHost({ kind });
    const plan = await makePlan(host);
    expect(
      (await host.invoke('download.submit', { planId: plan.id }, { actor: 'user:admin', taskId: 'nightly-42' })).status,
    ).toBe('succeeded');
    const probe = await host.invoke(
      'download.submit',
      { planId: plan.id },
      { actor: 'apikey:untrusted', taskId: 'nightly-42' },
    );
    expect(probe).toMatchObject({ status: 'denied' });
    expect(probe.output).toBeUndefined();
    expect(calls['download.submit']).toBe(1);
  });

  it('the retry of a call authorized by an approval gets the recorded result with the consumed approval', async () => {
    const { host, calls } = await makeHost({ kind });
    const plan = await makePlan(host);
    const approval = await approvePlan(host, plan.id);
    const ctx = { actor: 'agent:run-1' as const, runId: 'run-1', approvalId: approval.id };
    const first = await host.invoke('download.submit', { planId: plan.id }, ctx);
    const again = await host.invoke('download.submit', { planId: plan.id }, ctx);
    expect(again).toMatchObject({ status: 'succeeded', replayed: true, output: first.output });
    expect(calls['download.submit']).toBe(1);
  });

  it('a refused claim (reused call id) is audited', async () => {
    const { host } = await makeHost({ kind });
    const p1 = await makePlan(host);
    const p2 = await makePlan(host);
    await host.invoke('download.submit', { planId: p1.id }, { actor: 'user:admin', runId: 'r', callId: 'c' });
    await expect(
      host.invoke('download.submit', { planId: p2.id }, { actor: 'user:admin', runId: 'r', callId: 'c' }),
    ).rejects.toMatchObject({ code: 'LEDGER_CALL_ID_CONFLICT' });
    const rows = await host.audit({ limit: 100 });
    expect(rows.at(-1)).toMatchObject({ outcome: 'refused', capabilityId: 'download.submit' });
    expect(rows.at(-1)!.reason).toMatch(/^LEDGER_CALL_ID_CONFLICT/);
  });
});

describe.each(STORAGE_KINDS)('the path never leaves an entry running on %s storage', (kind) => {
  it('a handler throwing a value with no description, or returning output with no JSON form, settles the entry and audits it', async () => {
    const { host, storage } = await makeHost({ kind });
    const throwsOdd = defineCapability({
      id: 'odd.throw',
      version: 1,
      title: 'Odd',
      description: 'x',
      kind: 'execute',
      replay: 'never',
      input: Type.Object({}),
      output: Type.Object({}),
      handler: async () => {
        throw Object.create(null);
      },
    });
    const badOutput = defineCapability({
      id: 'odd.output',
      version: 1,
      title: 'Odd',
      description: 'x',
      kind: 'execute',
      replay: 'never',
      input: Type.Object({}),
      output: Type.Any(),
      handler: async () => ({ n: 10n }) as never,
    });
    host.capabilities.register(throwsOdd);
    host.capabilities.register(badOutput);
    const a = await host.invoke('odd.throw', {}, { actor: 'user:admin', runId: 'r' });
    const b = await host.invoke('odd.output', {}, { actor: 'user:admin', runId: 'r' });
    expect(a.status).toBe('failed');
    expect(b).toMatchObject({ status: 'unknown', error: { code: 'OUTPUT_INVALID' } });
    expect(await storage.ledger.listByState(['running'])).toEqual([]);
    expect((await host.audit({ limit: 100 })).filter((r) => r.capabilityId.startsWith('odd.'))).toHaveLength(2);
  });

  it('context fields of the wrong type, an already aborted signal and a throwing target() are typed errors before any write', async () => {
    const { host, storage, calls } = await makeHost({ kind });
    const plan = await makePlan(host);
    await expect(
      host.invoke('download.submit', { planId: plan.id }, { actor: 'user:admin', approvalId: {} as never }),
    ).rejects.toMatchObject({ code: 'CONTEXT_INVALID' });
    await expect(
      host.invoke('download.submit', { planId: plan.id }, { actor: 'user:admin', callId: 7 as never }),
    ).rejects.toMatchObject({ code: 'CONTEXT_INVALID' });
    await expect(
      host.invoke('download.submit', { planId: plan.id }, { actor: 'user:admin', signal: 'abort' as never }),
    ).rejects.toMatchObject({ code: 'CONTEXT_INVALID' });
    await expect(
      host.invoke('download.submit', { planId: plan.id }, { actor: 'user:admin', signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ code: 'INVOCATION_ABORTED' });
    host.capabilities.register(
      defineCapability({
        id: 'bad.target',
        version: 1,
        title: 'Bad target',
        description: 'x',
        kind: 'execute',
        replay: 'never',
        input: Type.Object({}),
        output: Type.Object({}),
        target: () => {
          throw new Error('boom');
        },
        handler: async () => ({}),
      }),
    );
    await expect(host.invoke('bad.target', {}, { actor: 'user:admin' })).rejects.toMatchObject({
      code: 'CAPABILITY_TARGET_FAILED',
    });
    expect(calls['download.submit']).toBeUndefined();
    expect(await storage.ledger.listByState(['running', 'succeeded', 'failed', 'pending', 'unknown'])).toEqual([]);
    expect((await host.audit()).filter((r) => r.action !== 'capability.refused')).toEqual([]); // refusals are audited; nothing ran
  });
});
