// The types of createAgentHost's options, checked before anything is built: a value of the wrong type (a string
// where a number goes, a name where an object goes) is refused with OPTIONS_INVALID naming its path and the
// accepted shape, instead of failing later as a TypeError or being read as something else. Ranges and the
// options' own rules are checked where each option is resolved.
import { MediaAgentError } from '../core/errors';

/** What a value must be, when it is not that; undefined when it is. */
type Shape = (value: unknown) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const number: Shape = (v) => (typeof v === 'number' && !Number.isNaN(v) ? undefined : 'a number');
const positiveInteger: Shape = (v) =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 ? undefined : 'a positive integer';
const nonNegativeOrNull: Shape = (v) =>
  v === null || (typeof v === 'number' && Number.isFinite(v) && v >= 0)
    ? undefined
    : 'a non-negative number (or null for no limit)';
const nonNegative: Shape = (v) => (typeof v === 'number' && v >= 0 ? undefined : 'a non-negative number');
const positive: Shape = (v) => (typeof v === 'number' && v > 0 ? undefined : 'a positive number');
const string: Shape = (v) => (typeof v === 'string' ? undefined : 'a string');
const nonEmptyString: Shape = (v) =>
  typeof v === 'string' && v !== '' ? undefined : "a model id such as 'claude-sonnet-4-5'";
const boolean: Shape = (v) => (typeof v === 'boolean' ? undefined : 'true or false');
const fn: Shape = (v) => (typeof v === 'function' ? undefined : 'a function (container) => void');
const strings: Shape = (v) =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? undefined : 'an array of tool names';
const object =
  (shape: string): Shape =>
  (v) =>
    isObject(v) ? undefined : shape;
const booleans: Shape = (v) =>
  isObject(v) && Object.values(v).every((x) => typeof x === 'boolean')
    ? undefined
    : "an object of model ids to true/false, e.g. { 'gpt-4.1': true }";
const skills: Shape = (v) =>
  isObject(v) ? undefined : "{ dataDir: './data', publicDir?: a folder or folders } or { store: a SkillStore }";

/** Each option's path and shape; a group's own shape comes before its members'. `*` is every member of a group. */
const SHAPES: ReadonlyArray<readonly [path: string, shape: Shape]> = [
  ['configure', fn],
  ['skills', skills],
  ['maxInputBytes', number],
  ['capabilityTimeoutMs', number],
  ['impactTimeoutMs', number],
  ['intents', object('{ holdMs?: ms, directHoldMs?: ms }')],
  ['intents.holdMs', number],
  ['intents.directHoldMs', number],
  ['approvalTtlMs', number],
  ['ledgerRetentionMs', number],
  ['accessRecheckMs', number],
  ['model.model', nonEmptyString],
  ['model.maxTokens', positiveInteger],
  ['runs.concurrency', number],
  ['runs.leaseMs', number],
  ['runs.pollMs', number],
  ['runs.goalPollSec', number],
  ['runs.goalWaitHours', number],
  ['runs.inboxCapacity', number],
  ['runs.refusedTurnPauseMs', number],
  ['runs.commitWindowMs', number],
  ['runs.maxTools', number],
  ['runs.contextWindowTokens', number],
  ['runs.compactionThreshold', number],
  ['runs.systemPrompt', string],
  ['runs.budgets', object('an object such as { maxToolCalls: 40, maxCostUsdPerRun: 0.5 }')],
  ['runs.budgets.*', nonNegativeOrNull],
  ['runs.daily', object('an object such as { agentMaxRunsPerDay: 50, agentMaxCostUsdPerDay: 5 }')],
  ['runs.daily.*', nonNegativeOrNull],
  ['runs.loopGuard', object('an object of thresholds such as { sameCallFailBlockAt: 5 }')],
  ['runs.loopGuard.searchTools', strings],
  ['runs.loopGuard.subagentTools', strings],
  ['runs.loopGuard.failureTolerantTools', strings],
  ['runs.loopGuard.pollingTools', strings],
  ['runs.loopGuard.pollingActions', strings],
  ['runs.loopGuard.readOnlyTools', strings],
  ['runs.loopGuard.*', nonNegative],
  ['runs.results', object('an object of limits such as { previewBytes: 65536, ttlMs: 900000 }')],
  ['runs.results.*', positive],
  ['runs.images', object('an object such as { enabled: true, unknownModels: false }')],
  ['runs.images.enabled', boolean],
  ['runs.images.unknownModels', boolean],
  ['runs.images.models', booleans],
];

/** A value as a message shows it: a string quoted and called one, so `'5'` is not read as the number 5. */
function shown(value: unknown): string {
  if (typeof value === 'string')
    return `${JSON.stringify(value.length > 40 ? `${value.slice(0, 39)}…` : value)} (a string)`;
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  if (value === null || typeof value !== 'object') return String(value);
  return 'an object';
}

function valueAt(options: unknown, parts: readonly string[]): unknown {
  let value = options;
  for (const part of parts) value = isObject(value) ? value[part] : undefined;
  return value;
}

/**
 * Checks the type of every option of `createAgentHost` it lists (groups before their members, members of a group
 * only when the group is an object).
 * @param options - the options as given
 * @throws {@link MediaAgentError} `OPTIONS_INVALID` naming the option's path (`runs.budgets.maxToolCalls`) in the
 *   message and `details.option`, what it must be, and what it was
 * @internal
 */
export function checkOptionShapes(options: object): void {
  const done = new Set<string>();
  for (const [path, shape] of SHAPES) {
    const parts = path.split('.');
    if (parts.at(-1) === '*') {
      const group = valueAt(options, parts.slice(0, -1));
      if (!isObject(group)) continue;
      for (const [name, value] of Object.entries(group)) {
        const member = [...parts.slice(0, -1), name].join('.');
        if (done.has(member) || value === undefined) continue;
        const wanted = shape(value);
        if (wanted) throw invalid(member, wanted, value);
      }
      continue;
    }
    done.add(path);
    const value = valueAt(options, parts);
    if (value === undefined) continue;
    const wanted = shape(value);
    if (wanted) throw invalid(path, wanted, value);
  }
}

function invalid(option: string, wanted: string, value: unknown): MediaAgentError {
  return new MediaAgentError('OPTIONS_INVALID', `option ${option} must be ${wanted}; got ${shown(value)}`, { option });
}
