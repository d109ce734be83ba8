import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { createSqliteStorage } from '../../src/sqlite';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { describeStorageConformance } from '../../src/testing/index';

describeStorageConformance('memory', async () => ({ storage: new MemoryStorage() }), { describe, it });

describeStorageConformance(
  'sqlite (temp file, WAL)',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-conformance-'));
    return {
      storage: createSqliteStorage({ path: join(dir, 'store.sqlite') }),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  { describe, it },
);

describeStorageConformance('sqlite (:memory:)', async () => ({ storage: createSqliteStorage({ path: ':memory:' }) }), {
  describe,
  it,
});
