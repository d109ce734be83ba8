/** Conformance cases for settings (`storage.settings`). */
import assert from 'node:assert/strict';
import type { JsonValue } from '../../core/records';
import { UNICODE } from './fixtures';
import type { ConformanceCase } from './helpers';

/** Registers the settings case: any JSON value round-trips, and `set` overwrites. */
export function settingsCases(test: ConformanceCase): void {
  test('settings round-trip any JSON value (null, boolean, number, unicode string, nested) and set overwrites', async (s) => {
    const values: JsonValue[] = [
      null,
      true,
      false,
      0,
      -12.5,
      1e21,
      UNICODE,
      [],
      {},
      { a: [1, { b: null, c: UNICODE }], d: { e: false } },
    ];
    for (const [i, v] of values.entries()) await s.settings.set(`key-${i}`, v);
    for (const [i, v] of values.entries()) assert.deepEqual(await s.settings.get(`key-${i}`), v);
    assert.equal(await s.settings.get('missing'), undefined);
    await s.settings.set('key-0', { replaced: true });
    assert.deepEqual(await s.settings.get('key-0'), { replaced: true });
  });
}
