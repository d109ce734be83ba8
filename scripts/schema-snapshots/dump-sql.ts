/**
 * Turns a `pg_dump --schema=<schema> --inserts --no-owner --no-privileges` of a private schema into the SQL of a
 * PostgreSQL schema snapshot: the schema's name replaced by {@link SCHEMA_PLACEHOLDER} (a test substitutes a fresh
 * schema per case), and only statements a plain `pg` client runs in one simple query: no psql meta-commands
 * (`\restrict`, `\connect`), no session `SET`s or `set_config` calls (the dump qualifies every name with its schema),
 * no comments or blank lines.
 */

/** What stands for the schema's name in a snapshot's SQL. */
export const SCHEMA_PLACEHOLDER = '__MEDIA_AGENT_SNAPSHOT_SCHEMA__';

/**
 * The snapshot SQL of `dump`, a dump of `schema` only (see the file's comment). Lines are judged only where they
 * start outside a string literal: a text value with newlines (or blank lines, or a line starting `--`) is data.
 */
export function sqlFromDump(dump: string, schema: string): string {
  const kept: string[] = [];
  let inLiteral = false;
  for (const line of dump.split('\n')) {
    const dropped =
      !inLiteral &&
      (line.trim() === '' ||
        line.startsWith('\\') ||
        line.startsWith('--') ||
        line.startsWith('SET ') ||
        line.startsWith('SELECT pg_catalog.set_config('));
    if (!dropped) kept.push(line);
    // Each single quote toggles (a doubled '' toggles twice): the parity says whether the next line starts inside.
    for (const char of line) if (char === "'") inLiteral = !inLiteral;
  }
  return `${kept.join('\n').replaceAll(schema, SCHEMA_PLACEHOLDER)}\n`;
}

/** The SQL of a snapshot for `schema`: the placeholder replaced by that (lowercase, unquoted-safe) name. */
export function snapshotSqlFor(sql: string, schema: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`not a plain lowercase schema name: ${schema}`);
  return sql.replaceAll(SCHEMA_PLACEHOLDER, schema);
}
