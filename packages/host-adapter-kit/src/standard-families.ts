import type { StandardImplementations } from '@media-agent/sdk/media';

/**
 * One family of standard capabilities of an adapter (`catalog`, `release`, `download`, …): a function
 * of the adapter's services and shared helpers that returns its implementations by capability id.
 * @public
 */
export type StandardFamily<S, H> = (services: S, helpers: H) => Partial<StandardImplementations>;

/**
 * The standard capability implementations of an adapter, from its families (each in its own file).
 * @param services - the adapter's services of one host
 * @param helpers - the reads and checks the families share
 * @param families - the families; together they must implement every standard capability
 * @returns every implementation, by capability id
 * @public
 */
export function standardFromFamilies<S, H>(
  services: S,
  helpers: H,
  families: ReadonlyArray<StandardFamily<S, H>>,
): StandardImplementations {
  return Object.assign({}, ...families.map((family) => family(services, helpers))) as StandardImplementations;
}
