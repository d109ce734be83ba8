import { fixProvenanceSchema } from '../core/provenance-marks';
import type { TSchema } from 'typebox';
import { EFFECT_KINDS } from '../core/capability-descriptor';
import { compileSchema } from './schema-validator';
import { CapabilitySchemaUnsupportedError, InvalidCapabilityError } from './errors';
import { checkProviderSchema, deepFreeze } from '../models/provider-schema';
import { enforcedSchema } from './enforced-schema';
import type { Capability, CapabilityDefinition } from './types';

const ID = /^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/;
const KINDS = new Set(['read', 'preview', 'propose', 'approve', 'execute']);
const REPLAYS = new Set(['safe', 'reconcile', 'never']);

/** `impact`, `inverse` and `planPayload` belong to side-effecting kinds; an inverse names a capability id and maps an output. */
function checkUndoHooks(id: string, d: CapabilityDefinition<TSchema, TSchema>): void {
  const sideEffecting = d.kind === 'propose' || d.kind === 'approve' || d.kind === 'execute';
  for (const hook of ['impact', 'inverse', 'planPayload'] as const)
    if (d[hook] !== undefined && !sideEffecting)
      throw new InvalidCapabilityError(
        id,
        `${hook} is declared on side-effecting capabilities only; this one is ${d.kind}`,
      );
  if (d.inverse === undefined) return;
  const inverse = d.inverse as { capability?: unknown; input?: unknown } | null;
  if (typeof inverse !== 'object' || inverse === null)
    throw new InvalidCapabilityError(id, 'inverse must be { capability, input } when given');
  if (typeof inverse.capability !== 'string' || inverse.capability.length > 128 || !ID.test(inverse.capability))
    throw new InvalidCapabilityError(id, 'inverse.capability must be a capability id (dotted words, ≤ 128 chars)');
  if (inverse.capability === id)
    throw new InvalidCapabilityError(id, 'inverse.capability cannot be the capability itself');
  if (typeof inverse.input !== 'function')
    throw new InvalidCapabilityError(id, 'inverse.input must be a function of the recorded output');
}

/** Effect classes: lowercase dotted words, at most 64 characters (they are part of an intent's key). */
const EFFECT_CLASS = /^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$/;

/** `intent` belongs to side-effecting kinds and names an effect class (docs/intents.md). */
function checkIntent(id: string, d: CapabilityDefinition<TSchema, TSchema>): void {
  if (d.intent === undefined) return;
  if (d.kind !== 'propose' && d.kind !== 'approve' && d.kind !== 'execute')
    throw new InvalidCapabilityError(
      id,
      `intent is declared on side-effecting capabilities only; this one is ${d.kind}`,
    );
  const effectClass = (d.intent as { effectClass?: unknown } | null)?.effectClass;
  if (typeof effectClass !== 'string' || effectClass.length > 64 || !EFFECT_CLASS.test(effectClass))
    throw new InvalidCapabilityError(
      id,
      'intent must be { effectClass } with an effect class of lowercase dotted words (≤ 64 chars), e.g. download',
    );
}

/**
 * Defines a capability. The handler's input and output types are inferred from the TypeBox
 * schemas, so a plugin author writes no type annotations (see the example).
 *
 * The input schema is also checked, once, against the tool-schema rules of every model provider family
 * (Anthropic `input_schema`, OpenAI function parameters, Gemini through its OpenAI-compatible endpoint;
 * see `checkProviderSchema`): every tool goes with every model call, so one schema a provider refuses
 * would fail every run. What can be rewritten is rewritten into `modelInputSchema`, which is what
 * models see (e.g. `Type.Union([Type.Object({ title }), Type.Object({ tmdbId })])` is offered as one
 * object with both properties optional and the alternatives described); the original `input` still
 * validates every invocation before the handler runs, so the handler only ever receives input of its
 * own schema.
 *
 * `input` may also be a plain JSON Schema 2020-12 object (e.g. with `$schema`, `$defs` and `$ref`,
 * `additionalProperties: false`; wrap it in `Type.Unsafe<T>(schema)` to give the handler the input type `T`);
 * it is validated as written and published over MCP as written. A `format` the validator does not know
 * (e.g. OpenAPI's `password`) is an annotation, as JSON Schema 2020-12 defines it by default; known formats
 * (`date-time`, `date`, `time`, `duration`, `email`, `uri`, `uuid`, `ipv4`, `ipv6`, `hostname`, …) are checked. Keywords
 * of earlier drafts that TypeBox emits or reads (`items` as an array with `additionalItems`, as
 * `Type.Tuple` makes; `dependencies`) are rewritten into their 2020-12 equivalents (`prefixItems`,
 * `dependentRequired`/`dependentSchemas`), and a draft-06/-07 `$schema` becomes the 2020-12 URI, so the
 * returned capability's `input` is exactly the schema that is enforced and published. OpenAI strict-mode problems (optional properties, …) never refuse a capability: strict
 * mode is not used by the SDK's providers.
 *
 * @param definition - id (dotted words), version, title, description (what the model reads), kind, replay
 *   policy, TypeBox `input` and `output` schemas, optional `target`, `redact`, `verify`, `adminOnly`, `impact`,
 *   `inverse`, `planPayload` and `intent` (the last four on side-effecting kinds only), and the `handler`
 * @returns the frozen capability (with `modelInputSchema`), ready for `CapabilityRegistry.register`
 * @throws `CAPABILITY_DEFINITION_INVALID` (a `MediaAgentError`) for an id that is not dotted words
 *   (≤ 128 chars), a version that is not a positive integer, an unknown kind or replay policy, a missing
 *   handler, a `timeoutMs` that is not a positive finite number of milliseconds, an `intent` on a `read` or
 *   `preview` capability or with an effect class that is not lowercase dotted words, or an input/output that is
 *   not a schema (the schemas are compiled here, once);
 *   `CAPABILITY_SCHEMA_UNSUPPORTED` (a `MediaAgentError`, with each rule and JSON pointer in its details)
 *   for an input schema no provider rewrite can make acceptable: a recursive `$ref` (`ref-recursive`), an
 *   unresolved `$ref` (`ref-unresolved`), a root that is not an object (`root-not-object`), …; and for an input
 *   schema that cannot be enforced as the JSON Schema 2020-12 it is published as (over MCP `tools/list`): a
 *   `$schema` dialect other than 2020-12 or draft-06/-07 (`schema-dialect`), a draft-07 `$ref` with sibling
 *   keywords (`schema-dialect`), a `Type.Refine` or `Type.Codec` (`schema-refine`)
 *
 * @example
 * ```ts
 * const inspect = defineCapability({
 *   id: 'release.inspect', version: 1, title: 'Inspect a release', description: '…',
 *   kind: 'read', replay: 'safe',
 *   input: Type.Object({ releaseId: Type.String() }),
 *   output: Type.Object({ title: Type.String() }),
 *   handler: async (input) => ({ title: input.releaseId }),   // input: { releaseId: string }
 * });
 * ```
 * @public
 */
export function defineCapability<I extends TSchema, O extends TSchema>(
  definition: CapabilityDefinition<I, O>,
): Capability<I, O> {
  const d = definition as CapabilityDefinition<I, O> | undefined;
  const id = d?.id;
  if (typeof id !== 'string' || id.length > 128 || !ID.test(id))
    throw new InvalidCapabilityError(id, 'id must be dotted words of letters, digits, _ and - (≤ 128 chars)');
  if (!Number.isInteger(d!.version) || d!.version < 1)
    throw new InvalidCapabilityError(id, 'version must be a positive integer');
  if (!KINDS.has(d!.kind)) throw new InvalidCapabilityError(id, `kind must be one of ${[...KINDS].join(', ')}`);
  if (!REPLAYS.has(d!.replay)) throw new InvalidCapabilityError(id, `replay must be one of ${[...REPLAYS].join(', ')}`);
  if (typeof d!.handler !== 'function') throw new InvalidCapabilityError(id, 'handler must be a function');
  if (typeof d!.title !== 'string' || !d!.title.trim()) throw new InvalidCapabilityError(id, 'title is required');
  if (typeof d!.description !== 'string') throw new InvalidCapabilityError(id, 'description is required');
  if (d!.adminOnly !== undefined && typeof d!.adminOnly !== 'boolean')
    throw new InvalidCapabilityError(id, 'adminOnly must be a boolean');
  for (const hook of ['verify', 'target', 'impact'] as const)
    if (d![hook] !== undefined && typeof d![hook] !== 'function')
      throw new InvalidCapabilityError(id, `${hook} must be a function when given; got ${typeof d![hook]}`);
  checkUndoHooks(id, d!);
  checkIntent(id, d!);
  if (
    d!.timeoutMs !== undefined &&
    !(typeof d!.timeoutMs === 'number' && Number.isFinite(d!.timeoutMs) && d!.timeoutMs > 0)
  )
    throw new InvalidCapabilityError(
      id,
      `timeoutMs must be a positive number of milliseconds; got ${typeof d!.timeoutMs === 'number' ? String(d!.timeoutMs) : typeof d!.timeoutMs}`,
    );
  if (d!.effect !== undefined && !EFFECT_KINDS.includes(d!.effect))
    throw new InvalidCapabilityError(
      id,
      `effect must be one of ${EFFECT_KINDS.join(', ')}; got ${JSON.stringify(d!.effect)}`,
    );
  if (d!.effect !== undefined && d!.kind !== 'execute')
    throw new InvalidCapabilityError(id, `effect is declared on execute capabilities only; this one is ${d!.kind}`);
  for (const [name, schema] of [
    ['input', d!.input],
    ['output', d!.output],
    ...(d!.planPayload === undefined ? [] : ([['planPayload', d!.planPayload]] as const)),
  ] as const) {
    if (typeof schema !== 'object' || schema === null)
      throw new InvalidCapabilityError(id, `${name} must be a TypeBox schema`);
    try {
      compileSchema(schema);
    } catch (cause) {
      throw new InvalidCapabilityError(id, `${name} schema does not compile: ${(cause as Error).message}`);
    }
  }
  const enforced = enforcedSchema(d!.input);
  if (enforced.problems.length > 0) throw new CapabilitySchemaUnsupportedError(id, enforced.problems);
  const input = enforced.schema === d!.input ? d!.input : (Object.freeze(enforced.schema) as I);
  if (input !== d!.input)
    try {
      compileSchema(input);
    } catch (cause) {
      throw new InvalidCapabilityError(
        id,
        `input schema does not compile as JSON Schema 2020-12: ${(cause as Error).message}`,
      );
    }
  // Defined, the schemas are fixed: their provenance marks are read once.
  for (const schema of [input, d!.input, d!.output, d!.planPayload]) fixProvenanceSchema(schema);
  const model = checkProviderSchema(input);
  if (model.problems.length > 0) throw new CapabilitySchemaUnsupportedError(id, model.problems);
  return Object.freeze({
    ...definition,
    input,
    modelInputSchema:
      model.rewrites.length === 0 ? (input as unknown as Readonly<Record<string, unknown>>) : deepFreeze(model.schema),
    tags: Object.freeze([...(definition.tags ?? [])]) as string[],
    aliases: Object.freeze([...(definition.aliases ?? [])]) as string[],
    redact: Object.freeze([...(definition.redact ?? [])]) as string[],
  });
}
