/**
 * `@media-agent/sdk/operations`: running an agent host as a process — SIGTERM and SIGINT wired to a clean drain
 * (`host.stop({ drainMs })`), and the drain's default.
 *
 * @remarks
 * `host.stop({ drainMs })` itself and its `StopOptions` / `DrainSummary` are in the root entry; this entry is for
 * the process around the host (a NAS service, a docker container). See docs/operations.md.
 *
 * @example
 * ```ts
 * import { createAgentHost } from '@media-agent/sdk';
 * import { stopOnSignals } from '@media-agent/sdk/operations';
 *
 * const host = createAgentHost({});
 * await host.start();
 * // docker stop waits 10 s before SIGKILL: drain for 8 s.
 * const unsubscribe = stopOnSignals(host, { drainMs: 8_000 });
 * ```
 *
 * @packageDocumentation
 */
export { DEFAULT_DRAIN_MS } from './runtime/drain-options';
export { stopOnSignals, type StopOnSignalsOptions, type StoppableHost } from './runtime/stop-on-signals';
