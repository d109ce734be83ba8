// Kernels by owner (run + actor + enabled capability set): reuse, LRU eviction of idle ones, expiry.
import type { Clock } from '../../ports/clock';
import type { ResolvedCodeExecutionOptions } from './code-options';
import { Kernel } from './kernel';
import { loadSandbox } from './sandbox-loader';

/**
 * Why a kernel's state is gone: `reset`, `exit`, `script_timeout`, `cpu_limit`, `memory_limit`,
 * `cancelled` (ended by a cell), `evicted`, `expired`, `owner_changed`, `owner_closed` (since the last cell).
 * @public
 */
export type KernelLossReason =
  | 'reset'
  | 'exit'
  | 'script_timeout'
  | 'cpu_limit'
  | 'memory_limit'
  | 'cancelled'
  | 'evicted'
  | 'expired'
  | 'owner_changed'
  | 'owner_closed';

/** A kernel handed to one cell. */
export interface KernelLease {
  /** The kernel (running until {@link KernelPool.release}). */
  kernel: Kernel;
  /** True when the kernel already ran a cell for this owner. */
  reused: boolean;
  /** True when `reset` destroyed this owner's kernel before the cell. */
  stateReset: boolean;
  /** Set when this owner's earlier state is gone for another reason than `reset` (evicted, expired, stopped …). */
  lost: KernelLossReason | undefined;
}

/** The key of a kernel's owner: the run, its actor and the sorted enabled capability ids. */
export function ownerKey(runId: string, actor: string, enabled: readonly string[]): string {
  return JSON.stringify([runId, actor, [...enabled].sort()]);
}

/**
 * The kernels of this host. A kernel belongs to one owner (run + actor + enabled capability set) and
 * is never used by another. Idle kernels are kept up to `maxIdleKernels` (least recently used
 * destroyed first) and destroyed after `idleTtlMs` idle; a kernel running a cell is never evicted,
 * so with many cells at once there can briefly be more.
 */
export class KernelPool {
  readonly #options: ResolvedCodeExecutionOptions;
  readonly #clock: Clock;
  readonly #kernels = new Map<string, { kernel: Kernel; runId: string }>();
  /** Owners whose kernel was destroyed for a reason they have not been told yet. */
  readonly #lost = new Map<string, KernelLossReason>();
  #next = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  /** @param options - resolved options; @param clock - time of idle expiry */
  constructor(options: ResolvedCodeExecutionOptions, clock: Clock) {
    this.#options = options;
    this.#clock = clock;
  }

  /**
   * The kernel of an owner, started if it has none (or `reset` asked for a new one). Marks it running.
   * @param owner - {@link ownerKey}
   * @param runId - the run (closing it destroys the kernel)
   * @param reset - destroy the owner's kernel first
   * @throws `CODE_SANDBOX_UNAVAILABLE` when the sandbox cannot load
   */
  async acquire(owner: string, runId: string, reset: boolean): Promise<KernelLease> {
    this.sweep();
    let lost = this.#lost.get(owner);
    this.#lost.delete(owner);
    let stateReset = false;
    for (const [key, entry] of this.#kernels) {
      if (entry.runId !== runId || key === owner || entry.kernel.running) continue;
      // The run's actor or enabled capabilities changed: the old state is not this owner's.
      this.#destroy(key, 'owner_changed', false);
      lost = 'owner_changed';
    }
    const existing = this.#kernels.get(owner);
    if (existing && reset && !existing.kernel.running) {
      this.#destroy(owner, 'reset', false);
      stateReset = true;
    }
    const current = this.#kernels.get(owner);
    if (current && !current.kernel.running) {
      current.kernel.running = true;
      return { kernel: current.kernel, reused: true, stateReset, lost: undefined };
    }
    const sandbox = await loadSandbox();
    const kernel = await Kernel.start(sandbox, `k_${++this.#next}`, this.#options.memoryBytes, this.#clock.now());
    kernel.running = true;
    if (!current) this.#kernels.set(owner, { kernel, runId });
    this.#ensureTimer();
    return { kernel, reused: false, stateReset: stateReset || (reset && !!existing), lost };
  }

  /**
   * A cell ended. A kernel that must not live on (an exit, a limit, a cancel) is destroyed and its
   * owner told next time; otherwise it becomes idle, and idle kernels over the limit are evicted.
   * @param owner - the owner key
   * @param kernel - the kernel the cell ran in
   * @param lost - why its state is gone, when it is
   */
  release(owner: string, kernel: Kernel, lost?: KernelLossReason): void {
    kernel.running = false;
    kernel.lastUsedAt = this.#clock.now();
    const entry = this.#kernels.get(owner);
    if (lost) {
      if (entry?.kernel === kernel) this.#kernels.delete(owner);
      kernel.destroy();
    } else if (entry?.kernel !== kernel) {
      kernel.destroy(); // a second kernel of a busy owner: used once
    } else {
      // Map order is recency order: the most recently used last.
      this.#kernels.delete(owner);
      this.#kernels.set(owner, entry);
    }
    this.#evict();
  }

  /**
   * Destroys expired idle kernels (idle longer than `idleTtlMs`), then evicts idle ones over the limit.
   * Runs on a timer and before every cell.
   */
  sweep(): void {
    const now = this.#clock.now();
    for (const [key, { kernel }] of this.#kernels)
      if (!kernel.running && now - kernel.lastUsedAt > this.#options.idleTtlMs) this.#destroy(key, 'expired', true);
    this.#evict();
  }

  /**
   * Destroys every kernel of a run (the run ended): a running cell is stopped.
   * @param runId - the run
   * @returns how many kernels were destroyed
   */
  closeRun(runId: string): number {
    let n = 0;
    for (const [key, entry] of this.#kernels)
      if (entry.runId === runId) {
        this.#destroy(key, 'owner_closed', false);
        n++;
      }
    for (const key of this.#lost.keys()) if ((JSON.parse(key) as string[])[0] === runId) this.#lost.delete(key);
    return n;
  }

  /** Destroys every kernel (the host stops). */
  closeAll(): void {
    for (const key of [...this.#kernels.keys()]) this.#destroy(key, 'owner_closed', false);
    this.#lost.clear();
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Kernels alive now, and how many of them run a cell. */
  stats(): { kernels: number; running: number } {
    let running = 0;
    for (const { kernel } of this.#kernels.values()) if (kernel.running) running++;
    return { kernels: this.#kernels.size, running };
  }

  #evict(): void {
    const idle = [...this.#kernels.entries()].filter(([, e]) => !e.kernel.running);
    while (idle.length > this.#options.maxIdleKernels) {
      const [key] = idle.shift()!;
      this.#destroy(key, 'evicted', true);
    }
    if (this.#kernels.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #destroy(key: string, reason: KernelLossReason, remember: boolean): void {
    const entry = this.#kernels.get(key);
    if (!entry) return;
    this.#kernels.delete(key);
    entry.kernel.destroy();
    if (remember) this.#lost.set(key, reason);
  }

  #ensureTimer(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.sweep(), Math.min(60_000, this.#options.idleTtlMs));
    this.#timer.unref?.();
  }
}
