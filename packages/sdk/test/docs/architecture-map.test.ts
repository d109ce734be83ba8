/**
 * docs/architecture.md is the map of the code, so it cannot name what is not there.
 *
 * - Every repository path the page names exists. A path is a backticked word with a `/` that ends in a file
 *   extension or a `/` (`runtime/loop/drive.ts`, `runtime/guardrails/`), a backticked `*.ts` file name (an entry
 *   file such as `loop.ts`), or the target of a relative link.
 *   Convention, stated on the page: a source path is relative to `packages/sdk/src/`; a path that starts with a
 *   top-level folder of the repository (`packages/`, `scripts/`, `docs/`, …) is from the repository root. Links
 *   are relative to `docs/`.
 * - The layer diagram lists the layers of `scripts/check-layers.mjs` (`LAYERS`), top first, with their folders.
 * - Every anchor that points into the page — from other docs, from source comments (`docs/architecture.md#…`)
 *   and from the page itself (`](#…)`) — is the anchor of one of its headings.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const PAGE = 'docs/architecture.md';
const SRC = 'packages/sdk/src';

/** The top-level folders of the repository a path on the page may start with (else it is relative to SRC). */
const ROOT_FOLDERS = ['packages', 'scripts', 'docs', 'examples', 'bench', 'eval', 'api-reports', 'tools'];

/** Where a path named on the page is, from the repository root. */
function resolveMapPath(path: string): string {
  const first = path.split('/')[0]!;
  return ROOT_FOLDERS.includes(first) ? path : `${SRC}/${path}`;
}

/** The repository paths a page names in backticks, with their 1-based lines. */
function backtickPaths(text: string): Array<{ path: string; line: number }> {
  const out: Array<{ path: string; line: number }> = [];
  const lines = text.split('\n');
  let fenced = false;
  for (const [i, line] of lines.entries()) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    for (const m of line.matchAll(/`([^`]+)`/g)) {
      for (const word of m[1]!.split(/\s+/)) {
        const path = word.replace(/#.*$/, '');
        // A path: word characters, dots and dashes between slashes, ending in an extension or a slash; a word
        // without a slash only when it names a TypeScript file (an entry file at the top of the source).
        if (!/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*\/?$/.test(path)) continue;
        if (path.includes('/') ? !/(\.(ts|mjs|js|md|json)|\/)$/.test(path) : !path.endsWith('.ts')) continue;
        out.push({ path, line: i + 1 });
      }
    }
  }
  return out;
}

/** The relative link targets of a page (no scheme, no pure anchor), without their anchors. */
function linkTargets(text: string): Array<{ path: string; line: number }> {
  const out: Array<{ path: string; line: number }> = [];
  for (const [i, line] of text.split('\n').entries()) {
    for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target) || target.startsWith('#')) continue;
      out.push({ path: target.replace(/#.*$/, ''), line: i + 1 });
    }
  }
  return out;
}

/** GitHub's anchors of a page's headings (lowercase, punctuation dropped, spaces as dashes, `-1` for repeats). */
function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The layers of the page's diagram (the fenced block under `## Layers`), top first: name and folders. */
function diagramLayers(text: string): Array<{ layer: string; folders: string[] }> {
  const section = text.slice(text.indexOf('\n## Layers\n'));
  const block = /\n```\n([\s\S]*?)\n```/.exec(section)?.[1] ?? '';
  const out: Array<{ layer: string; folders: string[] }> = [];
  for (const line of block.split('\n')) {
    const m = /^([a-z][a-z ]*[a-z])\s{2,}((?:[a-z]+\/ *)+)/.exec(line);
    if (m)
      out.push({
        layer: m[1]!,
        folders: m[2]!
          .trim()
          .split(/\s+/)
          .map((f) => f.replace(/\/$/, '')),
      });
  }
  return out;
}

/** Every Markdown and TypeScript file of the repository (no dependencies, no build output). */
function repositoryFiles(dir = root): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...repositoryFiles(p));
    else if (/\.(md|ts|mts|mjs)$/.test(e.name)) out.push(p);
  }
  return out;
}

/** Anchors into the page that other files use: the page's name, `#` and an anchor, in any doc or source file. */
function anchorsUsedElsewhere(): Array<{ anchor: string; file: string }> {
  const out: Array<{ anchor: string; file: string }> = [];
  for (const file of repositoryFiles()) {
    const rel = relative(root, file);
    if (rel === PAGE) continue;
    for (const m of readFileSync(file, 'utf8').matchAll(/architecture\.md#([A-Za-z0-9_-]+)/g)) {
      out.push({ anchor: m[1]!, file: rel });
    }
  }
  return out;
}

const page = readFileSync(join(root, PAGE), 'utf8');

describe('docs/architecture.md: the map matches the code', () => {
  it('states its path convention', () => {
    expect(page).toContain('A source path in backticks is relative to `packages/sdk/src/`');
  });

  it('names only paths that exist', () => {
    const named = backtickPaths(page);
    // The page is a map of the source: it names many files (a parse that finds none would pass vacuously).
    expect(named.length).toBeGreaterThan(100);
    const missing = named.filter(({ path }) => !existsSync(join(root, resolveMapPath(path))));
    expect(missing.map(({ path, line }) => `${PAGE}:${line}: ${path} -> ${resolveMapPath(path)}`)).toEqual([]);
  });

  it('links only to files that exist', () => {
    const links = linkTargets(page);
    expect(links.length).toBeGreaterThan(5);
    const missing = links.filter(({ path }) => !existsSync(join(root, 'docs', path)));
    expect(missing.map(({ path, line }) => `${PAGE}:${line}: ${path}`)).toEqual([]);
  });

  it('draws the layers of scripts/check-layers.mjs, top first', async () => {
    const script = pathToFileURL(join(root, 'scripts/check-layers.mjs')).href;
    const { LAYERS } = (await import(script)) as { LAYERS: Array<{ layer: string; folders: string[] }> };
    expect(LAYERS.length).toBeGreaterThan(5);
    expect(diagramLayers(page)).toEqual(
      [...LAYERS].reverse().map(({ layer, folders }) => ({ layer, folders: [...folders] })),
    );
  });

  it('has every heading anchor that other files link to', () => {
    const anchors = headingAnchors(page);
    const used = anchorsUsedElsewhere();
    expect(used.length).toBeGreaterThan(10);
    const broken = used.filter(({ anchor }) => !anchors.has(anchor));
    expect(broken.map(({ anchor, file }) => `${file}: #${anchor}`)).toEqual([]);
  });

  it('has every anchor it links to itself', () => {
    const anchors = headingAnchors(page);
    const own = [...page.matchAll(/\]\(#([A-Za-z0-9_-]+)\)/g)].map((m) => m[1]!);
    expect(own.length).toBeGreaterThan(0);
    expect(own.filter((a) => !anchors.has(a))).toEqual([]);
  });

  it('resolves paths and anchors the way the page says', () => {
    expect(resolveMapPath('runtime/loop/drive.ts')).toBe('packages/sdk/src/runtime/loop/drive.ts');
    expect(resolveMapPath('scripts/check-layers.mjs')).toBe('scripts/check-layers.mjs');
    expect(backtickPaths('see `runtime/loop/drive.ts` and `node --import tsx bench/_probe-sql.ts`')).toEqual([
      { path: 'runtime/loop/drive.ts', line: 1 },
      { path: 'bench/_probe-sql.ts', line: 1 },
    ]);
    expect(backtickPaths('the entries `loop.ts` and `index.ts`')).toEqual([
      { path: 'loop.ts', line: 1 },
      { path: 'index.ts', line: 1 },
    ]);
    // Not paths: packages, ids, MIME-like words without an extension, other files named without a folder.
    expect(backtickPaths('`@media-agent/sdk/mcp` `user:<id>` `image/png` `family.*` `MEMORY.md`')).toEqual([]);
    expect(headingAnchors('## The goal report\n### Steps and transactions\n## Runs\n## Runs')).toEqual(
      new Set(['the-goal-report', 'steps-and-transactions', 'runs', 'runs-1']),
    );
  });
});
