/**
 * Vitest global setup: probes the PostgreSQL server once per test run (`MEDIA_AGENT_PG_URL`, default
 * `postgres://postgres@127.0.0.1:5432/test`) and hands the answer to the PostgreSQL suites (`inject('postgres')`,
 * read through `postgres-available.ts`). When the server cannot be reached (or the PostgreSQL binaries the
 * restart suite needs are missing) it prints one line naming the suites that will not run and why; under
 * `CI=true` the suites that need the server fail instead of being skipped.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { postgresBinDir } from './private-postgres';

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/test';
/** The suite that starts a server of its own (it needs the PostgreSQL binaries, not the shared server). */
const PRIVATE_SERVER_SUITE = 'postgres-restart.test.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Whether the PostgreSQL suites can run: the URL they use, or why not. */
    postgres: { url: string; available: boolean; reason: string };
  }
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable MEDIA_AGENT_PG_URL)';
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const url = process.env.MEDIA_AGENT_PG_URL || DEFAULT_URL;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  let reason = '';
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    const e = error as { code?: string; message?: string };
    reason = `${e.code ? `${e.code}: ` : ''}${e.message || String(error)}`.split('\n')[0]!;
  } finally {
    await client.end().catch(() => undefined);
  }
  const available = reason === '';
  project.provide('postgres', { url, available, reason });
  const skipped: string[] = [];
  if (!available) {
    const dir = fileURLToPath(new URL('.', import.meta.url));
    const suites = readdirSync(dir)
      .filter((f) => /^postgres.*\.test\.ts$/.test(f) && f !== PRIVATE_SERVER_SUITE)
      .sort();
    const verdict = process.env.CI === 'true' ? 'fail under CI=true' : 'skipped';
    skipped.push(
      `${['conformance.test.ts (postgres)', ...suites].join(', ')} ${verdict}: no server at ${redact(url)} (${reason}); set MEDIA_AGENT_PG_URL to run them`,
    );
  }
  if (postgresBinDir() === undefined)
    skipped.push(
      `${PRIVATE_SERVER_SUITE} skipped: no initdb/pg_ctl found (pg_config --bindir, /usr/lib/postgresql/*/bin)`,
    );
  if (skipped.length > 0) console.log(`PostgreSQL suites not run — ${skipped.join('; ')}`);
}
