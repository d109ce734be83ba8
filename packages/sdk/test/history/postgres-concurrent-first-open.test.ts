// Many host processes migrate one new PostgreSQL history schema at the same instant: concurrent
// CREATE ... IF NOT EXISTS in one schema races on the catalogs' unique indexes (psycopg/psycopg2#1036,
// MaterializeInc/materialize#12560: "duplicate key value violates unique constraint pg_type_typname_nsp_index"),
// so the whole creation runs under the schema's advisory lock and every process archives its messages.
import { afterAll, expect, it } from 'vitest';
import { raceFirstOpens } from '../storage/first-open-race';
import {
  PG_URL,
  adminPool,
  closeAdmin,
  describePostgres,
  dropSchema,
  freshSchemaName,
} from '../storage/postgres-available';

const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas) await dropSchema(s);
  await closeAdmin();
});

describePostgres('PostgresHistoryStore: concurrent first opens of one new schema', () => {
  it('8 processes migrate the same new schema at once, 20 rounds: none fails, no message is lost (psycopg/psycopg2#1036)', async () => {
    const report = await raceFirstOpens({
      kind: 'pg-history',
      processes: 8,
      rounds: 20,
      perChild: 5,
      pgUrl: PG_URL,
      target: () => {
        const schema = freshSchemaName('ma_hist_race');
        schemas.push(schema);
        return schema;
      },
      stored: async (schema) =>
        Number((await adminPool().query(`SELECT count(*) AS n FROM ${schema}.history_messages`)).rows[0].n),
    });
    expect(report.failures).toEqual([]);
    expect(report.shortRounds).toEqual([]);
    // Every process saw the same trigram support (a lost CREATE EXTENSION race is not "no pg_trgm").
    expect(new Set(report.outcomes.flat().map((o) => o.trigram)).size).toBe(1);
  }, 240_000);
});
