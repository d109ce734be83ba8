// The rules of OpenAI Structured Outputs (strict mode), "Supported schemas":
// https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
import { checkRef } from './check-ref';
import { badSubschema, type Findings } from './findings';
import { isObject } from './json';
import { seg } from './json-pointer';
import { typeNames } from './type-names';
import type { JsonSchemaObject } from './types';
import { walk } from './walk';

/** Keywords OpenAI strict mode accepts (Structured Outputs "Supported schemas"). @internal */
export const STRICT_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'description',
  'title',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);

/** String formats OpenAI strict mode accepts. @internal */
export const STRICT_FORMATS: ReadonlySet<string> = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);

/** OpenAI strict-mode size limits (Structured Outputs "Objects have limitations on nesting depth and size"). @internal */
export const STRICT_LIMITS = {
  properties: 5000,
  depth: 10,
  enumValues: 1000,
  stringLength: 120_000,
  largeEnum: 250,
  largeEnumStringLength: 15_000,
} as const;

/**
 * Checks every subschema under the OpenAI strict-mode rules (the root rules are {@link checkRoot}'s):
 * `additionalProperties: false` and every property required on objects, only the supported keywords
 * and string formats, a `type` (or `anyOf`, `enum`, `const`, `$ref`) on every subschema, and the size
 * limits ({@link STRICT_LIMITS}).
 * @param f - the findings of `openai-strict`
 * @param schema - the whole schema
 * @internal
 */
export function validateOpenAiStrict(f: Findings, schema: JsonSchemaObject): void {
  let properties = 0;
  let enumValues = 0;
  let stringLength = 0;
  walk(
    schema,
    '',
    0,
    (node, path, depth) => {
      for (const k of Object.keys(node))
        if (!STRICT_KEYWORDS.has(k)) f.add('keyword', `${path}${seg(k)}`, `${k} is not supported in strict mode`);
      const types = typeNames(f, node, path);
      checkRef(f, schema, node, path);
      if (
        node.type === undefined &&
        node.anyOf === undefined &&
        node.enum === undefined &&
        node.const === undefined &&
        node.$ref === undefined
      )
        f.add('type', path, 'every schema needs a type (or anyOf, enum, const, $ref) in strict mode');
      if (types?.includes('object')) {
        if (node.additionalProperties !== false)
          f.add('additional-properties', path, 'objects need additionalProperties: false in strict mode');
        const props = isObject(node.properties) ? Object.keys(node.properties) : [];
        const required = new Set(Array.isArray(node.required) ? node.required : []);
        for (const p of props)
          if (!required.has(p))
            f.add(
              'required',
              `${path}/properties${seg(p)}`,
              `property ${p} must be required in strict mode (make it nullable instead of optional)`,
            );
      }
      if (typeof node.format === 'string' && !STRICT_FORMATS.has(node.format))
        f.add('format', `${path}/format`, `format ${node.format} is not supported in strict mode`);
      if (isObject(node.properties)) {
        properties += Object.keys(node.properties).length;
        for (const k of Object.keys(node.properties)) stringLength += k.length;
      }
      for (const defs of ['$defs', 'definitions'])
        if (isObject(node[defs])) for (const k of Object.keys(node[defs] as object)) stringLength += k.length;
      if (Array.isArray(node.enum)) {
        enumValues += node.enum.length;
        const length = node.enum.reduce<number>((n, v) => n + (typeof v === 'string' ? v.length : 0), 0);
        stringLength += length;
        if (node.enum.length > STRICT_LIMITS.largeEnum && length > STRICT_LIMITS.largeEnumStringLength)
          f.add(
            'enum-string-limit',
            `${path}/enum`,
            `an enum of more than ${STRICT_LIMITS.largeEnum} values may total at most ${STRICT_LIMITS.largeEnumStringLength} characters (${length})`,
          );
      }
      if (typeof node.const === 'string') stringLength += node.const.length;
      if (depth > STRICT_LIMITS.depth) f.add('depth', path, `more than ${STRICT_LIMITS.depth} levels of nesting`);
    },
    badSubschema(f),
  );
  if (properties > STRICT_LIMITS.properties)
    f.add('properties-limit', '', `${properties} object properties in total, over ${STRICT_LIMITS.properties}`);
  if (enumValues > STRICT_LIMITS.enumValues)
    f.add('enum-limit', '', `${enumValues} enum values in total, over ${STRICT_LIMITS.enumValues}`);
  if (stringLength > STRICT_LIMITS.stringLength)
    f.add(
      'string-limit',
      '',
      `${stringLength} characters of names and enum values, over ${STRICT_LIMITS.stringLength}`,
    );
}
