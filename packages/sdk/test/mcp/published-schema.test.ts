// The input schema a capability is listed with over MCP (`tools/list`) is exactly the schema the invocation
// path validates: checked over every standard capability the SDK ships (the sandbox world's, with the poster)
// by deep equality and, property-based, against an independent JSON Schema 2020-12 validator (Ajv 2020):
// what the listed schema allows is never refused INPUT_INVALID, what it forbids always is.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fc from 'fast-check';
import Type from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentHost, defineCapability, type AgentHost, type CapabilityDescriptor } from '../../src/index';
import { STANDARD_CAPABILITY_IDS } from '../../src/media';
import { createMcpHttpHandler, type McpHttpHandler } from '../../src/mcp';
import { mcpTool } from '../../src/mcp/published-tools';
import { MemoryStorage } from '../../src/storage';
import { registerSandboxCapabilities, SANDBOX_UNDO_CAPABILITY_IDS, SandboxWorld } from '../../src/testing';
import { ajv, candidate, keysStartingWithTilde, type Schema, withoutMarkers } from './published-schema-arbitrary';

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

  it('covers the 15 standard ids, the sandbox inverses and the poster', () => {
    expect(descriptors.map((d) => d.id).sort()).toEqual(
      [...STANDARD_CAPABILITY_IDS, ...SANDBOX_UNDO_CAPABILITY_IDS, 'media.poster'].sort(),
    );
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
