// The shapes of the skill store's arguments, checked before any I/O: a wrong action, a misspelt field or
// a missing context is refused with SKILL_INPUT_INVALID naming the argument and the accepted shapes.
import type { SkillCommand, SkillOperation, SkillReadLog, SkillWriteContext } from '../ports/skill-store';
import { SkillError } from './skill-error';

type FieldType = 'string' | 'boolean';

/** Each action's fields: required ones, then optional ones (`?`). */
const SHAPES: Record<SkillOperation['action'], Record<string, FieldType>> = {
  create: { name: 'string', content: 'string', 'category?': 'string' },
  patch: {
    name: 'string',
    old_string: 'string',
    new_string: 'string',
    'file_path?': 'string',
    'replace_all?': 'boolean',
  },
  rewrite: { name: 'string', content: 'string' },
  edit: { name: 'string', content: 'string' },
  write_file: { name: 'string', file_path: 'string', file_content: 'string' },
  remove_file: { name: 'string', file_path: 'string' },
  delete: { name: 'string', 'absorbed_into?': 'string' },
};

/** The actions `manage` takes, in the order the messages list them. */
export const SKILL_ACTIONS = Object.keys(SHAPES) as readonly SkillOperation['action'][];

const CONTEXT_FIELDS = ['mode', 'reads', 'origin', 'cancelled'];
const COMMAND_VERBS = ['restore', 'adopt', 'pin', 'unpin'];

/** A short, printable form of a refused value. */
function got(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 60));
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value).slice(0, 40)}`;
}

const refuse = (argument: string, message: string): SkillError =>
  new SkillError('SKILL_INPUT_INVALID', `${argument} ${message}`, { argument });

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `create takes name, content, category?` */
const shapeOf = (action: SkillOperation['action']) => `${action} takes ${Object.keys(SHAPES[action]).join(', ')}`;

/**
 * Checks one operation's shape: a known action, the action's required fields with their types, no other
 * field (a misspelt `old_str` is refused, never ignored).
 * @throws `SKILL_INPUT_INVALID` naming `operations[i].<field>` and the accepted shape
 */
function checkOperation(op: unknown, at: string): void {
  if (!isRecord(op)) throw refuse(at, `must be an object { action, name, … }; got ${got(op)}`);
  const action = op.action;
  if (typeof action !== 'string' || !Object.hasOwn(SHAPES, action))
    throw refuse(`${at}.action`, `must be one of ${SKILL_ACTIONS.join(', ')}; got ${got(action)}`);
  const shape = SHAPES[action as SkillOperation['action']];
  const fields = new Map(
    Object.entries(shape).map(([k, t]) => [k.replace(/\?$/, ''), { t, optional: k.endsWith('?') }]),
  );
  for (const key of Object.keys(op))
    if (key !== 'action' && !fields.has(key) && op[key] !== undefined)
      throw refuse(`${at}.${key}`, `is not a field of ${action} (${shapeOf(action as SkillOperation['action'])})`);
  for (const [key, { t, optional }] of fields) {
    const value = op[key];
    if (value === undefined && optional) continue;
    if (typeof value !== t)
      throw refuse(
        `${at}.${key}`,
        `${optional ? 'when given, must be' : 'is required and must be'} a ${t}; got ${got(value)} (${shapeOf(action as SkillOperation['action'])})`,
      );
  }
}

/** @throws `SKILL_INPUT_INVALID` unless `reads` is a read log (`record` and `digest` functions) */
function checkReads(reads: unknown, argument: string): asserts reads is SkillReadLog | undefined {
  if (reads === undefined) return;
  if (!isRecord(reads) || typeof reads.record !== 'function' || typeof reads.digest !== 'function')
    throw refuse(argument, `when given, must be a read log { record(), digest() }; got ${got(reads)}`);
}

/**
 * Checks a `manage` call's operations and context before any I/O.
 * @throws `SKILL_INPUT_INVALID` for an operation of unknown action, a missing or wrong-typed field, a field its
 * action does not take, or a context that is missing or malformed; `SKILL_BATCH_INVALID` for a batch that is not
 * 1 to `max` operations
 */
export function checkManageInput(
  operations: unknown,
  context: unknown,
  max: number,
): asserts operations is readonly SkillOperation[] {
  if (!Array.isArray(operations) || operations.length === 0 || operations.length > max)
    throw new SkillError('SKILL_BATCH_INVALID', `skill_manage takes 1 to ${max} operations`);
  operations.forEach((op, i) => {
    checkOperation(op, `operations[${i}]`);
  });
  checkWriteContext(context);
}

/** @throws `SKILL_INPUT_INVALID` unless `context` is a {@link SkillWriteContext} */
function checkWriteContext(context: unknown): asserts context is SkillWriteContext {
  if (!isRecord(context))
    throw refuse(
      'context',
      `is required: { mode: 'foreground' | 'background', reads?, origin?, cancelled? }; got ${got(context)}`,
    );
  for (const key of Object.keys(context))
    if (!CONTEXT_FIELDS.includes(key))
      throw refuse(`context.${key}`, `is not a field of the write context (${CONTEXT_FIELDS.join(', ')})`);
  if (context.mode !== 'foreground' && context.mode !== 'background')
    throw refuse('context.mode', `must be foreground or background; got ${got(context.mode)}`);
  checkReads(context.reads, 'context.reads');
  if (context.cancelled !== undefined && typeof context.cancelled !== 'function')
    throw refuse('context.cancelled', `when given, must be a function; got ${got(context.cancelled)}`);
  const origin = context.origin;
  if (origin !== undefined) {
    if (!isRecord(origin) || typeof origin.sessionId !== 'string')
      throw refuse(
        'context.origin',
        `when given, must be { sessionId: string, messageIds: string[] }; got ${got(origin)}`,
      );
    if (!Array.isArray(origin.messageIds) || origin.messageIds.some((id) => typeof id !== 'string'))
      throw refuse('context.origin.messageIds', 'must be an array of strings');
  }
}

/**
 * Checks `view`'s optional arguments before any I/O (the name and path have their own codes).
 * @throws `SKILL_INPUT_INVALID` for a `reads` that is not a read log
 */
export function checkViewInput(reads: unknown): void {
  checkReads(reads, 'reads');
}

/**
 * Checks a `/skills` command before any I/O.
 * @throws `SKILL_INPUT_INVALID` unless `command` is `{ verb: restore | adopt | pin | unpin, name: string }`
 */
export function checkCommandInput(command: unknown): asserts command is SkillCommand {
  if (!isRecord(command))
    throw refuse('command', `must be { verb: ${COMMAND_VERBS.join(' | ')}, name }; got ${got(command)}`);
  if (typeof command.verb !== 'string' || !COMMAND_VERBS.includes(command.verb))
    throw refuse('command.verb', `must be one of ${COMMAND_VERBS.join(', ')}; got ${got(command.verb)}`);
}

/**
 * Checks a file skill store's options when it is made, so a wrong type never surfaces later as a bare
 * `TypeError` from the file system.
 * @throws `SKILL_INPUT_INVALID` naming the option
 */
export function checkStoreOptions(options: unknown): void {
  if (!isRecord(options))
    throw refuse('options', `must be { dataDir, publicDir?, lockWaitMs?, now? }; got ${got(options)}`);
  if (typeof options.dataDir !== 'string' || options.dataDir === '')
    throw refuse('options.dataDir', `must be a directory path; got ${got(options.dataDir)}`);
  const pub = options.publicDir;
  if (pub !== undefined && typeof pub !== 'string' && !(Array.isArray(pub) && pub.every((p) => typeof p === 'string')))
    throw refuse('options.publicDir', `when given, must be a folder path or an array of them; got ${got(pub)}`);
  const wait = options.lockWaitMs;
  if (wait !== undefined && !(typeof wait === 'number' && Number.isFinite(wait) && wait >= 0))
    throw refuse('options.lockWaitMs', `when given, must be a number of milliseconds; got ${got(wait)}`);
  if (options.now !== undefined && typeof options.now !== 'function')
    throw refuse('options.now', `when given, must be a function returning a Date; got ${got(options.now)}`);
}
