// The checks of a model provider's plain configuration (createModelProvider, createAgentHost's model.provider,
// the provider constructors): shapes only, before any request, each refusal naming the option's path and the
// accepted shapes.
import { MediaAgentError } from '../core/errors';
import { OPENAI_DIALECTS } from './openai-dialects';

/**
 * The `provider` names of a model provider configuration (`fake` is accepted as an alias of `scripted`).
 * @internal
 */
export const MODEL_PROVIDER_NAMES = Object.freeze(['anthropic', 'openai-compatible', 'scripted'] as const);

/** The accepted configuration shapes, for messages. */
const SHAPES =
  "{ provider: 'anthropic', apiKey }, { provider: 'openai-compatible', baseUrl?, apiKey?, dialect? } or { provider: 'scripted', scripts? }";
const NAMES = `${MODEL_PROVIDER_NAMES.map((n) => `'${n}'`).join(', ')} (alias 'fake')`;

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 39)}…` : value);
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? 'a function' : String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

function invalid(option: string, message: string): MediaAgentError {
  return new MediaAgentError('OPTIONS_INVALID', `option ${option} ${message}`, { option });
}

type Check = (value: unknown) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const string: Check = (v) => (typeof v === 'string' ? undefined : 'a string');
const nonEmptyString: Check = (v) => (typeof v === 'string' && v.trim() !== '' ? undefined : 'a non-empty string');
const boolean: Check = (v) => (typeof v === 'boolean' ? undefined : 'true or false');
const positiveMs: Check = (v) =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? undefined : 'a positive number of milliseconds';
const nonNegative: Check = (v) =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? undefined : 'a non-negative number';
const positiveInteger: Check = (v) =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 ? undefined : 'a positive integer';
const httpUrl: Check = (v) => {
  const accepted = "an http(s) URL such as 'https://api.example.com/v1'";
  if (typeof v !== 'string') return accepted;
  try {
    const url = new URL(v);
    return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : accepted;
  } catch {
    return accepted;
  }
};
const headers: Check = (v) =>
  isObject(v) && Object.values(v).every((h) => typeof h === 'string')
    ? undefined
    : 'an object of header names to string values';
const strings: Check = (v) =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? undefined : 'an array of strings';
const object: Check = (v) => (isObject(v) ? undefined : 'an object');
const RETRY_FUNCTIONS = new Set(['random', 'sleep', 'onRetry']);
const retry: Check = (v) => {
  if (!isObject(v)) return 'an object { maxAttempts?, baseDelayMs?, maxDelayMs?, maxRetryAfterMs?, onRetry? }';
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    if (RETRY_FUNCTIONS.has(k) ? typeof x !== 'function' : !(typeof x === 'number' && x >= 0))
      return `an object of non-negative numbers and the functions random, sleep, onRetry (retry.${k} is ${shown(x)})`;
  }
  return undefined;
};
const dialect: Check = (v) =>
  (typeof v === 'string' && Object.hasOwn(OPENAI_DIALECTS, v)) || isObject(v)
    ? undefined
    : `one of ${Object.keys(OPENAI_DIALECTS)
        .map((d) => `'${d}'`)
        .join(', ')} or a custom dialect object`;
const scripts: Check = (v) =>
  typeof v === 'string' || isObject(v) || Array.isArray(v) ? undefined : 'a script, an array of scripts or JSON text';

const HTTP: Readonly<Record<string, Check>> = {
  connectTimeoutMs: positiveMs,
  firstByteTimeoutMs: positiveMs,
  idleTimeoutMs: positiveMs,
  firstContentTimeoutMs: positiveMs,
  totalTimeoutMs: positiveMs,
  retry,
  dispatcher: object,
  headers,
};

const OPTIONS: Readonly<Record<(typeof MODEL_PROVIDER_NAMES)[number], Readonly<Record<string, Check>>>> = {
  anthropic: {
    ...HTTP,
    apiKey: nonEmptyString,
    baseUrl: httpUrl,
    apiVersion: string,
    betas: strings,
    defaultMaxTokens: positiveInteger,
    promptCaching: boolean,
    supportsImages: boolean,
  },
  'openai-compatible': {
    ...HTTP,
    apiKey: string,
    baseUrl: httpUrl,
    dialect,
    defaultMaxTokens: positiveInteger,
    supportsImages: boolean,
  },
  scripted: { scripts, chunkSize: nonNegative, delayMs: nonNegative },
};

/** Options a provider cannot work without (an absent optional one takes its default). */
const REQUIRED: Readonly<Record<string, readonly string[]>> = { anthropic: ['apiKey'] };

/**
 * Checks the options of one provider kind: every name known, every value of its type, the required ones given.
 * @param kind - the provider kind
 * @param options - the options (of the configuration, or of the provider's constructor)
 * @param path - where they are, for messages (`model.provider`, `config`, `AnthropicProvider`)
 * @param extra - names that belong to the configuration besides the options (`provider`)
 * @throws {@link MediaAgentError} `OPTIONS_INVALID` naming the option's path and the accepted shape
 * @internal
 */
export function checkProviderOptions(
  kind: (typeof MODEL_PROVIDER_NAMES)[number],
  options: unknown,
  path: string,
  extra: readonly string[] = [],
): void {
  if (options === undefined && !REQUIRED[kind]) return;
  if (!isObject(options)) throw invalid(path, `must be an object of ${kind} provider options; got ${shown(options)}`);
  const checks = OPTIONS[kind];
  const at = (name: string) => `${path}.${name}`;
  for (const [name, value] of Object.entries(options)) {
    if (extra.includes(name)) continue;
    const check = checks[name];
    if (!check)
      throw invalid(at(name), `is not an option of the ${kind} provider; known: ${Object.keys(checks).join(', ')}`);
    if (value === undefined) continue;
    const wanted = check(value);
    if (wanted) throw invalid(at(name), `must be ${wanted}; got ${shown(value)}`);
  }
  for (const name of REQUIRED[kind] ?? [])
    if (options[name] === undefined)
      throw invalid(
        at(name),
        `is required for the ${kind} provider (must be ${checks[name]!(undefined) ?? 'given'}), e.g. { provider: '${kind}', ${name}: process.env.ANTHROPIC_API_KEY }`,
      );
}

/**
 * Checks a provider configuration (the argument of `createModelProvider`, or `model.provider` of `createAgentHost`
 * when it is not a provider instance) before anything is built.
 * @param config - the configuration
 * @param path - its option path, for messages
 * @returns the provider kind (`fake` read as `scripted`)
 * @throws {@link MediaAgentError} `OPTIONS_INVALID` when `config` is not an object (a bare provider name included)
 *   or an option is unknown, missing or of the wrong type; `PROVIDER_UNKNOWN` when `provider` names no provider
 * @internal
 */
export function checkProviderConfig(config: unknown, path: string): (typeof MODEL_PROVIDER_NAMES)[number] {
  if (!isObject(config)) {
    const bare =
      typeof config === 'string' && (config === 'fake' || (MODEL_PROVIDER_NAMES as readonly string[]).includes(config));
    throw invalid(
      path,
      bare
        ? `must be a provider instance or a configuration object, not the name alone: write { provider: '${config}', … } — ${SHAPES}; provider names: ${NAMES}`
        : `must be a ModelProvider (an object with stream()) or a configuration object: ${SHAPES}; got ${shown(config)}; provider names: ${NAMES}`,
    );
  }
  const name = config.provider;
  if (name === undefined)
    throw invalid(
      `${path}.provider`,
      `is missing: ${path} must be a ModelProvider (an object with stream()) or a configuration object: ${SHAPES}; provider names: ${NAMES}`,
    );
  const kind = name === 'fake' ? 'scripted' : name;
  if (typeof kind !== 'string' || !(MODEL_PROVIDER_NAMES as readonly string[]).includes(kind))
    throw new MediaAgentError(
      'PROVIDER_UNKNOWN',
      `unknown model provider ${shown(name)} at ${path}.provider; provider names: ${NAMES}`,
      { provider: String(name), option: `${path}.provider` },
    );
  const known = kind as (typeof MODEL_PROVIDER_NAMES)[number];
  checkProviderOptions(known, config, path, ['provider']);
  return known;
}
