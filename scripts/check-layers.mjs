#!/usr/bin/env node
// Layer check: every relative import in packages/sdk/src points down the layer order below, or
// stays in its own folder; no two folders import each other, and no files import each other in a
// cycle. Exits 1 and names each offending import otherwise.
//
//   node scripts/check-layers.mjs          check (what `npm run check:layers` and .ci/run do)
//   node scripts/check-layers.mjs --graph  also print the folder graph (folder -> folder: imports)
//   node scripts/check-layers.mjs --src <dir>  check another source tree laid out the same way
//
// Imports are read with TypeScript's own pre-processor (`ts.preProcessFile`), so imports in
// comments and strings are ignored and `import type`, `export … from` and `import()` all count.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const srcArg = process.argv.indexOf('--src');
const SRC = srcArg > 0 ? resolve(process.argv[srcArg + 1] ?? '') : join(repo, 'packages/sdk/src');

/**
 * The SDK's layers, lowest first. A folder may import its own files and the folders of lower
 * layers; folders of one layer are peers and may not import each other. Files directly in `src/`
 * are the package entries (`index.ts`, `sqlite.ts`, `testing.ts`) and may import any folder.
 */
export const LAYERS = [
  {
    layer: 'core',
    folders: ['core'],
    holds: 'domain model: records, actor, capability descriptor, canonical JSON, UTC day, the error base class',
  },
  { layer: 'ports', folders: ['ports'], holds: 'interfaces the services depend on: storage, clock, ids, logger' },
  {
    layer: 'adapters',
    folders: ['storage', 'models'],
    holds: 'memory and SQLite stores; model providers and token counting (use ports and core only)',
  },
  {
    layer: 'rules and services',
    folders: ['ledger', 'authorization', 'memory'],
    holds:
      'pure rule functions and the services that apply them to storage; stable memory (MEMORY.md / USER.md, proposals, search_memory)',
  },
  {
    layer: 'invocation path',
    folders: ['capabilities'],
    holds: 'capability schemas, the registry and the one authorized invocation path',
  },
  { layer: 'capability families', folders: ['media'], holds: 'standard media capabilities' },
  {
    layer: 'history and skills',
    folders: ['history', 'skills'],
    holds:
      'per-user conversation history archive and session search (the store port, its SQLite store, query routing); personal skill library (the fuzzy patch matcher, SKILL.md rules, the file store, ownership and archive)',
  },
  {
    layer: 'runtime',
    folders: ['runtime'],
    holds: 'the run loop, run events and their bus, middleware, guardrails, context, the agent host',
  },
  { layer: 'composition root', folders: ['composition'], holds: 'DI tokens and the container that wires every layer' },
  {
    layer: 'interoperability',
    folders: ['mcp', 'http'],
    holds:
      'MCP server and client (the /mcp entry; the only folder that imports @modelcontextprotocol/sdk); the HTTP runs API, event stream and web console router (the /http entry; the only folder that imports hono)',
  },
  {
    layer: 'test harness',
    folders: ['testing'],
    holds: 'storage conformance suite, sandbox host, run helpers, task evaluation (scenarios, oracle, eval CLI)',
  },
];

const ENTRY = '(entry)';

function listFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p));
    else if (/\.(c|m)?tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function folderOf(file) {
  const parts = relative(SRC, file).split(sep);
  return parts.length === 1 ? ENTRY : parts[0];
}

function resolveImport(from, spec, known) {
  const base = resolve(dirname(from), spec).replace(/\.(c|m)?js$/, '');
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
    if (known.has(candidate)) return candidate;
  }
  return undefined;
}

/** Reads every relative import: a map file -> imported files. Unresolvable relative imports are problems. */
export function readImports(files, problems) {
  const known = new Set(files);
  const graph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = [];
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolveImport(file, fileName, known);
      if (target === undefined) problems.push(`${relative(repo, file)}: cannot resolve '${fileName}'`);
      else targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected components with more than one node (or a self-edge): the cycles. Tarjan's algorithm. */
export function cycles(nodes, edgesOf) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of edgesOf(v)) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || edgesOf(v).includes(v)) found.push(component.reverse());
    }
  };
  for (const v of nodes) if (!idx.has(v)) visit(v);
  return found;
}

function main() {
  const problems = [];
  const rank = new Map();
  for (const [i, { folders }] of LAYERS.entries()) for (const f of folders) rank.set(f, i);
  const files = listFiles(SRC);
  const graph = readImports(files, problems);

  const folderEdges = new Map(); // "a -> b" -> count
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    if (from !== ENTRY && !rank.has(from))
      problems.push(
        `${relative(repo, file)}: folder '${from}' is in no layer (add it to LAYERS in scripts/check-layers.mjs)`,
      );
    for (const target of targets) {
      const to = folderOf(target);
      if (to === from) continue;
      const key = `${from} -> ${to}`;
      folderEdges.set(key, (folderEdges.get(key) ?? 0) + 1);
      if (from === ENTRY || !rank.has(from)) continue;
      if (to === ENTRY) {
        problems.push(`${relative(repo, file)} imports the package entry ${relative(repo, target)}`);
      } else if (rank.has(to) && rank.get(to) >= rank.get(from)) {
        const how = rank.get(to) === rank.get(from) ? 'its peer' : 'the higher layer';
        problems.push(
          `${relative(repo, file)} (${LAYERS[rank.get(from)].layer}) imports ${how} ${relative(repo, target)} (${LAYERS[rank.get(to)].layer})`,
        );
      }
    }
  }

  const folders = [...new Set([...folderEdges.keys()].flatMap((k) => k.split(' -> ')))];
  const out = (f) => [...folderEdges.keys()].filter((k) => k.startsWith(`${f} -> `)).map((k) => k.split(' -> ')[1]);
  for (const c of cycles(folders, out)) problems.push(`folder cycle: ${[...c, c[0]].join(' -> ')}`);
  for (const c of cycles(files, (f) => graph.get(f) ?? []))
    problems.push(`file cycle: ${[...c, c[0]].map((f) => relative(SRC, f)).join(' -> ')}`);

  if (process.argv.includes('--graph')) {
    for (const [edge, n] of [...folderEdges].sort(([a], [b]) => a.localeCompare(b))) console.log(`${edge}: ${n}`);
  }
  if (problems.length > 0) {
    console.error(`check-layers: ${problems.length} problem(s)\n  ${problems.join('\n  ')}`);
    process.exitCode = 1;
    return;
  }
  console.log(
    `check-layers: ${files.length} files, ${folderEdges.size} folder edges, imports point down ${LAYERS.map((l) => l.folders.join('+')).join(' <- ')}`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
