// Running a capability's `impact(input, ctx)`: a read with a deadline, whose failures only make the impact unknown
// (docs/approvals.md#impact). Never authorizes, never touches the ledger.
import type { Impact, ImpactReport, ImpactUnknownCode } from '../core/impact';
import { ImpactSchema } from '../core/impact';
import { describeImpact } from '../core/impact-text';
import type { PlanRecord } from '../core/records';
import type { Actor } from '../core/actor';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import { compileSchema } from './schema-validator';
import type { Capability } from './types';

/** Default deadline of an `impact` function, in ms: 3 000. @public */
export const DEFAULT_IMPACT_TIMEOUT_MS = 3_000;

/** What {@link computeImpact} needs besides the capability and input. @internal */
export interface ImpactRun {
  actor: Actor;
  runId: string | undefined;
  plan: PlanRecord | undefined;
  clock: Clock;
  logger: Logger;
  /** Deadline in ms (default {@link DEFAULT_IMPACT_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Aborts the impact early (the caller gave up). */
  signal?: AbortSignal;
}

/** An unknown impact, with the summary people read. */
export function unknownImpact(code: ImpactUnknownCode, reason: string): ImpactReport {
  return { status: 'unknown', code, reason: reason.slice(0, 500), summary: `impact unknown: ${reason.slice(0, 200)}` };
}

/** A known impact with its one-line summary. */
export function knownImpact(impact: Impact): ImpactReport {
  return { status: 'known', impact, summary: describeImpact(impact) };
}

/**
 * The impact of `input` for `capability`: `known` with its summary, or `unknown` with why (not declared, threw,
 * timed out, or returned something that is not an {@link Impact}). Never throws.
 * @internal
 */
export async function computeImpact(capability: Capability, input: unknown, run: ImpactRun): Promise<ImpactReport> {
  const fn = capability.impact;
  if (fn === undefined) return unknownImpact('IMPACT_NOT_DECLARED', `${capability.id} declares no impact`);
  const timeoutMs = run.timeoutMs ?? DEFAULT_IMPACT_TIMEOUT_MS;
  const controller = new AbortController();
  const onAbort = () => controller.abort(run.signal?.reason);
  run.signal?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`impact of ${capability.id} timed out after ${timeoutMs} ms`));
      resolve('timeout');
    }, timeoutMs);
    timer.unref?.();
  });
  try {
    const answer = await Promise.race([
      Promise.resolve().then(() =>
        fn(input as never, {
          actor: run.actor,
          runId: run.runId,
          plan: run.plan,
          signal: controller.signal,
          clock: run.clock,
          logger: run.logger,
        }),
      ),
      timedOut,
    ]);
    if (answer === 'timeout')
      return unknownImpact('IMPACT_TIMEOUT', `${capability.id}: impact took longer than ${timeoutMs} ms`);
    const check = compileSchema(ImpactSchema);
    if (!check.check(answer)) {
      const issue = check.issues(answer)[0];
      return unknownImpact(
        'IMPACT_INVALID',
        `${capability.id}: impact returned no impact record (${issue ? `${issue.path || '/'}: ${issue.message}` : 'not an object'})`,
      );
    }
    return knownImpact(structuredClone(answer) as Impact);
  } catch (error) {
    const message = thrownMessage(error);
    run.logger.warn('a capability impact failed; the impact is unknown', { capabilityId: capability.id, message });
    return unknownImpact('IMPACT_FAILED', `${capability.id}: impact failed: ${message}`);
  } finally {
    clearTimeout(timer);
    run.signal?.removeEventListener('abort', onAbort);
  }
}

/** What was thrown, as text, whatever it is (an object without a prototype, a `toString` that throws …). */
export function thrownMessage(error: unknown): string {
  try {
    if (error instanceof Error && typeof error.message === 'string') return error.message.slice(0, 2000);
    if (typeof error === 'string') return error.slice(0, 2000);
    const json = JSON.stringify(error);
    return typeof json === 'string' ? json.slice(0, 2000) : typeof error;
  } catch {
    return `a thrown ${typeof error} that has no text`;
  }
}
