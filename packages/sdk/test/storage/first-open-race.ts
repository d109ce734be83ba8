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

/** The rounds of a race. */
export interface FirstOpenRounds {
  readonly rounds: number;
  /** The new target of a round (a path no child has opened; for `pg-history` a JSON `{ url, schema, own? }`). */
  readonly target: (round: number) => string;
  /** Prepares a round's target before the children get it (e.g. creates a database). */
  readonly before?: (target: string) => Promise<void> | void;
  /** How many items the target holds after the round. */
  readonly stored: (target: string) => Promise<number> | number;
}

/** Options of {@link raceFirstOpens}: the children and the rounds. */
export interface FirstOpenRace extends FirstOpenRounds {
  readonly kind: FirstOpenKind;
  readonly processes: number;
  readonly perChild: number;
}

/** Child processes of one store kind, started once and raced for as many rounds as asked. */
export class FirstOpenWorkers {
  readonly #names: string[];
  readonly #children: Child[];
  readonly #perChild: number;
  #idle: Promise<void>;

  constructor(kind: FirstOpenKind, processes: number, perChild: number) {
    this.#perChild = perChild;
    this.#names = Array.from({ length: processes }, (_, i) => `w${i}`);
    this.#children = this.#names.map((w) => spawnFixture('first-open-worker.ts', [kind, w, String(perChild)]));
    this.#idle = Promise.all(this.#children.map(async (c) => expectLine(await c.nextLine(), 'idle'))).then(() => {});
  }

  /** Runs the rounds and reports what went wrong (the caller asserts it is nothing). */
  async race(race: FirstOpenRounds): Promise<FirstOpenReport> {
    await this.#idle;
    const failures: FirstOpenReport['failures'] = [];
    const shortRounds: FirstOpenReport['shortRounds'] = [];
    const outcomes: FirstOpenOutcome[][] = [];
    const started = performance.now();
    for (let round = 0; round < race.rounds; round++) {
      const target = race.target(round);
      await race.before?.(target);
      for (const child of this.#children) child.send(target);
      const answers = await Promise.all(
        this.#children.map(async (c) => JSON.parse(await c.nextLine()) as FirstOpenOutcome),
      );
      outcomes.push(answers);
      answers.forEach((a, i) => {
        if (!a.ok) failures.push({ round, worker: this.#names[i]!, code: a.code, message: a.message });
      });
      const stored = await race.stored(target);
      const expected = this.#children.length * this.#perChild;
      if (stored !== expected) shortRounds.push({ round, stored, expected });
    }
    return { failures, shortRounds, outcomes, roundsMs: performance.now() - started };
  }

  /** Lets the children exit, and kills any that does not. */
  async close(): Promise<void> {
    try {
      for (const child of this.#children) if (child.process.exitCode === null) child.send('exit');
      await Promise.all(this.#children.map((c) => c.exited));
    } finally {
      for (const child of this.#children) if (child.process.exitCode === null) child.process.kill();
    }
  }
}

/** Starts the children, runs the rounds, stops the children. */
export async function raceFirstOpens(race: FirstOpenRace): Promise<FirstOpenReport> {
  const workers = new FirstOpenWorkers(race.kind, race.processes, race.perChild);
  try {
    return await workers.race(race);
  } finally {
    await workers.close();
  }
}

function expectLine(line: string, expected: string): void {
  if (line !== expected) throw new Error(`a child said ${JSON.stringify(line)} instead of ${expected}`);
}
