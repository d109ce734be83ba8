// The audit chain rule and its verifier, as pure functions. Peer reports the cases come from:
// TokenDanceLab/AgentHub#1541 (a "tamper-evident" chain whose hash covered only ids and links, not the event's
// content, so an edited row verified) and antropos17/Aegis#173 (undefined vs null fields hashing differently
// before and after a round trip); jeremylongshore/qmd-team-intent-kb#212 (only intact rows may excuse anything).
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAgentHost } from '../../src';
import {
  AUDIT_GENESIS_HASH,
  auditContent,
  auditContentJson,
  auditRowHash,
  linkAuditRows,
} from '../../src/core/audit-chain';
import { canonicalJson } from '../../src/core/canonical-json';
import { AuditChainBrokenError, auditCheckpointSignature, verifyAuditChain } from '../../src/core/audit-verify';
import type { AuditRecord } from '../../src/core/records';

type Row = AuditRecord;

function content(i: number, extra: Partial<AuditRecord> = {}): AuditRecord {
  return {
    id: `a-${i}`,
    seq: 0,
    at: 1_700_000_000_000 + i,
    action: 'capability.invoke',
    actor: 'user:alice',
    capabilityId: 'media.search',
    invocationId: `inv-${i}`,
    runId: i % 2 ? `run-${i}` : null,
    taskId: null,
    outcome: 'succeeded',
    approvalId: null,
    grantId: null,
    idempotencyKey: null,
    inputSummary: JSON.stringify({ q: `film ${i}` }),
    reason: null,
    ...extra,
  };
}

/** A chain of `n` rows, seq 1..n. */
function chain(n: number, head = AUDIT_GENESIS_HASH, firstSeq = 1): Row[] {
  const records = Array.from({ length: n }, (_, i) => content(firstSeq + i));
  return linkAuditRows(head, records).rows.map((r, i) => ({ ...r, seq: firstSeq + i }));
}

function checkpoint(head: string, removed: Row[], seq: number): Row {
  const last = removed[removed.length - 1]!;
  const record = content(seq, {
    id: `cp-${seq}`,
    action: 'audit.pruned',
    actor: 'system:maintenance',
    capabilityId: 'maintenance.prune',
    outcome: 'succeeded',
    inputSummary: `{"firstSeq":${removed[0]!.seq},"headHash":"${last.hash}","rows":${removed.length},"throughSeq":${last.seq}}`,
  });
  return { ...linkAuditRows(head, [record]).rows[0]!, seq };
}

const renumber = (rows: Row[]): Row[] => rows.map((r, i) => ({ ...r, seq: i + 1 }));

describe('the chain hash', () => {
  it('is SHA-256 of prevHash, a newline and the canonical JSON of the content (a fixed vector)', () => {
    const row = content(1);
    const canonical =
      '{"action":"capability.invoke","actor":"user:alice","approvalId":null,"at":1700000000001,"capabilityId":"media.search","grantId":null,"id":"a-1","idempotencyKey":null,"inputSummary":"{\\"q\\":\\"film 1\\"}","invocationId":"inv-1","outcome":"succeeded","reason":null,"runId":"run-1","taskId":null}';
    const expected = createHash('sha256').update(`${AUDIT_GENESIS_HASH}\n${canonical}`, 'utf8').digest('hex');
    expect(auditRowHash(AUDIT_GENESIS_HASH, row)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it('writes the content exactly as the general canonical JSON writer does (any strings, unicode, numbers)', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.constant('\u2028"\\\u0000'));
    const nullable = fc.option(text, { nil: null });
    fc.assert(
      fc.property(
        fc.record({ id: text, actor: text, inputSummary: text, runId: nullable, reason: nullable }),
        fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(-0)),
        (fields, at) => {
          const row = { ...content(1), ...fields, at };
          expect(auditContentJson(row)).toBe(canonicalJson(auditContent(row)));
        },
      ),
    );
    expect(() => auditRowHash(AUDIT_GENESIS_HASH, { ...content(1), at: Number.NaN })).toThrow(/non-finite/);
  });

  it('hashes an absent optional field as null, as the row reads back (antropos17/Aegis#173)', () => {
    const withNulls = content(2);
    const { runId: _r, taskId: _t, reason: _x, ...sparse } = withNulls;
    expect(auditRowHash(AUDIT_GENESIS_HASH, sparse as AuditRecord)).toBe(auditRowHash(AUDIT_GENESIS_HASH, withNulls));
  });

  it('covers every content field: changing any one changes the hash (TokenDanceLab/AgentHub#1541)', () => {
    const row = content(3);
    const base = auditRowHash(AUDIT_GENESIS_HASH, row);
    const edits: Partial<AuditRecord>[] = [
      { id: 'x' },
      { at: row.at + 1 },
      { action: 'capability.denied' },
      { actor: 'user:bob' },
      { capabilityId: 'x' },
      { invocationId: 'x' },
      { runId: 'x' },
      { taskId: 'x' },
      { outcome: 'failed' },
      { approvalId: 'x' },
      { grantId: 'x' },
      { idempotencyKey: 'x' },
      { inputSummary: '{}' },
      { reason: 'x' },
    ];
    for (const edit of edits) expect(auditRowHash(AUDIT_GENESIS_HASH, { ...row, ...edit })).not.toBe(base);
    // seq and the chain columns are not content
    const moved: AuditRecord = { ...row, seq: 99, hash: 'x', prevHash: 'y' };
    expect(auditRowHash(AUDIT_GENESIS_HASH, moved)).toBe(base);
  });
});

describe('verifyAuditChain', () => {
  it('an intact chain verifies, with its head, rows and seq range; an empty one too', () => {
    const rows = chain(5);
    expect(verifyAuditChain(rows)).toEqual({
      ok: true,
      rows: 5,
      checkpoints: 0,
      checkpointsUnsigned: 0,
      checkpointsSigned: false,
      headHash: rows[4]!.hash,
      firstSeq: 1,
      lastSeq: 5,
      breaks: [],
      breakCount: 0,
    });
    expect(verifyAuditChain([])).toMatchObject({ ok: true, rows: 0, headHash: AUDIT_GENESIS_HASH });
  });

  it('names an edited field’s row as edited, once, and goes on (the rows after it still verify)', () => {
    const rows = chain(6);
    rows[2] = { ...rows[2]!, outcome: 'failed' };
    rows[4] = { ...rows[4]!, reason: 'later edit' };
    const result = verifyAuditChain(rows);
    expect(result.ok).toBe(false);
    expect(result.breaks.map((b) => [b.seq, b.change])).toEqual([
      [3, 'edited'],
      [5, 'edited'],
    ]);
    expect(result.firstBreak).toMatchObject({ seq: 3, id: 'a-3', change: 'edited' });
    expect(result.headHash).toBe(rows[5]!.hash);
  });

  it('an edited hash column alone is one break, not two', () => {
    const rows = chain(4);
    rows[1] = { ...rows[1]!, hash: 'f'.repeat(64) };
    expect(verifyAuditChain(rows).breaks.map((b) => [b.seq, b.change])).toEqual([[2, 'edited']]);
  });

  it('a row whose hash was recomputed after an edit is found by the next row’s link (it looks like a deletion there)', () => {
    const rows = chain(4);
    const edited = { ...rows[1]!, outcome: 'failed' };
    rows[1] = { ...edited, hash: auditRowHash(edited.prevHash!, edited) };
    const result = verifyAuditChain(rows);
    expect(result.breaks.map((b) => [b.seq, b.change])).toEqual([[3, 'deleted']]);
    expect(result.firstBreak?.detail).toContain('or seq 2 was edited and its hash recomputed');
  });

  it('a deleted row with seq renumbered is deleted at the row after the gap, not edited at the intact row before it', () => {
    const rows = chain(6);
    rows.splice(2, 1);
    expect(verifyAuditChain(renumber(rows)).breaks.map((b) => [b.seq, b.change])).toEqual([[3, 'deleted']]);
  });

  it('a hash set to NULL is one break at its row, with no spurious deletion at the next row', () => {
    const rows = chain(5);
    rows[2] = { ...rows[2]!, hash: null };
    expect(verifyAuditChain(rows).breaks.map((b) => [b.seq, b.change])).toEqual([[3, 'edited']]);
  });

  it('a copy of an earlier row appended at the end (under a new id) is inserted, not edited', () => {
    const rows = chain(5);
    const copy = { ...rows[1]!, id: 'copy-of-a-2', seq: 6 };
    expect(verifyAuditChain([...rows, copy]).breaks.map((b) => [b.seq, b.change])).toEqual([[6, 'inserted']]);
  });

  it('a deleted row is named at the first row after the gap', () => {
    const rows = chain(5);
    rows.splice(2, 1);
    expect(verifyAuditChain(rows).firstBreak).toMatchObject({ seq: 4, change: 'deleted' });
  });

  it('a row with no hash, or one the next row links past, is inserted', () => {
    const rows = chain(4);
    const bare = { ...content(9), seq: 0, prevHash: null, hash: null };
    const withNull = renumber([...rows.slice(0, 2), bare, ...rows.slice(2)]);
    expect(verifyAuditChain(withNull).breaks.map((b) => [b.seq, b.change])).toEqual([[3, 'inserted']]);
    const forged = linkAuditRows(rows[1]!.hash!, [content(9)]).rows[0]!;
    const withForged = renumber([...rows.slice(0, 2), forged, ...rows.slice(2)]);
    expect(verifyAuditChain(withForged).breaks.map((b) => [b.seq, b.change])).toEqual([[3, 'inserted']]);
  });

  it('a pruned prefix verifies with its checkpoint; without one it is reported deleted', () => {
    const rows = chain(6);
    const kept = rows.slice(3);
    const withCheckpoint = [...kept, checkpoint(kept[kept.length - 1]!.hash!, rows.slice(0, 3), 7)];
    expect(verifyAuditChain(withCheckpoint)).toMatchObject({ ok: true, rows: 4, checkpoints: 1 });
    expect(verifyAuditChain(kept).firstBreak).toMatchObject({ seq: 4, change: 'deleted' });
  });

  it('a checkpoint whose prefix was everything verifies too, and an edited checkpoint excuses nothing (qmd-team-intent-kb#212)', () => {
    const rows = chain(3);
    expect(verifyAuditChain([checkpoint(rows[2]!.hash!, rows, 4)])).toMatchObject({ ok: true, checkpoints: 1 });
    const kept = rows.slice(1);
    const cp = checkpoint(kept[1]!.hash!, rows.slice(0, 1), 4);
    const tampered = { ...cp, reason: 'edited' };
    const result = verifyAuditChain([...kept, tampered]);
    expect(result.breaks.map((b) => [b.seq, b.change])).toEqual([
      [2, 'deleted'],
      [4, 'edited'],
    ]);
  });

  it('a forged checkpoint (hash correctly computed) excuses a removed prefix only without a key; a signed one with the key', () => {
    const KEY = 'audit-checkpoint-key';
    const rows = chain(6);
    const kept = rows.slice(3);
    const forged = [...kept, checkpoint(kept[2]!.hash!, rows.slice(0, 3), 7)];
    expect(verifyAuditChain(forged)).toMatchObject({
      ok: true,
      checkpoints: 1,
      checkpointsUnsigned: 1,
      checkpointsSigned: false,
    });
    const withKey = verifyAuditChain(forged, { checkpointKey: KEY });
    expect(withKey).toMatchObject({ ok: false, checkpointsUnsigned: 1, checkpointsSigned: true });
    expect(withKey.breaks.map((b) => [b.seq, b.change])).toEqual([[4, 'deleted']]);
    // signed as retention signs it: the signature is part of inputSummary, so the chain hashes it too
    const fields = { firstSeq: 1, headHash: rows[2]!.hash!, rows: 3, throughSeq: 3 };
    const signature = auditCheckpointSignature(KEY, fields);
    const signedRecord = content(7, {
      id: 'cp-7',
      action: 'audit.pruned',
      actor: 'system:maintenance',
      capabilityId: 'maintenance.prune',
      inputSummary: canonicalJson({ ...fields, signature }),
    });
    const signed = [...kept, { ...linkAuditRows(kept[2]!.hash!, [signedRecord]).rows[0]!, seq: 7 }];
    expect(verifyAuditChain(signed, { checkpointKey: KEY })).toMatchObject({ ok: true, checkpointsUnsigned: 0 });
    expect(verifyAuditChain(signed, { checkpointKey: 'another key' })).toMatchObject({
      ok: false,
      checkpointsUnsigned: 1,
    });
    expect(() => verifyAuditChain(signed, { checkpointKey: '' })).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID' }),
    );
  });

  it('the host option audit.checkpointKey must be a non-empty string; a misspelt name is refused', () => {
    expect(() => createAgentHost({ audit: { checkpointKey: '' } })).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID' }),
    );
    expect(() => createAgentHost({ audit: { checkpointkey: 'k' } as never })).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID' }),
    );
  });

  it('lists at most maxBreaks breaks and counts them all; AuditChainBrokenError carries the first', () => {
    const rows = chain(10).map((r) => ({ ...r, outcome: 'x' }));
    const result = verifyAuditChain(rows, { maxBreaks: 3 });
    expect(result.breaks).toHaveLength(3);
    expect(result.breakCount).toBe(10);
    const error = new AuditChainBrokenError(result);
    expect(error.code).toBe('AUDIT_CHAIN_BROKEN');
    expect(error.details.firstBreak).toMatchObject({ seq: 1, change: 'edited' });
    expect(error.message).toContain('seq 1');
  });
});

describe('verifyAuditChain properties', () => {
  const sizes = fc.integer({ min: 3, max: 25 });

  it('an untouched chain always verifies', () => {
    fc.assert(fc.property(sizes, (n) => verifyAuditChain(chain(n)).ok));
  });

  it('any single content edit is found at its row and classified edited', () => {
    const fields = ['at', 'actor', 'outcome', 'inputSummary', 'reason', 'runId', 'prevHash'] as const;
    fc.assert(
      fc.property(
        sizes.chain((n) => fc.tuple(fc.constant(n), fc.nat(n - 1), fc.constantFrom(...fields))),
        ([n, k, field]) => {
          const rows = chain(n);
          const row = rows[k]!;
          const value = field === 'at' ? row.at + 1 : field === 'prevHash' ? 'e'.repeat(64) : `${row[field]}!`;
          rows[k] = { ...row, [field]: value };
          const result = verifyAuditChain(rows);
          expect(result.breakCount).toBe(1);
          expect(result.firstBreak).toMatchObject({ seq: k + 1, change: 'edited' });
        },
      ),
    );
  });

  it('any single deletion but the newest row is found after the gap and classified deleted', () => {
    fc.assert(
      fc.property(
        sizes.chain((n) => fc.tuple(fc.constant(n), fc.nat(n - 2))),
        ([n, k]) => {
          const rows = chain(n);
          rows.splice(k, 1);
          const result = verifyAuditChain(rows);
          expect(result.breakCount).toBe(1);
          expect(result.firstBreak).toMatchObject({ seq: k + 2, change: 'deleted' });
        },
      ),
    );
  });

  it('any single insertion (no hash anywhere; a forged or random-hash row before the newest) is classified inserted', () => {
    fc.assert(
      fc.property(
        sizes.chain((n) => fc.tuple(fc.constant(n), fc.nat(n), fc.constantFrom('null', 'forged', 'random'))),
        ([n, p, kind]) => {
          const rows = chain(n);
          const position = kind === 'null' ? p : Math.min(p, n - 1);
          const prev = position === 0 ? AUDIT_GENESIS_HASH : rows[position - 1]!.hash!;
          const extra =
            kind === 'null'
              ? { ...content(99), prevHash: null, hash: null }
              : kind === 'forged'
                ? linkAuditRows(prev, [content(99)]).rows[0]!
                : { ...content(99), prevHash: 'a'.repeat(64), hash: 'b'.repeat(64) };
          const tampered = renumber([...rows.slice(0, position), extra, ...rows.slice(position)]);
          const result = verifyAuditChain(tampered);
          expect(result.breakCount).toBe(1);
          expect(result.firstBreak).toMatchObject({ seq: position + 1, id: 'a-99', change: 'inserted' });
        },
      ),
    );
  });
});
