/**
 * Benchmark `fuzzy-patch`: the cost of one `applyFuzzyPatch` (the `skill_manage` patch matcher) on a
 * SKILL.md at the 100 000-character limit (about 2 000 lines of Markdown list items), by the strategy
 * that finds the match: an exact edit, a whitespace-normalized one, a unicode-normalized one (smart
 * quotes sent as ASCII), a block-anchor and a context-aware one (similarity ratios over every window),
 * and a miss (all nine strategies fail, then the similar-lines hint). The target is near the end of
 * the file, so every strategy scans the whole text before it.
 *
 * Figures are from one run on the machine that printed them; compare rows, not machines.
 * Run with `npm run bench -- fuzzy-patch`.
 */
import { performance } from 'node:perf_hooks';
import { applyFuzzyPatch } from '../packages/sdk/src/skills/fuzzy-patch';
import { printMachine, printTable } from './_report';

function document(): string {
  const lines: string[] = ['# Media rules', ''];
  for (let i = 0; lines.join('\n').length < 99_000; i++)
    lines.push(`  - Rule ${i}: prefer \u201Cremux\u201D releases for show ${i} \u2014 check the codec ${i % 7} first`);
  lines.push(
    '  - Use qBittorrent \u201Cfast\u201D mode \u2014 always',
    '  - Last rule: keep the library tidy',
    '    - nested detail',
    '  - done',
  );
  return lines.join('\n').slice(0, 100_000);
}

export async function run(): Promise<void> {
  printMachine();
  const content = document();
  const cases: Array<[string, string, string]> = [
    ['exact', '  - Last rule: keep the library tidy', '  - Last rule: keep it tidy'],
    ['whitespace_normalized', 'Last rule:   keep the library   tidy', 'Last rule: keep it tidy'],
    ['unicode_normalized', '- Use qBittorrent "fast" mode -- always', '- Use qBittorrent "safe" mode -- always'],
    [
      'block_anchor',
      '- Last rule: keep the library tidy\n  - nested detial\n- done',
      '- Last rule: tidy\n  - nested\n- done',
    ],
    [
      'context_aware',
      '- Last rule: keep the library tidy!\n  - nested detail.\n- done',
      '- Last rule\n- nested\n- done',
    ],
    ['miss', 'this text is nowhere in the file\nnor is this line', 'x'],
  ];
  const rows: string[][] = [];
  for (const [name, oldString, newString] of cases) {
    const once = applyFuzzyPatch({ content, oldString, newString });
    const found = once.ok ? once.strategy : once.code;
    const iterations = name === 'miss' || name === 'context_aware' ? 5 : 50;
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) applyFuzzyPatch({ content, oldString, newString });
    const ms = (performance.now() - t0) / iterations;
    rows.push([name, found, content.length.toLocaleString('en'), ms.toFixed(2)]);
  }
  printTable(['case', 'result', 'file chars', 'ms per patch'], rows, new Set([2, 3]));
}
