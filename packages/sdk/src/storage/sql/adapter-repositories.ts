import type { StorageSession } from '../../ports/storage-adapter';
import { REPOSITORY_NAMES } from '../repository-methods';
import type { SessionStatements } from './session-statements';

/**
 * The repositories a SQL adapter exposes itself, outside `transaction(fn)`: for every method of every repository
 * of `statements` (their names only), the function `bind` makes for it — one call on the adapter, run by the
 * adapter's own rules (a read or a write, queued with its transactions).
 * @internal
 */
export function adapterRepositories(
  statements: SessionStatements,
  bind: (name: keyof StorageSession, method: string) => (...args: unknown[]) => Promise<unknown>,
): StorageSession {
  const repositories: Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>> = {};
  for (const name of REPOSITORY_NAMES) {
    const methods: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
    for (const method of Object.keys(statements[name])) methods[method] = bind(name, method);
    repositories[name] = methods;
  }
  return repositories as unknown as StorageSession;
}
