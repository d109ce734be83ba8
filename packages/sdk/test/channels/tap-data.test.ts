// Button data: signed for one chat, refused when forged, altered, or copied to another chat; at most 64 bytes.
import { describe, expect, it } from 'vitest';
import { MAX_TAP_DATA_BYTES, signTap, verifyTap } from '../../src/runtime/channels/tap-data';
import { confirmCode, parseConfirmation } from '../../src/runtime/channels/confirm-code';

const secret = 'host-secret';
const id = 'apr_0192f3a4b5c67d8e9f00112233445566';
const hash = 'ab12cd34ef56'.padEnd(64, '0');

describe('signed tap data', () => {
  it('round-trips approve, reject and choose within 64 bytes', () => {
    for (const request of [
      { kind: 'approve' as const, ref: id, hash },
      { kind: 'reject' as const, ref: id, hash },
      { kind: 'choose' as const, ref: 'run_0192f3a4b5c67d8e9f00112233445566', hash, option: 3 },
    ]) {
      const data = signTap(secret, 'telegram:home', '42', request)!;
      expect(Buffer.byteLength(data)).toBeLessThanOrEqual(MAX_TAP_DATA_BYTES);
      expect(verifyTap(secret, 'telegram:home', '42', data)).toEqual({ ...request, hash: hash.slice(0, 8) });
    }
  });

  it('refuses a forged, altered, foreign or re-signed string', () => {
    const data = signTap(secret, 'telegram:home', '42', { kind: 'reject', ref: id, hash })!;
    expect(verifyTap(secret, 'telegram:home', '42', data.replace(/^r/, 'a'))).toBeNull(); // reject turned into approve
    expect(verifyTap(secret, 'telegram:home', '43', data)).toBeNull(); // another chat
    expect(verifyTap(secret, 'telegram:work', '42', data)).toBeNull(); // another channel configuration
    expect(verifyTap('other-secret', 'telegram:home', '42', data)).toBeNull();
    expect(verifyTap(secret, 'telegram:home', '42', `a.${id}.ab12cd34.AAAAAAAAAAA`)).toBeNull();
    expect(verifyTap(secret, 'telegram:home', '42', 'garbage')).toBeNull();
    expect(verifyTap(secret, 'telegram:home', '42', 'x'.repeat(65))).toBeNull();
  });

  it('gives no data for an id too long for 64 bytes (the prompt confirms by text instead)', () => {
    expect(signTap(secret, 'c', '1', { kind: 'approve', ref: 'a'.repeat(50), hash })).toBeNull();
  });
});

describe('confirmation codes', () => {
  it('one code per approval, payload hash and chat', () => {
    const code = confirmCode(secret, 'sms:home', '42', { id, payloadHash: hash });
    expect(code).toMatch(/^[A-Z2-9]{6}$/);
    expect(confirmCode(secret, 'sms:home', '42', { id, payloadHash: hash })).toBe(code);
    expect(confirmCode(secret, 'sms:home', '42', { id, payloadHash: `f${hash.slice(1)}` })).not.toBe(code);
    expect(confirmCode(secret, 'sms:home', '43', { id, payloadHash: hash })).not.toBe(code);
  });

  it.each([
    ['YES K7Q2MX', { status: 'approved', code: 'K7Q2MX' }],
    ['  no k7q2mx. ', { status: 'rejected', code: 'K7Q2MX' }],
    ['approve K7Q2MX', { status: 'approved', code: 'K7Q2MX' }],
    ['yes please add Dune', null],
    ['YES', null],
    ['YES K7Q2MX and more', null],
  ])('parses %j', (text, expected) => {
    expect(parseConfirmation(text)).toEqual(expected);
  });
});
