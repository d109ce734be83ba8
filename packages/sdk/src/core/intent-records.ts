/**
 * The stored record of an intent: who is doing one kind of effect to one media entity (docs/intents.md).
 * @packageDocumentation
 */

/**
 * One intent in flight: the holder (a run, or a caller outside runs) doing effect class `effectClass` (e.g.
 * `download`, `organize`) to media entity `mediaEntityId`. At most one per key in a store: a second caller with the
 * same key joins the holder instead of starting a second job (docs/intents.md).
 * @public
 */
export interface IntentRecord {
  /** `<mediaEntityId>|<effectClass>` (see {@link intentKey}); unique in the store. */
  key: string;
  /** The media entity, e.g. `tmdb:438631`. */
  mediaEntityId: string;
  /** The effect class the capability declares (`CapabilityDefinition.intent.effectClass`), e.g. `download`. */
  effectClass: string;
  /** The run holding it, or null for a caller outside runs (a person's direct `host.invoke`). */
  holderRunId: string | null;
  /** The actor the holder acts for: the run's owner (`user:alice`), or the direct caller. */
  holderActor: string;
  /** The capability whose call acquired (or last refreshed) it, e.g. `download.plan`. */
  capabilityId: string;
  /** The plan of the job, once known (the plan a `download.plan` created or a `download.submit` executes), else null. */
  planId: string | null;
  /** When it was acquired (ms since the epoch). */
  createdAt: number;
  /** When it lapses unless refreshed (ms since the epoch); a row with `expiresAt <= now` may be taken over. */
  expiresAt: number;
}

/**
 * The key of the intent of effect class `effectClass` on media entity `mediaEntityId`.
 * @example
 * ```ts
 * intentKey('tmdb:438631', 'download'); // 'tmdb:438631|download'
 * ```
 * @public
 */
export function intentKey(mediaEntityId: string, effectClass: string): string {
  return `${mediaEntityId}|${effectClass}`;
}
