/**
 * The fault switches both MoviePilot host simulators (`MoviePilotV2Simulator`, `MoviePilotV3Simulator`)
 * expose as `sim.faults`: change them at any time. An operation is named as the simulator's adapter
 * names it — on 2.x `METHOD /path-template` (e.g. `POST /api/v1/download/`) or an id of `V2_OPERATIONS`
 * (`download.add`), on 3.x a catalog operation id (`download.add`).
 * @public
 */
export interface HostSimulatorFaults {
  /** Operations whose next request is executed, then the connection is destroyed without an answer (accept then drop). One entry, one request. */
  dropAfterAccept: string[];
  /** Operations whose next request is answered HTTP 500 before anything happens. One entry, one request. */
  fail5xx: string[];
  /** Real-time delay (ms) before the host answers a resource search. */
  slowSearchMs: number;
  /** The host cannot reach TMDB (its metadata source), as a host offline from it: lookups find nothing, its network test fails. */
  metadataUnreachable: boolean;
  /** The host has no usable indexer site: a resource search finds nothing on it, whatever the title. */
  noIndexerSites: boolean;
}

/**
 * All faults off.
 * @param overrides - switches to set at once
 * @returns a new {@link HostSimulatorFaults}
 * @public
 */
export function hostSimulatorFaults(overrides: Partial<HostSimulatorFaults> = {}): HostSimulatorFaults {
  // A switch given as `undefined` keeps its default; the lists are copies, never the caller's.
  const given = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return {
    slowSearchMs: 0,
    metadataUnreachable: false,
    noIndexerSites: false,
    ...given,
    dropAfterAccept: [...(overrides.dropAfterAccept ?? [])],
    fail5xx: [...(overrides.fail5xx ?? [])],
  };
}

/**
 * Takes one entry of a one-shot fault list that names the request, if any.
 * @param list - a one-shot list of `HostSimulatorFaults` (changed in place)
 * @param names - every name of the request's operation
 * @returns whether an entry was taken (the fault applies to this request)
 * @public
 */
export function takeFault(list: string[], names: readonly string[]): boolean {
  const at = list.findIndex((entry) => names.includes(entry));
  if (at < 0) return false;
  list.splice(at, 1);
  return true;
}
