/**
 * `@media-agent/sdk/cli`: the `media-agent` command line (the package's `bin`).
 *
 * @remarks
 * `media-agent audit verify <sqlite file | postgres url> [--json] [--max-breaks n] [--key-file path]` verifies the
 * audit chain, checking checkpoint signatures with the key in that file (or `MEDIA_AGENT_AUDIT_KEY`);
 * `media-agent audit export <db> [--from t] [--to t] [--out file]` writes a segment as JSON Lines (docs/audit.md).
 * A PostgreSQL URL may name the schema with `?schema=` (default `media_agent`). The store is only read: a SQLite
 * file is opened read-only, nothing is migrated or written. Exit codes: 0 intact (or exported), 1 broken (the first
 * break is printed: seq, id, what changed), 2 usage or connection error (`STORAGE_SCHEMA_TOO_NEW`,
 * `STORAGE_SCHEMA_TOO_OLD`, `STORAGE_UNAVAILABLE`, …). `--json` prints one JSON object instead of text.
 *
 * @example
 * ```sh
 * npx media-agent audit verify ./data/agent.sqlite
 * npx media-agent audit export 'postgres://agent@db:5432/app?schema=media_agent' --from 2025-01-01 --out audit.jsonl
 * ```
 * @packageDocumentation
 */
import { parseArgs } from 'node:util';
import type { AuditChainVerification } from './core/audit-verify';
import { isMediaAgentError } from './core/errors';
import { exportAuditLines, verifyAuditPages, writeAuditExport } from './runtime/audit-trail';

/** Exit code of the command line: the chain verified (or the export was written). @public */
export const EXIT_OK = 0;
/** Exit code: the chain is broken. @public */
export const EXIT_BROKEN = 1;
/** Exit code: wrong usage, or the store could not be opened or read. @public */
export const EXIT_USAGE = 2;

/** Where the command line writes (the process's streams by default; tests pass their own). @public */
export interface CliOutput {
  /** Standard output. */
  out(text: string): void;
  /** Standard error. */
  err(text: string): void;
}

const USAGE = `usage:
  media-agent audit verify <sqlite file | postgres url> [--json] [--max-breaks n] [--key-file path]
  media-agent audit export <sqlite file | postgres url> [--from time] [--to time] [--out file]
--key-file: the audit checkpoint key (default: the environment variable MEDIA_AGENT_AUDIT_KEY)
times: ms since the epoch or an ISO date (2025-01-01, 2025-01-01T12:00:00Z); a postgres url may end in ?schema=name
exit codes: 0 intact, 1 broken, 2 usage or connection error`;

class UsageError extends Error {}

const processOutput: CliOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

function parseTime(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^-?\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(n)) throw new UsageError(`--${name} must be ms since the epoch or an ISO date; got ${value}`);
  return n;
}

/** Opens the store `target` names, read-only: a PostgreSQL URL, else a SQLite file. Loaded lazily (optional peers). */
async function openReader(target: string) {
  if (/^postgres(ql)?:\/\//.test(target)) {
    const { openPostgresAuditReader } = await import('./storage/postgres/audit-reader');
    return openPostgresAuditReader(target);
  }
  const { openSqliteAuditReader } = await import('./storage/sqlite/audit-reader');
  return openSqliteAuditReader(target);
}

/**
 * The checkpoint key: the file `--key-file` names (its content, without a trailing line break), else the environment
 * variable `MEDIA_AGENT_AUDIT_KEY`, else none.
 */
async function readCheckpointKey(file: string | undefined): Promise<string | undefined> {
  let key: string | undefined;
  if (file !== undefined) {
    const { readFile } = await import('node:fs/promises');
    try {
      key = (await readFile(file, 'utf8')).replace(/\r?\n$/, '');
    } catch (error) {
      throw new UsageError(`--key-file ${file}: ${(error as Error).message}`);
    }
    if (key === '') throw new UsageError(`--key-file ${file} is empty`);
  } else key = process.env.MEDIA_AGENT_AUDIT_KEY || undefined;
  return key;
}

/** A note on how the checkpoints were trusted, when there are any. */
function checkpointNote(result: AuditChainVerification): string {
  if (result.checkpoints === 0) return '';
  if (!result.checkpointsSigned)
    return `note: ${result.checkpoints} pruning checkpoint(s) trusted by their structure only (no key given: --key-file or MEDIA_AGENT_AUDIT_KEY); anyone who can write the database could have forged them\n`;
  return result.checkpointsUnsigned
    ? `note: ${result.checkpointsUnsigned} pruning checkpoint(s) without a valid signature excuse nothing\n`
    : '';
}

function describe(result: AuditChainVerification): string {
  if (result.ok)
    return `audit chain intact: ${result.rows} rows${result.checkpoints ? `, ${result.checkpoints} pruning checkpoint(s)${result.checkpointsSigned ? ' (signatures verified)' : ''}` : ''}, head ${result.headHash}\n${checkpointNote(result)}`;
  const lines = [`audit chain BROKEN: ${result.breakCount} break(s) in ${result.rows} rows`];
  for (const [i, b] of result.breaks.slice(0, 10).entries())
    lines.push(`${i === 0 ? 'first break' : '  then'}: seq ${b.seq}, id ${b.id}: ${b.change} (${b.detail})`);
  if (result.breakCount > 10) lines.push(`  … ${result.breakCount - 10} more`);
  return `${lines.join('\n')}\n${checkpointNote(result)}`;
}

/**
 * Runs the command line with `argv` (the arguments after the program name).
 * @param argv - e.g. `['audit', 'verify', './data/agent.sqlite', '--json']`
 * @param output - where to write (default: the process's stdout and stderr)
 * @returns the exit code: {@link EXIT_OK}, {@link EXIT_BROKEN} or {@link EXIT_USAGE}
 * @public
 */
export async function main(argv: readonly string[], output: CliOutput = processOutput): Promise<number> {
  let json = false;
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        'max-breaks': { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        out: { type: 'string' },
        'key-file': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    json = values.json === true;
    if (values.help) {
      output.out(`${USAGE}\n`);
      return EXIT_OK;
    }
    const [area, command, target, ...rest] = positionals;
    if (area !== 'audit' || (command !== 'verify' && command !== 'export') || !target || rest.length > 0)
      throw new UsageError('expected: audit verify <db> | audit export <db>');
    const maxBreaks = values['max-breaks'] === undefined ? undefined : Number(values['max-breaks']);
    if (maxBreaks !== undefined && !(Number.isInteger(maxBreaks) && maxBreaks > 0))
      throw new UsageError('--max-breaks must be a positive integer');
    const range = { from: parseTime('from', values.from), to: parseTime('to', values.to) };
    if (range.from !== undefined && range.to !== undefined && range.from > range.to)
      throw new UsageError(`--from (${values.from}) is after --to (${values.to})`);
    const checkpointKey = await readCheckpointKey(values['key-file']);
    const reader = await openReader(target);
    try {
      if (command === 'verify') {
        const result = await verifyAuditPages(reader.read, {
          ...(maxBreaks === undefined ? {} : { maxBreaks }),
          ...(checkpointKey === undefined ? {} : { checkpointKey }),
        });
        output.out(json ? `${JSON.stringify(result)}\n` : describe(result));
        return result.ok ? EXIT_OK : EXIT_BROKEN;
      }
      const lines = exportAuditLines(reader.read, {
        ...(range.from === undefined ? {} : { from: range.from }),
        ...(range.to === undefined ? {} : { to: range.to }),
      });
      if (values.out === undefined) {
        for await (const line of lines) output.out(line);
      } else {
        await writeAuditExport(lines, values.out);
        if (json) output.out(`${JSON.stringify({ out: values.out })}\n`);
      }
      return EXIT_OK;
    } finally {
      await reader.close();
    }
  } catch (error) {
    // (parseArgs throws a TypeError whose code starts with ERR_PARSE_ARGS for an unknown or malformed option)
    const usage = error instanceof UsageError || /^ERR_PARSE_ARGS/.test(String((error as { code?: unknown })?.code));
    const code = isMediaAgentError(error) ? error.code : usage ? 'USAGE' : 'FAILED';
    const message = error instanceof Error ? error.message : String(error);
    if (json) output.out(`${JSON.stringify({ error: { code, message } })}\n`);
    else
      output.err(
        `media-agent: ${code === 'USAGE' || code === 'FAILED' ? '' : `${code}: `}${message}\n${usage ? `${USAGE}\n` : ''}`,
      );
    return EXIT_USAGE;
  }
}
