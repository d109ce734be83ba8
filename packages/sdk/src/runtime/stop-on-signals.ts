// The SIGTERM wiring of a host process: a signal drains the host (host.stop({ drainMs })), then the process exits.
import { MediaAgentError } from '../core/errors';
import { resolveDrainMs, type DrainSummary, type StopOptions } from './drain-options';

/** Options of {@link stopOnSignals}. @public */
export interface StopOnSignalsOptions {
  /**
   * ms the steps in flight may run on (`host.stop({ drainMs })`; default `DEFAULT_DRAIN_MS`, 10 000). Keep it
   * below the supervisor's grace: `docker stop` waits 10 s before SIGKILL, so 8 000 there.
   */
  drainMs?: number;
  /** The signals that stop the host (default `['SIGTERM', 'SIGINT']`); a second one aborts the steps in flight at once. */
  signals?: readonly NodeJS.Signals[];
  /**
   * After the stop: `true` (default) exits the process (code 0, or 1 when the stop failed); `false` leaves the
   * process to end by itself (close your own servers in `onStopped`).
   */
  exit?: boolean;
  /** Called once the host stopped, with what the drain did (or the error the stop failed with). */
  onStopped?: (summary: DrainSummary | undefined, error?: unknown) => void | Promise<void>;
}

/** What {@link stopOnSignals} needs of a host: its `stop`. @public */
export interface StoppableHost {
  /** `AgentHost.stop`. */
  stop(options?: StopOptions): Promise<void>;
}

/**
 * Wires a host process's shutdown signals to a clean drain: the first signal calls `host.stop({ drainMs })`
 * (no run is taken any more; the steps in flight finish within `drainMs` and commit; every other run is released
 * at its step boundary, so the next process picks it up at once), then `onStopped`, then (by default) exits the
 * process with code 0. A second signal while draining cuts the drain short (`drainMs: 0`: the steps in flight are
 * aborted and end at once, even a handler that ignores its signal; their effects become `unknown`). See docs/operations.md for the docker set-up.
 *
 * @example
 * ```ts
 * const host = createAgentHost({ ... });
 * await host.start();
 * stopOnSignals(host, { drainMs: 8_000 }); // docker stop: 10 s grace before SIGKILL
 * ```
 * @param host - the host to stop
 * @param options - drain time, signals, exit, a callback with the drain's summary
 * @returns removes the signal listeners (the process's default handling of those signals comes back)
 * @throws `OPTIONS_INVALID` for a `drainMs` that is not a finite number `>= 0` (`stopOnSignals.drainMs`), or
 *   `signals` that is not a non-empty array of signal names (`stopOnSignals.signals`)
 */
export function stopOnSignals(host: StoppableHost, options: StopOnSignalsOptions = {}): () => void {
  let drainMs: number;
  try {
    drainMs = resolveDrainMs({ drainMs: options.drainMs });
  } catch (error) {
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      (error as Error).message.replace('stop.drainMs', 'stopOnSignals.drainMs'),
      {
        option: 'stopOnSignals.drainMs',
      },
    );
  }
  const signals = options.signals ?? (['SIGTERM', 'SIGINT'] as const);
  if (
    !Array.isArray(signals) ||
    signals.length === 0 ||
    !signals.every((s) => typeof s === 'string' && /^SIG[A-Z0-9]+$/.test(s))
  )
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      'option stopOnSignals.signals must be a non-empty array of signal names such as ["SIGTERM"]',
      {
        option: 'stopOnSignals.signals',
      },
    );
  let stopping = false;
  const onSignal = (): void => {
    if (stopping) {
      // A second signal: the steps still in flight are aborted now.
      void host.stop({ drainMs: 0 }).catch(() => undefined);
      return;
    }
    stopping = true;
    let summary: DrainSummary | undefined;
    void host.stop({ drainMs, onDrained: (s) => (summary = s) }).then(
      async () => {
        await Promise.resolve(options.onStopped?.(summary)).catch(() => undefined);
        if (options.exit !== false) process.exit(0);
      },
      async (error: unknown) => {
        await Promise.resolve(options.onStopped?.(undefined, error)).catch(() => undefined);
        if (options.exit !== false) process.exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
