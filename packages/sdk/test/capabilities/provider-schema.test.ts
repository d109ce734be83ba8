import fc from 'fast-check';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { mpCapabilityId, V3_OPERATIONS } from '@media-agent/host-adapter-v3';
import { CapabilitySchemaUnsupportedError } from '../../src/capabilities/errors';
import {
  checkProviderSchema,
  REQUIRED_PROVIDER_FAMILIES,
  validateProviderSchema,
  type JsonSchemaObject,
  type ModelTool,
} from '../../src/models';
import {
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  InvalidInputError,
  isMediaAgentError,
  SequentialIdGenerator,
  type Capability,
  type CapabilityDescriptor,
} from '../../src/index';
import { MemoryStorage } from '../../src/storage';
import { parseToolArguments } from '../../src/models/tools';
import { capabilityModelTool, SEARCH_TOOLS_MODEL_TOOL, ToolDiscovery } from '../../src/runtime/context/tool-discovery';
import { READ_TOOL_RESULT_MODEL_TOOL } from '../../src/runtime/context/tool-result-store';
import { DELEGATE_MODEL_TOOL } from '../../src/runtime/delegate-tool';
import { UPDATE_PLAN_MODEL_TOOL } from '../../src/runtime/checklist';
import { TiktokenCounter } from '../../src/models/token-counter';
import { ScriptedProvider, waitForRunStatus } from '../../src/testing';
import { makeHost } from '../helpers';
import { offeredCapabilities } from '../offered-capabilities';

const base = {
  version: 1,
  title: 'T',
  description: 'D',
  kind: 'read' as const,
  replay: 'safe' as const,
  output: Type.Object({ ok: Type.Boolean() }),
};

/** Every problem the three required families find in a schema (empty when all of them accept it). */
function familyProblems(schema: unknown) {
  return REQUIRED_PROVIDER_FAMILIES.flatMap((f) => validateProviderSchema(schema, f));
}

/** Every `"$ref"`, `"$defs"`, `"const"` … key anywhere in a JSON value. */
function keysIn(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysIn(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysIn(v, out);
    }
  }
  return out;
}

function refusal(fn: () => unknown): CapabilitySchemaUnsupportedError {
  try {
    fn();
  } catch (e) {
    if (e instanceof CapabilitySchemaUnsupportedError) return e;
    throw e;
  }
  throw new Error('expected CAPABILITY_SCHEMA_UNSUPPORTED');
}

const TitleOrTmdb = Type.Union([Type.Object({ title: Type.String() }), Type.Object({ tmdbId: Type.Number() })]);

/** `media.find` over {@link TitleOrTmdb}: its handler keeps every input it is given in `seen`. */
const mediaFind = (seen: unknown[]) =>
  defineCapability({
    ...base,
    id: 'media.find',
    input: TitleOrTmdb,
    handler: async (input) => {
      seen.push(input);
      return { ok: true };
    },
  });

describe('provider-safe capability input schemas', () => {
  it('a read capability whose input is a union of two objects is offered to models as one object: root type object, no root anyOf, every family accepts it', () => {
    expect(familyProblems(TitleOrTmdb).map((p) => p.rule)).toEqual(
      expect.arrayContaining([
        'anthropic.root-type',
        'anthropic.root-combinator',
        'openai.root-combinator',
        'gemini.root-type',
      ]),
    );
    const cap = defineCapability({
      ...base,
      id: 'media.find',
      input: TitleOrTmdb,
      handler: async () => ({ ok: true }),
    });
    const tool = capabilityModelTool({
      ...cap,
      tags: [],
      aliases: [],
      policy: undefined,
      target: undefined,
    } as CapabilityDescriptor);
    expect(tool.inputSchema).toMatchObject({
      type: 'object',
      properties: { title: { type: 'string' }, tmdbId: { type: 'number' } },
    });
    expect(tool.inputSchema.anyOf).toBeUndefined();
    expect(tool.inputSchema.required).toBeUndefined(); // neither property is required in every alternative
    expect(tool.inputSchema.description).toMatch(
      /one of these alternatives: 1\) title \(required\); 2\) tmdbId \(required\)/,
    );
    expect(familyProblems(tool.inputSchema)).toEqual([]);
    expect(cap.input).toBe(TitleOrTmdb); // the definition keeps its own schema
  });

  it('each branch of the union still validates against the original schema and reaches the handler; input matching neither is refused before the handler', async () => {
    const { host } = await makeHost();
    const seen: unknown[] = [];
    host.capabilities.register(mediaFind(seen));
    const descriptor = host.capabilities.get('media.find');
    expect(descriptor.modelInputSchema).toMatchObject({ type: 'object' });
    for (const input of [{ title: 'Dune' }, { tmdbId: 693134 }]) {
      const result = await host.invoke('media.find', input, { actor: 'user:admin' });
      expect(result).toMatchObject({ status: 'succeeded', output: { ok: true } });
    }
    expect(seen).toEqual([{ title: 'Dune' }, { tmdbId: 693134 }]);
    for (const input of [{}, { title: 42 }, { tmdbId: 'x' }]) {
      await expect(host.invoke('media.find', input, { actor: 'user:admin' })).rejects.toBeInstanceOf(InvalidInputError);
    }
    expect(seen).toHaveLength(2);
    // at the model boundary the arguments are checked against the original union too
    const tool = capabilityModelTool(descriptor);
    expect(tool.validationSchema).toBe(descriptor.input);
    expect(parseToolArguments('{"title":"Dune"}', tool, 'media_find')).toEqual({ ok: true, input: { title: 'Dune' } });
    expect(parseToolArguments('{"tmdbId":693134}', tool, 'media_find')).toEqual({
      ok: true,
      input: { tmdbId: 693134 },
    });
    expect(parseToolArguments('{}', tool, 'media_find')).toMatchObject({
      ok: false,
      failure: { code: 'TOOL_ARGS_INVALID' },
    });
  });

  it('a run offers the union capability to the model as one object; calls with either alternative reach the handler, arguments matching neither are refused before it', async () => {
    const provider = new ScriptedProvider({
      scripts: {
        match: 'Dune',
        steps: [
          { toolCalls: [{ capability: 'media.find', input: { title: 'Dune' } }] },
          { toolCalls: [{ capability: 'media.find', input: { tmdbId: 693134 } }] },
          { toolCalls: [{ capability: 'media.find', input: { year: 2024 } }] },
        ],
        finalText: 'done',
      },
    });
    const host = createAgentHost({
      storage: new MemoryStorage(),
      ids: new SequentialIdGenerator(),
      logger: new ConsoleLogger('silent'),
      model: { provider, model: 'scripted' },
      runs: { pollMs: 5 },
    });
    const seen: unknown[] = [];
    host.capabilities.register(mediaFind(seen));
    await host.start();
    try {
      const run = await host.startRun({ goal: 'find Dune', actor: 'user:admin' });
      await waitForRunStatus(host, run.id, ['succeeded', 'failed', 'waiting', 'budget_exceeded', 'cancelled']);
      const sent = provider.requests[0]!.tools!.find((t) => t.name === 'media.find')!;
      expect(sent.inputSchema).toMatchObject({
        type: 'object',
        properties: { title: { type: 'string' }, tmdbId: { type: 'number' } },
      });
      expect(sent.inputSchema.anyOf).toBeUndefined();
      for (const tool of provider.requests[0]!.tools!) expect(familyProblems(tool.inputSchema)).toEqual([]);
      expect(seen).toEqual([{ title: 'Dune' }, { tmdbId: 693134 }]);
      const results = provider.requests
        .at(-1)!
        .messages.filter((m) => m.role === 'tool' && m.name === 'media.find')
        .map((m) => JSON.parse(m.content as string) as { status: string; error?: { code: string } });
      expect(results.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'failed']);
      expect(results[2]!.error?.code).toBe('TOOL_ARGS_INVALID');
    } finally {
      await host.stop();
    }
  });

  it('tool discovery sends the provider-safe schema and counts only what is sent', () => {
    const cap = defineCapability({
      ...base,
      id: 'media.find',
      input: TitleOrTmdb,
      handler: async () => ({ ok: true }),
    });
    const d = { ...cap, tags: ['find'], aliases: [], policy: undefined, target: undefined } as CapabilityDescriptor;
    const discovery = new ToolDiscovery([d], { maxTools: 0, counter: new TiktokenCounter() });
    const [tool] = discovery.toolsForNextCall().tools;
    expect(tool!.inputSchema).toBe(cap.modelInputSchema);
    expect(familyProblems(tool!.inputSchema)).toEqual([]);
  });

  it('$ref and $defs are inlined (Type.Cyclic without a cycle, JSON-pointer refs); no $ref or $defs reaches the model', () => {
    const Release = Type.Cyclic(
      {
        Site: Type.Object({ name: Type.String() }),
        Query: Type.Object({ site: Type.Ref('Site'), mirrors: Type.Array(Type.Ref('Site')) }),
      },
      'Query',
    );
    const cap = defineCapability({ ...base, id: 'release.query', input: Release, handler: async () => ({ ok: true }) });
    const model = cap.modelInputSchema!;
    expect(model).toMatchObject({
      type: 'object',
      required: ['site', 'mirrors'],
      properties: {
        site: { type: 'object', properties: { name: { type: 'string' } } },
        mirrors: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
      },
    });
    expect([...keysIn(model)].filter((k) => k.startsWith('$'))).toEqual([]);
    expect(familyProblems(model)).toEqual([]);

    const pointer = {
      type: 'object',
      $defs: { Id: { type: 'string', minLength: 1 } },
      properties: { a: { $ref: '#/$defs/Id', description: 'First' }, b: { $ref: '#/$defs/Id' } },
      required: ['a'],
    };
    const check = checkProviderSchema(pointer);
    expect(check.problems).toEqual([]);
    expect(check.schema).toEqual({
      type: 'object',
      properties: { a: { type: 'string', minLength: 1, description: 'First' }, b: { type: 'string', minLength: 1 } },
      required: ['a'],
    });
    expect(check.rewrites.map((r) => [r.rule, r.path])).toEqual(
      expect.arrayContaining([
        ['ref-inlined', '/properties/a/$ref'],
        ['ref-inlined', '/properties/b/$ref'],
        ['meta-dropped', '/$defs'],
      ]),
    );
  });

  it('a recursive schema is refused at defineCapability with CAPABILITY_SCHEMA_UNSUPPORTED naming the rule ref-recursive and the JSON pointer', () => {
    const Node = Type.Cyclic(
      { Node: Type.Object({ name: Type.String(), children: Type.Array(Type.Ref('Node')) }) },
      'Node',
    );
    const error = refusal(() =>
      defineCapability({ ...base, id: 'tree.read', input: Node, handler: async () => ({ ok: true }) }),
    );
    expect(error.code).toBe('CAPABILITY_SCHEMA_UNSUPPORTED');
    expect(isMediaAgentError(error, 'CAPABILITY_SCHEMA_UNSUPPORTED')).toBe(true);
    expect(error.problems).toEqual([
      expect.objectContaining({ rule: 'ref-recursive', path: '/$defs/Node/properties/children/items/$ref' }),
    ]);
    expect(error.message).toContain('tree.read');
    expect(error.message).toContain('ref-recursive at /$defs/Node/properties/children/items/$ref');
    expect(error).toMatchObject({ rule: 'ref-recursive', path: '/$defs/Node/properties/children/items/$ref' });
    expect(error.details).toMatchObject({
      capabilityId: 'tree.read',
      rule: 'ref-recursive',
      path: '/$defs/Node/properties/children/items/$ref',
      problems: [{ rule: 'ref-recursive' }],
    });

    const ThisTree = Type.Object({ name: Type.String(), children: Type.Array(Type.This()) });
    expect(
      refusal(() =>
        defineCapability({ ...base, id: 'tree.this', input: ThisTree, handler: async () => ({ ok: true }) }),
      ),
    ).toMatchObject({ rule: 'ref-recursive', path: '/properties/children/items/$ref' });
    const selfRef = { type: 'object', properties: { parent: { $ref: '#' } } };
    expect(checkProviderSchema(selfRef).problems).toEqual([
      expect.objectContaining({ rule: 'ref-recursive', path: '/properties/parent/$ref' }),
    ]);
  });

  it('an unresolved $ref and a root that is not an object are refused with their rule and path; register refuses a hand-made capability the same way', async () => {
    expect(
      refusal(() =>
        defineCapability({
          ...base,
          id: 'x.ref',
          input: Type.Object({ a: Type.Ref('Missing') }),
          handler: async () => ({ ok: true }),
        }),
      ).problems,
    ).toEqual([expect.objectContaining({ rule: 'ref-unresolved', path: '/properties/a/$ref' })]);
    for (const input of [
      Type.String(),
      Type.Array(Type.String()),
      Type.Union([Type.String(), Type.Number()]),
      Type.Null(),
    ]) {
      const e = refusal(() =>
        defineCapability({ ...base, id: 'x.scalar', input, handler: async () => ({ ok: true }) }),
      );
      expect(e.problems[0]).toMatchObject({ rule: 'root-not-object' });
    }
    // a frozen capability not made by defineCapability is checked by the registry
    const { host } = await makeHost();
    const handMade = Object.freeze({
      ...base,
      id: 'x.hand',
      input: Type.Object({ a: Type.Ref('Nowhere') }),
      handler: async () => ({ ok: true }),
      tags: [],
      aliases: [],
      redact: [],
    }) as unknown as Capability;
    expect(() => host.capabilities.register(handMade)).toThrow(CapabilitySchemaUnsupportedError);
    expect(host.capabilities.has('x.hand')).toBe(false);
    const handMadeOk = Object.freeze({
      ...base,
      id: 'x.hand2',
      input: TitleOrTmdb,
      handler: async () => ({ ok: true }),
      tags: [],
      aliases: [],
      redact: [],
    }) as unknown as Capability;
    host.capabilities.register(handMadeOk);
    expect(familyProblems(host.capabilities.get('x.hand2').modelInputSchema)).toEqual([]);
  });

  it('const becomes a one-value enum, a union of string literals one string enum, and non-string literals their type with the value described', () => {
    const input = Type.Object({
      mode: Type.Literal('fast'),
      resolution: Type.Union([Type.Literal('720p'), Type.Literal('1080p'), Type.Literal('2160p')], {
        description: 'Resolution.',
      }),
      version: Type.Literal(2),
      dryRun: Type.Literal(true),
      choice: Type.Union([Type.Literal('a'), Type.Literal(1), Type.Null()]),
    });
    const check = checkProviderSchema(input);
    expect(check.problems).toEqual([]);
    expect(check.schema.properties).toEqual({
      mode: { type: 'string', enum: ['fast'] },
      resolution: { type: 'string', enum: ['720p', '1080p', '2160p'], description: 'Resolution.' },
      version: { type: 'integer', minimum: 2, maximum: 2, description: 'Must be 2.' },
      dryRun: { type: 'boolean', description: 'Must be true.' },
      choice: {
        anyOf: [
          { type: 'string', enum: ['a'] },
          { type: 'integer', minimum: 1, maximum: 1, description: 'Must be 1.' },
          { type: 'null' },
        ],
      },
    });
    expect(keysIn(check.schema).has('const')).toBe(false);
    expect(check.rewrites.map((r) => r.rule)).toEqual(
      expect.arrayContaining(['const', 'enum-merged', 'enum-non-string']),
    );
    expect(familyProblems(check.schema)).toEqual([]);
  });

  it('unsupported formats move into the description, date-time stays, and exclusive bounds, multipleOf and uniqueItems are described', () => {
    const check = checkProviderSchema(
      Type.Object({
        email: Type.String({ format: 'email', description: 'Who to notify' }),
        url: Type.String({ format: 'uri' }),
        at: Type.String({ format: 'date-time' }),
        ratio: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 }),
        step: Type.Integer({ multipleOf: 5 }),
        tags: Type.Array(Type.String(), { uniqueItems: true }),
      }),
    );
    expect(check.problems).toEqual([]);
    expect(check.schema.properties).toEqual({
      email: { type: 'string', description: 'Who to notify (format: email)' },
      url: { type: 'string', description: 'Format: uri.' },
      at: { type: 'string', format: 'date-time' },
      ratio: { type: 'number', minimum: 0, maximum: 1, description: 'Greater than 0; less than 1.' },
      step: { type: 'integer', description: 'A multiple of 5.' },
      tags: { type: 'array', items: { type: 'string' }, description: 'Items are unique.' },
    });
    expect(check.rewrites.filter((r) => r.rule === 'format').map((r) => r.path)).toEqual([
      '/properties/email/format',
      '/properties/url/format',
    ]);
    expect(familyProblems(check.schema)).toEqual([]);
  });

  it('maps (Type.Record), untyped values (Type.Unknown), tuples, intersections and OpenAPI nullable are written in forms every family accepts', () => {
    const check = checkProviderSchema(
      Type.Object({
        query: Type.Optional(Type.Record(Type.String(), Type.Number(), { description: 'Filters.' })),
        body: Type.Unknown({ description: 'JSON body.' }),
        pair: Type.Tuple([Type.String(), Type.Integer()]),
        both: Type.Intersect([Type.Object({ a: Type.String() }), Type.Object({ b: Type.Integer() })]),
        maybe: Type.Unsafe({ type: 'string', nullable: true }),
        list: Type.Unsafe({ type: 'array' }),
        typeList: Type.Unsafe({ type: ['string', 'integer'], minLength: 2, minimum: 3 }),
      }),
    );
    expect(check.problems).toEqual([]);
    const p = check.schema.properties as Record<string, JsonSchemaObject>;
    expect(p.query).toEqual({ type: 'object', description: 'Filters. (any keys, each value number)' });
    expect(p.body!.anyOf).toEqual(expect.arrayContaining([{ type: 'string' }, { type: 'object' }, { type: 'null' }]));
    expect(p.body!.description).toBe('JSON body.');
    expect(p.pair).toEqual({
      type: 'array',
      items: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      minItems: 2,
      maxItems: 2,
      description: 'Positions: 1) string, 2) integer.',
    });
    expect(p.both).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'integer' } },
      required: ['a', 'b'],
    });
    expect(p.maybe).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
    expect(p.list).toMatchObject({ type: 'array', items: { anyOf: expect.any(Array) } });
    expect(p.typeList).toEqual({
      anyOf: [
        { type: 'string', minLength: 2 },
        { type: 'integer', minimum: 3 },
      ],
    });
    expect(familyProblems(check.schema)).toEqual([]);
  });

  it('a schema every family accepts is offered unchanged: same object, no rewrites, no validationSchema', () => {
    const input = Type.Object({
      releaseId: Type.String({ minLength: 1 }),
      season: Type.Optional(Type.Integer({ minimum: 1 })),
    });
    expect(checkProviderSchema(input)).toMatchObject({ rewrites: [], problems: [] });
    const cap = defineCapability({ ...base, id: 'release.inspect', input, handler: async () => ({ ok: true }) });
    expect(cap.modelInputSchema).toBe(input);
    const tool = capabilityModelTool({
      ...cap,
      tags: [],
      aliases: [],
      policy: undefined,
      target: undefined,
    } as CapabilityDescriptor);
    expect(tool).toEqual({ name: 'release.inspect', description: 'D', inputSchema: input });
  });

  it('OpenAI strict-mode problems (optional properties, open objects, unsupported keywords) are reported for information and never refuse a capability', () => {
    const input = Type.Object({ title: Type.String({ maxLength: 200 }), year: Type.Optional(Type.Integer()) });
    const check = checkProviderSchema(input);
    expect(check.problems).toEqual([]);
    expect(check.strict.map((p) => [p.rule, p.path])).toEqual(
      expect.arrayContaining([
        ['openai-strict.required', '/properties/year'],
        ['openai-strict.additional-properties', ''],
        ['openai-strict.keyword', '/properties/title/maxLength'],
      ]),
    );
    expect(() =>
      defineCapability({ ...base, id: 'strict.not.required', input, handler: async () => ({ ok: true }) }),
    ).not.toThrow();
  });

  it('the rule checker refuses what each family refuses (it is independent of the rewriter)', () => {
    const rules = (schema: unknown, family: (typeof REQUIRED_PROVIDER_FAMILIES)[number] | 'openai-strict') =>
      validateProviderSchema(schema, family).map((p) => `${p.rule} ${p.path}`);
    expect(rules({ anyOf: [{ type: 'object' }] }, 'anthropic')).toEqual([
      'anthropic.root-type /type',
      'anthropic.root-combinator /anyOf',
    ]);
    expect(
      rules({ type: 'object', properties: { t: { type: 'array', items: [{ type: 'string' }] } } }, 'anthropic'),
    ).toEqual(['anthropic.items-array /properties/t/items']);
    expect(rules({ type: 'object', properties: { a: { $ref: '#/$defs/Nope' } } }, 'anthropic')).toEqual([
      'anthropic.ref-unresolved /properties/a/$ref',
    ]);
    expect(rules({ type: 'object', properties: { t: { type: 'array' } } }, 'openai')).toEqual([
      'openai.array-items /properties/t',
    ]);
    expect(rules({ type: 'object', enum: [{}] }, 'openai')).toEqual(['openai.root-combinator /enum']);
    expect(
      rules(
        {
          type: 'object',
          properties: {
            a: { type: 'string', const: 'x' },
            b: { $ref: '#/$defs/B' },
            n: { type: 'integer', enum: [1, 2] },
            u: {},
            l: { type: ['string', 'null'] },
            e: { type: 'string', format: 'email' },
          },
          $defs: { B: { type: 'string' } },
          additionalProperties: false,
          required: ['a', 'zz'],
        },
        'gemini',
      ).sort(),
    ).toEqual(
      [
        'gemini.keyword /$defs',
        'gemini.keyword /additionalProperties',
        'gemini.keyword /properties/a/const',
        'gemini.keyword /properties/b/$ref',
        'gemini.type-missing /properties/b',
        'gemini.enum /properties/n/enum',
        'gemini.type-missing /properties/u',
        'gemini.type /properties/l/type',
        'gemini.format /properties/e/format',
        'gemini.required /required/1',
      ].sort(),
    );
    expect(rules({ type: 'object', properties: { a: { type: 'string' } } }, 'openai-strict')).toEqual([
      'openai-strict.additional-properties ',
      'openai-strict.required /properties/a',
    ]);
    expect(rules(Type.String(), 'openai')).toEqual(['openai.root-type /type']);
  });

  it("every standard media capability, every V3 mp.* operation, every V2 plugin route and the runtime's own tools are offered in a form Anthropic, OpenAI and Gemini accept", async () => {
    const offered = new Map<string, ModelTool>();
    const offer = (d: CapabilityDescriptor) => offered.set(d.id, capabilityModelTool(d));

    // the 15 standard contracts, a V3 host (with its 221 catalog operations), a V2 host and every plugin route of the V2 contract
    const gathered = await offeredCapabilities();
    for (const d of gathered.byId.values()) offer(d);
    expect(gathered.counts.standard).toBe(15);
    expect(gathered.counts.v3Operations).toBeGreaterThan(200);
    for (const op of V3_OPERATIONS) expect(offered.has(mpCapabilityId(op.operation_id))).toBe(true);
    expect(gathered.counts.v2PluginSkipped).toBe(0);
    expect(gathered.counts.v2PluginRoutes).toBeGreaterThan(100);

    for (const tool of [
      UPDATE_PLAN_MODEL_TOOL,
      SEARCH_TOOLS_MODEL_TOOL,
      READ_TOOL_RESULT_MODEL_TOOL,
      DELEGATE_MODEL_TOOL,
    ])
      offered.set(tool.name, tool);

    const failures = [...offered].flatMap(([id, tool]) =>
      familyProblems(tool.inputSchema).map((p) => `${id}: ${p.rule} at ${p.path} — ${p.message}`),
    );
    expect(failures).toEqual([]);
    for (const [, tool] of offered) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.inputSchema.anyOf).toBeUndefined();
      expect(JSON.parse(JSON.stringify(tool.inputSchema))).toEqual(tool.inputSchema); // plain JSON, nothing lost on the wire
    }
    expect(offered.size).toBeGreaterThan(15 + 221 + 100);
  });

  it('any schema is either rewritten into a form every family accepts, or refused with a named rule (generated schemas)', () => {
    const leaf = fc.oneof(
      fc.constantFrom<unknown>(
        {},
        true,
        { type: 'string' },
        { type: 'integer', minimum: 0 },
        { type: 'number', exclusiveMaximum: 10, multipleOf: 0.5 },
        { type: 'boolean' },
        { type: 'null' },
      ),
      fc.record(
        {
          type: fc.constant('string'),
          format: fc.constantFrom('email', 'date-time', 'uuid', 'uri', 'date'),
          minLength: fc.nat(5),
          pattern: fc.constant('^[a-z]+$'),
        },
        { requiredKeys: ['type'] },
      ),
      fc
        .record(
          { const: fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(null)) },
          { requiredKeys: ['const'] },
        )
        .map((s) => ({ ...s })),
      fc
        .array(
          fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -5, max: 5 }), fc.constant(null), fc.boolean()),
          { minLength: 1, maxLength: 4 },
        )
        .map((values) => ({ enum: values })),
      fc.constantFrom<unknown>(
        { $ref: '#/$defs/Id' },
        { $ref: 'Id' },
        { $ref: '#/$defs/Missing' },
        { type: ['string', 'null'] },
        { type: 'string', nullable: true },
        { type: 'array' },
        { type: 'object', patternProperties: { '^x': { type: 'integer' } } },
      ),
    );
    const { schema } = fc.letrec((tie) => ({
      schema: fc.oneof(
        { maxDepth: 3, depthIdentifier: 'schema' },
        leaf,
        tie('object'),
        tie('array'),
        tie('union'),
        tie('allOf'),
      ),
      object: fc
        .record(
          {
            type: fc.constant('object'),
            properties: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd-e', 'f'), tie('schema'), { maxKeys: 4 }),
            required: fc.subarray(['a', 'b', 'c', 'zz']),
            additionalProperties: fc.oneof(fc.boolean(), tie('schema')),
            title: fc.string({ maxLength: 6 }),
            description: fc.string({ maxLength: 10 }),
            examples: fc.constant([{}]),
          },
          { requiredKeys: ['properties'] },
        )
        .map((s) => ({ ...s })),
      array: fc.oneof(
        fc.record(
          { type: fc.constant('array'), items: tie('schema'), minItems: fc.nat(3), uniqueItems: fc.boolean() },
          { requiredKeys: ['type'] },
        ),
        fc.record(
          {
            type: fc.constant('array'),
            items: fc.array(tie('schema'), { maxLength: 3 }),
            additionalItems: fc.boolean(),
          },
          { requiredKeys: ['type', 'items'] },
        ),
        fc.record({ prefixItems: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
      ),
      union: fc
        .tuple(
          fc.array(tie('schema'), { minLength: 1, maxLength: 3 }),
          fc.constantFrom('anyOf', 'oneOf'),
          fc.string({ maxLength: 5 }),
        )
        .map(([branches, key, description]) => ({ [key]: branches, ...(description ? { description } : {}) })),
      allOf: fc.record({ allOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    }));
    const KNOWN_REFUSALS = new Set([
      'ref-recursive',
      'ref-unresolved',
      'root-not-object',
      'schema-invalid',
      'schema-too-large',
    ]);
    const root = fc.oneof(
      schema,
      fc.record({
        type: fc.constant('object'),
        properties: fc.dictionary(fc.constantFrom('a', 'b', 'c'), schema, { maxKeys: 3 }),
      }),
      fc.record({ anyOf: fc.array(schema, { minLength: 1, maxLength: 3 }) }),
    );
    fc.assert(
      fc.property(root, (s) => {
        const doc =
          typeof s === 'object' && s !== null
            ? { ...(s as object), $defs: { Id: { type: 'string', minLength: 1 } } }
            : s;
        const check = checkProviderSchema(doc);
        if (check.problems.length > 0) {
          for (const p of check.problems) expect(KNOWN_REFUSALS.has(p.rule), `${p.rule} ${p.path}`).toBe(true);
          return;
        }
        expect(familyProblems(check.schema)).toEqual([]);
        expect(check.schema.type).toBe('object');
        expect([...keysIn(check.schema)].filter((k) => k === '$ref' || k === '$defs' || k === 'const')).toEqual([]);
      }),
      { numRuns: 400, seed: 20260601 },
    );
  });
});
