// What a stream translator did not understand: reported once per distinct shape per stream as a
// `PROVIDER_DELTA_UNKNOWN` warning, never dropped silently. Shared by both translators.
import type { ModelEvent } from './types';

/**
 * Reports shapes a translator ignores, once per shape per response.
 * @internal
 */
export class UnknownShapes {
  readonly #seen = new Set<string>();

  /** @param provider - provider id, named in the warning */
  constructor(private readonly provider: string) {}

  /**
   * Pushes a `PROVIDER_DELTA_UNKNOWN` warning the first time `shape` is seen in this response.
   * @param out - the translator's output
   * @param shape - a key identifying the shape (e.g. `delta:citations_delta`)
   * @param what - what was ignored, for the message
   * @param details - structured facts (field, type, keys)
   */
  report(out: ModelEvent[], shape: string, what: string, details: Record<string, unknown>): void {
    if (this.#seen.has(shape)) return;
    this.#seen.add(shape);
    out.push({
      type: 'warning',
      warning: {
        code: 'PROVIDER_DELTA_UNKNOWN',
        message: `${this.provider}: ignored ${what}, which this translator does not understand`,
        details: { provider: this.provider, ...details },
      },
    });
  }
}
