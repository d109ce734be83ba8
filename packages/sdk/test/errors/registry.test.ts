import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { V2_ERROR_CODES } from '../../../host-adapter-v2/src/error-codes';
import { V3_ERROR_CODES } from '../../../host-adapter-v3/src/error-codes';
import { HOST_ERROR_CODES } from '../../../host-adapter-kit/src/error-codes';
import { TELEGRAM_ERROR_CODES } from '../../../channel-telegram/src/error-codes';
import { ERROR_DOCS_PATH, ownCodes, renderErrorDocs } from '../../../../scripts/error-docs';
import type { DenialCode } from '../../src/authorization/verdict';
import { ERROR_CODES, type ErrorCode } from '../../src/core/error-codes';
import { isMediaAgentError, MediaAgentError } from '../../src/core/errors';
import type { MediaStateCode } from '../../src/media/errors';
import type { ToolCallFailure } from '../../src/models/types';
import type { LoopGuardCode } from '../../src/runtime/guardrails/codes';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Codes other libraries put on their errors, which the source reads but never throws (Node's
 * `ERR_STREAM_PREMATURE_CLOSE` marks a stream the peer ended, for the HTTP adapter).
 */
const FOREIGN = /^(UND_ERR_[A-Z_]+|SQLITE_[A-Z_]+|EAI_AGAIN|ERR_STREAM_PREMATURE_CLOSE)$/;
/** Sample codes the storage conformance suite writes into records and reads back: data, not codes it throws. */
const SAMPLE_DATA = new Map([
  ['packages/sdk/src/testing/storage-conformance/fixtures.ts', new Set(['BUDGET_EXCEEDED', 'HOST_REJECTED'])],
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && e.name !== 'error-codes.ts') // the registries themselves are not uses
    .map((e) => join(e.parentPath, e.name).slice(root.length));
}

/** Every upper-snake string literal outside comments, by file: the codes the source throws, returns or compares. */
function codesIn(dir: string): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const file of sourceFiles(dir)) {
    const code = readFileSync(join(root, file), 'utf8')
      .split('\n')
      .filter((line) => !/^\s*(\/\*\*?|\*|\/\/)/.test(line))
      .join('\n');
    const codes = new Set([...code.matchAll(/['"`]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"`]/g)].map((m) => m[1]!));
    for (const c of SAMPLE_DATA.get(file) ?? []) codes.delete(c);
    for (const c of codes) if (FOREIGN.test(c)) codes.delete(c);
    if (codes.size > 0) found.set(file, codes);
  }
  return found;
}

function unregistered(dir: string, registry: Readonly<Record<string, string>>): string[] {
  return [...codesIn(dir)].flatMap(([file, codes]) =>
    [...codes].filter((c) => !(c in registry)).map((c) => `${file}: ${c}`),
  );
}

function unused(dir: string, registry: Readonly<Record<string, string>>): string[] {
  const used = new Set([...codesIn(dir).values()].flatMap((s) => [...s]));
  return Object.keys(registry).filter((c) => !used.has(c));
}

describe('error-code registry', () => {
  it('lists every code the SDK source uses, and only those', () => {
    expect(unregistered('packages/sdk/src', ERROR_CODES)).toEqual([]);
    expect(unused('packages/sdk/src', ERROR_CODES)).toEqual([]);
  });

  it('lists every code an adapter uses in the SDK registry or the adapter registry, and no adapter code unused', () => {
    expect(unregistered('packages/host-adapter-v2/src', { ...ERROR_CODES, ...V2_ERROR_CODES })).toEqual([]);
    expect(unregistered('packages/host-adapter-v3/src', { ...ERROR_CODES, ...V3_ERROR_CODES })).toEqual([]);
    expect(unregistered('packages/host-adapter-kit/src', { ...ERROR_CODES, ...HOST_ERROR_CODES })).toEqual([]);
    // An adapter's own codes are used by that adapter; each shared code by the kit or one of the adapters.
    expect(unused('packages/host-adapter-v2/src', ownCodes(V2_ERROR_CODES))).toEqual([]);
    expect(unused('packages/host-adapter-v3/src', ownCodes(V3_ERROR_CODES))).toEqual([]);
    const shared = ['kit', 'v2', 'v3'].map((p) => unused(`packages/host-adapter-${p}/src`, HOST_ERROR_CODES));
    expect(shared[0]!.filter((c) => shared[1]!.includes(c) && shared[2]!.includes(c))).toEqual([]);
    for (const registry of [V2_ERROR_CODES, V3_ERROR_CODES])
      expect(Object.keys(HOST_ERROR_CODES).filter((c) => !(c in registry))).toEqual([]);
  });

  it('lists every code the Telegram channel uses in the SDK registry or its own, and none of its own unused', () => {
    expect(unregistered('packages/channel-telegram/src', { ...ERROR_CODES, ...TELEGRAM_ERROR_CODES })).toEqual([]);
    expect(unused('packages/channel-telegram/src', TELEGRAM_ERROR_CODES)).toEqual([]);
  });

  it('catches a code missing from the registry (the scan is not vacuous)', () => {
    expect(codesIn('packages/sdk/src').get('packages/sdk/src/ledger/errors.ts')).toContain('LEDGER_STALE_EXECUTOR');
    const { LEDGER_STALE_EXECUTOR: _dropped, ...withoutOne } = ERROR_CODES;
    expect(unregistered('packages/sdk/src', withoutOne)).toContain(
      'packages/sdk/src/ledger/errors.ts: LEDGER_STALE_EXECUTOR',
    );
  });

  it('gives each code one sentence, and no adapter redefines an SDK code', () => {
    for (const [code, text] of Object.entries({ ...ERROR_CODES, ...V2_ERROR_CODES, ...V3_ERROR_CODES })) {
      expect(code, code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/);
      expect(text, code).toMatch(/^[A-Z`'].*\.$/s);
    }
    for (const code of [...Object.keys(V2_ERROR_CODES), ...Object.keys(V3_ERROR_CODES)])
      expect(code in ERROR_CODES, code).toBe(false);
  });

  it('docs/errors.md is what npm run docs:errors writes', () => {
    expect(readFileSync(join(root, ERROR_DOCS_PATH), 'utf8'), 'docs/errors.md is stale: run npm run docs:errors').toBe(
      renderErrorDocs(),
    );
  });

  it('types the narrower code unions as registry codes, and the constructor rejects an unregistered code', () => {
    const denial: ErrorCode = 'AUTH_GRANT_EXPIRED' satisfies DenialCode;
    const loop: ErrorCode = 'LOOP_CYCLE' satisfies LoopGuardCode;
    const media: ErrorCode = 'MEDIA_NOT_FOUND' satisfies MediaStateCode;
    const tool: ErrorCode = 'TOOL_UNKNOWN' satisfies ToolCallFailure['code'];
    type Covered<T> = [T] extends [ErrorCode] ? true : false;
    const all: [
      Covered<DenialCode>,
      Covered<LoopGuardCode>,
      Covered<MediaStateCode>,
      Covered<ToolCallFailure['code']>,
    ] = [true, true, true, true];
    expect([denial, loop, media, tool, ...all]).toEqual([
      'AUTH_GRANT_EXPIRED',
      'LOOP_CYCLE',
      'MEDIA_NOT_FOUND',
      'TOOL_UNKNOWN',
      true,
      true,
      true,
      true,
    ]);

    // @ts-expect-error a misspelt code fails the type check
    const typo = new MediaAgentError('INPUT_INVALD', 'typo');
    expect(isMediaAgentError(typo, 'INPUT_INVALID')).toBe(false);
    expect(isMediaAgentError(new MediaAgentError('INPUT_INVALID', 'x'), 'INPUT_INVALID')).toBe(true);
  });
});
