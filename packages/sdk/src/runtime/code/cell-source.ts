// A cell's JavaScript made into a script whose top-level declarations outlive the cell.
import type { Options, Program } from 'acorn';
import { CodeExecutionError } from './errors';

/** Acorn's `parse`, passed in because the parser is loaded only with the sandbox. */
export type ParseProgram = (input: string, options: Options) => Program;

/** A node as far as the rewrite reads it. */
interface AnyNode {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

/**
 * Rewrites a cell so that it can `await` at top level and its top-level declarations persist in
 * the kernel: `const|let|var x = e` becomes the assignment `x = e` to a global `var x`, `function f`
 * becomes `f = function f …` (hoisted to the start, as a declaration is) and `class C` becomes
 * `C = class C …`; the rest runs unchanged inside an async function. Declarations inside blocks and
 * functions stay local, as in any script. Pure.
 *
 * @param code - the cell's JavaScript (a script; `await` allowed at top level)
 * @param parse - acorn's `parse`
 * @returns `source`: a global script evaluating to the cell's promise; `declared`: the names made global
 * @throws {@link CodeExecutionError} `CODE_SYNTAX` (with line and column) when `code` does not parse
 */
export function rewriteCell(code: string, parse: ParseProgram): { source: string; declared: string[] } {
  let program: Program;
  try {
    program = parse(code, { ecmaVersion: 'latest', sourceType: 'script', allowAwaitOutsideFunction: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new CodeExecutionError('CODE_SYNTAX', `the code does not parse: ${message}`, { parser: message });
  }
  const declared = new Set<string>();
  const hoisted: string[] = [];
  const edits: { start: number; end: number; text: string }[] = [];
  const text = (n: AnyNode) => code.slice(n.start, n.end);
  for (const statement of program.body as unknown as AnyNode[]) {
    if (statement.type === 'VariableDeclaration') {
      const parts: string[] = [];
      for (const d of statement.declarations as AnyNode[]) {
        const id = d.id as AnyNode;
        for (const name of boundNames(id)) declared.add(name);
        const init = d.init as AnyNode | null;
        if (init) parts.push(`(${text(id)} = ${text(init)})`);
        else if (statement.kind !== 'var' && id.type === 'Identifier') parts.push(`(${text(id)} = undefined)`);
      }
      edits.push({
        start: statement.start,
        end: statement.end,
        text: parts.length ? `void (${parts.join(', ')});` : ';',
      });
    } else if (statement.type === 'FunctionDeclaration') {
      const name = (statement.id as AnyNode).name as string;
      declared.add(name);
      hoisted.push(`${name} = ${text(statement)};`);
      edits.push({ start: statement.start, end: statement.end, text: ';' });
    } else if (statement.type === 'ClassDeclaration') {
      const name = (statement.id as AnyNode).name as string;
      declared.add(name);
      edits.push({ start: statement.start, end: statement.end, text: `${name} = ${text(statement)};` });
    }
  }
  let body = code;
  for (const edit of edits.sort((a, b) => b.start - a.start))
    body = body.slice(0, edit.start) + edit.text + body.slice(edit.end);
  const names = [...declared];
  const prelude = names.length ? `var ${names.join(', ')};\n` : '';
  return { source: `${prelude}(async () => {\n${hoisted.join('\n')}\n${body}\n})()`, declared: names };
}

/** The names a binding pattern declares. */
function boundNames(pattern: AnyNode | null): string[] {
  if (!pattern) return [];
  switch (pattern.type) {
    case 'Identifier':
      return [pattern.name as string];
    case 'ObjectPattern':
      return (pattern.properties as AnyNode[]).flatMap((p) =>
        p.type === 'RestElement' ? boundNames(p.argument as AnyNode) : boundNames(p.value as AnyNode),
      );
    case 'ArrayPattern':
      return (pattern.elements as (AnyNode | null)[]).flatMap((e) => boundNames(e));
    case 'RestElement':
      return boundNames(pattern.argument as AnyNode);
    case 'AssignmentPattern':
      return boundNames(pattern.left as AnyNode);
    default:
      return [];
  }
}
