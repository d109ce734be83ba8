/**
 * Intents across processes on PostgreSQL: two adapters (two pools, so two connections, as two host processes
 * have) acquire the same key at the same instant and end with one holder.
 */
import { afterAll, expect, it } from 'vitest';
import { intentKey, type IntentRecord } from '../../src/core/intent-records';
import { closeAdmin, describePostgres, dropSchema, freshSchemaName, pgStorage } from '../storage/postgres-available';

afterAll(closeAdmin);

describePostgres('intents on PostgreSQL across connections', () => {
  it('two connections acquiring one key concurrently (in transactions, as the invocation path does) end with one holder, and each sees it', async () => {
    const schema = freshSchemaName('ma_intents');
    const a = pgStorage(schema);
    const b = pgStorage(schema);
    try {
      await a.migrate();
      await b.migrate();
      const T = 1_700_000_000_000;
      const record = (runId: string, actor: string): IntentRecord => ({
        key: intentKey('tmdb:693134', 'download'),
        mediaEntityId: 'tmdb:693134',
        effectClass: 'download',
        holderRunId: runId,
        holderActor: actor,
        capabilityId: 'download.plan',
        planId: null,
        createdAt: T,
        expiresAt: T + 3_600_000,
      });
      for (let round = 0; round < 5; round++) {
        const key = intentKey(`tmdb:${round}`, 'download');
        const [x, y] = await Promise.all([
          a.transaction((s) => s.intents.acquire({ ...record(`run-a${round}`, 'user:alice'), key }, T)),
          b.transaction((s) => s.intents.acquire({ ...record(`run-b${round}`, 'user:bob'), key }, T)),
        ]);
        expect(x).toEqual(y);
        expect(await a.intents.get(key)).toEqual(x);
        expect([`run-a${round}`, `run-b${round}`]).toContain(x.holderRunId);
      }
    } finally {
      await a.close();
      await b.close();
      await dropSchema(schema);
    }
  });
});
