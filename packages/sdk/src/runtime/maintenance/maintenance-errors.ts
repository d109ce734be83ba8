import { MediaAgentError } from '../../core/errors';

/**
 * A prune was refused because another one runs (`MAINTENANCE_BUSY`): in this process, or in another process that
 * holds the store's `maintenance` lease. Nothing was removed by this call.
 * @public
 */
export class MaintenanceBusyError extends MediaAgentError {
  /** @param where - `process` (another prune of this host) or `lease` (another process holds the lease) */
  constructor(where: 'process' | 'lease') {
    super(
      'MAINTENANCE_BUSY',
      where === 'process'
        ? 'a prune is already running in this process; wait for it to end'
        : 'another process holds the maintenance lease of this store (its prune is running); try again later',
      { where },
    );
  }
}
