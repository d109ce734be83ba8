// Shared by the published-schema tests: a strict JSON Schema 2020-12 validator (Ajv, independent of TypeBox)
// and fast-check candidates shaped by a schema, whose validity Ajv decides.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = { [key: string]: unknown };

/** Strict 2020-12 validator with format assertion, as an MCP client validating arguments would run it. */
export function ajv() {
  // strict about keywords and formats (unknown ones throw); tuple and `required` lint checks off (style, not meaning)
  const a = new Ajv2020({ strict: true, strictTuples: false, strictRequired: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(a);
  return a;
}

/** The schema without TypeBox's markers and the SDK's provenance marks, written independently of the code under test. */
export function withoutMarkers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutMarkers);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value))
    if (!key.startsWith('~') && !key.startsWith('x-media-agent-')) out[key] = withoutMarkers((value as Schema)[key]);
  return out;
}

export function keysStartingWithTilde(value: unknown, path = ''): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => [
    ...(k.startsWith('~') ? [`${path}/${k}`] : []),
    ...keysStartingWithTilde(v, `${path}/${k}`),
  ]);
}

const day = fc.date({
  min: new Date('1900-01-01T00:00:00Z'),
  max: new Date('2100-12-31T23:59:59Z'),
  noInvalidDate: true,
});
/** Values of some formats (and near misses), so that a schema with a format has valid candidates. */
const FORMATS: Record<string, fc.Arbitrary<string>> = {
  'date-time': fc.oneof(
    day.map((d) => d.toISOString()),
    day.map((d) => d.toISOString().replace('Z', '+25:00')),
  ),
  date: fc.oneof(
    day.map((d) => d.toISOString().slice(0, 10)),
    fc.constant('2024-02-30'),
  ),
  uuid: fc.oneof(
    fc.uuid(),
    fc.uuid().map((u) => u.slice(1)),
  ),
  ipv4: fc.oneof(fc.ipV4(), fc.constant('256.1.1.1')),
  duration: fc.constantFrom('P1D', 'PT1H30M', 'P1W', 'P1Y2M', 'PT', 'P', '1D'),
};

const anyJson: fc.Arbitrary<Json> = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;

/**
 * Candidate values for a schema: mostly shaped by it (so that many are valid), sometimes mutated (an extra
 * property, a missing required one, a value of the wrong type). Whether a candidate is valid is decided by
 * Ajv, never by this generator.
 */
export function candidate(schema: unknown, root: Schema, depth = 0): fc.Arbitrary<Json> {
  if (typeof schema !== 'object' || schema === null || depth > 6) return anyJson;
  const s = schema as Schema;
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#/')) {
    const target = s.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>(
        (node, seg) => (node as Schema | undefined)?.[seg.replace(/~1/g, '/').replace(/~0/g, '~')],
        root,
      );
    return candidate(target, root, depth + 1);
  }
  if ('const' in s)
    return fc.oneof({ weight: 9, arbitrary: fc.constant(s.const as Json) }, { weight: 1, arbitrary: anyJson });
  if (Array.isArray(s.enum))
    return fc.oneof(
      { weight: 9, arbitrary: fc.constantFrom(...(s.enum as Json[])) },
      { weight: 1, arbitrary: anyJson },
    );
  if (Array.isArray(s.allOf) && s.allOf.length > 0)
    return candidate(Object.assign({ ...s, allOf: undefined }, ...(s.allOf as Schema[])), root, depth + 1);
  if (Array.isArray(s.prefixItems)) {
    const head = (s.prefixItems as unknown[]).map((sub) => candidate(sub, root, depth + 1));
    return fc
      .tuple(fc.tuple(...head), fc.array(candidate(s.items, root, depth + 1), { maxLength: 2 }), fc.nat(3))
      .map(
        ([first, rest, cut]) =>
          [...first.slice(0, first.length - (cut === 0 ? 1 : 0)), ...(cut === 1 ? rest : [])] as Json,
      );
  }
  const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(alternatives) && alternatives.length > 0)
    return fc.oneof(
      ...alternatives.map((a) =>
        candidate({ ...s, anyOf: undefined, oneOf: undefined, ...(a as Schema) }, root, depth + 1),
      ),
    );
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((t) => candidate({ ...s, type: t }, root, depth + 1)));
  const shaped = ((): fc.Arbitrary<Json> => {
    switch (types[0]) {
      case 'string': {
        if (typeof s.pattern === 'string') return fc.stringMatching(new RegExp(s.pattern, 'u'));
        const formatted = typeof s.format === 'string' ? FORMATS[s.format] : undefined;
        if (formatted)
          return fc.oneof({ weight: 4, arbitrary: formatted }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) });
        const min = typeof s.minLength === 'number' ? s.minLength : 0;
        const max = typeof s.maxLength === 'number' ? s.maxLength : Math.max(min, 12);
        return fc.string({ minLength: Math.max(0, min - 1), maxLength: max + 1 });
      }
      case 'integer':
      case 'number': {
        const min = typeof s.minimum === 'number' ? s.minimum : -1000;
        const max = typeof s.maximum === 'number' ? s.maximum : 1000;
        const int = fc.integer({ min: Math.ceil(min) - 1, max: Math.floor(max) + 1 });
        return types[0] === 'integer' ? int : fc.oneof(int, fc.double({ min: min - 1, max: max + 1, noNaN: true }));
      }
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array': {
        const min = typeof s.minItems === 'number' ? s.minItems : 0;
        const max = typeof s.maxItems === 'number' ? s.maxItems : Math.min(min + 3, 5);
        return fc.array(candidate(s.items, root, depth + 1), { minLength: Math.max(0, min - 1), maxLength: max + 1 });
      }
      default: {
        const properties = (s.properties ?? {}) as Record<string, unknown>;
        const required = new Set((s.required ?? []) as string[]);
        const record: Record<string, fc.Arbitrary<Json>> = {};
        for (const [name, sub] of Object.entries(properties)) record[name] = candidate(sub, root, depth + 1);
        const requiredKeys = Object.keys(properties).filter((k) => required.has(k));
        const base = fc.record(record, { requiredKeys }) as fc.Arbitrary<{ [key: string]: Json }>;
        return fc
          .tuple(base, fc.nat(9), fc.string({ minLength: 1, maxLength: 6 }), anyJson)
          .map(([value, roll, key, extra]) => {
            const out = { ...value };
            if (roll === 0) out[`x_${key}`] = extra; // an undeclared property
            if (roll === 1 && requiredKeys.length > 0) delete out[requiredKeys[key.length % requiredKeys.length]!]; // a required one missing
            return out as Json;
          });
      }
    }
  })();
  return fc.oneof({ weight: 19, arbitrary: shaped }, { weight: 1, arbitrary: anyJson });
}
