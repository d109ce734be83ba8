// Many host processes migrate PostgreSQL history schemas at the same instant. Concurrent
// CREATE ... IF NOT EXISTS races on the catalogs' unique indexes (psycopg/psycopg2#1036,
// MaterializeInc/materialize#12560: "duplicate key value violates unique constraint pg_type_typname_nsp_index"),
// so one schema's creation runs under its advisory lock; CREATE EXTENSION is database-wide, so schemas of
// their own still race on it (folio-org/raml-module-builder#1105: "duplicate key value violates unique
// constraint pg_extension_name_index" when two tenants were enabled at once) and it takes a lock of its own.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { FirstOpenWorkers } from '../storage/first-open-race';
import {
  PG_URL,
  adminPool,
  closeAdmin,
  describePostgres,
  dropSchema,
  freshSchemaName,
} from '../storage/postgres-available';

const schemas: string[] = [];
/** Messages each child archives per round (few: the race is in the migration, not in the writes). */
const PER_CHILD = 3;
/** Eight children, started once for both cases (starting a child takes seconds on a loaded machine). */
let workers: FirstOpenWorkers | undefined;
const raceWith = () => (workers ??= new FirstOpenWorkers('pg-history', 8, PER_CHILD));
afterAll(async () => {
  await workers?.close();
  for (const s of schemas) await dropSchema(s);
  await closeAdmin();
});

/** The URL of `database` on the test server. */
function urlOf(database: string): string {
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

describePostgres('PostgresHistoryStore: concurrent first opens', () => {
  it('8 processes migrate the same new schema at once, 6 rounds: none fails, no message is lost (psycopg/psycopg2#1036)', async () => {
    const report = await raceWith().race({
      // 6 rounds, not 20: the same race on the same harness (8 children at one barrier, a new target each round) as
      // history/concurrent-first-open.test.ts, which carries the 8 × 20 requirement; 6 rounds keep CI time down
      // and every round is still a fresh race: 8 first opens of a new target at one instant.
      rounds: 6,
      target: () => {
        const schema = freshSchemaName('ma_hist_race');
        schemas.push(schema);
        return JSON.stringify({ url: PG_URL, schema });
      },
      stored: async (target) => {
        const { schema } = JSON.parse(target) as { schema: string };
        return Number((await adminPool().query(`SELECT count(*) AS n FROM ${schema}.history_messages`)).rows[0].n);
      },
    });
    expect(report.failures).toEqual([]);
    expect(report.shortRounds).toEqual([]);
    expect(report.outcomes.flat().every((o) => o.appended === PER_CHILD)).toBe(true);
  }, 240_000);

  it('8 processes migrate a schema each in a new database at once: every one gets the trigram index (folio-org/raml-module-builder#1105)', async () => {
    const databases: string[] = [];
    try {
      const report = await raceWith().race({
        rounds: 2,
        target: (round) => {
          const database = `ma_ext_race_${process.pid}_${round}_${randomBytes(3).toString('hex')}`;
          databases.push(database);
          return JSON.stringify({ url: urlOf(database), schema: 'history', own: true });
        },
        stored: async (target) => {
          const { url } = JSON.parse(target) as { url: string };
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          try {
            const parts = await client.query(
              "SELECT string_agg(format('SELECT count(*) FROM %I.history_messages', nspname), ' UNION ALL ') AS q FROM pg_namespace WHERE nspname LIKE 'history_w%'",
            );
            const counts = await client.query(`SELECT coalesce(sum(count), 0) AS n FROM (${parts.rows[0].q}) c`);
            return Number(counts.rows[0].n);
          } finally {
            await client.end();
          }
        },
        before: async (target) => {
          const { url } = JSON.parse(target) as { url: string };
          await adminPool().query(`CREATE DATABASE ${new URL(url).pathname.slice(1)}`);
        },
      });
      expect(report.failures).toEqual([]);
      expect(report.shortRounds).toEqual([]);
      // The server has pg_trgm: a process that lost the CREATE EXTENSION race must not conclude it has not.
      expect(report.outcomes.flat().map((o) => o.trigram)).toEqual(Array(16).fill(true));
    } finally {
      for (const d of databases) await adminPool().query(`DROP DATABASE IF EXISTS ${d} WITH (FORCE)`);
    }
  }, 240_000);
});
