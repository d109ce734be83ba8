import type { StorageAdapter } from '../ports/storage-adapter';
import { DEFAULT_IDENTITY_RESOLVER, type IdentityResolver } from '../ports/identity';
import { requireAdministrator } from './roles';
import { parseActor } from '../core/actor';
import { AUTOMATION_SETTINGS_KEY, readAutomationSettings } from './automation-settings';
import type { AutomationSettings } from './evaluate';
import { AdministrationForbiddenError, InvalidRequestError } from './errors';

/**
 * The global automation switch and read-only reconcile mode: while the switch is off
 * or the mode is on, every automatic `execute` is denied.
 * @public
 */
export class AutomationService {
  /**
   * @param storage - where settings live
   * @param identity - who is an administrator (default: every `user:*` actor, {@link DEFAULT_IDENTITY_RESOLVER})
   */
  constructor(
    private readonly storage: StorageAdapter,
    private readonly identity: IdentityResolver = DEFAULT_IDENTITY_RESOLVER,
  ) {}

  /** The current settings (defaults: enabled, not read-only). */
  get(): Promise<AutomationSettings> {
    return this.storage.transaction((s) => readAutomationSettings(s));
  }

  /**
   * Changes the settings.
   * @throws `ADMIN_FORBIDDEN` unless `actor` is an administrator (`user:*` with role `admin`); `REQUEST_INVALID` for an unknown setting or a value that is not a boolean
   */
  async set(patch: Partial<AutomationSettings>, actor: string): Promise<AutomationSettings> {
    await requireAdministrator(this.identity, actor, 'change automation settings');
    const unknown = Object.keys(patch ?? {}).filter((k) => k !== 'automationEnabled' && k !== 'readOnlyReconcile');
    if (unknown.length > 0) throw new InvalidRequestError(`unknown automation settings: ${unknown.join(', ')}`);
    for (const [name, value] of Object.entries(patch)) {
      // A switch that is not a real boolean would fail open ('false' is truthy): refuse it.
      if (value !== undefined && typeof value !== 'boolean')
        throw new InvalidRequestError(`automation setting ${name} must be true or false`);
    }
    return this.storage.transaction(async (s) => {
      const current = await readAutomationSettings(s);
      const next: AutomationSettings = {
        automationEnabled: patch.automationEnabled ?? current.automationEnabled,
        readOnlyReconcile: patch.readOnlyReconcile ?? current.readOnlyReconcile,
      };
      await s.settings.set(AUTOMATION_SETTINGS_KEY, { ...next });
      return next;
    });
  }
}
