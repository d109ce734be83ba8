import type { StorageSession } from '../ports/storage-adapter';
import type { AutomationSettings } from './evaluate';

/** Settings key under which {@link AutomationSettings} are stored. @internal */
export const AUTOMATION_SETTINGS_KEY = 'automation';

/** Defaults: automation on, read-only reconcile off. @public */
export const DEFAULT_AUTOMATION_SETTINGS: Readonly<AutomationSettings> = Object.freeze({
  automationEnabled: true,
  readOnlyReconcile: false,
});

/** Reads the automation settings from storage, with defaults for missing fields. @internal */
export async function readAutomationSettings(session: StorageSession): Promise<AutomationSettings> {
  const stored = (await session.settings.get(AUTOMATION_SETTINGS_KEY)) as Partial<AutomationSettings> | undefined;
  return { ...DEFAULT_AUTOMATION_SETTINGS, ...(stored && typeof stored === 'object' ? stored : {}) };
}
