import { describe, expect, it } from 'vitest';
import { applyFuzzyPatch, escapeDrift } from '../../src/skills/fuzzy-patch';
import { findMatches, matchIndentationFlexible, matchTrimmedBoundary } from '../../src/skills/fuzzy-strategies';
import { sequenceRatio } from '../../src/skills/sequence-ratio';

function patched(content: string, oldString: string, newString: string, replaceAll = false) {
  const out = applyFuzzyPatch({ content, oldString, newString, replaceAll });
  if (!out.ok) throw new Error(`${out.code}: ${out.message}`);
  return out;
}

describe('sequenceRatio', () => {
  it('gives the Ratcliff/Obershelp ratios difflib gives, auto-junk included', () => {
    expect(sequenceRatio('abcd', 'bcde')).toBe(0.75);
    expect(sequenceRatio(' abcd', 'abcd abcd')).toBeCloseTo(0.7142857142857143, 12);
    expect(sequenceRatio('', '')).toBe(1);
    expect(sequenceRatio('- Use qBittorrent fast mode', '- Use qBitorrent fast mod')).toBeCloseTo(
      0.9615384615384616,
      12,
    );
    // 240 and 220 code points over a 6-letter alphabet: every letter is "popular" in b, so no seeds.
    let a = '';
    let b = '';
    for (let i = 0; i < 120; i++) a += 'abcd'[(i * 7) % 4]! + 'xy'[(i * 3) % 2]!;
    for (let i = 0; i < 110; i++) b += 'abcd'[(i * 5) % 4]! + 'xy'[(i * 11) % 2]!;
    expect(sequenceRatio(a, b)).toBeCloseTo(0.008695652173913044, 12);
  });
});

describe('fuzzy patch strategies (first match wins)', () => {
  it('exact: replaces the literal occurrence', () => {
    const out = patched('a foo b', 'foo', 'bar');
    expect(out).toMatchObject({ strategy: 'exact', content: 'a bar b', replacements: 1 });
  });

  it('line_trimmed: matches lines stripped at both ends and re-indents the replacement to the file', () => {
    const file = 'top\n    alpha  \n    beta\nend\n';
    const out = patched(file, 'alpha\nbeta', 'alpha\n  nested\nbeta2');
    expect(out.strategy).toBe('line_trimmed');
    expect(out.content).toBe('top\n    alpha\n      nested\n    beta2\nend\n');
  });

  it('whitespace_normalized: collapses runs of blanks and maps the span back to the file', () => {
    const out = patched('const x =   1;\nnext\n', 'x = 1', 'x = 2');
    expect(out.strategy).toBe('whitespace_normalized');
    expect(out.content).toBe('const x = 2;\nnext\n');
    // A match that ends in a collapsed run takes the whole run of the file.
    const trailing = patched('key:\t  value', 'key: ', 'key=');
    expect(trailing).toMatchObject({ strategy: 'whitespace_normalized', content: 'key=value' });
  });

  it('indentation_flexible: ignores only leading whitespace (trailing whitespace must agree)', () => {
    const file = '  one\n  two  \n';
    expect(matchIndentationFlexible(file, 'one\ntwo  ')).toEqual([{ start: 0, end: 13 }]);
    expect(matchIndentationFlexible(file, 'one\ntwo')).toEqual([]);
  });

  it('escape_normalized: reads literal \\n in old_string as a line break', () => {
    const out = patched('line one\nline two\n', 'line one\\nline two', 'line one\nline 2');
    expect(out).toMatchObject({ strategy: 'escape_normalized', content: 'line one\nline 2\n' });
  });

  it('trimmed_boundary: drops blank edge lines of old_string and trims only the first and last lines', () => {
    const out = patched('intro\nfoo()\nbar()\nend', '\n\n  foo()\nbar()  \n\n', 'foo()\nbaz()');
    expect(out).toMatchObject({ strategy: 'trimmed_boundary', content: 'intro\nfoo()\nbaz()\nend' });
    expect(matchTrimmedBoundary('a\n x \nb', '\na\nx\nb\n').spans).toEqual([]); // middle lines compare exactly
  });

  it('unicode_normalized: keeps indentation, smart quotes and the em dash, changing only the edited word', () => {
    const file = '# Downloads\n\n    - Use qBittorrent \u201Cfast\u201D mode \u2014 always\n';
    const out = patched(file, '- Use qBittorrent "fast" mode -- always', '- Use qBittorrent "safe" mode -- always');
    expect(out.strategy).toBe('unicode_normalized');
    expect(out.content).toBe('# Downloads\n\n    - Use qBittorrent \u201Csafe\u201D mode \u2014 always\n');
    // The ideographic space U+3000 and the no-break space fold to a plain space.
    const spaced = patched('\u540D\u3000\u79F0:\u00A0x', '\u540D \u79F0: x', '\u540D \u79F0: y');
    expect(spaced).toMatchObject({ strategy: 'unicode_normalized', content: '\u540D\u3000\u79F0:\u00A0y' });
  });

  it('block_anchor: matches on equal first and last lines with a similar middle', () => {
    const file = 'def f():\n    a = compute(1)\n    return a\n';
    const out = patched(
      file,
      'def f():\n    a = compute(2)\n    return a',
      'def f():\n    a = compute(3)\n    return a',
    );
    expect(out).toMatchObject({ strategy: 'block_anchor', content: 'def f():\n    a = compute(3)\n    return a\n' });
    // A dissimilar middle is no match.
    const miss = applyFuzzyPatch({
      content: file,
      oldString: 'def f():\n    zzzzzzzzzzzzzzzzzz\n    return a',
      newString: 'x',
    });
    expect(miss).toMatchObject({ ok: false, code: 'SKILL_PATCH_NO_MATCH' });
  });

  it('context_aware: matches blocks whose every line is at least 0.8 similar', () => {
    const file = 'alpha beta gamma\nsecond line here\nthird line end\n';
    const out = patched(file, 'alpha beta gamma!\nsecond line here\nthird line end.', 'alpha beta\nsecond line\nthird');
    expect(out).toMatchObject({ strategy: 'context_aware', content: 'alpha beta\nsecond line\nthird\n' });
  });

  it('tries the strategies in order: an exact match wins over a fuzzier one elsewhere', () => {
    const found = findMatches('  x  y\nx y\n', 'x y');
    expect(found?.strategy).toBe('exact');
    expect(found?.match.spans).toEqual([{ start: 7, end: 10 }]);
  });
});

describe('fuzzy patch refusals', () => {
  it('refuses empty, whitespace-only and unchanged edits', () => {
    expect(applyFuzzyPatch({ content: 'a', oldString: '', newString: 'b' })).toMatchObject({
      ok: false,
      code: 'SKILL_PATCH_INVALID',
    });
    expect(applyFuzzyPatch({ content: 'a', oldString: ' \n\t', newString: 'b' })).toMatchObject({
      ok: false,
      code: 'SKILL_PATCH_INVALID',
    });
    const same = applyFuzzyPatch({ content: 'a', oldString: 'a', newString: 'a' });
    expect(same.ok).toBe(false);
    if (!same.ok) expect(same.message).toContain('no edit applied');
  });

  it('refuses a target that matches twice, listing L<n>: locations, and replaces both with replace_all', () => {
    const file = '# List\n- item\n- other\n- item\n';
    const out = applyFuzzyPatch({ content: file, oldString: '- item', newString: '- thing' });
    expect(out).toMatchObject({ ok: false, code: 'SKILL_PATCH_AMBIGUOUS' });
    if (!out.ok) {
      expect(out.message).toContain('L2: - item');
      expect(out.message).toContain('L4: - item');
    }
    expect(patched(file, '- item', '- thing', true).content).toBe('# List\n- thing\n- other\n- thing\n');
  });

  it('lists at most five locations and counts the rest', () => {
    const out = applyFuzzyPatch({ content: 'x\n'.repeat(8), oldString: 'x', newString: 'y' });
    expect(out.ok).toBe(false);
    if (!out.ok) {
      expect(out.message.match(/^L\d+: /gm)).toHaveLength(5);
      expect(out.message).toContain('…and 3 more');
    }
  });

  it('refuses replace_all over several similarity-based matches', () => {
    const file = 'colour red value\nother\ncolour rad value\n';
    const out = applyFuzzyPatch({ content: file, oldString: 'colour rod value', newString: 'c', replaceAll: true });
    expect(out).toMatchObject({ ok: false, code: 'SKILL_PATCH_INVALID' });
  });

  it('refuses over-escaped quotes, literal \\n for real line breaks and doubled backslashes', () => {
    const quoted = applyFuzzyPatch({
      content: 'say "hi" now\n',
      oldString: 'say \\"hi\\" now',
      newString: 'say \\"yo\\" now',
    });
    expect(quoted).toMatchObject({ ok: false, code: 'SKILL_PATCH_ESCAPE_DRIFT' });
    const lines = applyFuzzyPatch({ content: 'one\ntwo\n', oldString: 'one\\ntwo', newString: 'one\\nthree' });
    expect(lines).toMatchObject({ ok: false, code: 'SKILL_PATCH_ESCAPE_DRIFT' });
    expect(escapeDrift('C:\\\\dir\\\\sub', 'D:\\\\dir\\\\sub', 'C:\\dir\\sub')).toContain('doubled');
    expect(escapeDrift('C:\\\\dir\\\\sub', 'D:\\dir\\sub', 'C:\\dir\\sub')).toBeUndefined();
  });

  it('turns literal \\t into a tab only where the matched region has a real tab', () => {
    const out = patched('\tkey = 1\n', 'key  =  1', 'key\\t= 2');
    expect(out.strategy).toBe('whitespace_normalized');
    expect(out.content).toBe('\tkey\\t= 2\n');
    const tabbed = patched('a\tb = 1\n', 'a b = 1', 'a\\tb = 2');
    expect(tabbed.content).toBe('a\tb = 2\n');
  });

  it('on a miss, shows the most similar lines with context and visible whitespace', () => {
    const file = 'title\nintro\nfoo bar\nafter\n';
    const out = applyFuzzyPatch({ content: file, oldString: 'foobar\nzzzzzzzzzzzzzz qqqq', newString: 'x' });
    expect(out).toMatchObject({ ok: false, code: 'SKILL_PATCH_NO_MATCH' });
    if (!out.ok) {
      expect(out.message).toContain('could not find a match');
      expect(out.message).toContain('L3: foo bar');
      expect(out.message).toContain('L1: title');
      expect(out.message).toContain('foo·bar');
    }
  });
});
