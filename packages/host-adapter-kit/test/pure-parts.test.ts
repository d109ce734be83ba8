import { hostSimulatorFaults, settingChanges, subjectsFromHostState, takeFault } from '@media-agent/host-adapter-kit';
import { describe, expect, it } from 'vitest';

describe('settingChanges', () => {
  it('proposes the patch over the current settings and lists each changed setting by name, sorted', () => {
    const current = { b: 1, a: 'x', keep: [1, 2] };
    const { proposed, changes } = settingChanges(current, { b: 2, c: true, keep: [1, 2] });
    expect(proposed).toEqual({ a: 'x', b: 2, c: true, keep: [1, 2] });
    expect(changes).toEqual([
      { field: 'b', from: 1, to: 2 },
      { field: 'c', from: null, to: true },
    ]);
    expect(current).toEqual({ b: 1, a: 'x', keep: [1, 2] });
  });

  it('compares values as JSON: an equal copy of an object or list is no change, a different one is', () => {
    const current = { rules: { min: 1, tags: ['a'] }, list: ['x'] };
    expect(settingChanges(current, { rules: { min: 1, tags: ['a'] }, list: ['x'] }).changes).toEqual([]);
    expect(settingChanges(current, { rules: { min: 1, tags: ['a', 'b'] } }).changes).toEqual([
      { field: 'rules', from: { min: 1, tags: ['a'] }, to: { min: 1, tags: ['a', 'b'] } },
    ]);
  });

  it('a setting patched to null or undefined is reported from its value to null', () => {
    expect(settingChanges({ a: 1, b: 2 }, { a: null, b: undefined }).changes).toEqual([
      { field: 'a', from: 1, to: null },
      { field: 'b', from: 2, to: null },
    ]);
    expect(settingChanges({}, {}).changes).toEqual([]);
  });
});

describe('subjectsFromHostState', () => {
  it('a subject exists when the ids the host lists now for its type include it', async () => {
    const state: Record<string, Array<string | null | undefined>> = { download: ['h1', null, 'h2', undefined] };
    let reads = 0;
    const subjects = subjectsFromHostState(async () => {
      reads++;
      return state;
    });
    expect(await subjects.exists({ type: 'download', id: 'h2' })).toBe(true);
    expect(await subjects.exists({ type: 'download', id: 'h3' })).toBe(false);
    expect(await subjects.exists({ type: 'subscription', id: 'h1' })).toBe(false);
    // Read anew for each question: what the host dropped meanwhile no longer exists.
    state.download = ['h1'];
    expect(await subjects.exists({ type: 'download', id: 'h2' })).toBe(false);
    expect(reads).toBe(4);
  });

  it('takes any iterable of ids (a Set, a generator) and fails as the read fails', async () => {
    function* hashes() {
      yield 'a';
      yield 'b';
    }
    expect(
      await subjectsFromHostState(async () => ({ download: hashes() })).exists({ type: 'download', id: 'b' }),
    ).toBe(true);
    expect(
      await subjectsFromHostState(async () => ({ subscription: new Set(['7']) })).exists({
        type: 'subscription',
        id: '7',
      }),
    ).toBe(true);
    const down = subjectsFromHostState(async () => {
      throw new Error('host unreachable');
    });
    await expect(down.exists({ type: 'download', id: 'a' })).rejects.toThrow('host unreachable');
  });
});

describe('takeFault and hostSimulatorFaults', () => {
  it('hostSimulatorFaults: all off, or the switches given', () => {
    expect(hostSimulatorFaults()).toEqual({
      dropAfterAccept: [],
      fail5xx: [],
      slowSearchMs: 0,
      metadataUnreachable: false,
      noIndexerSites: false,
    });
    expect(hostSimulatorFaults({ slowSearchMs: 50, noIndexerSites: true, fail5xx: ['a'] })).toMatchObject({
      slowSearchMs: 50,
      noIndexerSites: true,
      fail5xx: ['a'],
      dropAfterAccept: [],
    });
  });

  // smollweide/node-mock-server#107: a mock server's options object was shared by reference, so a change
  // made for one answer leaked into all. Two fault objects never share a list, with each other or with
  // the overrides they were made from.
  it('two fault objects, or one and its overrides, share no list', () => {
    const a = hostSimulatorFaults();
    const b = hostSimulatorFaults();
    a.fail5xx.push('x');
    a.dropAfterAccept.push('y');
    expect(b.fail5xx).toEqual([]);
    expect(b.dropAfterAccept).toEqual([]);
    const overrides = { fail5xx: ['download.add'], dropAfterAccept: ['download.add'] };
    const c = hostSimulatorFaults(overrides);
    const d = hostSimulatorFaults(overrides);
    expect(takeFault(c.fail5xx, ['download.add'])).toBe(true);
    expect(takeFault(c.dropAfterAccept, ['download.add'])).toBe(true);
    expect(d.fail5xx).toEqual(['download.add']);
    expect(d.dropAfterAccept).toEqual(['download.add']);
    expect(overrides).toEqual({ fail5xx: ['download.add'], dropAfterAccept: ['download.add'] });
  });

  // mswjs/msw#1782: a one-time handler was marked used by a request for another URL. takeFault takes an
  // entry only for a request one of whose names it is.
  it('takeFault takes one entry naming the request, by any of its names, and nothing else', () => {
    const list = ['POST /api/v1/download/', 'download.add', 'search.torrents'];
    expect(takeFault(list, ['GET /api/v1/media/search', 'media.search'])).toBe(false);
    expect(list).toEqual(['POST /api/v1/download/', 'download.add', 'search.torrents']);
    expect(takeFault(list, ['POST /api/v1/download/', 'download.add'])).toBe(true);
    expect(list).toEqual(['download.add', 'search.torrents']);
    expect(takeFault(list, ['POST /api/v1/download/', 'download.add'])).toBe(true);
    expect(takeFault(list, ['POST /api/v1/download/', 'download.add'])).toBe(false);
    expect(list).toEqual(['search.torrents']);
    expect(takeFault([], ['x'])).toBe(false);
    expect(takeFault(['x'], [])).toBe(false);
  });

  it('takeFault: n entries for one operation fail its next n requests, one each', () => {
    const list = ['a', 'a', 'a'];
    const taken = Array.from({ length: 5 }, () => takeFault(list, ['a']));
    expect(taken).toEqual([true, true, true, false, false]);
  });
});
