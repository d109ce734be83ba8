/**
 * Every TypeScript snippet of the documentation — the READMEs (the root README, `packages/*\/README.md`,
 * `examples/*\/README.md`) and the pages `docs/*.md` — is type-checked against the workspace sources, all in one
 * TypeScript program, and the snippets marked `run` are run as programs, all in one child process, so the
 * documentation cannot drift from the API.
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
 * repository's tsconfig (workspace packages resolve to their sources). `run` snippets are then imported one after
 * the other by one tsx process, each in an empty temporary working directory, and must finish without throwing
 * (and leave `process.exitCode` unset or 0) within the timeout. Errors are reported at the page's own line numbers.
 * Mark a snippet `run` when it needs nothing undeclared (its prelude may build what it needs for real).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
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

/** The pages whose snippets are checked: the READMEs, then `docs/*.md`. */
function pages(): string[] {
  const found = ['README.md'];
  for (const dir of ['packages', 'examples']) {
    for (const name of readdirSync(join(root, dir)).sort()) {
      if (existsSync(join(root, dir, name, 'README.md'))) found.push(`${dir}/${name}/README.md`);
    }
  }
  for (const name of readdirSync(join(root, 'docs')).sort()) if (name.endsWith('.md')) found.push(`docs/${name}`);
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

const outDir = join(root, 'temp', 'doc-snippets');
const snippets: Snippet[] = [];
for (const readme of pages()) {
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

/** What the runner reported for one snippet: finished (and how), or the error it threw. */
interface RunOutcome {
  ok: boolean;
  error?: string;
}

/**
 * The program that runs every `run` snippet in one process: each imported in turn from an empty temporary working
 * directory; one JSON line per snippet on stdout (`{ file, ok, error }`), then exit (open handles do not keep it).
 */
const RUNNER = `
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const files = JSON.parse(process.env.SNIPPET_FILES);
const report = (line) => new Promise((resolve) => process.stdout.write('\\n@@snippet ' + JSON.stringify(line) + '\\n', resolve));
for (const file of files) {
  const cwd = mkdtempSync(join(tmpdir(), 'media-agent-snippet-'));
  process.chdir(cwd);
  process.exitCode = undefined;
  try {
    await import(pathToFileURL(file).href);
    const code = process.exitCode ?? 0;
    await report(code === 0 ? { file, ok: true } : { file, ok: false, error: 'process.exitCode is ' + code });
  } catch (error) {
    await report({ file, ok: false, error: String(error && error.stack ? error.stack : error) });
  }
  process.exitCode = undefined;
  process.chdir(${JSON.stringify(tmpdir())});
  rmSync(cwd, { recursive: true, force: true });
}
process.exit(0);
`;

/** Runs the snippet files in one tsx process (workspace packages from their sources); each file's outcome. */
function runSnippets(
  files: string[],
  timeoutMs: number,
): Promise<{ outcomes: Map<string, RunOutcome>; output: string }> {
  const runner = join(outDir, 'run-snippets.mjs');
  writeFileSync(runner, RUNNER);
  const loader = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', loader, runner], {
      cwd: outDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        TSX_TSCONFIG_PATH: join(root, 'tsconfig.json'),
        SNIPPET_FILES: JSON.stringify(files),
      },
    });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      const outcomes = new Map<string, RunOutcome>();
      for (const line of output.split('\n'))
        if (line.startsWith('@@snippet ')) {
          const { file, ...outcome } = JSON.parse(line.slice('@@snippet '.length)) as RunOutcome & { file: string };
          outcomes.set(file, outcome);
        }
      resolve({ outcomes, output });
    });
  });
}

/** Two programs the runner must report as failed (a throw, an exit code), so a broken runner cannot pass silently. */
function selfChecks(): string[] {
  const throws = join(outDir, 'self-check-throws.ts');
  const exitCode = join(outDir, 'self-check-exit-code.ts');
  writeFileSync(throws, "await Promise.resolve();\nthrow new Error('self-check: thrown');\nexport {};\n");
  writeFileSync(exitCode, 'process.exitCode = 3;\nexport {};\n');
  return [throws, exitCode];
}

let ran: Promise<{ outcomes: Map<string, RunOutcome>; output: string }> | undefined;
/** The one run of every `run` snippet, started by the first test that needs it. */
const runAll = () =>
  (ran ??= runSnippets([...snippets.filter((s) => s.run).map((s) => s.file), ...selfChecks()], 150_000));

describe('documentation snippets', () => {
  it('the READMEs and docs/*.md have TypeScript snippets to check (the extraction found them)', () => {
    expect(snippets.filter((s) => s.readme.endsWith('README.md')).length).toBeGreaterThanOrEqual(5);
    expect(snippets.filter((s) => s.readme.startsWith('docs/')).length).toBeGreaterThanOrEqual(9);
    expect(snippets.some((s) => s.run && s.readme.startsWith('docs/'))).toBe(true);
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

  it('the runner reports a snippet that throws or sets an exit code as failed', async () => {
    const { outcomes } = await runAll();
    expect(outcomes.get(join(outDir, 'self-check-throws.ts'))).toMatchObject({
      ok: false,
      error: expect.stringContaining('self-check: thrown'),
    });
    expect(outcomes.get(join(outDir, 'self-check-exit-code.ts'))).toEqual({
      ok: false,
      error: 'process.exitCode is 3',
    });
  }, 160_000);

  for (const s of snippets) {
    it(`${s.readme}:${s.line} type-checks`, () => {
      expect(diagnostics.get(s.file), `${relative(root, s.file)}`).toEqual([]);
    });
    if (s.run) {
      it(`${s.readme}:${s.line} runs to completion`, async () => {
        const { outcomes, output } = await runAll();
        expect(outcomes.get(s.file), output).toEqual({ ok: true });
      }, 160_000);
    }
  }
});
