// The input of the `memory` tool: schema and the checks the schema cannot express.
import { schemaIssues } from '../core/schema-issues';
import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import type { MemoryOperation } from './apply-operations';
import type { MemoryTarget } from './entries';
import { MemoryError } from './errors';

/** Most operations in one batch. @public */
export const MAX_MEMORY_OPERATIONS = 20;

const Text = Type.String({ maxLength: 100_000 });
const Operation = Type.Object(
  {
    action: Type.Union([Type.Literal('add'), Type.Literal('replace'), Type.Literal('remove')]),
    content: Type.Optional(Text),
    new_text: Type.Optional(Text),
    old_text: Type.Optional(Text),
  },
  { additionalProperties: false },
);

/**
 * The `memory` tool's input: one operation (`action` with its fields), or a batch (`operations`,
 * 1 to 20, on one `target`), or `action: "pending"` to list the pending proposals. Extra fields are
 * rejected.
 * @public
 */
export const MemoryToolInputSchema = Type.Object(
  {
    action: Type.Optional(
      Type.Union([Type.Literal('add'), Type.Literal('replace'), Type.Literal('remove'), Type.Literal('pending')], {
        description: 'add | replace | remove | pending (list proposals awaiting the user)',
      }),
    ),
    target: Type.Optional(
      Type.Union([Type.Literal('memory'), Type.Literal('user')], {
        description: 'memory: environment facts (MEMORY.md); user: the user’s preferences (USER.md). Default memory',
      }),
    ),
    content: Type.Optional({ ...Text, description: 'the whole new entry (add, replace)' }),
    new_text: Type.Optional({ ...Text, description: 'alias of content' }),
    old_text: Type.Optional({ ...Text, description: 'a fragment locating the entry to replace or remove' }),
    operations: Type.Optional(
      Type.Array(Operation, {
        minItems: 1,
        maxItems: MAX_MEMORY_OPERATIONS,
        description: 'a batch, applied all or nothing; the budget is checked on the final state',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The `memory` tool's input. @public */
export type MemoryToolInput = Static<typeof MemoryToolInputSchema>;

/** A checked `memory` call. @public */
export type MemoryRequest =
  | { kind: 'pending' }
  | { kind: 'write'; target: MemoryTarget; operations: MemoryOperation[]; batch: boolean };

const check = Compile(MemoryToolInputSchema);

/**
 * Checks a `memory` call's input.
 * @throws {@link MemoryError} `MEMORY_INPUT_INVALID` naming what is wrong
 * @public
 */
export function parseMemoryInput(input: unknown): MemoryRequest {
  if (!check.Check(input)) {
    const first = schemaIssues(check.Errors(input), input)[0];
    throw new MemoryError(
      'MEMORY_INPUT_INVALID',
      `invalid memory input${first ? ` at ${first.path || '/'}: ${first.message}` : ''}`,
    );
  }
  const v = input as MemoryToolInput;
  if (v.action === 'pending') return { kind: 'pending' };
  const target = v.target ?? 'memory';
  if (v.operations) {
    if (v.action || v.content !== undefined || v.old_text !== undefined || v.new_text !== undefined)
      throw new MemoryError('MEMORY_INPUT_INVALID', 'give either operations or a single action, not both');
    for (const op of v.operations) checkOperation(op);
    return { kind: 'write', target, operations: v.operations, batch: true };
  }
  if (!v.action) throw new MemoryError('MEMORY_INPUT_INVALID', 'action or operations is required');
  const op: MemoryOperation = { action: v.action };
  if (v.content !== undefined) op.content = v.content;
  if (v.new_text !== undefined) op.new_text = v.new_text;
  if (v.old_text !== undefined) op.old_text = v.old_text;
  checkOperation(op);
  return { kind: 'write', target, operations: [op], batch: false };
}

function checkOperation(op: MemoryOperation): void {
  if (op.action !== 'remove' && !(op.content ?? op.new_text ?? '').trim())
    throw new MemoryError('MEMORY_INPUT_INVALID', `${op.action} needs a non-empty content`);
  if (op.action !== 'add' && !(op.old_text ?? '').trim())
    throw new MemoryError('MEMORY_INPUT_INVALID', `${op.action} needs a non-empty old_text`);
}
