// The checks of checkProviderModels' own arguments: the entries' shape, `which` and `timeoutMs`, each refusal
// an OPTIONS_INVALID naming the argument.
import { MediaAgentError } from '../../core/errors';

/** The values of `ModelCheckOptions.which`. @internal */
export const MODEL_CHECK_WHICH = Object.freeze(['local', 'all', 'none'] as const);

/** The longest timer Node runs (a longer one fires at once). */
const MAX_TIMER_MS = 2_147_483_647;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value as a message shows it: strings quoted, `NaN` and `Infinity` as such, objects by kind. */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  return value !== null && typeof value === 'object' ? 'an object' : String(value);
}

function invalid(option: string, message: string): MediaAgentError {
  return new MediaAgentError('OPTIONS_INVALID', `checkProviderModels: ${option} ${message}`, { option });
}

/**
 * Checks the arguments of `checkProviderModels` and resolves the defaults.
 * @param entries - the entries argument: an array of `{ path, provider, model }`
 * @param options - the options argument: `undefined` or `{ which?, timeoutMs? }`
 * @param defaultTimeoutMs - the limit per entry when `timeoutMs` is not given
 * @returns `which` (default `'local'`) and `timeoutMs`
 * @throws `OPTIONS_INVALID` naming the argument (`details.option`: `entries`, `entries[1].model`, `options`,
 *   `options.which`, `options.timeoutMs`) for entries that are not an array of objects with a non-empty `path`
 *   and `model` and a `provider` that is an object or undefined; options that are not an object; a `which`
 *   other than `'local'`, `'all'`, `'none'`; a `timeoutMs` that is not a positive finite number (at most 2 147 483 647)
 * @internal
 */
export function resolveCheckArguments(
  entries: unknown,
  options: unknown,
  defaultTimeoutMs: number,
): { which: 'local' | 'all' | 'none'; timeoutMs: number } {
  if (!Array.isArray(entries))
    throw invalid('entries', `must be an array of { path, provider, model }; got ${shown(entries)}`);
  entries.forEach((entry: unknown, i) => {
    const at = `entries[${i}]`;
    if (!isObject(entry)) throw invalid(at, `must be an object { path, provider, model }; got ${shown(entry)}`);
    if (typeof entry.path !== 'string' || entry.path.trim() === '')
      throw invalid(`${at}.path`, `must be a non-empty option path such as 'model'; got ${shown(entry.path)}`);
    if (typeof entry.model !== 'string' || entry.model.trim() === '')
      throw invalid(`${at}.model`, `must be a non-empty model id; got ${shown(entry.model)}`);
    if (entry.provider !== undefined && (typeof entry.provider !== 'object' || entry.provider === null))
      throw invalid(
        `${at}.provider`,
        `must be a provider instance or configuration (createModelProvider's argument); got ${shown(entry.provider)}`,
      );
  });
  if (options !== undefined && !isObject(options))
    throw invalid('options', `must be an object { which?, timeoutMs? }; got ${shown(options)}`);
  const which = options?.which ?? 'local';
  if (!MODEL_CHECK_WHICH.includes(which as 'local'))
    throw invalid('options.which', `must be one of 'local', 'all', 'none'; got ${shown(which)}`);
  const timeoutMs = options?.timeoutMs ?? defaultTimeoutMs;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMER_MS)
    throw invalid(
      'options.timeoutMs',
      `must be a positive finite number of milliseconds (at most ${MAX_TIMER_MS}); got ${shown(timeoutMs)}`,
    );
  return { which: which as 'local' | 'all' | 'none', timeoutMs };
}
