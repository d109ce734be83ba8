/**
 * The audit trail as the host (`host.audit`) and the `media-agent audit` command line give it: list, verify the
 * chain, export a segment as JSON Lines a third party can verify (docs/audit.md). Rows are read in pages, never the
 * whole table at once.
 * @packageDocumentation
 */
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AUDIT_CONTENT_FIELDS, AUDIT_GENESIS_HASH, AUDIT_HASH_ALGORITHM } from '../core/audit-chain';
import {
  AuditChainBrokenError,
  AuditChainVerifier,
  type AuditChainVerification,
  type AuditChainVerifyOptions,
} from '../core/audit-verify';
import { MediaAgentError } from '../core/errors';
import type { AuditAction, AuditRecord } from '../core/records';

/** The `format` of an export's header line. @public */
export const AUDIT_EXPORT_FORMAT = 'media-agent-audit/1';

/** Rows read per page by verify and export. @public */
export const AUDIT_PAGE_ROWS = 1000;

/**
 * Reads the audit rows with `seq > after`, oldest first, at most `limit`, every row (no filter), with `prevHash`
 * and `hash`: what verify and export page through (`storage.audit.list` on the host; a read-only connection in the
 * command line).
 * @public
 */
export type AuditPageReader = (after: number, limit: number) => Promise<AuditRecord[]>;

/** The host option `audit` (docs/audit.md#signed-checkpoints). @public */
export interface AuditOptions {
  /**
   * A secret (a non-empty string, kept off the database: an environment variable or a file) that audit retention
   * signs its `audit.pruned` checkpoints with, and that `host.audit.verify()` checks them against by default. Without
   * it checkpoints are unsigned and trusted by their structure only.
   */
  checkpointKey?: string;
}

/**
 * Checks the host option `audit`.
 * @param options - the option as given
 * @returns the checkpoint key, or undefined
 * @throws `OPTIONS_INVALID` for a key that is not a non-empty string
 * @public
 */
export function resolveAuditCheckpointKey(options: AuditOptions | undefined): string | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null)
    throw new MediaAgentError('OPTIONS_INVALID', 'option audit must be an object { checkpointKey? }', {
      option: 'audit',
    });
  const key = options.checkpointKey;
  if (key !== undefined && (typeof key !== 'string' || key === ''))
    throw new MediaAgentError('OPTIONS_INVALID', 'option audit.checkpointKey must be a non-empty string', {
      option: 'audit.checkpointKey',
    });
  return key;
}

/** Options of `host.audit.verify()`. @public */
export interface AuditVerifyOptions extends AuditChainVerifyOptions {
  /**
   * Reject with `AuditChainBrokenError` (`AUDIT_CHAIN_BROKEN`, the first break in `details.firstBreak`) when the
   * chain does not verify, instead of resolving with `ok: false`.
   * @defaultValue false
   */
  throwOnBreak?: boolean;
}

/**
 * Which rows `host.audit.export()` writes, by time (ms since the epoch): from the first row, in `seq` order, whose
 * `at` is at or after `from`, up to (not including) the first row after it whose `at` is at or after `to`. The rows
 * are contiguous in `seq`, so the segment verifies on its own; when the clocks of several processes disagree a row
 * at an edge may carry an `at` just outside the range.
 * @public
 */
export interface AuditExportRange {
  /** Start (ms, inclusive); absent: from the first row. */
  from?: number;
  /** End (ms, exclusive); absent: through the newest row. */
  to?: number;
}

/**
 * The first line of an export: what a verifier needs to check the segment alone.
 * @public
 */
export interface AuditExportHeader {
  /** `media-agent-audit/1`. */
  format: typeof AUDIT_EXPORT_FORMAT;
  /** `sha256`. */
  algorithm: typeof AUDIT_HASH_ALGORITHM;
  /** The `prevHash` of a chain's first row: 64 `0`s. */
  genesis: string;
  /** The range asked for (ms), null when open. */
  from: number | null;
  /** See `from`. */
  to: number | null;
  /**
   * The hash the first exported row links to: the genesis for an export from a chain's start, else the hash of the
   * row before the segment (compare it with the last hash of the previous export). With no row exported: the head.
   */
  prevHash: string;
}

/** The audit trail of a host: callable as before (`host.audit(filter)`), with `verify` and `export`. @public */
export interface HostAudit {
  /** Audit rows with `seq > after`, oldest first (default limit 100), with their `prevHash` and `hash`. */
  (filter?: {
    after?: number;
    limit?: number;
    action?: AuditAction;
    capabilityId?: string;
    invocationId?: string;
  }): Promise<AuditRecord[]>;
  /**
   * Verifies the whole chain, page by page (docs/audit.md): every row's hash over its content and the previous
   * row's hash; a removed prefix must be recorded by an `audit.pruned` checkpoint, signed with `checkpointKey`
   * (default: the host option `audit.checkpointKey`) when there is one.
   * @returns `{ ok, rows, checkpoints, checkpointsUnsigned, checkpointsSigned, headHash, firstBreak?, breaks, breakCount }`; keep `headHash` somewhere else
   *   to detect, later, that the newest rows were removed (the chain alone cannot show it)
   * @throws `AuditChainBrokenError` (`AUDIT_CHAIN_BROKEN`) with `throwOnBreak`; storage errors; `HOST_NOT_STARTED`
   */
  verify(options?: AuditVerifyOptions): Promise<AuditChainVerification>;
  /**
   * Exports rows as JSON Lines (each string one line, ending in `\n`): first an {@link AuditExportHeader}, then one
   * row per line — `seq`, `prevHash`, `hash` and the content fields. Read page by page while iterated.
   * Write it to a file with {@link writeAuditExport}, or `pipeline(Readable.from(lines), createWriteStream(path))`.
   * @param range - `from`/`to` in ms (see {@link AuditExportRange})
   * @throws `REQUEST_INVALID` at the call for a range that is not numbers or whose `from` is after `to`; (while iterating) storage errors; `HOST_NOT_STARTED`
   */
  export(range?: AuditExportRange): AsyncIterable<string>;
}

/** Every row of the store, page by page, in `seq` order. */
async function* allRows(read: AuditPageReader): AsyncGenerator<AuditRecord> {
  for (let after = 0; ; ) {
    const page = await read(after, AUDIT_PAGE_ROWS);
    if (page.length === 0) return;
    yield* page;
    after = page[page.length - 1]!.seq;
  }
}

/**
 * Verifies the chain the reader pages through (see `host.audit.verify()`).
 * @param read - the page reader
 * @param options - `maxBreaks`, `throwOnBreak`
 * @public
 */
export async function verifyAuditPages(
  read: AuditPageReader,
  options: AuditVerifyOptions = {},
): Promise<AuditChainVerification> {
  const verifier = new AuditChainVerifier(options);
  for await (const row of allRows(read)) verifier.push(row);
  const result = verifier.finish();
  if (!result.ok && options.throwOnBreak) throw new AuditChainBrokenError(result);
  return result;
}

function checkRange(range: AuditExportRange): void {
  for (const key of ['from', 'to'] as const) {
    const value = range[key];
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value)))
      throw new MediaAgentError('REQUEST_INVALID', `audit export: ${key} must be a time in ms; got ${String(value)}`, {
        field: key,
      });
  }
  if (range.from !== undefined && range.to !== undefined && range.from > range.to)
    throw new MediaAgentError(
      'REQUEST_INVALID',
      `audit export: from (${range.from}) is after to (${range.to}); the range would be empty`,
      { field: 'from' },
    );
}

/** One exported row: `seq`, `prevHash`, `hash`, then the content fields. */
function exportLine(row: AuditRecord): string {
  const out: Record<string, unknown> = { seq: row.seq, prevHash: row.prevHash ?? null, hash: row.hash ?? null };
  for (const field of AUDIT_CONTENT_FIELDS) out[field] = row[field] ?? null;
  return `${JSON.stringify(out)}\n`;
}

/**
 * Exports the rows the reader pages through as JSON Lines (see `host.audit.export()`).
 * @param read - the page reader
 * @param range - `from`/`to` in ms
 * @public
 */
export async function* exportAuditLines(read: AuditPageReader, range: AuditExportRange = {}): AsyncGenerator<string> {
  checkRange(range);
  const header = (prevHash: string): string => {
    const h: AuditExportHeader = {
      format: AUDIT_EXPORT_FORMAT,
      algorithm: AUDIT_HASH_ALGORITHM,
      genesis: AUDIT_GENESIS_HASH,
      from: range.from ?? null,
      to: range.to ?? null,
      prevHash,
    };
    return `${JSON.stringify(h)}\n`;
  };
  let started = false;
  let head = AUDIT_GENESIS_HASH;
  for await (const row of allRows(read)) {
    if (!started) {
      if (range.from !== undefined && row.at < range.from) {
        head = row.hash ?? head;
        continue;
      }
      started = true;
      yield header(row.prevHash ?? head);
    }
    if (range.to !== undefined && row.at >= range.to) return;
    yield exportLine(row);
  }
  if (!started) yield header(head);
}

/**
 * Writes export lines to a file (created or replaced), with back-pressure.
 * @param lines - what `host.audit.export()` returns
 * @param path - the file
 * @example
 * ```ts
 * import { writeAuditExport } from '@media-agent/sdk';
 * await writeAuditExport(host.audit.export({ from: Date.parse('2025-01-01') }), './audit-2025.jsonl');
 * ```
 * @public
 */
export async function writeAuditExport(lines: AsyncIterable<string>, path: string): Promise<void> {
  await pipeline(Readable.from(lines), createWriteStream(path));
}

/**
 * The callable `host.audit`: `list(filter)` as the call, `verify` and `export` over `read`.
 * @param list - the listing (refused before start)
 * @param read - the page reader (its promise rejects before start)
 * @param checkpointKey - the host's checkpoint key: `verify`'s default
 * @internal
 */
export function hostAudit(list: HostAudit, read: AuditPageReader, checkpointKey?: string): HostAudit {
  const call = ((filter?: Parameters<HostAudit>[0]) => list(filter)) as HostAudit;
  call.verify = (options = {}) =>
    verifyAuditPages(
      read,
      checkpointKey === undefined || 'checkpointKey' in options ? options : { ...options, checkpointKey },
    );
  call.export = (range = {}) => {
    checkRange(range); // eagerly: a bad range throws at the call, not at the first line
    return exportAuditLines(read, range);
  };
  return call;
}
