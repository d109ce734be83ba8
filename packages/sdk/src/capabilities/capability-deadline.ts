// The deadline of one capability call: how long its handler may run, and what a call past it becomes.
// Pure rules; the invocation path (invocation-pipeline.ts) keeps the timer.
import type { CapabilityKind, ReplayPolicy } from '../core/capability-descriptor';

/**
 * The host's default handler deadline, in ms: 120 000 (2 min). Long enough for a media server or download
 * client on a busy home machine (a library scan answer, a slow NAS), short enough that a hung call does not
 * hold a run (and its lease) for long. Override per capability with `defineCapability({ timeoutMs })`, per host
 * with `createAgentHost({ capabilityTimeoutMs })`.
 * @public
 */
export const DEFAULT_CAPABILITY_TIMEOUT_MS = 120_000;

/**
 * The deadline of a capability's calls: its own `timeoutMs` when it is a positive finite number (as
 * `defineCapability` checks), else the host's.
 * @param capability - the capability's `timeoutMs`
 * @param hostDefault - the host's `capabilityTimeoutMs` (default {@link DEFAULT_CAPABILITY_TIMEOUT_MS})
 * @returns the deadline in ms
 * @internal
 */
export function capabilityDeadlineMs(
  capability: { timeoutMs?: number | undefined },
  hostDefault: number = DEFAULT_CAPABILITY_TIMEOUT_MS,
): number {
  const own = capability.timeoutMs;
  return typeof own === 'number' && Number.isFinite(own) && own > 0 ? own : hostDefault;
}

/**
 * What a call whose handler ran past its deadline becomes: `failed` when running it again is harmless (a
 * `read` or `preview`, or a side-effecting call whose replay policy is `safe`), else `unknown` (the effect may
 * have happened: only a verifier may settle it, the call is never run again blindly).
 * @param kind - the capability's kind
 * @param replay - its replay policy
 * @internal
 */
export function timedOutState(kind: CapabilityKind, replay: ReplayPolicy): 'failed' | 'unknown' {
  return kind === 'read' || kind === 'preview' || replay === 'safe' ? 'failed' : 'unknown';
}
