import type { TSchema } from 'typebox';
import { compileSchema } from './schema-validator';
import { InvalidCapabilityError } from './errors';
import type { Capability, CapabilityDefinition } from './types';

const ID = /^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/;
const KINDS = new Set(['read', 'preview', 'propose', 'approve', 'execute']);
const REPLAYS = new Set(['safe', 'reconcile', 'never']);

/**
 * Defines a capability. The handler's input and output types are inferred from the TypeBox
 * schemas, so a plugin author writes no type annotations:
 *
 * ```ts
 * const inspect = defineCapability({
 *   id: 'release.inspect', version: 1, title: 'Inspect a release', description: '…',
 *   kind: 'read', replay: 'safe',
 *   input: Type.Object({ releaseId: Type.String() }),
 *   output: Type.Object({ title: Type.String() }),
 *   handler: async (input) => ({ title: input.releaseId }),   // input: { releaseId: string }
 * });
 * ```
 *
 * @returns the frozen capability, ready for `CapabilityRegistry.register`
 * @throws {@link InvalidCapabilityError} (`CAPABILITY_DEFINITION_INVALID`) for an id that is not dotted words
 *   (≤ 128 chars), a version that is not a positive integer, an unknown kind or replay policy, a missing
 *   handler, or an input/output that is not a schema (the schemas are compiled here, once)
 * @public
 */
export function defineCapability<I extends TSchema, O extends TSchema>(definition: CapabilityDefinition<I, O>): Capability<I, O> {
  const d = definition as CapabilityDefinition<I, O> | undefined;
  const id = d?.id;
  if (typeof id !== 'string' || id.length > 128 || !ID.test(id)) throw new InvalidCapabilityError(id, 'id must be dotted words of letters, digits, _ and - (≤ 128 chars)');
  if (!Number.isInteger(d!.version) || d!.version < 1) throw new InvalidCapabilityError(id, 'version must be a positive integer');
  if (!KINDS.has(d!.kind)) throw new InvalidCapabilityError(id, `kind must be one of ${[...KINDS].join(', ')}`);
  if (!REPLAYS.has(d!.replay)) throw new InvalidCapabilityError(id, `replay must be one of ${[...REPLAYS].join(', ')}`);
  if (typeof d!.handler !== 'function') throw new InvalidCapabilityError(id, 'handler must be a function');
  if (typeof d!.title !== 'string' || !d!.title.trim()) throw new InvalidCapabilityError(id, 'title is required');
  if (typeof d!.description !== 'string') throw new InvalidCapabilityError(id, 'description is required');
  for (const [name, schema] of [['input', d!.input], ['output', d!.output]] as const) {
    if (typeof schema !== 'object' || schema === null) throw new InvalidCapabilityError(id, `${name} must be a TypeBox schema`);
    try {
      compileSchema(schema);
    } catch (cause) {
      throw new InvalidCapabilityError(id, `${name} schema does not compile: ${(cause as Error).message}`);
    }
  }
  return Object.freeze({
    ...definition,
    tags: Object.freeze([...(definition.tags ?? [])]) as string[],
    aliases: Object.freeze([...(definition.aliases ?? [])]) as string[],
    redact: Object.freeze([...(definition.redact ?? [])]) as string[],
  });
}
