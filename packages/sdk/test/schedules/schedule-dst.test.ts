// Daylight saving time, as croner reads cron expressions in an IANA zone: a tick inside a gap fires once at the first
// valid instant after it; a tick inside a repeated hour fires once (its first occurrence) for a daily cron. The
// instants are spelled out in UTC with the local time they stand for.
import { afterEach, describe, expect, it } from 'vitest';
import { ticksBetween } from '../../src/operations';
import { ALICE, makeScheduleHost, type ScheduleHost } from './fixtures';

const iso = (ms: number) => new Date(ms).toISOString();
const utc = (text: string) => Date.parse(text);

const hosts: ScheduleHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.host.stop();
});

/** The ticks of a daily cron in `timezone` from `from` to `to` (ISO instants), as ISO strings. */
function ticks(cron: string, timezone: string, from: string, to: string): string[] {
  return ticksBetween({ cron, everyMs: null, anchorAt: 0, timezone }, utc(from), utc(to), 100).ticks.map(iso);
}

describe('Europe/Berlin', () => {
  it('2026-03-29, 02:30 falls in the gap (02:00 CET → 03:00 CEST): the tick fires once at 03:00 CEST', async () => {
    const h = await makeScheduleHost({ start: utc('2026-03-28T12:00:00Z') });
    hosts.push(h);
    const s = await h.host.schedules.create({ actor: ALICE, cron: '30 2 * * *', timezone: 'Europe/Berlin', goal: 'g' });
    expect(iso(s.nextTickAt!)).toBe('2026-03-29T01:00:00.000Z'); // 03:00 CEST: the first valid instant after 02:30
    expect(ticks('30 2 * * *', 'Europe/Berlin', '2026-03-27T00:00:00Z', '2026-03-30T23:59:59Z')).toEqual([
      '2026-03-27T01:30:00.000Z', // 02:30 CET
      '2026-03-28T01:30:00.000Z', // 02:30 CET
      '2026-03-29T01:00:00.000Z', // 03:00 CEST, once
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
    ]);
  });

  it('2026-03-29, a 09:00 cron moves from 08:00 UTC to 07:00 UTC and keeps firing at 09:00 local', () => {
    expect(ticks('0 9 * * *', 'Europe/Berlin', '2026-03-28T00:00:00Z', '2026-03-30T23:59:59Z')).toEqual([
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
    ]);
  });

  it('2026-10-25, 02:30 happens twice (CEST, then CET): a daily 02:30 cron fires once, at the first', async () => {
    const h = await makeScheduleHost({ start: utc('2026-10-24T12:00:00Z') });
    hosts.push(h);
    const s = await h.host.schedules.create({ actor: ALICE, cron: '30 2 * * *', timezone: 'Europe/Berlin', goal: 'g' });
    expect(iso(s.nextTickAt!)).toBe('2026-10-25T00:30:00.000Z'); // 02:30 CEST
    const day = ticks('30 2 * * *', 'Europe/Berlin', '2026-10-24T22:00:00Z', '2026-10-25T22:59:59Z');
    expect(day).toEqual(['2026-10-25T00:30:00.000Z']); // not also 01:30 UTC (02:30 CET)
    expect(ticks('30 2 * * *', 'Europe/Berlin', '2026-10-24T00:00:00Z', '2026-10-26T23:59:59Z')).toEqual([
      '2026-10-24T00:30:00.000Z', // 02:30 CEST
      '2026-10-25T00:30:00.000Z', // 02:30 CEST (the repeated hour's first pass)
      '2026-10-26T01:30:00.000Z', // 02:30 CET
    ]);
  });

  it('2026-10-25, an hourly cron fires in both passes of the repeated hour (every real hour once)', () => {
    expect(ticks('30 * * * *', 'Europe/Berlin', '2026-10-24T23:00:00Z', '2026-10-25T02:59:59Z')).toEqual([
      '2026-10-24T23:30:00.000Z', // 01:30 CEST
      '2026-10-25T00:30:00.000Z', // 02:30 CEST
      '2026-10-25T01:30:00.000Z', // 02:30 CET
      '2026-10-25T02:30:00.000Z', // 03:30 CET
    ]);
  });
});

describe('America/New_York', () => {
  it('2026-03-08, 02:30 falls in the gap (02:00 EST → 03:00 EDT): the tick fires once at 03:00 EDT', async () => {
    const h = await makeScheduleHost({ start: utc('2026-03-07T12:00:00Z') });
    hosts.push(h);
    const s = await h.host.schedules.create({
      actor: ALICE,
      cron: '30 2 * * *',
      timezone: 'America/New_York',
      goal: 'g',
    });
    expect(iso(s.nextTickAt!)).toBe('2026-03-08T07:00:00.000Z'); // 03:00 EDT
    expect(ticks('30 2 * * *', 'America/New_York', '2026-03-07T00:00:00Z', '2026-03-09T23:59:59Z')).toEqual([
      '2026-03-07T07:30:00.000Z', // 02:30 EST
      '2026-03-08T07:00:00.000Z', // 03:00 EDT, once
      '2026-03-09T06:30:00.000Z', // 02:30 EDT
    ]);
  });

  it('2026-11-01, 01:30 happens twice (EDT, then EST): a daily 01:30 cron fires once, at the first', async () => {
    const h = await makeScheduleHost({ start: utc('2026-10-31T12:00:00Z') });
    hosts.push(h);
    const s = await h.host.schedules.create({
      actor: ALICE,
      cron: '30 1 * * *',
      timezone: 'America/New_York',
      goal: 'g',
    });
    expect(iso(s.nextTickAt!)).toBe('2026-11-01T05:30:00.000Z'); // 01:30 EDT
    expect(ticks('30 1 * * *', 'America/New_York', '2026-10-31T00:00:00Z', '2026-11-02T23:59:59Z')).toEqual([
      '2026-10-31T05:30:00.000Z', // 01:30 EDT
      '2026-11-01T05:30:00.000Z', // 01:30 EDT, once (not 06:30 UTC, 01:30 EST)
      '2026-11-02T06:30:00.000Z', // 01:30 EST
    ]);
  });

  it('2026-11-01, resuming during the repeated hour after its first pass fires nothing more that day', async () => {
    const h = await makeScheduleHost({ start: utc('2026-10-31T12:00:00Z') });
    hosts.push(h);
    const s = await h.host.schedules.create({
      actor: ALICE,
      cron: '30 1 * * *',
      timezone: 'America/New_York',
      goal: 'g',
      paused: true,
    });
    h.clock.set(utc('2026-11-01T06:00:00Z')); // 01:00 EST, the second pass of the hour, after 01:30 EDT
    const resumed = await h.host.schedules.resume(s.id, ALICE);
    expect(iso(resumed.nextTickAt!)).toBe('2026-11-02T06:30:00.000Z'); // the next day's 01:30 EST
  });
});
