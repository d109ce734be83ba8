import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Tests run on a shared 2-core machine: a test that waits a fixed time for something to happen, aborts
// work after a fixed time, races a timer against an event, or bounds an elapsed time from above fails
// when the machine is slow. Wait for the event itself (a gate the test resolves, an event, a poll of the
// state), or drive time with a ManualClock or fake timers.

/** What kind of wall-clock wait a line holds. */
type Kind = 'fixed-sleep' | 'timed-abort' | 'timer-race' | 'elapsed-bound' | 'default-deadline';

/** One wall-clock wait found in a test file. */
interface Wait {
  kind: Kind;
  /** 1-based line of the match. */
  line: number;
  /** The trimmed source line. */
  text: string;
}

const SLEEP =
  /await\s+(?:new\s+Promise(?:<[^>]*>)?\(\s*\(?\s*(\w+)\s*\)?\s*=>\s*\{?\s*setTimeout\(\s*\1\s*,|(?:sleep|delay)\()/g;
const TIMED_ABORT = /setTimeout\(\s*\(\)\s*=>\s*[\w.!?]+\.(?:abort|kill)\(/g;
const TIMER_RACE = /Promise\.race\(\s*\[[^\]]{0,200}?setTimeout\(/g;
/** `vi.waitFor` and `expect.poll` fail after 1 s unless told otherwise: too short on a loaded machine. */
const POLL_CALL = /(?:vi\.waitFor|expect\.poll)\(/g;
const ELAPSED_BOUND = /expect\(\s*(?:performance|Date)\.now\(\)\s*-[^;]{0,80}?\)\s*\.toBeLessThan/g;

/** Index of the `)` matching the `(` at `open`, or the text's length. */
function closeParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i;
  }
  return text.length;
}

/** Index of the `(` matching the `)` at `close`, or -1. */
function openParen(text: string, close: number): number {
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    if (text[i] === ')') depth++;
    else if (text[i] === '(' && --depth === 0) return i;
  }
  return -1;
}

/** Index of the `{` that opens the block holding `pos`, or -1. */
function enclosingBrace(text: string, pos: number): number {
  let depth = 0;
  for (let i = pos - 1; i >= 0; i--) {
    if (text[i] === '}') depth++;
    else if (text[i] === '{' && depth-- === 0) return i;
  }
  return -1;
}

/**
 * Whether the statement at `pos` runs in a loop of its function (a poll: it waits again until a condition
 * holds). Walks out through brace-less `if` bodies and `if`/`else`/`try`/`catch` blocks; a function's
 * body (an arrow, a method, a `function`) ends the walk.
 */
function inLoop(text: string, pos: number): boolean {
  let at = pos;
  for (let guard = 0; guard < 50; guard++) {
    let i = at - 1;
    while (i >= 0 && /\s/.test(text[i]!)) i--;
    if (i < 0) return false;
    if (text[i] === ')') {
      const open = openParen(text, i);
      const word = /(\w+)\s*$/.exec(text.slice(Math.max(0, open - 20), open))?.[1];
      if (word === 'for' || word === 'while') return true;
      if (word !== 'if') return false;
      at = open - word.length;
      continue;
    }
    if (text.slice(0, i + 1).endsWith('do')) return true;
    if (text.slice(0, i + 1).endsWith('else')) {
      at = i - 3;
      continue;
    }
    if (text[i] !== '{') {
      const brace = enclosingBrace(text, i + 1);
      if (brace < 0) return false;
      at = brace + 1;
      continue;
    }
    // `at` opens a block: what heads it?
    let h = i - 1;
    while (h >= 0 && /\s/.test(text[h]!)) h--;
    const head = text.slice(0, h + 1);
    if (head.endsWith('=>')) return false;
    if (head.endsWith('do')) return true;
    if (/(?:else|try|finally)$/.test(head)) {
      const brace = enclosingBrace(text, i);
      if (brace < 0) return false;
      at = brace + 1;
      continue;
    }
    if (text[h] !== ')') return false;
    const open = openParen(text, h);
    const word = /(\w+)\s*$/.exec(text.slice(Math.max(0, open - 20), open))?.[1];
    if (word === 'for' || word === 'while') return true;
    if (word !== 'if' && word !== 'catch') return false;
    const brace = enclosingBrace(text, i);
    if (brace < 0) return false;
    at = brace + 1;
  }
  return false;
}

/** The wall-clock waits of one test file's text (a sleep in a loop is a poll and is not one). */
function wallClockWaits(text: string): Wait[] {
  const found: Wait[] = [];
  const lines = text.split('\n');
  const add = (kind: Kind, index: number) => {
    const line = text.slice(0, index).split('\n').length;
    found.push({ kind, line, text: lines[line - 1]!.trim() });
  };
  for (const m of text.matchAll(SLEEP)) if (!inLoop(text, m.index)) add('fixed-sleep', m.index);
  for (const m of text.matchAll(TIMED_ABORT)) add('timed-abort', m.index);
  for (const m of text.matchAll(TIMER_RACE)) add('timer-race', m.index);
  for (const m of text.matchAll(ELAPSED_BOUND)) add('elapsed-bound', m.index);
  for (const m of text.matchAll(POLL_CALL)) {
    const open = m.index + m[0].length - 1;
    if (!/\btimeout\b/.test(text.slice(open, closeParen(text, open)))) add('default-deadline', m.index);
  }
  return found.sort((a, b) => a.line - b.line);
}

/**
 * The waits that stay, each with why it cannot make a test fail on a slow machine. Matched by file, kind
 * and a piece of the line (not line numbers); `count` when the same line occurs more than once.
 */
const ALLOWED: readonly { file: string; kind: Kind; has: string; count?: number; why: string }[] = [
  {
    file: 'packages/sdk/test/runtime/commit-window-break.test.ts',
    kind: 'fixed-sleep',
    has: 'sleep(drainMs + 20)',
    why: "the model call outlasts the stop's drain time, so the stop aborts it inside the window (slow only lengthens it)",
  },
  {
    file: 'packages/sdk/test/schedules/scale/harness.ts',
    kind: 'fixed-sleep',
    has: 'sleep(graceMs / time.speed + 1_000)',
    why: 'the drain: the scenario clock is real time × 60, so the last ticks grace passes only in real time',
  },
  {
    file: 'packages/sdk/test/storage/schedule-claims.test.ts',
    kind: 'fixed-sleep',
    has: 'setTimeout(resolve, 300)',
    why: 'lets the other processes queue behind the held claim before the kill (slow only weakens the race)',
  },
  {
    file: 'packages/sdk/test/budgets/household-budgets.test.ts',
    kind: 'fixed-sleep',
    has: 'setTimeout(r, 50)',
    why: 'absence check: nothing is sent while held (slow only weakens it)',
  },
  {
    file: 'packages/sdk/test/http/event-stream.test.ts',
    kind: 'fixed-sleep',
    has: 'setTimeout(resolve, 50)',
    why: 'absence check: no event is taken after the cancel',
  },
  {
    file: 'packages/sdk/test/http/stream-access.test.ts',
    kind: 'fixed-sleep',
    has: 'setTimeout(resolve, 150)',
    why: 'absence check: not due yet on the manual clock',
  },
  {
    file: 'packages/sdk/test/mcp/consume-drift-hostile.test.ts',
    kind: 'fixed-sleep',
    has: 'setTimeout(r, 100)',
    why: 'absence check: no third decision',
  },
  {
    file: 'packages/sdk/test/mcp/server-http-protocol.test.ts',
    kind: 'fixed-sleep',
    has: 'await sleep(20)',
    why: 'absence check: no log below the level arrives',
  },
  {
    file: 'packages/sdk/test/runtime/approvals-and-leases.test.ts',
    kind: 'fixed-sleep',
    has: 'setTimeout(r, 50)',
    why: 'absence check: the live lease is not taken',
  },
  {
    file: 'packages/sdk/test/runtime/decision-concurrent-choice.test.ts',
    kind: 'fixed-sleep',
    has: 'setTimeout(r, 50)',
    count: 2,
    why: 'absence check / overlap aid: later callers still wait; the result is the same either way',
  },
  {
    file: 'packages/sdk/test/runtime/decisions.test.ts',
    kind: 'fixed-sleep',
    has: 'setTimeout(r, 50)',
    why: 'absence check: no model call',
  },
  {
    file: 'packages/sdk/test/runtime/decisions.test.ts',
    kind: 'fixed-sleep',
    has: 'setTimeout(r, 30)',
    why: 'absence check: no new run',
  },
  {
    file: 'packages/sdk/test/events/host-events-access.test.ts',
    kind: 'timer-race',
    has: "resolve('open'), 120",
    why: 'absence check: the stream stays open before the deadline',
  },
  {
    file: 'packages/sdk/test/runtime/run-events-end.test.ts',
    kind: 'timer-race',
    has: 'Promise.race([',
    why: 'absence check: the stream stays open while the run waits',
  },
  {
    file: 'packages/sdk/test/storage/postgres-events.test.ts',
    kind: 'timer-race',
    has: 'Promise.race([',
    why: 'absence check (settlesWithin \u2026 false); storage tests are another owner',
  },
  {
    file: 'packages/sdk/test/storage/postgres.test.ts',
    kind: 'timer-race',
    has: 'Promise.race([',
    why: 'absence check (settled \u2026 false); storage tests are another owner',
  },
  {
    file: 'packages/sdk/test/ledger/ledger.test.ts',
    kind: 'fixed-sleep',
    has: 'setTimeout(r, 20)',
    why: 'overlap aid: one handler run whether or not the other calls arrived yet',
  },
  {
    file: 'packages/sdk/test/storage/sqlite.test.ts',
    kind: 'fixed-sleep',
    has: 'setTimeout(resolve, i % 3)',
    why: 'overlap aid inside a transaction; storage tests are another owner',
  },
  {
    file: 'packages/sdk/test/code/fixtures/memory-worker.ts',
    kind: 'fixed-sleep',
    has: 'setTimeout(r, 50)',
    why: 'child-process fixture: lets freed memory settle before a reading the test bounds loosely',
  },
  {
    file: 'packages/sdk/test/mcp/fixtures/test-mcp-server.ts',
    kind: 'fixed-sleep',
    has: 'setTimeout(resolve, 5000)',
    why: "fixture: the 'slow' tool, longer than the timeouts tested against it",
  },
  {
    file: 'packages/sdk/test/mcp/server-http-protocol.test.ts',
    kind: 'fixed-sleep',
    has: 'await sleep(30)',
    count: 2,
    why: 'a tool handler spacing its own notifications; the test reads their order',
  },
  {
    file: 'packages/sdk/test/runtime/learning-review.test.ts',
    kind: 'fixed-sleep',
    has: 'setTimeout(resolve, 1)',
    why: 'makes onReview really asynchronous; nothing waits on its length',
  },
  {
    file: 'packages/sdk/test/storage/postgres.test.ts',
    kind: 'fixed-sleep',
    has: 'setTimeout(r, 1_000)',
    why: 'a transaction outliving a 100 ms timeout by 10x; storage tests are another owner',
  },
  {
    file: 'packages/sdk/test/runtime/subagent-recovery.test.ts',
    kind: 'fixed-sleep',
    has: 'child.leaseExpiresAt! - Date.now() + 20',
    why: 'sleeps past a real lease deadline; waking later is harmless',
  },
  {
    file: 'packages/sdk/test/mcp/consume-drift-offered.test.ts',
    kind: 'fixed-sleep',
    has: 'setTimeout(r, 50)',
    why: 'inside vi.waitFor: retried until the listing is seen',
  },
  {
    file: 'packages/sdk/test/code/kernels.test.ts',
    kind: 'timed-abort',
    has: 'controller.abort(), 20',
    why: 'armed inside the read, which only ends on the abort',
  },
  {
    file: 'packages/sdk/test/models/transport.test.ts',
    kind: 'timed-abort',
    has: 'ac.abort(), 5',
    why: 'interrupts a 60 s retry wait',
  },
  {
    file: 'packages/sdk/test/docs/doc-snippets.test.ts',
    kind: 'timed-abort',
    has: "child.kill('SIGKILL')",
    why: 'kills a hung child; a passing run never reaches it',
  },
  {
    file: 'packages/sdk/test/runtime/run-events-end.test.ts',
    kind: 'timed-abort',
    has: '10_000',
    count: 2,
    why: 'ends a hung stream; a passing run never reaches it',
  },
  {
    file: 'packages/sdk/test/mcp/sessions.test.ts',
    kind: 'timer-race',
    has: "r('alive'), 15_000",
    why: 'a hung child fails instead of hanging the suite',
  },
  {
    file: 'packages/sdk/test/trial/verifier-hang.test.ts',
    kind: 'timer-race',
    has: 'host.stop()',
    why: 'bounds a stop that the hung verifier may hold; asserted values were read before',
  },
  {
    file: 'packages/sdk/test/storage/postgres-events.test.ts',
    kind: 'timer-race',
    has: 'const next = await Promise.race([',
    why: 'failure deadline on the awaited event itself; storage tests are another owner',
  },
  {
    file: 'packages/sdk/test/storage/postgres-restart.test.ts',
    kind: 'timer-race',
    has: 'Promise.race([',
    why: 'failure deadline on the awaited event itself; storage tests are another owner',
  },
  {
    file: 'packages/sdk/test/mcp/sessions.test.ts',
    kind: 'elapsed-bound',
    has: '10_000',
    count: 2,
    why: 'the 10 s call timeout itself: ending later means the timeout fired',
  },
  {
    file: 'packages/sdk/test/mcp/consume-drift-hostile.test.ts',
    kind: 'elapsed-bound',
    has: '20_000',
    count: 2,
    why: 'a 100-page cap that would otherwise loop until the 30 s test timeout',
  },
  {
    file: 'packages/sdk/test/mcp/consume-elicitation-cancel.test.ts',
    kind: 'elapsed-bound',
    has: '5000',
    why: '12x the 400 ms timeout under test; without it the call hangs',
  },
  {
    file: 'packages/sdk/test/storage/postgres.test.ts',
    kind: 'elapsed-bound',
    has: '5_000',
    why: '16x the 300 ms pool wait under test; storage tests are another owner',
  },
];

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const SELF = 'packages/sdk/test/layers/no-wall-clock-waits.test.ts';

function testFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(path);
      } else if (/\.(?:ts|mts)$/.test(entry.name)) out.push(relative(root, path).split('\\').join('/'));
    }
  };
  for (const pkg of readdirSync(join(root, 'packages'))) {
    try {
      walk(join(root, 'packages', pkg, 'test'));
    } catch {
      // a package without tests
    }
  }
  return out.filter((f) => f !== SELF).sort();
}

describe('no wall-clock waits in tests', () => {
  it('every fixed sleep, timed abort, timer race, elapsed-time upper bound and default poll deadline in packages/*/test is allowed', () => {
    const unexplained: string[] = [];
    const used = new Map<(typeof ALLOWED)[number], number>();
    for (const file of testFiles()) {
      for (const wait of wallClockWaits(readFileSync(join(root, file), 'utf8'))) {
        const entry = ALLOWED.find(
          (a) =>
            a.file === file && a.kind === wait.kind && wait.text.includes(a.has) && (used.get(a) ?? 0) < (a.count ?? 1),
        );
        if (!entry) unexplained.push(`${file}:${wait.line} ${wait.kind}: ${wait.text}`);
        else used.set(entry, (used.get(entry) ?? 0) + 1);
      }
    }
    expect(unexplained).toEqual([]);
    // An entry that matches nothing any more is removed (the list only shrinks with the waits).
    const stale = ALLOWED.filter((a) => (used.get(a) ?? 0) !== (a.count ?? 1)).map((a) => `${a.file}: ${a.has}`);
    expect(stale).toEqual([]);
  });

  it('finds a fixed sleep, a timed abort, a timer race, an elapsed bound and a default 1 s deadline, and not a poll', () => {
    const text = [
      "it('x', async () => {",
      '  await new Promise((r) => setTimeout(r, 50));',
      '  await sleep(20);',
      '  setTimeout(() => controller.abort(), 5);',
      "  await Promise.race([done, new Promise((r) => setTimeout(() => r('open'), 300))]);",
      '  expect(performance.now() - started).toBeLessThan(3_000);',
      '  while (!(await ready())) await new Promise((r) => setTimeout(r, 5));',
      '  for (let i = 0; i < 9; i++) {',
      '    if (await ready()) break;',
      '    await sleep(5);',
      '  }',
      '  for (;;) {',
      '    if (!seen) await new Promise((resolve) => setTimeout(resolve, 10));',
      '    else {',
      '      await sleep(1);',
      '    }',
      '  }',
      '  do await sleep(1);',
      '  while (!done);',
      '  await vi.waitFor(() => expect(seen).toHaveLength(1));',
      '  await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(1);',
      '  const later = async () => {',
      '    await sleep(7);',
      '  };',
      '});',
    ].join('\n');
    expect(wallClockWaits(text).map((w) => [w.line, w.kind])).toEqual([
      [2, 'fixed-sleep'],
      [3, 'fixed-sleep'],
      [4, 'timed-abort'],
      [5, 'timer-race'],
      [6, 'elapsed-bound'],
      [20, 'default-deadline'],
      [23, 'fixed-sleep'],
    ]);
  });

  it('fails on a fixed sleep that is not allowed', () => {
    const file = 'packages/sdk/test/example.test.ts';
    const waits = wallClockWaits(
      "it('y', async () => {\n  await run();\n  await sleep(50);\n  expect(x).toBe(1);\n});",
    );
    const unexplained = waits.filter(
      (w) => !ALLOWED.some((a) => a.file === file && a.kind === w.kind && w.text.includes(a.has)),
    );
    expect(unexplained).toEqual([{ kind: 'fixed-sleep', line: 3, text: 'await sleep(50);' }]);
  });
});
