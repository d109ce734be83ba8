import type { StorageAdapter } from '../storage/storage-adapter';
import { parseActor } from './actor';
import { AUTOMATION_SETTINGS_KEY, readAutomationSettings } from './automation-settings';
import type { AutomationSettings } from './decide';
import { AdministrationForbiddenError } from './errors';

/**
 * The global automation switch and read-only reconcile mode (DESIGN.md §5): while the switch is off
 * or the mode is on, every automatic `execute` is denied.
 * @public
 */
export class AutomationService {
  /** @param storage - where settings live */
  constructor(private readonly storage: StorageAdapter) {}

  /** The current settings (defaults: enabled, not read-only). */
  get(): Promise<AutomationSettings> {
    return this.storage.transaction((s) => readAutomationSettings(s));
  }

  /**
   * Changes the settings.
   * @throws `ADMIN_FORBIDDEN` unless `actor` is `user:*`
   */
  async set(patch: Partial<AutomationSettings>, actor: string): Promise<AutomationSettings> {
    if (parseActor(actor).kind !== 'user') throw new AdministrationForbiddenError(actor, 'change automation settings');
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
