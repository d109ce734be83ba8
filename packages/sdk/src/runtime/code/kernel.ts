// One kernel: a QuickJS sandbox whose global state persists across the cells run in it.
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten';
import { OutputCapture } from './output-capture';
import type { Sandbox, SandboxMemory } from './sandbox-loader';

/** How a cell ended. `ok` and `error` keep the kernel; every other end destroys it. */
export type CellEnd = 'ok' | 'error' | 'exit' | 'timeout' | 'cpu' | 'memory' | 'cancelled';

/** What a capability call from the script gets back: the result's JSON, or an error the script sees thrown. */
export interface CellBridge {
  /**
   * One capability call of the script.
   * @param name - the capability id the script named
   * @param inputJson - the input as JSON text
   * @param signal - aborted when the cell is stopped
   * @returns the output as JSON text
   * @throws an error with `code` (and `retryable`) the script sees as a rejected promise
   */
  call(name: string, inputJson: string, signal: AbortSignal): Promise<string>;
}

/** Limits of one cell. */
export interface CellLimits {
  /** Wall-clock deadline in ms. */
  timeoutMs: number;
  /** Sandbox CPU time in ms. */
  cpuMs: number;
  /** Stdout UTF-8 bytes kept. */
  stdoutBytes: number;
  /** Stderr UTF-8 bytes kept. */
  stderrBytes: number;
}

/** What a cell did. */
export interface CellOutcome {
  /** How it ended. */
  end: CellEnd;
  /** The script's uncaught error (end `error`), or what stopped it. */
  error?: { name: string; message: string; stack?: string };
  /** Exit code given to `exit()` (end `exit`). */
  exitCode?: number;
  /** Captured stdout. */
  stdout: OutputCapture;
  /** Captured stderr. */
  stderr: OutputCapture;
}

/** Longest single write the sandbox hands to the host, in UTF-16 units (a longer one is cut inside the sandbox). */
const MAX_WRITE_CHARS = 5_000_000;

/** Sets up console, tools, json_parse, retry and exit in a fresh context; the host functions are removed from the global object. */
const PRELUDE = `(() => {
  const rpc = globalThis.__host_call, write = globalThis.__host_write, hostExit = globalThis.__host_exit;
  delete globalThis.__host_call; delete globalThis.__host_write; delete globalThis.__host_exit;
  const show = (v) => {
    if (typeof v === 'string') return v;
    if (v instanceof Error) return v.stack ? v.name + ': ' + v.message + '\\n' + v.stack : v.name + ': ' + v.message;
    try { const s = JSON.stringify(v); return s === undefined ? String(v) : s; } catch (e) { return String(v); }
  };
  // Text crosses to the host as a C string, which ends at U+0000: a NUL would cut the rest of the write (or a
  // capability name) short, so it crosses as U+FFFD.
  const noNul = (s) => (s.includes('\\0') ? s.split('\\0').join('\\uFFFD') : s);
  const out = (fd) => (...args) => {
    const s = noNul(args.map(show).join(' ') + '\\n');
    write(fd, s.length > ${MAX_WRITE_CHARS} ? s.slice(0, ${MAX_WRITE_CHARS}) : s, s.length);
  };
  const console = { log: out(1), info: out(1), debug: out(1), warn: out(2), error: out(2) };
  Object.defineProperty(globalThis, 'console', { value: console, writable: true, configurable: true });
  globalThis.print = out(1);
  const call = async (name, input) => JSON.parse(await rpc(noNul(name), JSON.stringify(input === undefined ? {} : input)));
  const tool = (path) => new Proxy(function () {}, {
    get(_, key) {
      if (typeof key !== 'string' || key === 'then' || key === 'toJSON') return undefined;
      return tool(path ? path + '.' + key : key);
    },
    apply(_, __, args) { return call(path, args[0]); },
  });
  Object.defineProperty(globalThis, 'tools', { value: tool(''), writable: false, configurable: false });
  globalThis.json_parse = (text) => {
    if (typeof text !== 'string') return text;
    try { return JSON.parse(text); } catch (e) { throw new SyntaxError('json_parse: not JSON (' + e.message + '): ' + text.slice(0, 80)); }
  };
  globalThis.retry = async (fn, attempts = 3) => {
    let last;
    for (let i = 0; i < attempts; i++) {
      try { return await fn(i); } catch (e) { last = e; if (e && e.retryable === false) throw e; }
    }
    throw last;
  };
  globalThis.exit = (code = 0) => { hostExit(code); throw new Error('exit(' + code + ')'); };
})();`;

/** What stops a running cell. */
type Kill = Exclude<CellEnd, 'ok' | 'error'>;

/**
 * A QuickJS sandbox in its own WebAssembly instance and memory: no file, network, process or timer
 * access; global variables persist from one cell to the next until the kernel is destroyed.
 */
export class Kernel {
  /** Kernel id (`k_<n>`), for results and diagnostics. */
  readonly id: string;
  /** Cells run in this kernel, including a running one. */
  executionCount = 0;
  /** True while a cell runs (a running kernel is never evicted). */
  running = false;
  /** When the last cell ended (or the kernel was made), ms by the pool's clock. */
  lastUsedAt: number;
  readonly #runtime: QuickJSRuntime;
  readonly #context: QuickJSContext;
  readonly #memory: SandboxMemory;
  #alive = true;
  #stopped = false;
  #cell: ActiveCell | undefined;

  private constructor(id: string, runtime: QuickJSRuntime, memory: SandboxMemory, now: number) {
    this.id = id;
    this.#runtime = runtime;
    this.#memory = memory;
    this.lastUsedAt = now;
    this.#context = runtime.newContext();
    this.#install();
  }

  /**
   * Starts a kernel.
   * @param sandbox - the loaded sandbox
   * @param id - its id
   * @param memoryBytes - its memory cap
   * @param now - the pool clock's time
   */
  static async start(sandbox: Sandbox, id: string, memoryBytes: number, now: number): Promise<Kernel> {
    const { module, memory } = await sandbox.newModule(memoryBytes);
    const runtime = module.newRuntime();
    // Also refuses any single allocation over the cap before it is tried.
    runtime.setMemoryLimit(memoryBytes);
    runtime.setMaxStackSize(1_048_576);
    return new Kernel(id, runtime, memory, now);
  }

  /** False once destroyed. */
  get alive(): boolean {
    return this.#alive;
  }

  /** Bytes of WebAssembly memory the kernel holds now. */
  get memoryBytes(): number {
    return this.#memory.buffer.byteLength;
  }

  /**
   * Runs one cell (a global script evaluating to a promise; see `rewriteCell`).
   * @param source - the rewritten cell
   * @param bridge - answers the script's capability calls
   * @param limits - deadline, CPU time, output bounds
   * @param signal - the run's signal: aborting it stops the cell (`cancelled`)
   * @returns how it ended; the caller destroys the kernel unless the end is `ok` or `error`
   */
  async run(source: string, bridge: CellBridge, limits: CellLimits, signal: AbortSignal): Promise<CellOutcome> {
    if (!this.#alive) throw new Error('kernel destroyed');
    this.running = true;
    this.executionCount++;
    const cell = new ActiveCell(limits, bridge);
    this.#cell = cell;
    const onAbort = () => cell.kill('cancelled');
    const timer = setTimeout(() => cell.kill('timeout'), limits.timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal.aborted) cell.kill('cancelled');
      if (cell.killed) return cell.outcome(cell.killed);
      const evaluated = cell.slice(() => this.#context.evalCode(source, `cell-${this.executionCount}.js`));
      if (cell.killed) {
        dispose(evaluated.error ?? evaluated.value);
        return cell.outcome(cell.killed);
      }
      if (evaluated.error) return this.#failed(cell, evaluated.error);
      const settled = this.#context.resolvePromise(evaluated.value);
      evaluated.value.dispose();
      this.#pump();
      const result = await Promise.race([settled, cell.stopped]);
      if (result === 'killed' || cell.killed) {
        if (result !== 'killed') dispose(result.error ?? result.value);
        return cell.outcome(cell.killed ?? 'cancelled');
      }
      if (result.error) return this.#failed(cell, result.error);
      result.value.dispose();
      return cell.outcome('ok');
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      cell.finish();
      if (cell.killed) this.#stopped = true;
      this.#cell = undefined;
      this.running = false;
    }
  }

  /**
   * Destroys the kernel: its sandbox and all its memory. Idempotent; a running cell is stopped first.
   * @param reason - why (a running cell ends `cancelled`)
   */
  destroy(): void {
    if (!this.#alive) return;
    this.#cell?.kill('cancelled');
    this.#alive = false;
    // A cell stopped midway leaves objects QuickJS would refuse to free one by one (it aborts the
    // instance); the WebAssembly instance and its memory go away with the last reference instead.
    if (this.#stopped) return;
    try {
      this.#context.dispose();
      this.#runtime.dispose();
    } catch {
      // Same as above: dropped with the instance.
    }
  }

  /** An uncaught error: the script's own (kernel kept) or the sandbox out of memory (kernel lost). */
  #failed(cell: ActiveCell, handle: QuickJSHandle): CellOutcome {
    const error = this.#errorOf(handle);
    handle.dispose();
    if (cell.killed) return cell.outcome(cell.killed);
    if (error.name === 'InternalError' && /out of memory/.test(error.message)) return cell.outcome('memory', error);
    return cell.outcome('error', error);
  }

  #errorOf(handle: QuickJSHandle): { name: string; message: string; stack?: string } {
    try {
      const dumped = this.#context.dump(handle) as unknown;
      if (dumped && typeof dumped === 'object') {
        const e = dumped as { name?: unknown; message?: unknown; stack?: unknown };
        return {
          name: typeof e.name === 'string' ? e.name : 'Error',
          message: typeof e.message === 'string' ? e.message : JSON.stringify(dumped).slice(0, 1000),
          ...(typeof e.stack === 'string' && e.stack ? { stack: e.stack.slice(0, 2000) } : {}),
        };
      }
      return { name: 'Error', message: `uncaught ${String(dumped).slice(0, 1000)}` };
    } catch {
      return { name: 'Error', message: 'uncaught error (not readable)' };
    }
  }

  /** Runs the promise jobs the sandbox has queued (after the host settled a call). */
  #pump(): void {
    const cell = this.#cell;
    if (!this.#alive || !cell || cell.killed) return;
    const result = cell.slice(() => this.#runtime.executePendingJobs());
    if (result.error) result.error.dispose();
  }

  /** The host functions the prelude captures, and the interrupt handler enforcing the limits. */
  #install(): void {
    const ctx = this.#context;
    const write = ctx.newFunction('__host_write', (fd, text, length) => {
      const cell = this.#cell;
      if (!cell) return;
      const capture = ctx.getNumber(fd) === 2 ? cell.stderr : cell.stdout;
      // A full capture only counts: the text is not copied out of the sandbox.
      if (capture.full) return capture.skip(ctx.getNumber(length));
      const s = ctx.getString(text);
      capture.write(s, Math.max(s.length, ctx.getNumber(length)));
    });
    const hostExit = ctx.newFunction('__host_exit', (code) => {
      const cell = this.#cell;
      if (!cell) return;
      const n = Number(ctx.dump(code));
      cell.exitCode = Number.isFinite(n) ? n : 0;
      cell.kill('exit');
    });
    const call = ctx.newFunction('__host_call', (name, input) => {
      const cell = this.#cell;
      const deferred = ctx.newPromise();
      if (!cell) {
        rejectWith(ctx, deferred, { message: 'no cell is running', code: 'CODE_CANCELLED' });
        return deferred.handle;
      }
      const capability = ctx.getString(name);
      const json = ctx.getString(input);
      cell.pending.add(deferred);
      cell.bridge.call(capability, json, cell.controller.signal).then(
        (output) => {
          if (!cell.pending.delete(deferred) || !this.#alive || cell.killed) return;
          const handle = ctx.newString(output);
          deferred.resolve(handle);
          handle.dispose();
          deferred.dispose();
          this.#pump();
        },
        (error: unknown) => {
          if (!cell.pending.delete(deferred) || !this.#alive || cell.killed) return;
          rejectWith(ctx, deferred, error as ToolFailure);
          deferred.dispose();
          this.#pump();
        },
      );
      return deferred.handle;
    });
    for (const [key, fn] of [
      ['__host_write', write],
      ['__host_exit', hostExit],
      ['__host_call', call],
    ] as const) {
      ctx.setProp(ctx.global, key, fn);
      fn.dispose();
    }
    const prelude = ctx.evalCode(PRELUDE, 'prelude.js');
    if (prelude.error) {
      const error = ctx.dump(prelude.error);
      prelude.error.dispose();
      throw new Error(`sandbox prelude failed: ${JSON.stringify(error)}`);
    }
    prelude.value.dispose();
    this.#runtime.setInterruptHandler(() => {
      const cell = this.#cell;
      return cell ? cell.overLimit() : false;
    });
  }
}

/** A failure a capability call reports to the script. */
interface ToolFailure {
  message?: string;
  code?: string;
  retryable?: boolean;
}

/** Rejects a call's promise in the sandbox with an `Error` carrying `code` and `retryable`. */
function rejectWith(ctx: QuickJSContext, deferred: QuickJSDeferredPromise, failure: ToolFailure): void {
  const error = ctx.newError({ name: 'ToolError', message: String(failure?.message ?? failure) });
  if (failure?.code) {
    const code = ctx.newString(failure.code);
    ctx.setProp(error, 'code', code);
    code.dispose();
  }
  ctx.setProp(error, 'retryable', failure?.retryable === false ? ctx.false : ctx.true);
  deferred.reject(error);
  error.dispose();
}

function dispose(handle: QuickJSHandle | undefined): void {
  if (handle?.alive) handle.dispose();
}

/** The state of the cell a kernel is running. */
class ActiveCell {
  readonly stdout: OutputCapture;
  readonly stderr: OutputCapture;
  readonly controller = new AbortController();
  readonly pending = new Set<QuickJSDeferredPromise>();
  readonly stopped: Promise<'killed'>;
  readonly bridge: CellBridge;
  readonly #limits: CellLimits;
  readonly #deadline: number;
  killed: Kill | undefined;
  exitCode: number | undefined;
  #cpuMs = 0;
  #sliceStart = 0;
  #stop!: (value: 'killed') => void;

  constructor(limits: CellLimits, bridge: CellBridge) {
    this.#limits = limits;
    this.bridge = bridge;
    this.#deadline = performance.now() + limits.timeoutMs;
    this.stdout = new OutputCapture(limits.stdoutBytes);
    this.stderr = new OutputCapture(limits.stderrBytes);
    this.stopped = new Promise((resolve) => {
      this.#stop = resolve;
    });
  }

  /** Runs sandbox code, counting its CPU time. */
  slice<T>(fn: () => T): T {
    this.#sliceStart = performance.now();
    try {
      return fn();
    } finally {
      this.#cpuMs += performance.now() - this.#sliceStart;
      this.#sliceStart = 0;
    }
  }

  /** The interrupt handler's question: stop the sandbox now? */
  overLimit(): boolean {
    if (this.killed) return true;
    const now = performance.now();
    if (now >= this.#deadline) this.kill('timeout');
    else if (this.#cpuMs + (this.#sliceStart ? now - this.#sliceStart : 0) > this.#limits.cpuMs) this.kill('cpu');
    return this.killed !== undefined;
  }

  /** Stops the cell (the first reason wins): in-flight capability calls are aborted. */
  kill(reason: Kill): void {
    if (this.killed) return;
    this.killed = reason;
    this.controller.abort(new Error(`cell stopped: ${reason}`));
    this.#stop('killed');
  }

  /** Forgets in-flight calls (their answers are dropped). */
  finish(): void {
    this.pending.clear();
  }

  outcome(end: CellEnd, error?: { name: string; message: string; stack?: string }): CellOutcome {
    return {
      end,
      ...(error ? { error } : {}),
      ...(end === 'exit' ? { exitCode: this.exitCode ?? 0 } : {}),
      stdout: this.stdout,
      stderr: this.stderr,
    };
  }
}
