// Real stores for the run event bus tests, closed and deleted after each test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { StorageAdapter } from '../../src/ports/storage-adapter';
import { SqliteStorage } from '../../src/sqlite';
import { MemoryStorage } from '../../src/storage';

/** The store kinds every event test runs on. */
export type EventStoreKind = 'memory' | 'sqlite';

const dirs: string[] = [];
const open: StorageAdapter[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close?.().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * A fresh store of `kind`, and `other`: for SQLite a second adapter on the same file (another process's view), for
 * memory the same store.
 */
export async function eventStores(kind: EventStoreKind): Promise<{ storage: StorageAdapter; other: StorageAdapter }> {
  if (kind === 'memory') {
    const storage = new MemoryStorage();
    return { storage, other: storage };
  }
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-events-'));
  dirs.push(dir);
  const storage = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
  await storage.migrate();
  const other = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
  open.push(storage, other);
  return { storage, other };
}
