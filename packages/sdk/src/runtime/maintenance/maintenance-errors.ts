import { MediaAgentError } from '../../core/errors';

/**
 * A prune was refused because another one runs (`MAINTENANCE_BUSY`): of this host, or of another host (in this
 * process or another one) that holds the store's `maintenance` lease. Nothing was removed by this call.
 * @public
 */
export class MaintenanceBusyError extends MediaAgentError {
  /** @param where - `process` (another prune of this host) or `lease` (another host or process holds the lease) */
  constructor(where: 'process' | 'lease') {
    super(
      'MAINTENANCE_BUSY',
      where === 'process'
        ? 'a prune of this host is already running; wait for it to end'
        : 'another host or process holds the maintenance lease of this store (its prune is running); try again later',
      { where },
    );
  }
}
