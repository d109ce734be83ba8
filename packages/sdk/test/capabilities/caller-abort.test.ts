// The caller's abort ends an invocation at once, like its deadline (trial 35 finding 1): a handler that ignores its
// signal does not hold the caller (a run aborted, its lease lost, a host stop past its drain time). An effectful
// call is settled `unknown` (the effect may have happened; only a verifier settles it), a read fails
// INVOCATION_ABORTED; what the handler returns later is logged, never recorded.
import Type from 'typebox';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAgentHost, defineCapability, type AgentHost, type Logger } from '../../src/index';
import { makeStorage, STORAGE_KINDS } from '../helpers';

const hosts: AgentHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop({ drainMs: 0 })));
});

/** A logger that keeps its warnings (the late handler's line). */
function keptLogger() {
  const warnings: { message: string; fields: Record<string, unknown> | undefined }[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message, fields) => void warnings.push({ message, fields: fields as Record<string, unknown> }),
    error: () => undefined,
  };
  return { logger, warnings };
}

/** Capabilities whose handlers ignore their signal: each waits for the test's gate, then answers. */
function stubborn() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const entered = { read: 0, write: 0 };
  const applied: string[] = [];
  const read = defineCapability({
    id: 'nas.list',
    version: 1,
    title: 'List the NAS',
    description: 'Lists a folder (a client that takes no signal).',
    kind: 'read',
    replay: 'safe',
    timeoutMs: 600_000, // far away: only the caller's abort can end the call in this test
    input: Type.Object({ path: Type.String() }),
    output: Type.Object({ files: Type.Number() }),
    handler: async () => {
      entered.read++;
      await opened;
      return { files: 3 };
    },
  });
  const write = defineCapability({
    id: 'server.setQuality',
    version: 1,
    title: 'Set the quality',
    description: 'Writes a setting on the media server (a client that takes no signal).',
    kind: 'execute',
    replay: 'never',
    timeoutMs: 600_000,
    input: Type.Object({ value: Type.String() }),
    output: Type.Object({ ok: Type.Boolean() }),
    handler: async (input) => {
      entered.write++;
      await opened;
      applied.push(input.value); // the request reached the server after all
      return { ok: true };
    },
  });
  return { open, entered, applied, capabilities: [read, write] };
}

describe.each(STORAGE_KINDS)("the caller's abort ends an invocation at once (%s storage)", (kind) => {
  it('mastra-ai/mastra#21387: a read whose handler ignores the signal fails INVOCATION_ABORTED as soon as the caller aborts, instead of blocking until the handler returns', async () => {
    const s = stubborn();
    const { logger, warnings } = keptLogger();
    const host = createAgentHost({ storage: makeStorage(kind), logger });
    for (const c of s.capabilities) host.capabilities.register(c);
    await host.start();
    hosts.push(host);
    const controller = new AbortController();
    const pending = host.invoke('nas.list', { path: '/films' }, { actor: 'user:admin', signal: controller.signal });
    await vi.waitFor(() => expect(s.entered.read).toBe(1), { timeout: 30_000, interval: 1 });
    controller.abort();
    // The handler is still waiting on its gate (never opened yet): the result comes from the abort alone.
    const result = await pending;
    expect(result).toMatchObject({ status: 'failed', error: { code: 'INVOCATION_ABORTED' } });
    expect(result.error?.message).toContain('while its handler ran');
    s.open(); // the handler answers late: logged, not recorded
    await vi.waitFor(
      () =>
        expect(warnings.map((w) => w.message)).toContain(
          'capability handler finished after its abort; its result was not recorded',
        ),
      { timeout: 30_000, interval: 1 },
    );
  });

  it('swift-server/swift-service-lifecycle#177: an effectful call whose handler ignores the abort and later succeeds is settled `unknown` at the abort, and stays `unknown` (its late success is not recorded)', async () => {
    const s = stubborn();
    const storage = makeStorage(kind);
    const { logger, warnings } = keptLogger();
    const host = createAgentHost({ storage, logger });
    for (const c of s.capabilities) host.capabilities.register(c);
    await host.start();
    hosts.push(host);
    const controller = new AbortController();
    const pending = host.invoke(
      'server.setQuality',
      { value: '4k' },
      { actor: 'user:admin', runId: 'r1', signal: controller.signal },
    );
    await vi.waitFor(() => expect(s.entered.write).toBe(1), { timeout: 30_000, interval: 1 });
    controller.abort();
    const result = await pending;
    expect(result).toMatchObject({ status: 'unknown', error: { code: 'OUTCOME_UNKNOWN' } });
    expect(result.error?.message).toContain('verify it with a read');
    expect((await storage.ledger.get(result.idempotencyKey!))?.state).toBe('unknown');
    expect(s.applied).toEqual([]); // ended before the handler did anything more

    s.open(); // the effect happens after all (swift#177: the cancelled work returned a success later)
    await vi.waitFor(() => expect(s.applied).toEqual(['4k']), { timeout: 30_000, interval: 1 });
    await vi.waitFor(
      () =>
        expect(warnings.map((w) => w.message)).toContain(
          'capability handler finished after its abort; its result was not recorded',
        ),
      { timeout: 30_000, interval: 1 },
    );
    // Still `unknown`: only a verifier (none here) may settle it; the late success is not taken as the outcome.
    expect((await storage.ledger.get(result.idempotencyKey!))?.state).toBe('unknown');
  });

  it("a verifier that ignores the caller's abort does not hold the repeated call: it ends `unknown` at the abort", async () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    const entered = { handler: 0, verifier: 0 };
    const storage = makeStorage(kind);
    const host = createAgentHost({ storage, logger: keptLogger().logger });
    host.capabilities.register(
      defineCapability({
        id: 'server.rename',
        version: 1,
        title: 'Rename',
        description: 'Renames a folder on the media server.',
        kind: 'execute',
        replay: 'never',
        timeoutMs: 600_000,
        input: Type.Object({ to: Type.String() }),
        output: Type.Object({ ok: Type.Boolean() }),
        // Both ignore their signal: they wait for the gate.
        verify: async () => {
          entered.verifier++;
          await opened;
          return { status: 'succeeded', output: { ok: true } };
        },
        handler: async () => {
          entered.handler++;
          await opened;
          return { ok: true };
        },
      }),
    );
    await host.start();
    hosts.push(host);
    const ctx = { actor: 'user:admin' as const, runId: 'r1' };
    const first = new AbortController();
    const pending1 = host.invoke('server.rename', { to: 'Films' }, { ...ctx, signal: first.signal });
    await vi.waitFor(() => expect(entered.handler).toBe(1), { timeout: 30_000, interval: 1 });
    first.abort();
    expect(await pending1).toMatchObject({ status: 'unknown' });

    const second = new AbortController();
    const pending2 = host.invoke('server.rename', { to: 'Films' }, { ...ctx, signal: second.signal });
    await vi.waitFor(() => expect(entered.verifier).toBe(1), { timeout: 30_000, interval: 1 });
    second.abort();
    const result = await pending2;
    expect(result).toMatchObject({ status: 'unknown', error: { code: 'OUTCOME_UNKNOWN' } });
    expect(result.error?.message).toContain('aborted while its verifier ran');
    expect((await storage.ledger.get(result.idempotencyKey!))?.state).toBe('unknown');
    expect(entered.handler).toBe(1); // never run again blindly
    open();
  });
});
