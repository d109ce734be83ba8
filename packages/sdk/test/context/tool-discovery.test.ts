import { afterAll, describe, expect, it } from 'vitest';
import { searchCapabilities } from '../../src/capabilities/capability-search';
import { TiktokenCounter } from '../../src/models/token-counter';
import { UPDATE_PLAN_MODEL_TOOL } from '../../src/runtime/checklist';
import {
  capabilityModelTool,
  SEARCH_TOOLS_MODEL_TOOL,
  SEARCH_TOOLS_TOOL,
  ToolDiscovery,
  type ToolDiscoveryOptions,
} from '../../src/runtime/context/index';
import { standardDescriptors, syntheticDescriptor } from './context-fixtures';

const counter = new TiktokenCounter();
afterAll(() => counter.dispose());

const ALWAYS_ON = [UPDATE_PLAN_MODEL_TOOL, SEARCH_TOOLS_MODEL_TOOL];
const plugins = (n: number, fields = 4) => Array.from({ length: n }, (_, i) => syntheticDescriptor(i, fields));
const catalog = () => [...standardDescriptors(), ...plugins(50)];
const options = (o: Partial<ToolDiscoveryOptions> = {}): ToolDiscoveryOptions => ({
  maxTools: 4,
  counter,
  contextWindowTokens: 128_000,
  alwaysOn: ALWAYS_ON,
  ...o,
});
const names = (tools: { name: string }[]) => tools.map((t) => t.name);

describe('tool discovery', () => {
  it('the first call carries only the selected set (ranked against the goal) plus the always-on tools', () => {
    const cat = catalog();
    const d = new ToolDiscovery(cat, options({ maxTools: 4 }));
    const goal = 'download Dune 2021';
    const selected = d.select(goal);
    expect(selected).toEqual(searchCapabilities(cat, goal, 4).map((h) => h.capability.id));
    expect(selected).toHaveLength(4);
    expect(selected).toContain('download.submit');
    const { tools, report, note } = d.toolsForNextCall({ requestTokens: 1000 });
    expect(names(tools)).toEqual(['update_plan', 'search_tools', ...selected]);
    expect(d.baseTools()).toEqual(tools);
    expect(names(tools).some((n) => n.startsWith('plugin.'))).toBe(false);
    expect(report?.enabled).toEqual([]);
    expect(note).toBeUndefined();
  });

  it('search finds by id, title, description, tags and aliases, including the CJK alias 整理 → organize', () => {
    const unique = [
      syntheticDescriptor(900, 2, { id: 'vault.zebra' }),
      syntheticDescriptor(901, 2, { title: 'Quokka inspector' }),
      syntheticDescriptor(902, 2, { description: 'Counts the narwhals of a library.' }),
      syntheticDescriptor(903, 2, { tags: ['axolotl'] }),
      syntheticDescriptor(904, 2, { aliases: ['字幕下载'] }),
    ];
    const d = new ToolDiscovery([...catalog(), ...unique], options());
    d.select('hello');
    const found = (q: string) => d.search(q).matches.map((m) => m.name);
    expect(found('vault.zebra')[0]).toBe('vault.zebra');
    expect(found('quokka')).toEqual(['plugin.p901.action']);
    expect(found('narwhals')).toEqual(['plugin.p902.action']);
    expect(found('axolotl')).toEqual(['plugin.p903.action']);
    expect(found('字幕下载')[0]).toBe('plugin.p904.action'); // exact alias first (下载 also finds download.*)
    const organize = found('整理');
    expect(organize).toEqual(expect.arrayContaining(['organize.plan', 'organize.execute']));
    expect(organize.every((n) => n.startsWith('organize.'))).toBe(true);
    expect(found('整理文件')).toEqual(expect.arrayContaining(['organize.plan', 'organize.execute']));
  });

  it('a search returns at most 8 results per call; a search matching nothing never expands to all tools', () => {
    const d = new ToolDiscovery(catalog(), options());
    d.select('hello');
    expect(d.search('plugin').matches).toHaveLength(8);
    expect(d.search('plugin', 3).matches).toHaveLength(3);
    expect(d.search('plugin', 50).matches).toHaveLength(8);
    expect(() => d.searchFromInput({ search: 'plugin', limit: 9 })).toThrow(
      expect.objectContaining({ code: 'TOOL_SEARCH_INPUT_INVALID' }),
    );
    expect(d.searchFromInput({ search: 'plugin', limit: 2 }).matches).toHaveLength(2);
    const before = [...d.candidates];
    const none = d.search('xylophone-quantum');
    expect(none.matches).toEqual([]);
    expect(none.note).toMatch(/not expanded/);
    expect(d.search('   ').matches).toEqual([]);
    expect(d.candidates).toEqual(before);
  });

  it('keeps the 16 most recent extra candidates; re-discovery refreshes priority', () => {
    const d = new ToolDiscovery(plugins(40), options({ maxTools: 1 }));
    d.select('nothing matches this goal');
    const batch = (from: number) => Array.from({ length: 8 }, (_, k) => `plugin.p${from + k}.action`);
    for (const from of [0, 8, 16]) for (const id of batch(from)) d.search(id, 1);
    expect(d.candidates).toHaveLength(16);
    // most recent first: the third batch (reversed, each search put its hit in front), then the second
    expect(d.candidates.slice(0, 8)).toEqual([...batch(16)].reverse());
    expect(d.candidates.slice(8)).toEqual([...batch(8)].reverse());
    expect(d.candidates).not.toContain('plugin.p0.action');
    d.search('plugin.p9.action', 1);
    expect(d.candidates[0]).toBe('plugin.p9.action');
    expect(d.candidates).toHaveLength(16);
    expect(d.candidates.filter((id) => id === 'plugin.p9.action')).toHaveLength(1);
  });

  it('extra schemas share a budget of min(4096 tokens, 10% of the window), with 15% of the window in reserve, counted with the TokenCounter', () => {
    const big = plugins(16, 12);
    const cost = (i: number) => counter.count(JSON.stringify(capabilityModelTool(big[i]!)));
    const enableAll = (d: ToolDiscovery) => {
      d.select('nothing matches this goal');
      for (let i = 15; i >= 0; i--) d.search(`plugin.p${i}.action`, 1); // candidates p0…p15 in priority order
    };
    const check = (window: number, expectedBudget: number) => {
      const d = new ToolDiscovery(big, options({ contextWindowTokens: window }));
      enableAll(d);
      const { report, tools } = d.toolsForNextCall({ requestTokens: 100 });
      expect(report!.budgetTokens).toBe(expectedBudget);
      let used = 0;
      const expected: string[] = [];
      for (let i = 0; i < 16; i++) {
        if (used + cost(i) <= expectedBudget) {
          used += cost(i);
          expected.push(`plugin.p${i}.action`);
        }
      }
      expect(report!.enabled.map((e) => e.id)).toEqual(expected);
      expect(report!.usedTokens).toBe(used);
      expect(report!.usedTokens).toBeLessThanOrEqual(expectedBudget);
      expect(report!.notEnabled.every((e) => e.reason === 'over_budget')).toBe(true);
      expect(report!.enabled.length + report!.notEnabled.length).toBe(16);
      expect(names(tools)).toEqual(['update_plan', 'search_tools', ...expected]);
      return report!;
    };
    expect(check(128_000, 4096).enabled.length).toBeGreaterThan(0); // 10% = 12,800 > 4096
    expect(check(10_000, 1000).notEnabled.length).toBeGreaterThan(0); // 10% = 1000 < 4096

    // reserve: 15% of the window stays free of input
    const d = new ToolDiscovery(big, options({ contextWindowTokens: 128_000 }));
    enableAll(d);
    const limit = 128_000 - Math.ceil(0.15 * 128_000);
    const { report } = d.toolsForNextCall({ requestTokens: limit - cost(0) });
    expect(report!.reserveTokens).toBe(19_200);
    expect(report!.enabled.map((e) => e.id)).toEqual(['plugin.p0.action']);
    expect(report!.notEnabled.every((e) => e.reason === 'reserve')).toBe(true);
    // request tokens may also be counted from the messages
    const counted = d.toolsForNextCall({ messages: [{ role: 'user', content: 'hello' }] });
    expect(counted.report!.requestTokens).toBe(counter.countRequest([{ role: 'user', content: 'hello' }], ALWAYS_ON));
  });

  it('the next call reports which candidates were enabled and why others were not', () => {
    const big = plugins(16, 12);
    const d = new ToolDiscovery(big, options({ contextWindowTokens: 10_000 }));
    d.select('nothing matches this goal');
    const out = d.search('plugin', 8);
    expect(out.matches.every((m) => m.status === 'candidate')).toBe(true);
    expect(out.note).toMatch(/next turn/);
    const first = d.toolsForNextCall({ requestTokens: 500 });
    expect(first.report!.enabled.length).toBeGreaterThan(0);
    expect(first.report!.notEnabled.length).toBeGreaterThan(0);
    expect(first.note).toContain(`Enabled now: ${first.report!.enabled.map((e) => e.id).join(', ')}.`);
    for (const n of first.report!.notEnabled) expect(first.note).toContain(`Not enabled: ${n.id} (over_budget`);
    // unchanged: no new note; a new search: a note again
    expect(d.toolsForNextCall({ requestTokens: 500 }).note).toBeUndefined();
    d.search('plugin.p0.action', 1);
    expect(d.toolsForNextCall({ requestTokens: 500 }).note).toMatch(/Tool discovery/);
    // a candidate that left the catalog is reported unavailable after a resume
    const restored = ToolDiscovery.fromJSON(
      JSON.parse(JSON.stringify(d.toJSON())),
      big.slice(1),
      options({ contextWindowTokens: 10_000 }),
    );
    expect(restored.candidates).toEqual(d.candidates);
    const after = restored.toolsForNextCall({ requestTokens: 500 });
    expect(after.report!.notEnabled).toContainEqual({ id: 'plugin.p0.action', tokens: 0, reason: 'unavailable' });
    expect(after.note).toMatch(/plugin\.p0\.action \(unavailable/);
  });

  it('discovery never widens authorization: only the catalog it is given is searched and offered', () => {
    const allowed = standardDescriptors().filter((c) => c.kind === 'read' || c.kind === 'preview');
    const d = new ToolDiscovery(allowed, options());
    d.select('download and organize Dune');
    expect(d.search('download.submit').matches.map((m) => m.name)).not.toContain('download.submit');
    expect(
      d
        .search('整理')
        .matches.map((m) => m.name)
        .some((n) => n.startsWith('organize.')),
    ).toBe(false);
    expect(
      names(d.toolsForNextCall().tools).every(
        (n) => n === 'update_plan' || n === SEARCH_TOOLS_TOOL || allowed.some((c) => c.id === n),
      ),
    ).toBe(true);
  });

  it('maxTools 0 offers every tool on every call (no discovery)', () => {
    const cat = catalog();
    const d = new ToolDiscovery(cat, options({ maxTools: 0 }));
    expect(d.enabled).toBe(false);
    expect(d.select('download Dune')).toEqual([]);
    const { tools, report, note } = d.toolsForNextCall({ requestTokens: 100 });
    expect(names(tools)).toEqual([...cat.map((c) => c.id), 'update_plan']);
    expect(d.baseTools()).toEqual(tools);
    expect(report).toBeUndefined();
    expect(note).toBeUndefined();
  });

  it('the state survives a crash: toJSON/fromJSON restores selection and candidates', () => {
    const cat = catalog();
    const d = new ToolDiscovery(cat, options());
    d.select('download Dune');
    d.search('plugin', 5);
    const state = JSON.parse(JSON.stringify(d.toJSON()));
    const r = ToolDiscovery.fromJSON(state, cat, options());
    expect(r.selected).toEqual(d.selected);
    expect(r.candidates).toEqual(d.candidates);
    expect(names(r.toolsForNextCall({ requestTokens: 100 }).tools)).toEqual(
      names(d.toolsForNextCall({ requestTokens: 100 }).tools),
    );
  });
});
