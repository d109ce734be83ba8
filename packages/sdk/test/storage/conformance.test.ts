import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { createSqliteStorage } from '../../src/sqlite';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { describeStorageConformance } from '../../src/testing/index';
import { closeAdmin, dropSchema, freshSchemaName, pgStorage, postgresTestApi } from './postgres-available';

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

// PostgreSQL: each case gets a schema of its own on the test server (MEDIA_AGENT_PG_URL), dropped afterwards.
describeStorageConformance(
  'postgres (fresh schema per case)',
  async () => {
    const schema = freshSchemaName('ma_conformance');
    return { storage: pgStorage(schema), cleanup: () => dropSchema(schema) };
  },
  postgresTestApi,
);
afterAll(closeAdmin);
