// What importing an entry of @media-agent/sdk loads. Reports of other projects show the failure kind:
// atlassian-labs/mcp-compressor#24 (the main barrel dragged in a transport and ~110 files of undici for a
// consumer that needed one helper; fixed by light subpaths whose static import graph a test walks) and
// facebook/lexical#9153 (one entry bundles every extension). Here: the static import graph of every entry,
// from its source, names the packages it loads, and only the entries made for them load the heavy or
// optional ones. Dynamic `import()` (lazy loading) is not a static edge.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src/', import.meta.url));
const pkg = JSON.parse(readFileSync(join(src, '..', 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
const entries = Object.keys(pkg.exports)
  .filter((s) => s !== './package.json')
  .map((s) => (s === '.' ? 'index' : s.slice(2)));

/** The specifiers a file imports or re-exports at run time (`import type`, `export type` and all-type lists are erased). */
function runtimeSpecifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, false);
  const out: string[] = [];
  for (const node of source.statements) {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      if (clause?.isTypeOnly) continue;
      const named = clause?.namedBindings;
      const allTypes =
        clause !== undefined &&
        clause.name === undefined &&
        named !== undefined &&
        ts.isNamedImports(named) &&
        named.elements.length > 0 &&
        named.elements.every((e) => e.isTypeOnly);
      if (!allTypes) out.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (node.isTypeOnly) continue;
      const clause = node.exportClause;
      if (
        clause &&
        ts.isNamedExports(clause) &&
        clause.elements.length > 0 &&
        clause.elements.every((e) => e.isTypeOnly)
      )
        continue;
      out.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && !node.isTypeOnly) {
      const ref = node.moduleReference;
      if (ts.isExternalModuleReference(ref) && ts.isStringLiteral(ref.expression)) out.push(ref.expression.text);
    }
  }
  return out;
}

/** The packages (bare specifiers, by package name) that a source file's static imports reach, transitively. */
function staticPackages(entry: string): { packages: Set<string>; files: number } {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const queue = [join(src, `${entry}.ts`)];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of runtimeSpecifiers(file)) {
      if (spec.startsWith('.')) {
        const base = resolve(dirname(file), spec.replace(/\.js$/, ''));
        const target = [`${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(p));
        if (target) queue.push(target);
      } else {
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string);
        if (!name.startsWith('node:')) packages.add(name);
      }
    }
  }
  return { packages, files: seen.size };
}

/** Optional peers and native or heavy packages, with the only entries that may load them statically. */
const CONFINED: Record<string, readonly string[]> = {
  'better-sqlite3': ['sqlite', 'testing'],
  pg: ['postgres'],
  '@modelcontextprotocol/sdk': ['mcp'],
  'quickjs-emscripten': [],
  tiktoken: [],
  hono: ['http', 'testing'],
  '@hono/node-server': ['http', 'testing'],
};

describe('the static import graph of each entry', () => {
  const graphs = new Map(entries.map((e) => [e, staticPackages(e)]));

  it('finds every entry and reads a real graph (the root reaches the runtime)', () => {
    expect(entries).toContain('index');
    expect(entries.length).toBeGreaterThanOrEqual(15);
    expect(graphs.get('index')?.files).toBeGreaterThan(50);
    expect(graphs.get('sqlite')?.packages.has('better-sqlite3')).toBe(true);
    expect(graphs.get('postgres')?.packages.has('pg')).toBe(true);
  });

  it.each(Object.entries(CONFINED))('%s is loaded statically only by the entries made for it', (name, allowed) => {
    const loading = entries.filter((e) => graphs.get(e)?.packages.has(name));
    expect(loading.filter((e) => !allowed.includes(e))).toEqual([]);
  });

  it('the root entry loads only dependencies the package declares, and no optional peer', () => {
    const declared = JSON.parse(readFileSync(join(src, '..', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const root = [...(graphs.get('index')?.packages ?? [])].sort();
    expect(root.filter((name) => !(name in declared.dependencies))).toEqual([]);
  });
});
