// Deadlines on capability handlers: defineCapability({ timeoutMs }) and the host's
// capabilityTimeoutMs. At the deadline the handler's signal aborts; a read fails CAPABILITY_TIMEOUT; an effectful
// call is settled unknown and goes to its verifier when called again, never re-run blindly; a handler that ignores
// the signal does not keep the invocation hanging, and what it returns later is not recorded.
import Type from 'typebox';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CapabilityTimeoutError } from '../../src/capabilities';
import {
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  MediaAgentError,
  type AgentHost,
  type StorageAdapter,
} from '../../src/index';
import { makeStorage, STORAGE_KINDS } from '../helpers';

const hosts: AgentHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop()));
});

/** A gate the test opens: what a hung handler waits for (a dead socket that the test revives). */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** A small home server: a setting the execute capability writes, read back by its verifier. */
function world(deadlineMs: number) {
  const runs = { read: 0, readSignal: 0, apply: 0, applyHonours: 0, verify: 0, safe: 0 };
  const settings = new Map<string, string>();
  const late = gate(); // opened by the test: the hung handlers finish (late)
  const abortReasons: unknown[] = [];

  // Ignores its signal: waits for the gate, however long.
  const slowRead = defineCapability({
    id: 'library.scan',
    version: 1,
    title: 'Scan the library',
    description: 'Reads the library (hangs on a dead NAS).',
    kind: 'read',
    replay: 'safe',
    timeoutMs: deadlineMs,
    input: Type.Object({ path: Type.String() }),
    output: Type.Object({ files: Type.Number() }),
    handler: async () => {
      runs.read++;
      await late.opened;
      return { files: 3 };
    },
  });
  // Honours its signal: stops at the deadline with the signal's reason.
  const signalRead = defineCapability({
    id: 'library.count',
    version: 1,
    title: 'Count the library',
    description: 'Counts files; stops when told.',
    kind: 'read',
    replay: 'safe',
    timeoutMs: deadlineMs,
    input: Type.Object({}),
    output: Type.Object({ files: Type.Number() }),
    handler: (_input, ctx) => {
      runs.readSignal++;
      return new Promise((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => {
          abortReasons.push(ctx.signal.reason);
          reject(ctx.signal.reason);
        }),
      );
    },
  });
  // Ignores its signal, then applies the setting after the deadline (the request reached the server).
  const apply = defineCapability({
    id: 'settings.apply',
    version: 1,
    title: 'Apply a setting',
    description: 'Writes a setting on the media server.',
    kind: 'execute',
    replay: 'never',
    timeoutMs: deadlineMs,
    input: Type.Object({ key: Type.String(), value: Type.String() }),
    output: Type.Object({ ok: Type.Boolean() }),
    verify: async ({ input }) => {
      runs.verify++;
      return settings.get(input.key) === input.value
        ? { status: 'succeeded', output: { ok: true } }
        : { status: 'failed', reason: `${input.key} is not ${input.value}` };
    },
    handler: async (input) => {
      runs.apply++;
      await late.opened;
      settings.set(input.key, input.value);
      return { ok: true };
    },
  });
  // Honours its signal: gives up before writing (the first time); the setting is not applied.
  const applyHonours = defineCapability({
    id: 'settings.applyCarefully',
    version: 1,
    title: 'Apply a setting, carefully',
    description: 'Writes a setting; stops when told.',
    kind: 'execute',
    replay: 'never',
    timeoutMs: deadlineMs,
    input: Type.Object({ key: Type.String(), value: Type.String() }),
    output: Type.Object({ ok: Type.Boolean() }),
    verify: async ({ input }) => {
      runs.verify++;
      return settings.get(input.key) === input.value
        ? { status: 'succeeded', output: { ok: true } }
        : { status: 'failed', reason: `${input.key} is not ${input.value}` };
    },
    handler: async (input, ctx) => {
      runs.applyHonours++;
      if (runs.applyHonours === 1)
        await new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
      settings.set(input.key, input.value);
      return { ok: true };
    },
  });
  // Replay-safe effect: running it again is harmless, so a timeout is a plain failure.
  const refresh = defineCapability({
    id: 'library.refresh',
    version: 1,
    title: 'Refresh the library',
    description: 'Asks the media server to rescan (idempotent).',
    kind: 'execute',
    replay: 'safe',
    timeoutMs: deadlineMs,
    input: Type.Object({}),
    output: Type.Object({ ok: Type.Boolean() }),
    handler: async () => {
      runs.safe++;
      await late.opened;
      return { ok: true };
    },
  });
  return { runs, settings, late, abortReasons, capabilities: [slowRead, signalRead, apply, applyHonours, refresh] };
}

async function hostWith(
  storage: StorageAdapter,
  w: ReturnType<typeof world>,
  options: { capabilityTimeoutMs?: number } = {},
) {
  const host = createAgentHost({ storage, logger: new ConsoleLogger('silent'), ...options });
  for (const c of w.capabilities) host.capabilities.register(c);
  await host.start();
  hosts.push(host);
  return host;
}

const admin = { actor: 'user:admin' as const };

describe.each(STORAGE_KINDS)('capability deadlines through host.invoke on %s storage', (kind) => {
  it('mastra-ai/mastra#18594: a read whose handler never resolves (and ignores its signal) fails CAPABILITY_TIMEOUT at its deadline instead of hanging', async () => {
    const deadline = 200;
    const w = world(deadline);
    const host = await hostWith(makeStorage(kind), w);
    const t0 = performance.now();
    const result = await host.invoke('library.scan', { path: '/nas' }, admin);
    const elapsed = performance.now() - t0;
    expect(result).toMatchObject({ status: 'failed', error: { code: 'CAPABILITY_TIMEOUT' } });
    expect(result.error?.message).toContain(`${deadline} ms`);
    expect(w.runs.read).toBe(1);
    // libuv's timers run on a clock of whole milliseconds: the cut may be seen up to 1 ms before the exact figure.
    expect(elapsed).toBeGreaterThanOrEqual(deadline - 1);
    expect(elapsed).toBeLessThan(deadline + 30_000);
    console.info(`read (${kind}): deadline ${deadline} ms, ended after ${Math.round(elapsed)} ms`);
    w.late.open(); // the handler finishes late: nothing is recorded, nothing is run again
    await vi.waitFor(() => expect(w.runs.read).toBe(1), { timeout: 5_000 });
  });

  it("livekit/agents-js#2428: the handler's signal aborts at the deadline with a CapabilityTimeoutError; a read that honours it fails CAPABILITY_TIMEOUT", async () => {
    const w = world(150);
    const host = await hostWith(makeStorage(kind), w);
    const result = await host.invoke('library.count', {}, admin);
    expect(result).toMatchObject({ status: 'failed', error: { code: 'CAPABILITY_TIMEOUT' } });
    expect(w.abortReasons).toHaveLength(1);
    expect(w.abortReasons[0]).toBeInstanceOf(CapabilityTimeoutError);
    expect(w.abortReasons[0]).toMatchObject({
      code: 'CAPABILITY_TIMEOUT',
      details: { capabilityId: 'library.count', timeoutMs: 150 },
    });
    expect(w.runs.readSignal).toBe(1);
  });

  it('an execute whose handler ignores its signal ends unknown at the deadline; its late result is not recorded; the same call again goes to the verifier (the handler is not run again)', async () => {
    const deadline = 200;
    const w = world(deadline);
    const storage = makeStorage(kind);
    const host = await hostWith(storage, w);
    const call = { key: 'quality', value: '4k' };
    const ctx = { ...admin, taskId: 'task-1' }; // one scope: the repeat has the same idempotency key
    const t0 = performance.now();
    const first = await host.invoke('settings.apply', call, ctx);
    const elapsed = performance.now() - t0;
    expect(first).toMatchObject({ status: 'unknown', error: { code: 'CAPABILITY_TIMEOUT' } });
    expect(first.error?.message).toMatch(/verify/);
    expect(elapsed).toBeGreaterThanOrEqual(deadline - 1);
    console.info(`execute (${kind}): deadline ${deadline} ms, unknown after ${Math.round(elapsed)} ms`);
    const entry = async () =>
      (await storage.ledger.listByState(['running', 'succeeded', 'failed', 'pending', 'unknown']))[0];
    expect((await entry())?.state).toBe('unknown');

    w.late.open(); // the server applies the setting after all; the handler returns late
    await vi.waitFor(() => expect(w.settings.get('quality')).toBe('4k'), { timeout: 5_000 });
    expect((await entry())?.state, 'the late return is not recorded as the outcome').toBe('unknown');

    const again = await host.invoke('settings.apply', call, ctx);
    expect(again).toMatchObject({ status: 'succeeded', output: { ok: true }, replayed: true });
    expect(w.runs.verify).toBe(1);
    expect(w.runs.apply, 'never retried blindly').toBe(1);
    expect((await entry())?.state).toBe('succeeded');
  });

  it('an execute whose handler honours its signal ends unknown; run again only after its verifier found it not applied', async () => {
    const w = world(150);
    const host = await hostWith(makeStorage(kind), w);
    const call = { key: 'language', value: 'fr' };
    const ctx = { ...admin, taskId: 'task-2' };
    const first = await host.invoke('settings.applyCarefully', call, ctx);
    expect(first).toMatchObject({ status: 'unknown', error: { code: 'CAPABILITY_TIMEOUT' } });
    expect(w.runs.applyHonours).toBe(1);
    const again = await host.invoke('settings.applyCarefully', call, ctx);
    expect(w.runs.verify).toBe(1);
    expect(again).toMatchObject({ status: 'succeeded', output: { ok: true } });
    expect(w.runs.applyHonours, 'the second run came after the verifier said "not applied"').toBe(2);
    expect(w.settings.get('language')).toBe('fr');
  });

  it('a replay-safe execute past its deadline fails CAPABILITY_TIMEOUT (running it again is harmless)', async () => {
    const w = world(150);
    const storage = makeStorage(kind);
    const host = await hostWith(storage, w);
    const result = await host.invoke('library.refresh', {}, admin);
    expect(result).toMatchObject({ status: 'failed', error: { code: 'CAPABILITY_TIMEOUT' } });
    expect((await storage.ledger.listByState(['failed', 'unknown', 'running'])).map((e) => e.state)).toEqual([
      'failed',
    ]);
    w.late.open();
  });
});

describe('the deadline options', () => {
  for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '5000'])
    it(`defineCapability({ timeoutMs: ${String(bad)} }) is refused with CAPABILITY_DEFINITION_INVALID`, () => {
      const define = () =>
        defineCapability({
          id: 'x.y',
          version: 1,
          title: 'x',
          description: 'x',
          kind: 'read',
          replay: 'safe',
          timeoutMs: bad as number,
          input: Type.Object({}),
          output: Type.Object({}),
          handler: async () => ({}),
        });
      expect(define).toThrow(MediaAgentError);
      expect(define).toThrow(/timeoutMs must be a positive number of milliseconds/);
      try {
        define();
      } catch (e) {
        expect((e as MediaAgentError).code).toBe('CAPABILITY_DEFINITION_INVALID');
      }
    });

  for (const bad of [0, -100, Number.NaN, Number.POSITIVE_INFINITY])
    it(`createAgentHost({ capabilityTimeoutMs: ${String(bad)} }) is refused with OPTIONS_INVALID naming the option`, () => {
      let error: unknown;
      try {
        createAgentHost({ logger: new ConsoleLogger('silent'), capabilityTimeoutMs: bad });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(MediaAgentError);
      expect((error as MediaAgentError).code).toBe('OPTIONS_INVALID');
      expect((error as MediaAgentError).details.option).toBe('capabilityTimeoutMs');
    });

  it("the host's capabilityTimeoutMs applies to capabilities without their own", async () => {
    const late = gate();
    const host = createAgentHost({ logger: new ConsoleLogger('silent'), capabilityTimeoutMs: 120 });
    hosts.push(host);
    let reason: unknown;
    host.capabilities.register(
      defineCapability({
        id: 'queue.peek',
        version: 1,
        title: 'Peek the queue',
        description: 'Reads the download queue.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({}),
        output: Type.Object({ n: Type.Number() }),
        handler: async (_input, ctx) => {
          ctx.signal.addEventListener('abort', () => (reason = ctx.signal.reason));
          await late.opened;
          return { n: 1 };
        },
      }),
    );
    await host.start();
    const result = await host.invoke('queue.peek', {}, admin);
    expect(result).toMatchObject({ status: 'failed', error: { code: 'CAPABILITY_TIMEOUT' } });
    expect(reason).toMatchObject({ code: 'CAPABILITY_TIMEOUT', details: { timeoutMs: 120 } });
    late.open();
  });

  it('a handler that finishes in time is not affected (no abort, its output recorded)', async () => {
    const host = createAgentHost({ logger: new ConsoleLogger('silent'), capabilityTimeoutMs: 60_000 });
    hosts.push(host);
    let aborted: boolean | undefined;
    host.capabilities.register(
      defineCapability({
        id: 'queue.size',
        version: 1,
        title: 'Queue size',
        description: 'Reads the download queue size.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({}),
        output: Type.Object({ n: Type.Number() }),
        handler: async (_input, ctx) => {
          aborted = ctx.signal.aborted;
          return { n: 2 };
        },
      }),
    );
    await host.start();
    expect(await host.invoke('queue.size', {}, admin)).toMatchObject({ status: 'succeeded', output: { n: 2 } });
    expect(aborted).toBe(false);
  });
});
