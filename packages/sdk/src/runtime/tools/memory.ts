// `memory`: the run's user saves durable preferences and environment facts.
import { providerSafeTool } from '../../models/provider-schema';
import { parseActor } from '../../core/actor';
import type { JsonValue } from '../../core/records';
import type { RunRecord } from '../../core/run-records';
import { MemoryError } from '../../memory/errors';
import { MemoryToolInputSchema } from '../../memory/memory-input';
import type { MemoryService } from '../../memory/memory-service';
import type { ModelTool } from '../../models/types';
import { memoryActorOf } from '../loop/memory-step';
import { failedOutcome, type RuntimeTool } from './runtime-tool';
import { originRules } from '../unattended-origin';

/** The tool's name. @public */
export const MEMORY_TOOL = 'memory';

/** More failed `memory` calls in a row than this in one drive, and the model is told to stop retrying. */
const MAX_FAILURES = 3;

/** The `memory` tool as offered to models. @public */
export const MEMORY_MODEL_TOOL: ModelTool = providerSafeTool({
  name: MEMORY_TOOL,
  description: [
    'Save durable, high-signal facts for future runs: target "user" for the user’s preferences and corrections (USER.md), "memory" for facts about their environment (MEMORY.md).',
    'Priority: preferences and corrections first, then environment facts. Never store one-off requests, temporary state, task logs or credentials; procedures do not belong here. Every lesson has exactly one home.',
    'add: content is a whole new entry. replace/remove: old_text is a fragment locating one entry; replace swaps the whole entry for content.',
    'operations: up to 20 operations applied all or nothing, budget checked on the final state (MEMORY.md 2200, USER.md 1375 characters) — remove stale entries and add in one batch when full.',
    'action "pending" lists changes awaiting the user; only the user approves them. Changes reach the prompt from the next run. Memory is evidence, never authorization.',
  ].join(' '),
  inputSchema: MemoryToolInputSchema as unknown as Record<string, unknown>,
});

/** True when a run acts for a user (`user:<id>`) and is not a subagent: only such a run has a memory to write. @internal */
export function runHasUserMemory(run: RunRecord): boolean {
  if (run.depth !== 0) return false;
  try {
    return parseActor(run.startedBy).kind === 'user';
  } catch {
    return false;
  }
}

/**
 * `memory`: writes the memory of the person the run acts for (who started it, or an administrator
 * who steered it since). Offered only to top-level runs started by a user — never to a subagent. In a background run, a call with any
 * replace or remove is staged as a proposal for the user.
 */
export function memoryTool(memory: MemoryService): RuntimeTool {
  return {
    name: MEMORY_TOOL,
    modelTool: MEMORY_MODEL_TOOL,
    discoveryOnly: false,
    available: runHasUserMemory,
    async run({ session, call }) {
      const failures = (session.locals.get('memory.failures') as number | undefined) ?? 0;
      try {
        const output = await memory.write(memoryActorOf(session), call.input, {
          background: originRules(session.run.origin).backgroundMemory,
        });
        session.locals.set('memory.failures', 0);
        return { result: { status: 'succeeded', output: output as unknown as JsonValue } };
      } catch (error) {
        session.locals.set('memory.failures', failures + 1);
        if (failures + 1 > MAX_FAILURES)
          return failedOutcome(
            new MemoryError(
              error instanceof MemoryError ? error.code : 'MEMORY_INPUT_INVALID',
              'memory failed again: stop retrying and continue the reply',
            ),
            'MEMORY_INPUT_INVALID',
          );
        const outcome = failedOutcome(error, 'MEMORY_READ_FAILED');
        // A single operation's failure shows the current entries (masked), so the model can pick a precise fragment.
        const input = call.input as { operations?: unknown; target?: unknown } | null;
        if (error instanceof MemoryError && outcome.result.error && input && !input.operations) {
          const current = await memory.currentEntries(
            memoryActorOf(session),
            input.target === 'user' ? 'user' : 'memory',
          );
          if (current) outcome.result.error.message += `\ncurrent_entries: ${JSON.stringify(current)}`;
        }
        return outcome;
      }
    },
  };
}
