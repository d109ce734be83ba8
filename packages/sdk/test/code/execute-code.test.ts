import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  ManualClock,
  SequentialIdGenerator,
  createAgentHost,
  defineCapability,
  type AgentHost,
} from '../../src/index';
import type { CodeExecutionOptions } from '../../src/code';
import type { ModelMessage } from '../../src/models';
import { MemoryStorage } from '../../src/storage';
import { ScriptedProvider, waitForRunStatus, type ScriptStep as FakeStep } from '../../src/testing';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

/** A world of three pages of titles, a delete (execute) and an oversized read; counts handler calls. */
function world() {
  const calls = { page: 0, remove: 0, huge: 0, slow: 0 };
  const titles = ['Arrival', 'Dune', 'Heat', 'Alien', 'Brazil', 'Fargo', 'Gattaca'];
  const capabilities = [
    defineCapability({
      id: 'library.page',
      version: 1,
      title: 'Library page',
      description: 'One page of library titles (3 per page).',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({ page: Type.Integer({ minimum: 1 }) }),
      output: Type.Object({ items: Type.Array(Type.String()), next: Type.Union([Type.Integer(), Type.Null()]) }),
      handler: async ({ page }) => {
        calls.page++;
        const items = titles.slice((page - 1) * 3, page * 3);
        return { items, next: page * 3 < titles.length ? page + 1 : null };
      },
    }),
    defineCapability({
      id: 'library.remove',
      version: 1,
      title: 'Remove a title',
      description: 'Deletes a title from the library.',
      kind: 'execute',
      replay: 'never',
      input: Type.Object({ title: Type.String() }),
      output: Type.Object({ removed: Type.Boolean() }),
      handler: async () => {
        calls.remove++;
        return { removed: true };
      },
    }),
    defineCapability({
      id: 'library.dump',
      version: 1,
      title: 'Dump',
      description: 'Everything at once (large).',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({}),
      output: Type.Object({ blob: Type.String() }),
      handler: async () => {
        calls.huge++;
        return { blob: 'x'.repeat(4096) };
      },
    }),
    defineCapability({
      id: 'library.slow',
      version: 1,
      title: 'Slow read',
      description: 'Answers after a while.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({}),
      output: Type.Object({ ok: Type.Boolean() }),
      handler: async (_input, ctx) => {
        calls.slow++;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, 5_000);
          ctx.signal?.addEventListener('abort', () => {
            clearTimeout(t);
            resolve();
          });
        });
        return { ok: true };
      },
    }),
  ];
  return { calls, capabilities };
}

const cell = (code: string, reset?: boolean): FakeStep => ({
  toolCalls: [{ capability: 'execute_code', input: reset === undefined ? { code } : { code, reset } }],
});

/** Runs one run whose model plays `steps`, and returns the parsed results of every tool call, in order. */
async function play(
  steps: FakeStep[],
  opts: {
    code?: CodeExecutionOptions;
    actor?: string;
    clock?: ManualClock;
    identity?: { roleOf(actor: string): 'admin' | 'user' };
  } = {},
) {
  const clock = opts.clock ?? new ManualClock(Date.UTC(2026, 10, 30, 12));
  const storage = new MemoryStorage();
  const provider = new ScriptedProvider({ scripts: [{ match: 'library', steps, finalText: 'done' }] });
  const host = createAgentHost({
    storage,
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    ...(opts.identity ? { identity: opts.identity } : {}),
    model: { provider, model: 'scripted' },
    runs: { pollMs: 5, leaseMs: 600_000, refusedTurnPauseMs: 1, code: { cpuMs: 2_000, ...(opts.code ?? {}) } },
  });
  hosts.push(host);
  const w = world();
  for (const c of w.capabilities) host.capabilities.register(c);
  await host.start();
  const run = await host.startRun({ goal: 'check the library', actor: (opts.actor ?? 'user:admin') as 'user:admin' });
  await waitForRunStatus(host, run.id, ['succeeded', 'failed', 'waiting'], { timeoutMs: 30_000 });
  const last = provider.requests.at(-1)!.messages;
  const results = last
    .filter((m): m is Extract<ModelMessage, { role: 'tool' }> => m.role === 'tool')
    .map((m): Record<string, any> => ({ name: m.name, ...(JSON.parse(m.content as string) as object) }));
  const cells = results
    .filter((r) => r.name === 'execute_code')
    .map((r): Record<string, any> => ({ status: r.status, error: r.error, ...(r.output as object) }));
  return { host, storage, provider, run, results, cells, calls: w.calls };
}

describe('execute_code through the real runtime', () => {
  it('aggregates a three-page paginated read in one cell, each page through the invocation path', async () => {
    const { cells, calls, storage, provider } = await play([
      cell(`
        const titles = [];
        let page = 1;
        while (page !== null) {
          const r = await tools.library.page({ page });
          titles.push(...r.items);
          page = r.next;
        }
        console.log(titles.length, titles.filter((t) => t.startsWith('A')).join(','));
      `),
    ]);
    expect(cells[0]).toMatchObject({
      status: 'succeeded',
      success: true,
      stdout: '7 Arrival,Alien\n',
      tool_calls: 3,
      tool_error_count: 0,
      kernel: { reused: false, execution_count: 1, ended: false },
      state_reset: false,
      state_lost: false,
    });
    expect(calls.page).toBe(3);
    const audited = await storage.audit.list({ action: 'capability.invoke' });
    expect(audited.filter((a) => a.capabilityId === 'library.page')).toHaveLength(3);
    expect(provider.requests[0]!.tools!.map((t) => t.name)).toContain('execute_code');
  });

  it('refuses an execute capability before its handler, and the cell fails even though the script caught it', async () => {
    const { cells, calls, storage } = await play([
      cell(`
        try { await tools['library.remove']({ title: 'Dune' }); } catch (e) { console.log('caught', e.code); }
        try { await tools.no.such.thing({}); } catch (e) { console.log('caught', e.code); }
      `),
    ]);
    expect(calls.remove).toBe(0);
    expect(cells[0]).toMatchObject({
      status: 'failed',
      success: false,
      stdout: 'caught CODE_TOOL_NOT_READ\ncaught CODE_TOOL_UNKNOWN\n',
      tool_error_count: 2,
    });
    expect(
      (cells[0]!.tool_errors as { code: string; capability: string }[]).map((e) => [e.capability, e.code]),
    ).toEqual([
      ['library.remove', 'CODE_TOOL_NOT_READ'],
      ['no.such.thing', 'CODE_TOOL_UNKNOWN'],
    ]);
    expect((await storage.audit.list()).some((a) => a.capabilityId === 'library.remove')).toBe(false);
  });

  it('refuses the 51st call of a cell; 50 handler calls ran; at most 5 errors listed', async () => {
    const { cells, calls } = await play([
      cell(`
        let ok = 0, refused = 0;
        for (let i = 0; i < 56; i++) {
          try { await tools.library.page({ page: 1 }); ok++; } catch (e) { if (e.code === 'CODE_CALL_BUDGET') refused++; }
        }
        console.log(ok, refused);
      `),
    ]);
    expect(calls.page).toBe(50);
    expect(cells[0]).toMatchObject({ success: false, stdout: '50 6\n', tool_calls: 56, tool_error_count: 6 });
    expect(cells[0]!.tool_errors).toHaveLength(5);
    expect((cells[0]!.tool_errors as { code: string }[])[0]!.code).toBe('CODE_CALL_BUDGET');
  });

  it('keeps state across cells, keeps assignments made before a throw, and loses it after reset', async () => {
    const { cells } = await play([
      cell(
        'const seen = await tools.library.page({ page: 1 }); let n = seen.items.length; function twice(x) { return 2 * x }',
      ),
      cell('n = twice(n); console.log(n, seen.items[0]); throw new Error("boom")'),
      cell('console.log(n)'),
      cell('console.log(typeof n, typeof twice)', true),
    ]);
    expect(cells[0]).toMatchObject({ success: true, kernel: { reused: false, execution_count: 1 } });
    expect(cells[1]).toMatchObject({
      success: false,
      stdout: '6 Arrival\n',
      error: { code: 'CODE_SCRIPT_ERROR' },
      kernel: { reused: true, execution_count: 2, ended: false },
      state_lost: false,
    });
    expect(cells[2]).toMatchObject({ success: true, stdout: '6\n', kernel: { reused: true, execution_count: 3 } });
    expect(cells[3]).toMatchObject({
      success: true,
      stdout: 'undefined undefined\n',
      state_reset: true,
      kernel: { reused: false, execution_count: 1 },
    });
  });

  it('kills a runaway loop at the deadline: the kernel is gone, the next cell starts clean, the host goes on', async () => {
    const { cells, host } = await play(
      [cell('var kept = 1; while (true) {}'), cell('console.log(typeof kept, 1 + 1)')],
      { code: { timeoutMs: 300, cpuMs: 60_000 } },
    );
    expect(cells[0]).toMatchObject({
      status: 'failed',
      success: false,
      error: { code: 'CODE_TIMEOUT' },
      kernel: { ended: true },
      state_lost: true,
      state_lost_reason: 'script_timeout',
    });
    expect(cells[1]).toMatchObject({ success: true, stdout: 'undefined 2\n', kernel: { reused: false } });
    expect(await host.invoke('library.page', { page: 2 }, { actor: 'user:admin' })).toMatchObject({
      status: 'succeeded',
    });
  });

  it('stops a cell over its CPU time, and one waiting on a slow read at its deadline (the read is aborted)', async () => {
    const { cells } = await play([cell('for (;;) { Math.sqrt(2) }'), cell('await tools.library.slow({})')], {
      code: { timeoutMs: 400, cpuMs: 150 },
    });
    expect(cells[0]).toMatchObject({
      error: { code: 'CODE_CPU_LIMIT' },
      state_lost: true,
      state_lost_reason: 'cpu_limit',
    });
    expect(cells[1]).toMatchObject({ error: { code: 'CODE_TIMEOUT' }, state_lost: true });
  });

  it('stops unbounded allocation at the memory limit; a thrown exit() ends the kernel too', async () => {
    const { cells } = await play(
      [
        cell('const keep = []; while (true) keep.push("x".repeat(1 << 20) + keep.length)'),
        cell('var a = 1; exit(3)'),
        cell('console.log(typeof a)'),
      ],
      { code: { memoryBytes: 48 * 1_048_576 } },
    );
    expect(cells[0]).toMatchObject({ error: { code: 'CODE_MEMORY_LIMIT' }, state_lost_reason: 'memory_limit' });
    expect(cells[1]).toMatchObject({
      error: { code: 'CODE_EXIT' },
      kernel: { ended: true },
      state_lost_reason: 'exit',
    });
    expect(cells[2]).toMatchObject({ success: true, stdout: 'undefined\n', kernel: { reused: false } });
  });

  it('spills a long stdout (redacted) to the run’s large-result store and pages it back with read_tool_result', async () => {
    const spill = (ctx: { results: Readonly<Record<string, unknown>> }) =>
      (ctx.results.execute_code as { stdout_spill: { result_id: string; next_offset: number } }).stdout_spill;
    const { cells, results } = await play(
      [
        cell('for (let i = 0; i < 4000; i++) console.log("row " + String(i).padStart(6, "0") + " token=s3cret")'),
        {
          toolCalls: (ctx) => [
            {
              capability: 'read_tool_result',
              input: { result_id: spill(ctx).result_id, offset: spill(ctx).next_offset },
            },
          ],
        },
        // 4 000 redacted lines are not a CPU-limit test: on a loaded 2-CPU machine their slices took more than the 2 s
        // CPU limit the other cases use, and the cell failed with CODE_CPU_LIMIT.
      ],
      { code: { cpuMs: 60_000 } },
    );
    const first = cells[0]!;
    expect(first).toMatchObject({ success: true, stdout_spill: { incomplete: false } });
    const stdout = first.stdout as string;
    expect(Buffer.byteLength(JSON.stringify(stdout))).toBeLessThanOrEqual(50_000);
    expect(stdout.startsWith('row 000000 token=[REDACTED]\n')).toBe(true);
    expect(stdout).not.toContain('s3cret');
    const page = results.find((r) => r.name === 'read_tool_result')!.output as { text: string; offset: number };
    expect(page.offset).toBe(first.stdout_spill.next_offset);
    // The page continues exactly where the inline part stopped.
    const all = Array.from({ length: 4000 }, (_, i) => `row ${String(i).padStart(6, '0')} token=[REDACTED]\n`).join('');
    expect(all.startsWith(stdout + page.text)).toBe(true);
    expect(first.stdout_spill.total_chars).toBe(all.length);
  });

  it('a script printing 100 MB keeps 5 MB (marked incomplete), and the host stays healthy', async () => {
    const { cells, host } = await play([
      cell(
        'const mb = "a row of text ".repeat(74_899); for (let i = 0; i < 100; i++) console.log(mb); console.log("end")',
      ),
    ]);
    expect(cells[0]).toMatchObject({
      success: true,
      stdout_spill: { incomplete: true, total_chars: 5_000_000 },
    });
    expect(await host.invoke('library.page', { page: 1 }, { actor: 'user:admin' })).toMatchObject({
      status: 'succeeded',
    });
  });

  it('refuses a call result over the per-call limit whole, asking for smaller pages', async () => {
    const { cells, calls } = await play([cell('const r = await tools.library.dump({}); console.log(r.blob.length)')], {
      code: { maxCallResultBytes: 1024 },
    });
    expect(calls.huge).toBe(1);
    expect(cells[0]).toMatchObject({ success: false, error: { code: 'CODE_SCRIPT_ERROR' }, stdout: '' });
    expect((cells[0]!.tool_errors as { code: string; message: string }[])[0]).toMatchObject({
      code: 'CODE_RESULT_TOO_LARGE',
      message: expect.stringContaining('smaller pages'),
    });
  });

  it('is neither offered to nor run for a run whose actor is not an administrator', async () => {
    const { cells, provider, calls } = await play([cell('await tools.library.page({ page: 1 })')], {
      actor: 'apikey:ci',
    });
    expect(provider.requests[0]!.tools!.map((t) => t.name)).not.toContain('execute_code');
    // Not offered, so the runtime refuses the call as an unknown tool before the tool is reached.
    expect(cells[0]).toMatchObject({ status: 'failed', error: { code: 'TOOL_UNKNOWN' } });
    expect(calls.page).toBe(0);
  });

  it('follows the host identity: a console user who is not an administrator does not get it', async () => {
    const identity = { roleOf: (actor: string) => (actor === 'user:alice' ? ('admin' as const) : ('user' as const)) };
    const bob = await play([cell('await tools.library.page({ page: 1 })')], { actor: 'user:bob', identity });
    expect(bob.provider.requests[0]!.tools!.map((t) => t.name)).not.toContain('execute_code');
    expect(bob.calls.page).toBe(0);
    const alice = await play([cell('console.log((await tools.library.page({ page: 1 })).items.length)')], {
      actor: 'user:alice',
      identity,
    });
    expect(alice.cells[0]).toMatchObject({ success: true, stdout: '3\n' });
  });

  it('prints text holding U+0000 whole (as U+FFFD) and never takes a name cut at a NUL for a capability', async () => {
    const { cells, calls } = await play([
      cell('print("a\\u0000b", 1); console.error("e\\u0000f"); print("after")'),
      cell('await tools["library.page\\u0000x"]({ page: 1 })'),
    ]);
    expect(cells[0]).toMatchObject({ success: true, stdout: 'a\uFFFDb 1\nafter\n', stderr: 'e\uFFFDf\n' });
    expect(cells[1]).toMatchObject({ success: false, tool_errors: [{ code: 'CODE_TOOL_UNKNOWN' }] });
    expect(calls.page).toBe(0);
  });

  it('a cell that does not parse is refused with its position and keeps the kernel', async () => {
    const { cells } = await play([cell('var v = 5'), cell('let = = 2'), cell('console.log(v)')]);
    expect(cells[1]).toMatchObject({ status: 'failed', error: { code: 'CODE_SYNTAX' } });
    expect((cells[1]!.error as unknown as { message: string }).message).toMatch(/\(1:\d+\)/);
    expect(cells[2]).toMatchObject({ success: true, stdout: '5\n', kernel: { reused: true, execution_count: 2 } });
  });
});

describe('execute_code options', () => {
  it('a limit given as undefined takes its default; an unknown limit or options that are not an object are refused', () => {
    expect(() => createAgentHost({ runs: { code: { cpuMs: undefined, timeoutMs: 60_000 } } })).not.toThrow();
    for (const code of [{ cpuMz: 5 }, true, 'yes', [1]])
      expect(() => createAgentHost({ runs: { code: code as never } }), JSON.stringify(code)).toThrow(
        expect.objectContaining({ code: 'OPTIONS_INVALID' }),
      );
  });
});
