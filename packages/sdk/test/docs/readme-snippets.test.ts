/**
 * Every TypeScript snippet of the READMEs (the root README, `packages/*\/README.md`,
 * `examples/*\/README.md`) is type-checked against the workspace sources, and the snippets marked
 * `run` are run as programs, so a README cannot drift from the API.
 *
 * Convention — what a snippet assumes is written next to it in the README, visible in its source:
 * an HTML comment directly above the fence (only blank lines between),
 *
 *     <!-- snippet[: run]
 *     …the prelude: imports and `declare const` placeholders for what the surrounding text provides…
 *     ---
 *     …the epilogue (optional): what a program needs after the snippet, e.g. `await host.stop();`…
 *     -->
 *     ```ts
 *
 * The file checked is prelude + snippet + epilogue (an ES module; top-level await allowed), with the
 * repository's tsconfig (workspace packages resolve to their sources). `run` snippets are then run with
 * tsx in an empty temporary working directory and must exit 0 within the timeout. Errors are reported
 * at the README's own line numbers.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

/** One fenced TypeScript block of a README, with what its comment says it assumes. */
interface Snippet {
  /** README path relative to the repository root. */
  readme: string;
  /** 1-based line of the snippet's first code line in the README. */
  line: number;
  code: string;
  prelude: string;
  epilogue: string;
  run: boolean;
  /** The file written for it. */
  file: string;
}

function readmes(): string[] {
  const found = ['README.md'];
  for (const dir of ['packages', 'examples']) {
    for (const name of readdirSync(join(root, dir)).sort()) {
      if (existsSync(join(root, dir, name, 'README.md'))) found.push(`${dir}/${name}/README.md`);
    }
  }
  return found;
}

/** The ```ts / ```typescript blocks of a README and their `<!-- snippet … -->` comments. */
function extractSnippets(readme: string, text: string): Array<Omit<Snippet, 'file'>> {
  const lines = text.split('\n');
  const out: Array<Omit<Snippet, 'file'>> = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i]!)) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    let prelude = '';
    let epilogue = '';
    let run = false;
    let above = i - 1;
    while (above >= 0 && lines[above]!.trim() === '') above--;
    if (above >= 0 && lines[above]!.trim() === '-->') {
      let open = above - 1;
      while (open >= 0 && !lines[open]!.startsWith('<!--')) open--;
      const header = /^<!--\s*snippet(?::\s*(run))?\s*$/.exec(lines[open] ?? '');
      if (header) {
        run = header[1] === 'run';
        const body = lines.slice(open + 1, above);
        const split = body.indexOf('---');
        prelude = (split < 0 ? body : body.slice(0, split)).join('\n');
        epilogue = split < 0 ? '' : body.slice(split + 1).join('\n');
      }
    }
    out.push({ readme, line: start + 1, code: lines.slice(start, end).join('\n'), prelude, epilogue, run });
    i = end;
  }
  return out;
}

const outDir = join(root, 'temp', 'readme-snippets');
const snippets: Snippet[] = [];
for (const readme of readmes()) {
  extractSnippets(readme, readFileSync(join(root, readme), 'utf8')).forEach((s) => {
    const slug = readme.replace(/\/README\.md$|\.md$/, '').replace(/[^A-Za-z0-9]+/g, '-');
    snippets.push({ ...s, file: join(outDir, `${slug}-L${s.line}.ts`) });
  });
}

/** Where a line of the written file comes from: the README line, or the prelude/epilogue. */
function origin(snippet: Snippet, fileLine: number): string {
  const preludeLines = snippet.prelude ? snippet.prelude.split('\n').length : 0;
  const codeLines = snippet.code.split('\n').length;
  if (fileLine < preludeLines) return `${snippet.readme} snippet prelude line ${fileLine + 1}`;
  if (fileLine < preludeLines + codeLines) return `${snippet.readme}:${snippet.line + fileLine - preludeLines}`;
  return `${snippet.readme} snippet epilogue line ${fileLine - preludeLines - codeLines + 1}`;
}

const diagnostics = new Map<string, string[]>();

beforeAll(() => {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  for (const s of snippets)
    writeFileSync(
      s.file,
      [s.prelude, s.code, s.epilogue, 'export {};', ''].filter((part, i) => part !== '' || i >= 3).join('\n'),
    );
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  )!;
  const program = ts.createProgram(
    snippets.map((s) => s.file),
    config.options,
  );
  for (const s of snippets) {
    const source = program.getSourceFile(s.file)!;
    const found = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) => {
      const line = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
      return `${origin(s, line)}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    diagnostics.set(s.file, found);
  }
}, 180_000);

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

/** Runs a snippet file with tsx (workspace packages from their sources) in an empty working directory. */
function runSnippet(file: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  const cwd = mkdtempSync(join(tmpdir(), 'media-agent-snippet-'));
  const loader = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', loader, file], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        TSX_TSCONFIG_PATH: join(root, 'tsconfig.json'),
      },
    });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      rmSync(cwd, { recursive: true, force: true });
      resolve({ code, output });
    });
  });
}

describe('README snippets', () => {
  it('the READMEs have TypeScript snippets to check (the extraction found them)', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(5);
    expect(snippets.some((s) => s.run)).toBe(true);
    expect(
      extractSnippets(
        'x.md',
        '<!-- snippet: run\ndeclare const a: number;\n---\nconsole.log(a);\n-->\n\n```ts\nconst b = a;\n```\n',
      ),
    ).toEqual([
      {
        readme: 'x.md',
        line: 8,
        code: 'const b = a;',
        prelude: 'declare const a: number;',
        epilogue: 'console.log(a);',
        run: true,
      },
    ]);
  });

  for (const s of snippets) {
    it(`${s.readme}:${s.line} type-checks`, () => {
      expect(diagnostics.get(s.file), `${relative(root, s.file)}`).toEqual([]);
    });
    if (s.run) {
      it(`${s.readme}:${s.line} runs to completion (exit 0)`, async () => {
        const { code, output } = await runSnippet(s.file, 60_000);
        expect(code, output).toBe(0);
      }, 70_000);
    }
  }
});
