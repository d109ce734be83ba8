// The input schema a capability is listed with over MCP (`tools/list`) is exactly the schema the invocation
// path validates: checked over every standard capability the SDK ships (the sandbox world's, with the poster)
// by deep equality and, property-based, against an independent JSON Schema 2020-12 validator (Ajv 2020):
// what the listed schema allows is never refused INPUT_INVALID, what it forbids always is.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import Type from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentHost, defineCapability, type AgentHost, type CapabilityDescriptor } from '../../src/index';
import { STANDARD_CAPABILITY_IDS } from '../../src/media';
import { createMcpHttpHandler, type McpHttpHandler } from '../../src/mcp';
import { mcpTool } from '../../src/mcp/published-tools';
import { MemoryStorage } from '../../src/storage';
import { registerSandboxCapabilities, SandboxWorld } from '../../src/testing';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: unknown };

/** Strict 2020-12 validator with format assertion, as an MCP client validating arguments would run it. */
function ajv() {
  const a = new Ajv2020({ strict: true, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(a);
  return a;
}

/** The schema without TypeBox's markers, written independently of the code under test: enumerable keys only. */
function withoutMarkers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutMarkers);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (!key.startsWith('~')) out[key] = withoutMarkers((value as Schema)[key]);
  return out;
}

function keysStartingWithTilde(value: unknown, path = ''): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => [
    ...(k.startsWith('~') ? [`${path}/${k}`] : []),
    ...keysStartingWithTilde(v, `${path}/${k}`),
  ]);
}

const anyJson: fc.Arbitrary<Json> = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;

/**
 * Candidate values for a schema: mostly shaped by it (so that many are valid), sometimes mutated (an extra
 * property, a missing required one, a value of the wrong type). Whether a candidate is valid is decided by
 * Ajv, never by this generator.
 */
function candidate(schema: unknown, root: Schema, depth = 0): fc.Arbitrary<Json> {
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

/** Whether the invocation path refused the input as INPUT_INVALID (any other outcome is not a refusal of the input). */
async function refusedAsInvalid(host: AgentHost, id: string, input: unknown): Promise<boolean> {
  try {
    await host.invoke(id, input, { actor: 'system:schema-test', runId: 'schema-test' });
    return false;
  } catch (error) {
    return (error as { code?: string }).code === 'INPUT_INVALID';
  }
}

describe('published MCP input schemas are the enforced schemas, over every standard capability', () => {
  let host: AgentHost;
  let descriptors: CapabilityDescriptor[];
  beforeAll(async () => {
    const world = new SandboxWorld({ durations: { queuedMs: 1, downloadMs: 1, importMs: 1 } });
    host = createAgentHost({ storage: new MemoryStorage(), goalFacts: world });
    registerSandboxCapabilities(host, world, { poster: true });
    await host.start();
    descriptors = host.capabilities.list();
  });
  afterAll(async () => {
    await host.stop();
  });

  it('covers the 15 standard ids and the poster', () => {
    expect(descriptors.map((d) => d.id).sort()).toEqual([...STANDARD_CAPABILITY_IDS, 'media.poster'].sort());
  });

  it('lists each input schema deep-equal to the validated schema without TypeBox markers, valid 2020-12 for a strict client (modelcontextprotocol/typescript-sdk#2721)', () => {
    for (const d of descriptors) {
      const listed = mcpTool(d).inputSchema;
      expect(listed, d.id).toEqual(withoutMarkers(d.input));
      expect(keysStartingWithTilde(listed), d.id).toEqual([]);
      expect(() => ajv().compile(listed), d.id).not.toThrow();
    }
  });

  // mozilla-ai/mcpd#279 and hahwul/gori#1140: a listed schema without the `additionalProperties: false` the
  // server enforces makes clients send arguments the server then refuses.
  it('keeps additionalProperties: false where the validator refuses undeclared properties (mozilla-ai/mcpd#279, hahwul/gori#1140)', async () => {
    for (const d of descriptors) {
      expect((d.input as Schema).additionalProperties, d.id).toBe(false);
      expect(mcpTool(d).inputSchema.additionalProperties, d.id).toBe(false);
      expect(await refusedAsInvalid(host, d.id, { undeclared_by_the_listing: 1 }), d.id).toBe(true);
    }
  });

  it('property: inputs the listed schema allows are not refused INPUT_INVALID; inputs it forbids are', async () => {
    const a = ajv();
    for (const d of descriptors) {
      const listed = mcpTool(d).inputSchema;
      const valid = a.compile(listed);
      const seen = { valid: 0, invalid: 0 };
      await fc.assert(
        fc.asyncProperty(candidate(listed, listed), async (input) => {
          const allowed = valid(input);
          if (allowed) seen.valid++;
          else seen.invalid++;
          const refused = await refusedAsInvalid(host, d.id, input);
          if (refused === allowed)
            throw new Error(
              `${d.id}: Ajv says ${allowed ? 'valid' : 'invalid'} ${JSON.stringify(valid.errors)}, the invocation path ${refused ? 'refused' : 'accepted'} it`,
            );
        }),
        { numRuns: 60, seed: 20_260_601 + d.id.length },
      );
      // not vacuous: both sides of the property were exercised for every capability
      expect(seen.valid, `${d.id} valid samples`).toBeGreaterThan(0);
      expect(seen.invalid, `${d.id} invalid samples`).toBeGreaterThan(0);
    }
  }, 120_000);
});

// The official MCP conformance suite's `json-schema-2020-12` scenario: its tool's input schema, given to
// defineCapability as plain JSON Schema, is listed verbatim and really enforced (including `$ref` into `$defs`).
const CONFORMANCE_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
  },
  properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
  additionalProperties: false,
} as const;

describe('a capability defined with a plain JSON Schema 2020-12 input, over Streamable HTTP', () => {
  let host: AgentHost;
  let mcp: McpHttpHandler;
  let http: HttpServer;
  let client: Client;
  beforeAll(async () => {
    host = createAgentHost({ storage: new MemoryStorage() });
    host.capabilities.register(
      defineCapability({
        id: 'json_schema_2020_12_tool',
        version: 1,
        title: 'JSON Schema 2020-12 tool',
        description: 'Tool with JSON Schema 2020-12 features',
        kind: 'read',
        replay: 'safe',
        input: structuredClone(CONFORMANCE_SCHEMA) as unknown as Type.TSchema,
        output: Type.Object({ echoed: Type.Unknown() }),
        handler: async (input) => ({ echoed: input }),
      }),
    );
    await host.start();
    mcp = createMcpHttpHandler(host, { authenticate: () => 'apikey:schema-test' });
    http = createServer((req, res) => {
      if (req.url === '/mcp') void mcp.handle(req, res);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    client = new Client({ name: 'schema-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`)),
    );
  });
  afterAll(async () => {
    await client?.close();
    await mcp?.close();
    await new Promise((resolve) => http.close(resolve));
    await host.stop();
  });

  it('lists $schema, $defs and additionalProperties verbatim', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'json_schema_2020_12_tool');
    expect(tool?.inputSchema).toEqual(CONFORMANCE_SCHEMA);
  });

  it('enforces it: $ref into $defs and additionalProperties refuse what the listing forbids', async () => {
    const ok = await client.callTool({
      name: 'json_schema_2020_12_tool',
      arguments: { name: 'a', address: { street: 'Main', city: 'X' } },
    });
    expect(ok.isError).not.toBe(true);
    for (const args of [{ name: 'a', extra: 1 }, { name: 'a', address: { street: 42 } }, { name: 7 }]) {
      const refused = await client.callTool({ name: 'json_schema_2020_12_tool', arguments: args });
      expect(refused.isError, JSON.stringify(args)).toBe(true);
      expect((refused.structuredContent as { error?: { code: string } }).error?.code, JSON.stringify(args)).toBe(
        'INPUT_INVALID',
      );
    }
  });
});
