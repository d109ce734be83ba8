import { parse } from 'acorn';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { ConsoleLogger, ManualClock, createAgentHost, defineCapability } from '../../src/index';
import type { RunRecord } from '../../src/core/run-records';
import { rewriteCell } from '../../src/runtime/code/cell-source';
import { CodeExecution } from '../../src/runtime/code/code-execution';
import { resolveCodeExecutionOptions } from '../../src/runtime/code/code-options';
import { KernelPool, ownerKey } from '../../src/runtime/code/kernel-pool';
import { ToolResultStore } from '../../src/runtime/context/tool-result-store';

const clockAt = () => new ManualClock(Date.UTC(2026, 10, 30, 12));

describe('rewriteCell (top-level declarations persist, await works at top level)', () => {
  it('turns declarations into assignments to global vars and hoists functions', () => {
    const { source, declared } = rewriteCell(
      'const { a, b: [c], ...rest } = await f(); let x; var y = 1; function g() { return x } class K {}',
      parse,
    );
    expect(declared.sort()).toEqual(['K', 'a', 'c', 'g', 'rest', 'x', 'y']);
    expect(source.startsWith('var ')).toBe(true);
    expect(source).toContain('g = function g() { return x };');
    expect(source).toContain('void (({ a, b: [c], ...rest } = await f()));');
    expect(source).toContain('void ((x = undefined));');
    expect(source).toContain('K = class K {};');
  });

  it('leaves declarations inside blocks and functions local', () => {
    const { declared } = rewriteCell(
      'if (true) { const inner = 1 } for (let i = 0; i < 2; i++) {} () => { let z }',
      parse,
    );
    expect(declared).toEqual([]);
  });

  it('refuses code that does not parse with CODE_SYNTAX and its position', () => {
    expect(() => rewriteCell('let = ;', parse)).toThrow(expect.objectContaining({ code: 'CODE_SYNTAX' }));
  });
});

describe('KernelPool (owner = run + actor + enabled capabilities)', () => {
  const options = resolveCodeExecutionOptions({});
  const owner = (run: string) => ownerKey(run, 'user:admin', ['library.page']);

  it('keeps at most 4 idle kernels, evicting the least recently used; the evicted owner is told', async () => {
    const pool = new KernelPool(options, clockAt());
    try {
      for (const run of ['r1', 'r2', 'r3', 'r4']) {
        const lease = await pool.acquire(owner(run), run, false);
        pool.release(owner(run), lease.kernel);
      }
      // r1 used again: now r2 is the least recently used.
      const again = await pool.acquire(owner('r1'), 'r1', false);
      expect(again.reused).toBe(true);
      pool.release(owner('r1'), again.kernel);
      const fifth = await pool.acquire(owner('r5'), 'r5', false);
      pool.release(owner('r5'), fifth.kernel);
      expect(pool.stats()).toEqual({ kernels: 4, running: 0 });
      const r2 = await pool.acquire(owner('r2'), 'r2', false);
      expect(r2).toMatchObject({ reused: false, lost: 'evicted' });
      pool.release(owner('r2'), r2.kernel);
      expect((await pool.acquire(owner('r1'), 'r1', false)).reused).toBe(true);
    } finally {
      pool.closeAll();
    }
  });

  it('never evicts a kernel running a cell, even over the limit', async () => {
    const pool = new KernelPool(options, clockAt());
    try {
      const leases = [];
      for (const run of ['a', 'b', 'c', 'd', 'e', 'f']) leases.push(await pool.acquire(owner(run), run, false));
      expect(pool.stats()).toEqual({ kernels: 6, running: 6 });
      pool.sweep();
      expect(pool.stats()).toEqual({ kernels: 6, running: 6 });
      for (const [i, run] of ['a', 'b', 'c', 'd', 'e', 'f'].entries()) pool.release(owner(run), leases[i]!.kernel);
      expect(pool.stats()).toEqual({ kernels: 4, running: 0 });
    } finally {
      pool.closeAll();
    }
  });

  it('destroys a kernel idle for more than 1 800 s; the owner’s next cell reports it expired', async () => {
    const clock = clockAt();
    const pool = new KernelPool(options, clock);
    try {
      const lease = await pool.acquire(owner('r1'), 'r1', false);
      pool.release(owner('r1'), lease.kernel);
      clock.advance(1_800_000);
      pool.sweep();
      expect(pool.stats().kernels).toBe(1);
      clock.advance(1);
      pool.sweep();
      expect(pool.stats().kernels).toBe(0);
      expect(lease.kernel.alive).toBe(false);
      expect(await pool.acquire(owner('r1'), 'r1', false)).toMatchObject({ reused: false, lost: 'expired' });
    } finally {
      pool.closeAll();
    }
  });

  it('a changed enabled capability set is another owner: the old state is not reused', async () => {
    const pool = new KernelPool(options, clockAt());
    try {
      const a = await pool.acquire(ownerKey('r1', 'user:admin', ['x']), 'r1', false);
      pool.release(ownerKey('r1', 'user:admin', ['x']), a.kernel);
      const b = await pool.acquire(ownerKey('r1', 'user:admin', ['x', 'y']), 'r1', false);
      expect(b).toMatchObject({ reused: false, lost: 'owner_changed' });
      expect(a.kernel.alive).toBe(false);
    } finally {
      pool.closeAll();
    }
  });

  it('closing the run destroys its kernels', async () => {
    const pool = new KernelPool(options, clockAt());
    const lease = await pool.acquire(owner('r1'), 'r1', false);
    pool.release(owner('r1'), lease.kernel);
    expect(pool.closeRun('r1')).toBe(1);
    expect(lease.kernel.alive).toBe(false);
    expect(pool.stats().kernels).toBe(0);
  });
});

describe('CodeExecution: the role and the run are checked again at every call', () => {
  async function setup(roleOf: (actor: string) => 'admin' | 'user', onCall: (signal?: AbortSignal) => Promise<void>) {
    const clock = clockAt();
    const host = createAgentHost({ clock, logger: new ConsoleLogger('silent') });
    let handled = 0;
    host.capabilities.register(
      defineCapability({
        id: 'library.count',
        version: 1,
        title: 'Count',
        description: 'Counts titles.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({}),
        output: Type.Object({ n: Type.Integer() }),
        handler: async (_input, ctx) => {
          handled++;
          await onCall(ctx.signal);
          return { n: handled };
        },
      }),
    );
    await host.start({ workers: false });
    const code = new CodeExecution(resolveCodeExecutionOptions({}), {
      capabilities: host.capabilities,
      results: new ToolResultStore({ clock }),
      roleOf,
      clock,
    });
    const run = {
      id: 'run-1',
      startedBy: 'user:alice',
      depth: 0,
      mode: 'execute',
      capabilityAllowlist: null,
    } as unknown as RunRecord;
    return { host, code, run, handled: () => handled };
  }

  it('an actor who loses the administrator role mid-cell has the next call refused (CODE_OWNER_CHANGED)', async () => {
    let role: 'admin' | 'user' = 'admin';
    const { host, code, run, handled } = await setup(
      () => role,
      async () => {
        role = 'user';
      },
    );
    try {
      const result = await code.runCell(
        () => run,
        () => run.startedBy,
        'call_1',
        {
          code: 'await tools.library.count({}); try { await tools.library.count({}) } catch (e) { console.log(e.code) }',
        },
        new AbortController().signal,
      );
      expect(result).toMatchObject({ success: false, stdout: 'CODE_OWNER_CHANGED\n', tool_calls: 2 });
      expect(handled()).toBe(1);
      await expect(
        code.runCell(
          () => run,
          () => run.startedBy,
          'call_2',
          { code: '1' },
          new AbortController().signal,
        ),
      ).rejects.toMatchObject({
        code: 'CODE_ADMIN_ONLY',
      });
    } finally {
      code.close();
      await host.stop();
    }
  });

  it('an abort of the run cancels the cell waiting on a read (the read is aborted) and destroys its kernel', async () => {
    let aborted = false;
    const controller = new AbortController();
    const { host, code, run } = await setup(
      () => 'admin',
      (signal) =>
        new Promise<void>((resolve) => {
          signal?.addEventListener('abort', () => {
            aborted = true;
            resolve();
          });
          // The run is aborted once the cell waits on the read (not after a fixed delay: a slow kernel start
          // under load would abort the cell before the read began).
          setTimeout(() => controller.abort(), 20);
        }),
    );
    try {
      const pending = code.runCell(
        () => run,
        () => run.startedBy,
        'call_1',
        { code: 'var x = 1; await tools.library.count({})' },
        controller.signal,
      );
      expect(await pending).toMatchObject({
        success: false,
        error: { code: 'CODE_CANCELLED' },
        state_lost: true,
        state_lost_reason: 'cancelled',
      });
      expect(aborted).toBe(true);
      expect(code.pool.stats().kernels).toBe(0);
    } finally {
      code.close();
      await host.stop();
    }
  });
});
