// What a fork's model is told (a runtime note: a user-role message that is not a person's input).
import type { ForkedEffect } from './fork-types';

/** The start of every fork note: how scripts and readers recognize it. */
export const FORK_NOTE_PREFIX = '[runtime note: forked conversation]';

/** One effect, in a line the model reads: capability, outcome, ledger key, and its recorded output or error. */
function effectLine(e: ForkedEffect): string {
  const detail =
    e.output !== undefined
      ? ` output ${JSON.stringify(e.output).slice(0, 400)}`
      : e.error
        ? ` error ${e.error.code}: ${e.error.message.slice(0, 200)}`
        : '';
  return `- ${e.capabilityId} (${e.outcome}) by run ${e.runId}, ledger key ${e.key};${detail}`;
}

/**
 * The runtime note a fork's conversation gets after the copied prefix (docs/forks.md#what-a-fork-is-told): that it
 * is a fork of `fromRunId` at event `atSeq`, the effects its lineage performed after that point as facts (not to be
 * repeated, never undone by the fork; a `never` effect repeated needs a person's approval), and that it continues
 * from here. Pure.
 * @param input - the original, the fork point, the effects after it, and whether the goal changed
 * @returns the note's text, starting with {@link FORK_NOTE_PREFIX}
 * @example
 * ```ts
 * forkNote({ fromRunId: 'run_1', atSeq: 12, effects: [] });
 * // '[runtime note: forked conversation] This conversation was forked from run run_1 at event 12. …'
 * ```
 */
export function forkNote(input: {
  fromRunId: string;
  atSeq: number;
  effects: readonly ForkedEffect[];
  goalChanged?: boolean;
}): string {
  const lines = [
    `${FORK_NOTE_PREFIX} This conversation was forked from run ${input.fromRunId} at event ${input.atSeq}; the messages above are that run's, up to that point.`,
  ];
  if (input.effects.length === 0)
    lines.push(
      'After that point the original run performed no side effect: nothing outside this conversation changed.',
    );
  else {
    lines.push(
      'After that point the original run (or a run it was forked from) performed these side effects. They are facts: they took place (or may have), they were not undone and will not be repeated by this run:',
    );
    for (const e of input.effects) lines.push(effectLine(e));
    lines.push(
      'Do not do them again unless that is what the person wants: repeating an effect that cannot be replayed safely (such as submitting the same download plan) is refused until a person approves it.',
    );
  }
  if (input.goalChanged) lines.push('The person changed the goal (the message above): follow the new goal.');
  lines.push('Continue from here.');
  return lines.join('\n');
}
