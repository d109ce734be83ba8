// A capability's input schema is enforced exactly as it is published (MCP tools/list): JSON Schema 2020-12
// that TypeBox's checker and an independent 2020-12 validator (Ajv) read alike. Definitions that cannot be
// made so are refused with CAPABILITY_SCHEMA_UNSUPPORTED; draft-07 keywords TypeBox reads are rewritten.
import fc from 'fast-check';
import Type, { type TSchema } from 'typebox';
import { describe, expect, it } from 'vitest';
import { createAgentHost, defineCapability } from '../../src/index';
import type { Capability } from '../../src/capabilities/types';
import { MemoryStorage } from '../../src/storage';
import { CapabilitySchemaUnsupportedError } from '../../src/capabilities/errors';
import { compileSchema } from '../../src/capabilities/schema-validator';
import { enforcedSchema } from '../../src/capabilities/enforced-schema';
import { publishedInputSchema } from '../../src/mcp/published-tools';
import { ajv, candidate, type Schema } from '../mcp/published-schema-arbitrary';

function define(input: unknown) {
  return defineCapability({
    id: 'schema.probe',
    version: 1,
    title: 'Probe',
    description: 'probe',
    kind: 'read',
    replay: 'safe',
    input: input as TSchema,
    output: Type.Unknown(),
    handler: async () => null,
  });
}

function refusal(input: unknown): CapabilitySchemaUnsupportedError {
  try {
    define(input);
  } catch (error) {
    if (error instanceof CapabilitySchemaUnsupportedError) return error;
    throw error;
  }
  throw new Error('expected CAPABILITY_SCHEMA_UNSUPPORTED');
}

describe('definition: what cannot be enforced as published is refused', () => {
  it('a $schema dialect other than 2020-12 or draft-06/-07 (draft-04 reads exclusiveMinimum as a boolean)', () => {
    const e = refusal({
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
      properties: { n: { type: 'number', minimum: 0, exclusiveMinimum: true } },
    });
    expect(e.code).toBe('CAPABILITY_SCHEMA_UNSUPPORTED');
    expect([e.rule, e.path]).toEqual(['schema-dialect', '/$schema']);
    expect(e.message).toContain('cannot be enforced as the JSON Schema 2020-12 it is published as');
  });

  it('a draft-07 $ref with sibling keywords (draft-07 ignores them, 2020-12 applies them)', () => {
    const e = refusal({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { title: { type: 'string' } },
      properties: { t: { $ref: '#/definitions/title', minLength: 3, description: 'annotations are fine' } },
    });
    expect([e.rule, e.path]).toEqual(['schema-dialect', '/properties/t']);
    expect(e.message).toContain('minLength');
    expect(e.message).not.toContain('description');
  });

  it('an embedded resource of another dialect', () => {
    const e = refusal({
      type: 'object',
      $defs: { a: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'string' } },
      properties: { a: { $ref: '#/$defs/a' } },
    });
    expect([e.rule, e.path]).toEqual(['schema-dialect', '/$defs/a/$schema']);
  });

  it('a TypeBox refinement: a predicate no published schema can say', () => {
    const e = refusal(Type.Object({ code: Type.Refine(Type.String(), (v) => v.length === 4) }));
    expect([e.rule, e.path]).toEqual(['schema-refine', '/properties/code']);
  });
});

describe('registration of a capability not made by defineCapability', () => {
  it('is refused when its input would be published in a form it is not enforced in', () => {
    const host = createAgentHost({ storage: new MemoryStorage() });
    const handMade = (id: string, input: unknown) =>
      Object.freeze({
        id,
        version: 1,
        title: 'Hand made',
        description: 'not from defineCapability',
        kind: 'read',
        replay: 'safe',
        input,
        output: Type.Unknown(),
        handler: async () => null,
        tags: [],
        aliases: [],
        redact: [],
      }) as unknown as Capability;
    expect(() =>
      host.capabilities.register(handMade('hand.tuple', Type.Object({ p: Type.Tuple([Type.String()]) }))),
    ).toThrow(expect.objectContaining({ code: 'CAPABILITY_DEFINITION_INVALID' }));
    expect(() =>
      host.capabilities.register(
        handMade('hand.draft04', { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }),
      ),
    ).toThrow(expect.objectContaining({ code: 'CAPABILITY_SCHEMA_UNSUPPORTED', rule: 'schema-dialect' }));
    host.capabilities.register(
      handMade('hand.plain', { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }),
    );
    expect(publishedInputSchema(host.capabilities.get('hand.plain'))).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      additionalProperties: false,
    });
    expect([host.capabilities.has('hand.tuple'), host.capabilities.has('hand.draft04')]).toEqual([false, false]);
  });
});

describe('definition: draft-07 keywords TypeBox reads become their 2020-12 equivalents', () => {
  it('Type.Tuple (items as a list + additionalItems) is published and enforced as prefixItems + items: false', () => {
    const c = define(Type.Object({ pair: Type.Tuple([Type.String(), Type.Integer()]) }));
    const pair = (publishedInputSchema(c) as unknown as { properties: { pair: Schema } }).properties.pair;
    expect(pair).toEqual({
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'integer' }],
      items: false,
      minItems: 2,
    });
    const check = compileSchema(c.input);
    expect([check.check({ pair: ['a', 1] }), check.check({ pair: ['a', 1, 2] }), check.check({ pair: ['a'] })]).toEqual(
      [true, false, false],
    );
  });

  // modelcontextprotocol/typescript-sdk#2721: tool schemas stamped draft-07 (zod-to-json-schema's default) are
  // refused by 2020-12-only clients. A consumed or hand-written draft-07 schema is published as 2020-12.
  it('a draft-07 schema (as zod-to-json-schema emits) is published with the 2020-12 $schema and compiles in a 2020-12-only validator (modelcontextprotocol/typescript-sdk#2721)', () => {
    const draft07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        path: { type: 'string' },
        mode: { type: 'string', enum: ['r', 'w'] },
        range: { type: 'array', items: [{ type: 'integer' }, { type: 'integer' }], additionalItems: false },
      },
      required: ['path'],
      dependencies: { mode: ['path'], range: { required: ['mode'] } },
      additionalProperties: false,
    };
    expect(() => ajv().compile(draft07)).toThrow(/draft-07|no schema with key/);
    const listed = publishedInputSchema(define(draft07));
    expect(listed.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(listed).toMatchObject({
      dependentRequired: { mode: ['path'] },
      dependentSchemas: { range: { required: ['mode'] } },
      properties: { range: { prefixItems: [{ type: 'integer' }, { type: 'integer' }], items: false } },
    });
    expect(listed).not.toHaveProperty('dependencies');
    expect(() => ajv().compile(listed)).not.toThrow();
  });
});

// A subschema object used at several places (TypeBox reuses the object a `const` holds) is rewritten at every
// place it appears, not only at the first: the second `Pair` used to keep draft-07 `items: [..]`.
const Pair = Type.Tuple([Type.String(), Type.Number()]);
const SharedDependencies = {
  type: 'object',
  properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'integer' } },
  dependencies: { a: ['b'], c: { required: ['a'] } },
};

describe('definition: a subschema shared by several places is rewritten at each of them', () => {
  it('one Type.Tuple object under two properties: both are prefixItems + items: false and compile in strict Ajv 2020', () => {
    const c = define(Type.Object({ a: Pair, b: Pair }));
    const listed = publishedInputSchema(c) as unknown as { properties: Record<string, Schema> };
    const tuple = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false, minItems: 2 };
    expect(listed.properties).toEqual({ a: tuple, b: tuple });
    expect(() => ajv().compile(listed)).not.toThrow();
    const check = compileSchema(c.input);
    expect([check.check({ a: ['x', 1], b: ['y', 2] }), check.check({ a: ['x', 1], b: ['y', 2, 3] })]).toEqual([
      true,
      false,
    ]);
  });

  it('one object with draft-07 dependencies under two properties: both become dependentRequired / dependentSchemas', () => {
    const listed = publishedInputSchema(
      define({ type: 'object', properties: { first: SharedDependencies, second: SharedDependencies } }),
    ) as unknown as { properties: Record<string, Schema> };
    for (const name of ['first', 'second']) {
      expect(listed.properties[name]).toMatchObject({
        dependentRequired: { a: ['b'] },
        dependentSchemas: { c: { required: ['a'] } },
      });
      expect(listed.properties[name]).not.toHaveProperty('dependencies');
    }
    expect(() => ajv().compile(listed)).not.toThrow();
  });

  it('an object that contains itself ends the walk, and a shared node inside it is still rewritten everywhere', () => {
    const loop: Record<string, unknown> = { type: 'object', properties: { p: Pair, q: Pair } };
    (loop.properties as Record<string, unknown>).self = loop;
    const { schema, problems } = enforcedSchema(loop);
    expect(problems).toEqual([]);
    const props = (schema as { properties: Record<string, Schema> }).properties;
    expect(props.p).toBe(props.q);
    expect(props.p).toMatchObject({ prefixItems: [{ type: 'string' }, { type: 'number' }], items: false });
    expect(props.p).not.toHaveProperty('additionalItems');
  });
});

// Schemas using the 2020-12 keywords the brief names and more; each is checked property-based: the validator
// the invocation path uses and Ajv on the published schema give the same verdict on every candidate.
const CATALOG: Record<string, unknown> = {
  'conformance json_schema_2020_12_tool': {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
    properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
    additionalProperties: false,
  },
  'const, oneOf, enum, multipleOf, exclusiveMinimum': {
    type: 'object',
    required: ['kind'],
    properties: {
      kind: { const: 'film' },
      size: {
        oneOf: [
          { type: 'integer', multipleOf: 3 },
          { type: 'integer', multipleOf: 5 },
        ],
      },
      res: { enum: ['720p', '1080p', null] },
      score: { type: 'number', exclusiveMinimum: 0, maximum: 10 },
    },
    additionalProperties: false,
  },
  'formats both validators read alike (date-time, date, uuid, ipv4, duration)': {
    type: 'object',
    properties: {
      at: { type: 'string', format: 'date-time' },
      day: { type: 'string', format: 'date' },
      id: { type: 'string', format: 'uuid' },
      ip: { type: 'string', format: 'ipv4' },
      d: { type: 'string', format: 'duration' },
    },
  },
  'if/then/else, dependentRequired, patternProperties, propertyNames, minProperties': {
    type: 'object',
    if: { properties: { kind: { const: 'tv' } }, required: ['kind'] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword
    then: { required: ['season'] },
    else: { not: { required: ['season'] } },
    properties: { kind: { enum: ['tv', 'movie'] }, season: { type: 'integer', minimum: 1 } },
    dependentRequired: { season: ['kind'] },
    patternProperties: { '^x-': { type: 'string' } },
    propertyNames: { maxLength: 8 },
    minProperties: 1,
  },
  'prefixItems, contains/minContains, uniqueItems, unevaluatedProperties, allOf': {
    type: 'object',
    $defs: { tag: { type: 'string', minLength: 1 } },
    properties: {
      pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false },
      tags: {
        type: 'array',
        items: { $ref: '#/$defs/tag' },
        uniqueItems: true,
        contains: { const: 'hd' },
        minContains: 1,
      },
    },
    allOf: [{ properties: { note: { type: 'string' } } }],
    unevaluatedProperties: false,
  },
  'TypeBox: a root union of objects (listed with type: object added)': Type.Union([
    Type.Object({ title: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
    Type.Object({ tmdbId: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
  ]),
  'TypeBox: Union of objects, Record, Tuple, Optional, Integer bounds': Type.Object(
    {
      target: Type.Union([
        Type.Object({ title: Type.String() }),
        Type.Object({ tmdbId: Type.Integer({ minimum: 1 }) }),
      ]),
      weights: Type.Optional(Type.Record(Type.String(), Type.Number({ minimum: 0 }))),
      pair: Type.Optional(Type.Tuple([Type.String(), Type.Boolean()])),
    },
    { additionalProperties: false },
  ),
  'TypeBox: one Tuple object shared by two properties': Type.Object({ a: Pair, b: Pair }),
  'one draft-07 dependencies object shared by two properties': {
    type: 'object',
    properties: { first: SharedDependencies, second: SharedDependencies },
    additionalProperties: false,
  },
};

describe('the invocation path and an independent 2020-12 validator agree on the published schema', () => {
  for (const [name, input] of Object.entries(CATALOG))
    it(name, () => {
      const capability = define(input);
      const listed = publishedInputSchema(capability);
      const check = compileSchema(capability.input);
      const valid = ajv().compile(listed);
      const seen = { valid: 0, invalid: 0 };
      fc.assert(
        fc.property(candidate(listed, listed), (value) => {
          const verdict = valid(value);
          seen[verdict ? 'valid' : 'invalid']++;
          if (check.check(value) !== verdict)
            throw new Error(`Ajv ${verdict ? 'accepts' : 'refuses'} ${JSON.stringify(value)}; the validator disagrees`);
        }),
        { numRuns: 400, seed: 4242 },
      );
      expect(seen.valid).toBeGreaterThan(10);
      expect(seen.invalid).toBeGreaterThan(10);
    });
});
