/**
 * Verifying an audit chain (docs/audit.md): a pure rule over rows in `seq` order that finds and classifies every
 * edit, deletion and insertion a database editor made, and resynchronizes after each to keep looking.
 * @packageDocumentation
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AUDIT_GENESIS_HASH, auditRowHash } from './audit-chain';
import { canonicalJson } from './canonical-json';
import { MediaAgentError } from './errors';
import type { AuditRecord } from './records';

/**
 * What a break in the chain looks like:
 * - `edited`: the row's content (or its `prevHash`/`hash`) no longer matches its hash, or its hash column was cleared
 *   while the next row still links to it;
 * - `deleted`: a self-consistent row links to a hash no remaining row has: rows before it are missing, `seq`
 *   renumbered or not (or the row before it was edited with its hash recomputed, which looks the same); a removed
 *   prefix is fine only when an `audit.pruned` checkpoint (signed, when verifying with a key) records its head;
 * - `inserted`: a row without a hash, a row the rows around it link past, or a newest row linking to no row whose
 *   hash matches no link.
 * @public
 */
export type AuditChainChange = 'edited' | 'deleted' | 'inserted';

/** One break of the chain. @public */
export interface AuditChainBreak {
  /** The `seq` of the row the break is found at (for `deleted`: the first row after the gap). */
  seq: number;
  /** That row's id. */
  id: string;
  /** What changed. */
  change: AuditChainChange;
  /** One sentence saying what was found (hash prefixes, never row content). */
  detail: string;
}

/** What {@link verifyAuditChain} found. @public */
export interface AuditChainVerification {
  /** Whether every row verified (no break). */
  ok: boolean;
  /** Rows read. */
  rows: number;
  /** Intact `audit.pruned` checkpoint rows among them. */
  checkpoints: number;
  /**
   * Of those, the ones whose signature was not verified: all of them when no `checkpointKey` was given (they were
   * trusted by their structure only, which an editor who recomputes hashes can forge), else the ones without a valid
   * signature (these excuse no removed prefix).
   */
  checkpointsUnsigned: number;
  /** Whether checkpoint signatures were checked (a `checkpointKey` was given). */
  checkpointsSigned: boolean;
  /** The hash of the newest row that verified (the chain's head), or 64 `0`s for an empty chain. */
  headHash: string;
  /** `seq` of the first and of the last row read (absent for an empty chain). */
  firstSeq?: number;
  /** See `firstSeq`. */
  lastSeq?: number;
  /** The break with the lowest `seq`, when any. */
  firstBreak?: AuditChainBreak;
  /** The breaks in `seq` order, at most `maxBreaks` of them (default 100). */
  breaks: AuditChainBreak[];
  /** How many breaks were found in all (more than `breaks.length` when the list was cut at `maxBreaks`). */
  breakCount: number;
}

/** Options of {@link verifyAuditChain} and {@link AuditChainVerifier}. @public */
export interface AuditChainVerifyOptions {
  /** Most breaks listed in `breaks` (the rest are only counted); a positive integer. @defaultValue 100 */
  maxBreaks?: number;
  /**
   * The secret retention signs its checkpoints with (see {@link auditCheckpointSignature}). With it, only a checkpoint
   * with a valid `signature` excuses a removed prefix; without it, any intact checkpoint does.
   */
  checkpointKey?: string;
}

/** The content of an `audit.pruned` checkpoint row (its `inputSummary`). @public */
export interface AuditCheckpoint {
  /** `seq` of the first row removed. */
  firstSeq: number;
  /** `seq` of the last row removed. */
  throughSeq: number;
  /** How many rows were removed. */
  rows: number;
  /** The `hash` of the last row removed: what the first remaining row links to. */
  headHash: string;
  /** HMAC-SHA256 (hex) of the other four fields, when retention had a key (see {@link auditCheckpointSignature}). */
  signature?: string;
}

/**
 * The signature of a checkpoint: HMAC-SHA256 with `key` over the canonical JSON of `{ firstSeq, headHash, rows,
 * throughSeq }` (keys sorted, no whitespace), as lowercase hex. It is stored in the checkpoint's `inputSummary`, so
 * the chain hashes it too.
 * @param key - the checkpoint key (a secret kept off the database)
 * @param checkpoint - the checkpoint's fields (`headHash` may be null for a row that had none)
 * @returns 64 hex digits
 * @public
 */
export function auditCheckpointSignature(
  key: string,
  checkpoint: { firstSeq: number; throughSeq: number; rows: number; headHash: string | null },
): string {
  const { firstSeq, headHash, rows, throughSeq } = checkpoint;
  return createHmac('sha256', key).update(canonicalJson({ firstSeq, headHash, rows, throughSeq })).digest('hex');
}

/** Whether `checkpoint` carries a valid signature under `key` (compared in constant time). */
function signedBy(key: string, checkpoint: AuditCheckpoint): boolean {
  if (typeof checkpoint.signature !== 'string') return false;
  const want = Buffer.from(auditCheckpointSignature(key, checkpoint), 'hex');
  const got = Buffer.from(checkpoint.signature, 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}

/** The `actor` of a checkpoint row. @public */
export const AUDIT_CHECKPOINT_ACTOR = 'system:maintenance';
/** The `capabilityId` of a checkpoint row. @public */
export const AUDIT_CHECKPOINT_CAPABILITY = 'maintenance.prune';

/**
 * The checkpoint a row records, when it is an `audit.pruned` row of maintenance (actor `system:maintenance`,
 * capability `maintenance.prune`, outcome `succeeded`) whose `inputSummary` is the checkpoint's JSON.
 * @param row - any audit row
 * @returns the checkpoint, or undefined
 * @public
 */
export function auditCheckpointOf(
  row: Pick<AuditRecord, 'action' | 'actor' | 'capabilityId' | 'outcome' | 'inputSummary'>,
): AuditCheckpoint | undefined {
  if (
    row.action !== 'audit.pruned' ||
    row.actor !== AUDIT_CHECKPOINT_ACTOR ||
    row.capabilityId !== AUDIT_CHECKPOINT_CAPABILITY ||
    row.outcome !== 'succeeded'
  )
    return undefined;
  let value: unknown;
  try {
    value = JSON.parse(row.inputSummary);
  } catch {
    return undefined;
  }
  const c = value as Partial<AuditCheckpoint> | null;
  if (
    typeof c !== 'object' ||
    c === null ||
    typeof c.headHash !== 'string' ||
    !Number.isInteger(c.firstSeq) ||
    !Number.isInteger(c.throughSeq) ||
    !Number.isInteger(c.rows)
  )
    return undefined;
  const out: AuditCheckpoint = {
    firstSeq: c.firstSeq!,
    throughSeq: c.throughSeq!,
    rows: c.rows!,
    headHash: c.headHash,
  };
  if (typeof c.signature === 'string') out.signature = c.signature;
  return out;
}

/** A row as the verifier reads it: the content, `seq`, and the chain columns (null when the row has none). */
export type AuditChainRow = AuditRecord;

const short = (h: string | null | undefined): string => (h ? `${h.slice(0, 12)}…` : 'nothing');

/**
 * The chain verifier, fed one row at a time in `seq` order (so a caller reading pages never holds the table):
 * {@link AuditChainVerifier.push} each row, then {@link AuditChainVerifier.finish}. It keeps one row of look-ahead,
 * the last verified row and at most `maxBreaks` breaks.
 * @public
 */
export class AuditChainVerifier {
  readonly #maxBreaks: number;
  readonly #key: string | undefined;
  #unsigned = 0;
  #pending: AuditChainRow | undefined;
  /** The hashes the next row may link to (the last row's stored hash and, when it was edited, its recomputed one). */
  #expected: string[] = [AUDIT_GENESIS_HASH];
  #last: { seq: number; id: string; prevHash: string; hash: string } | undefined;
  /** The first row, when it links to a removed prefix: a checkpoint must record that prefix's head. */
  #anchor: { seq: number; id: string; prevHash: string; resolved: boolean } | undefined;
  #rows = 0;
  #checkpoints = 0;
  #head = AUDIT_GENESIS_HASH;
  #firstSeq: number | undefined;
  #lastSeq: number | undefined;
  readonly #breaks: AuditChainBreak[] = [];
  #breakCount = 0;
  #finished = false;

  /** @param options - `maxBreaks` (default 100) */
  constructor(options: AuditChainVerifyOptions = {}) {
    const max = options.maxBreaks ?? 100;
    if (!Number.isInteger(max) || max < 1)
      throw new MediaAgentError('OPTIONS_INVALID', `maxBreaks must be a positive integer; got ${String(max)}`, {
        option: 'maxBreaks',
      });
    this.#maxBreaks = max;
    const key = options.checkpointKey;
    if (key !== undefined && (typeof key !== 'string' || key === ''))
      throw new MediaAgentError('OPTIONS_INVALID', 'checkpointKey must be a non-empty string', {
        option: 'checkpointKey',
      });
    this.#key = key;
  }

  /** Feeds the next row (rows must come in increasing `seq` order). */
  push(row: AuditChainRow): void {
    if (this.#finished) throw new Error('AuditChainVerifier: push after finish');
    if (this.#pending) this.#check(this.#pending, row);
    this.#pending = row;
  }

  /** Checks the last row and any removed prefix; returns the result. */
  finish(): AuditChainVerification {
    if (!this.#finished) {
      this.#finished = true;
      if (this.#pending) this.#check(this.#pending, undefined);
      this.#pending = undefined;
      const anchor = this.#anchor;
      if (anchor && !anchor.resolved)
        this.#break(
          anchor,
          'deleted',
          `links to ${short(anchor.prevHash)}, but no row has that hash and no audit.pruned checkpoint ${this.#key === undefined ? '' : 'signed with the key '}records it: rows before it were removed`,
        );
      this.#breaks.sort((a, b) => a.seq - b.seq);
    }
    const out: AuditChainVerification = {
      ok: this.#breakCount === 0,
      rows: this.#rows,
      checkpoints: this.#checkpoints,
      checkpointsUnsigned: this.#unsigned,
      checkpointsSigned: this.#key !== undefined,
      headHash: this.#head,
      breaks: [...this.#breaks],
      breakCount: this.#breakCount,
    };
    if (this.#firstSeq !== undefined) out.firstSeq = this.#firstSeq;
    if (this.#lastSeq !== undefined) out.lastSeq = this.#lastSeq;
    if (this.#breaks[0]) out.firstBreak = this.#breaks[0];
    return out;
  }

  #break(row: { seq: number; id: string }, change: AuditChainChange, detail: string): void {
    if (this.#breaks.some((b) => b.seq === row.seq)) return;
    this.#breakCount++;
    if (this.#breaks.length < this.#maxBreaks) this.#breaks.push({ seq: row.seq, id: row.id, change, detail });
  }

  #check(r: AuditChainRow, next: AuditChainRow | undefined): void {
    this.#rows++;
    this.#firstSeq ??= r.seq;
    this.#lastSeq = r.seq;
    if (typeof r.hash !== 'string' || r.hash === '') {
      // A row appended through the SDK whose hash column was cleared: the next row links to its recomputed hash.
      const restored = this.#restoredHash(r, next);
      if (restored !== undefined) {
        this.#break(r, 'edited', `its hash was removed; the next row still links to ${short(restored)}`);
        this.#accept({ ...r, hash: restored }, r.prevHash ?? '', restored, false);
        return;
      }
      // Skipped: the next row should link to the head before it.
      this.#break(r, 'inserted', 'has no hash: it was not appended through the SDK');
      return;
    }
    const prev = typeof r.prevHash === 'string' ? r.prevHash : null;
    let computed: string | null = null;
    try {
      computed = prev === null ? null : auditRowHash(prev, r);
    } catch {
      computed = null; // content with no canonical form (e.g. a non-numeric `at`): it cannot match
    }
    const selfOk = computed === r.hash;
    const linkOk = prev !== null && this.#expected.includes(prev);
    if (linkOk) {
      if (!selfOk) this.#break(r, 'edited', `its content no longer matches its hash ${short(r.hash)}`);
      this.#accept(r, prev, computed, selfOk);
      return;
    }
    if (next && typeof next.prevHash === 'string' && this.#expected.includes(next.prevHash)) {
      this.#break(
        r,
        'inserted',
        `links to ${short(prev)}, not to the head ${short(this.#expected[0])}; the next row links past it`,
      );
      return;
    }
    const last = this.#last;
    if (last && prev === last.prevHash) {
      this.#break(last, 'inserted', `the next row (seq ${r.seq}) links past it, to the row before it`);
      if (!selfOk) this.#break(r, 'edited', `its content no longer matches its hash ${short(r.hash)}`);
      this.#accept(r, prev, computed, selfOk);
      return;
    }
    if (!selfOk && !next && last && !this.#expected.some((e) => this.#hashOr(e, r) === r.hash)) {
      // The newest row links to no row and its hash matches no link: appended (e.g. a copy under a new id).
      this.#break(
        r,
        'inserted',
        `links to ${short(prev)}, not to the head ${short(this.#expected[0])}, as the newest row`,
      );
      return;
    }
    if (!selfOk) {
      this.#break(r, 'edited', `neither its link ${short(prev)} nor its content matches (hash ${short(r.hash)})`);
      this.#accept(r, prev ?? '', computed, false);
      return;
    }
    if (!last && this.#anchor === undefined && prev !== null) {
      // The first row links to a removed prefix: fine once a checkpoint records that prefix's head.
      this.#anchor = { seq: r.seq, id: r.id, prevHash: prev, resolved: false };
      this.#accept(r, prev, computed, true);
      return;
    }
    // A self-consistent row linking to a hash no row has: rows before it were removed (with `seq` renumbered or
    // not), or the row before it was edited and its hash recomputed; the two look alike, and the row before it
    // verifies, so the break is named where the link fails.
    this.#break(
      r,
      'deleted',
      `links to ${short(prev)}, but the row before it has hash ${short(this.#expected[0])}: rows before it are missing` +
        (last && r.seq === last.seq + 1 ? ` (or seq ${last.seq} was edited and its hash recomputed)` : ''),
    );
    this.#accept(r, prev ?? '', computed, true);
  }

  /** The hash of `r` over `prev`, or null when its content has no canonical form. */
  #hashOr(prev: string, r: AuditChainRow): string | null {
    try {
      return auditRowHash(prev, r);
    } catch {
      return null;
    }
  }

  /** For a row without a hash: its hash recomputed over a link the chain expects, when the next row links to it. */
  #restoredHash(r: AuditChainRow, next: AuditChainRow | undefined): string | undefined {
    const prev = typeof r.prevHash === 'string' ? r.prevHash : null;
    if (prev === null || !this.#expected.includes(prev) || !next || typeof next.prevHash !== 'string') return undefined;
    const computed = this.#hashOr(prev, r);
    return computed !== null && computed === next.prevHash ? computed : undefined;
  }

  #accept(r: AuditChainRow, prev: string, computed: string | null, intact: boolean): void {
    const stored = r.hash as string;
    this.#expected = computed !== null && computed !== stored ? [stored, computed] : [stored];
    this.#last = { seq: r.seq, id: r.id, prevHash: prev, hash: stored };
    this.#head = stored;
    if (!intact) return;
    const checkpoint = auditCheckpointOf(r);
    if (!checkpoint) return;
    this.#checkpoints++;
    if (this.#key === undefined || !signedBy(this.#key, checkpoint)) this.#unsigned++;
    if (this.#key !== undefined && !signedBy(this.#key, checkpoint)) return; // a forged checkpoint excuses nothing
    const anchor = this.#anchor;
    if (anchor && checkpoint.headHash === anchor.prevHash && checkpoint.throughSeq < anchor.seq) anchor.resolved = true;
  }
}

/**
 * Verifies an audit chain: each row's hash over its content and the previous row's hash (docs/audit.md).
 *
 * @remarks
 * Classifies each break (see {@link AuditChainChange}) and resynchronizes after it, so one edit is reported once
 * and the rows after it still count. A first row that links to a removed prefix verifies when an intact
 * `audit.pruned` checkpoint row (see {@link auditCheckpointOf}) records that prefix's head; otherwise the prefix is
 * reported `deleted`. Removing the newest rows cannot be seen from the rows alone: compare `headHash` with a copy
 * kept elsewhere (an export's last hash).
 * @param rows - the rows in increasing `seq` order (any iterable; read once)
 * @param options - `maxBreaks` (default 100)
 * @returns what was found; `ok` when nothing broke
 * @public
 */
export function verifyAuditChain(
  rows: Iterable<AuditChainRow>,
  options: AuditChainVerifyOptions = {},
): AuditChainVerification {
  const verifier = new AuditChainVerifier(options);
  for (const row of rows) verifier.push(row);
  return verifier.finish();
}

/**
 * Thrown (when a caller asks, e.g. `host.audit.verify({ throwOnBreak: true })`) for a chain that does not verify.
 * `details`: `firstBreak` (`{ seq, id, change, detail }`), `breakCount`, `rows`.
 * @public
 */
export class AuditChainBrokenError extends MediaAgentError {
  /** What the verification found. */
  readonly verification: AuditChainVerification;

  /** @param verification - a result whose `ok` is false */
  constructor(verification: AuditChainVerification) {
    const b = verification.firstBreak;
    super(
      'AUDIT_CHAIN_BROKEN',
      b
        ? `the audit chain is broken: row seq ${b.seq} (id ${b.id}) was ${b.change}: ${b.detail}` +
            (verification.breakCount > 1 ? ` (${verification.breakCount} breaks in all)` : '')
        : 'the audit chain is broken',
      { firstBreak: b, breakCount: verification.breakCount, rows: verification.rows },
    );
    this.verification = verification;
  }
}
