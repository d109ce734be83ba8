/**
 * The concurrent first-open race of the store kinds: `processes` real child processes (reused across
 * rounds), and each round a new target (file, folder or schema) that every child opens at the same instant
 * and writes `perChild` items of its own to. The start barrier is the children's stdin: every child printed
 * `idle` (its modules loaded) before the parent writes the round's target to all of them in one synchronous
 * loop.
 */
import { type Child, spawnFixture } from './child';

/** The store kinds `fixtures/first-open-worker.ts` opens. */
export type FirstOpenKind = 'history' | 'pg-history' | 'storage' | 'skills' | 'memory';

/** One child's answer for one round. */
export interface FirstOpenOutcome {
  readonly ok: boolean;
  readonly code?: string;
  readonly message?: string;
  readonly appended?: number;
  readonly trigram?: boolean;
}

/** What a race found: every failed child answer, and every round whose stored items fell short. */
export interface FirstOpenReport {
  readonly failures: Array<{ round: number; worker: string; code?: string; message?: string }>;
  readonly shortRounds: Array<{ round: number; stored: number; expected: number }>;
  readonly outcomes: FirstOpenOutcome[][];
  /** Wall time of the rounds (children already started), in ms. */
  readonly roundsMs: number;
}

/** Options of {@link raceFirstOpens}. */
export interface FirstOpenRace {
  readonly kind: FirstOpenKind;
  readonly processes: number;
  readonly rounds: number;
  readonly perChild: number;
  /** The new target of a round (a path or schema no child has opened). */
  readonly target: (round: number) => string;
  /** How many items the target holds after the round. */
  readonly stored: (target: string) => Promise<number> | number;
  /** Extra argument of the children (the PostgreSQL URL). */
  readonly pgUrl?: string;
}

/** Runs the race and reports what went wrong (the caller asserts it is nothing). */
export async function raceFirstOpens(race: FirstOpenRace): Promise<FirstOpenReport> {
  const workers = Array.from({ length: race.processes }, (_, i) => `w${i}`);
  const children: Child[] = workers.map((w) =>
    spawnFixture('first-open-worker.ts', [race.kind, w, String(race.perChild), ...(race.pgUrl ? [race.pgUrl] : [])]),
  );
  const failures: FirstOpenReport['failures'] = [];
  const shortRounds: FirstOpenReport['shortRounds'] = [];
  const outcomes: FirstOpenOutcome[][] = [];
  try {
    for (const child of children) expectLine(await child.nextLine(), 'idle');
    const started = performance.now();
    for (let round = 0; round < race.rounds; round++) {
      const target = race.target(round);
      for (const child of children) child.send(target);
      const answers = await Promise.all(children.map(async (c) => JSON.parse(await c.nextLine()) as FirstOpenOutcome));
      outcomes.push(answers);
      answers.forEach((a, i) => {
        if (!a.ok) failures.push({ round, worker: workers[i]!, code: a.code, message: a.message });
      });
      const stored = await race.stored(target);
      const expected = race.processes * race.perChild;
      if (stored !== expected) shortRounds.push({ round, stored, expected });
    }
    const roundsMs = performance.now() - started;
    for (const child of children) child.send('exit');
    await Promise.all(children.map((c) => c.exited));
    return { failures, shortRounds, outcomes, roundsMs };
  } finally {
    for (const child of children) if (child.process.exitCode === null) child.process.kill();
  }
}

function expectLine(line: string, expected: string): void {
  if (line !== expected) throw new Error(`a child said ${JSON.stringify(line)} instead of ${expected}`);
}
