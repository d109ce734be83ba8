/**
 * Makes the schema snapshots of packages/sdk/test/storage/snapshots: for every released storage schema version N
 * (1 … STORAGE_SCHEMA_VERSION - 1) that has no snapshot yet, a SQLite file and (where that version had a
 * PostgreSQL store) a PostgreSQL dump, each holding a representative data set written by THAT version's own code.
 *
 *   node --import tsx scripts/make-schema-snapshots.ts              every missing version
 *   node --import tsx scripts/make-schema-snapshots.ts --versions 7  only version 7 (still only when missing)
 *   node --import tsx scripts/make-schema-snapshots.ts --versions 10 --commit 10=<sha>
 *                                                  version 10 from that commit of main's first-parent history
 *                                                  (when the newest one cannot write a store; README.md there)
 *
 * For version N it takes the newest first-parent commit of `main` whose SDK writes version N (its
 * `STORAGE_SCHEMA_VERSION` and its last SQLite migration both say N), checks it out in a detached worktree under
 * the temporary directory (`git worktree add --detach`), links this repository's node_modules into it (`cp -al`,
 * with node_modules/@media-agent/* pointing at that worktree's packages), and runs
 * scripts/schema-snapshots/write-snapshot.ts there (cwd = the worktree, so its tsconfig applies). The worktrees
 * are removed at the end (`git worktree remove --force`), also after a failure.
 *
 * An existing snapshot is never rewritten: a released version's snapshot records what that release wrote, and
 * rewriting it with a later understanding would hide the migration bugs it is there to catch (README.md there).
 *
 * PostgreSQL: the server of `MEDIA_AGENT_PG_URL` (default `postgres://postgres@127.0.0.1:5432/test`); the data is
 * written in a private schema, dumped with `pg_dump --schema --inserts --no-owner --no-privileges`, the schema's
 * name replaced by {@link SCHEMA_PLACEHOLDER}, then the schema is dropped.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { STORAGE_SCHEMA_VERSION } from '../packages/sdk/src/ports/storage-adapter';
import { SCHEMA_PLACEHOLDER, sqlFromDump } from './schema-snapshots/dump-sql';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the snapshots live, from the repository root. */
export const SNAPSHOT_DIR = 'packages/sdk/test/storage/snapshots';
const writer = join(repo, 'scripts/schema-snapshots/write-snapshot.ts');
const pgUrl = process.env.MEDIA_AGENT_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const git = (...args: string[]): string =>
  execFileSync('git', args, { cwd: repo, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).trim();

/** The schema version a commit's SDK writes: its constant and its last SQLite migration, or undefined when they differ. */
function versionAt(commit: string): number | undefined {
  const files = git('ls-tree', '-r', '--name-only', commit, 'packages/sdk/src').split('\n');
  const adapter = files.find(
    (f) => /\/storage-adapter\.ts$/.test(f) && /(ports|storage)\/storage-adapter\.ts$/.test(f),
  );
  const migrations = files.find((f) => f.endsWith('storage/sqlite/migrations.ts'));
  if (!adapter || !migrations) return undefined;
  const constant = /STORAGE_SCHEMA_VERSION = (\d+)/.exec(git('show', `${commit}:${adapter}`))?.[1];
  const steps = [...git('show', `${commit}:${migrations}`).matchAll(/^ {4}version: (\d+),/gm)].map((m) => Number(m[1]));
  if (constant === undefined || steps.length === 0) return undefined;
  return Number(constant) === Math.max(...steps) ? Number(constant) : undefined;
}

/** For each version 1 … STORAGE_SCHEMA_VERSION - 1, the newest first-parent commit of main that writes it. */
export function releasedCommits(): Map<number, string> {
  const found = new Map<number, string>();
  for (const commit of git('rev-list', '--first-parent', 'main').split('\n')) {
    const version = versionAt(commit);
    if (version !== undefined && version < STORAGE_SCHEMA_VERSION && !found.has(version)) found.set(version, commit);
    if (found.size === STORAGE_SCHEMA_VERSION - 1) break;
  }
  return found;
}

/** Checks `commit` out in a detached worktree with this repository's node_modules hard-linked in. */
function checkout(version: number, commit: string): string {
  const dir = join(tmpdir(), `snap-v${version}-${randomBytes(3).toString('hex')}`);
  git('worktree', 'add', '--detach', dir, commit);
  execFileSync('cp', ['-al', join(repo, 'node_modules'), join(dir, 'node_modules')]);
  const scope = join(dir, 'node_modules/@media-agent');
  rmSync(scope, { recursive: true, force: true });
  mkdirSync(scope);
  for (const name of readdirSync(join(dir, 'packages'))) symlinkSync(`../../packages/${name}`, join(scope, name));
  exportOldFixtures(dir);
  return dir;
}

/**
 * Versions before the conformance suite was split into files kept its record builders (`ledgerEntry`,
 * `runRecord`, …) private in packages/sdk/src/testing/storage-conformance.ts: a copy of that file with them
 * exported goes next to it (in the temporary worktree only), so the writer builds records with that version's
 * own builders.
 */
function exportOldFixtures(dir: string): void {
  const modern = join(dir, 'packages/sdk/src/testing/storage-conformance/fixtures.ts');
  const old = join(dir, 'packages/sdk/src/testing/storage-conformance.ts');
  if (existsSync(modern) || !existsSync(old)) return;
  const text = readFileSync(old, 'utf8')
    .replace(/^function (\w+)\(/gm, 'export function $1(')
    .replace(/^const (\w+) =/gm, 'export const $1 =');
  writeFileSync(join(dir, 'packages/sdk/src/testing/snapshot-fixtures.ts'), text);
}

/** Runs the writer in the worktree; throws with its output when it fails. */
function write(dir: string, args: string[]): void {
  const result = spawnSync(process.execPath, ['--import', 'tsx', writer, '--root', dir, ...args], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (result.status !== 0) throw new Error(`writer failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  if (result.stdout.trim()) console.log(result.stdout.trim());
}

/**
 * Checkpoints the WAL into the file and rewrites it with 1 KiB pages (the page size the SDK gives new files since
 * schema 8; versions before wrote 4 KiB pages): a store of 50 tables and indexes takes one page each at least, and
 * at 4 KiB that alone is over the 200 KB a snapshot may weigh. VACUUM copies every row, the schema and
 * `user_version` as they are; the file is left in WAL mode, as the SDK keeps it, with no -wal file beside it.
 */
function compact(file: string): void {
  const db = new Database(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.pragma('journal_mode = DELETE');
  db.pragma('page_size = 1024');
  db.exec('VACUUM');
  db.pragma('journal_mode = WAL');
  db.close();
  for (const suffix of ['-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
}

async function makePostgres(version: number, dir: string, out: string): Promise<string> {
  const schema = `ma_snapshot_v${version}_${randomBytes(4).toString('hex')}`;
  const rowsFile = join(dir, 'postgres-rows.json');
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  try {
    write(dir, ['--version', String(version), '--pg-url', pgUrl, '--pg-schema', schema, '--rows', rowsFile]);
    const dump = execFileSync(
      'pg_dump',
      ['--dbname', pgUrl, `--schema=${schema}`, '--inserts', '--no-owner', '--no-privileges'],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    writeFileSync(out, sqlFromDump(dump, schema));
    return readFileSync(rowsFile, 'utf8');
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
}

async function main(): Promise<void> {
  const only = process.argv.includes('--versions')
    ? new Set(process.argv[process.argv.indexOf('--versions') + 1]!.split(',').map(Number))
    : undefined;
  const outDir = join(repo, SNAPSHOT_DIR);
  mkdirSync(outDir, { recursive: true });
  const commits = releasedCommits();
  // `--commit N=sha`: version N from another first-parent commit of main that writes it (README.md says why).
  for (let i = process.argv.indexOf('--commit'); i !== -1; i = process.argv.indexOf('--commit', i + 1)) {
    const [v, sha] = (process.argv[i + 1] ?? '').split('=');
    const version = Number(v);
    const commit = git('rev-parse', '--verify', `${sha}^{commit}`);
    if (versionAt(commit) !== version) throw new Error(`--commit: ${sha} does not write schema version ${v}`);
    if (!git('rev-list', '--first-parent', 'main').split('\n').includes(commit))
      throw new Error(`--commit: ${sha} is not a first-parent commit of main`);
    commits.set(version, commit);
  }
  const worktrees: string[] = [];
  try {
    for (const [version, commit] of [...commits].sort((a, b) => a[0] - b[0])) {
      if (only && !only.has(version)) continue;
      const sqliteOut = join(outDir, `sqlite-v${version}.sqlite`);
      const pgOut = join(outDir, `postgres-v${version}.sql`);
      const rowsOut = join(outDir, `rows-v${version}.json`);
      if (existsSync(sqliteOut)) {
        console.log(`v${version}: ${SNAPSHOT_DIR}/sqlite-v${version}.sqlite exists; kept (never regenerated)`);
        continue;
      }
      console.log(`v${version}: commit ${commit}`);
      const dir = checkout(version, commit);
      worktrees.push(dir);
      const file = join(dir, 'snapshot.sqlite');
      const rowsFile = join(dir, 'sqlite-rows.json');
      write(dir, ['--version', String(version), '--sqlite', file, '--rows', rowsFile]);
      compact(file);
      cpSync(file, sqliteOut);
      const rows = readFileSync(rowsFile, 'utf8');
      writeFileSync(rowsOut, rows);
      if (existsSync(join(dir, 'packages/sdk/src/storage/postgres/postgres-storage.ts'))) {
        const pgRows = await makePostgres(version, dir, pgOut);
        if (pgRows !== rows) throw new Error(`v${version}: PostgreSQL read back other rows than SQLite`);
      }
      console.log(`v${version}: written (${SNAPSHOT_DIR})`);
    }
  } finally {
    for (const dir of worktrees) git('worktree', 'remove', '--force', dir);
  }
  console.log(`schema placeholder in the dumps: ${SCHEMA_PLACEHOLDER}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
