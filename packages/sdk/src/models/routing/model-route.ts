// A fallback chain as the runtime uses it: the entries (provider instance, model id, per-entry settings) and the
// host-wide cool-downs, moved by the host's clock (docs/providers.md#fallback-chains).
import type { Clock } from '../../ports/clock';
import type { ModelProvider, ThinkingLevel } from '../types';
import {
  afterFailure,
  afterSuccess,
  type CoolingUntil,
  DEFAULT_FALLBACK_COOLDOWN_MS,
  firstEntry,
  freshRoute,
  nextEntry,
  type RunRoute,
  stickyEntry,
} from './route-state';

/**
 * One entry of a fallback chain as built: the primary is entry 0.
 * @internal
 */
export interface RouteEntry {
  /** The provider (built from its configuration, behind the host's redaction). */
  provider: ModelProvider;
  /** Model id sent to it. */
  model: string;
  /** Output limit of its calls, in tokens (the provider's default when undefined). */
  maxTokens: number | undefined;
  /** Reasoning effort of its calls (`off` when undefined). */
  thinking: ThinkingLevel | undefined;
}

/** `<provider id>/<model>`: the key of an entry in `RunUsage.byModel` and in `model_fallback` events. @internal */
export function entryKey(entry: Pick<RouteEntry, 'provider' | 'model'>): string {
  return `${entry.provider.id}/${entry.model}`;
}

/**
 * The fallback chain of a host: its entries and which of them are cooling down after a failure (shared by every
 * run of the host process).
 * @internal
 */
export class ModelRoute {
  #cooling: CoolingUntil;

  /**
   * @param entries - the primary, then the fallbacks in order (at least one)
   * @param clock - the host's clock (cool-downs are measured on it)
   * @param cooldownMs - how long a failed entry is skipped, in ms (default 60 000)
   */
  constructor(
    readonly entries: readonly RouteEntry[],
    private readonly clock: Clock,
    readonly cooldownMs: number = DEFAULT_FALLBACK_COOLDOWN_MS,
  ) {
    this.#cooling = freshRoute(entries.length);
  }

  /** The entry a run's turn starts on (see `stickyEntry` and `firstEntry`). */
  first(run: RunRoute | undefined): number {
    const now = this.clock.now();
    return firstEntry(this.#cooling, stickyEntry(run, now, this.cooldownMs), now);
  }

  /** Entry `index` failed: it cools down; returns the entry to try next, or undefined when the chain is used up. */
  failed(index: number): number | undefined {
    const now = this.clock.now();
    this.#cooling = afterFailure(this.#cooling, index, now, this.cooldownMs);
    return nextEntry(this.#cooling, index, now);
  }

  /** Entry `index` answered. */
  answered(index: number): void {
    this.#cooling = afterSuccess(this.#cooling, index);
  }

  /** The host clock's time (ms). */
  now(): number {
    return this.clock.now();
  }
}
