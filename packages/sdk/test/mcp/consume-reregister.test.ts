// Re-registering a consumed MCP server accepts its changed tools: the capability of a changed tool is replaced by the
// new definition (input schema, title, description) under a higher version. Real servers: the official SDK's Server
// over StreamableHTTPServerTransport on node:http at 127.0.0.1 (fixtures/drift-mcp-server.ts), consumed with the
// official StreamableHTTPClientTransport.
//
// Public reports reproduced here:
// - openai/codex#19155 "Stale MCP Tool Schema After Server Restart": a tool's required input changed (`duration` →
//   `lookback`), the server restarted; the client kept the old schema and sent the old arguments. Before: the
//   re-registration that should accept the new schema failed MCP_TOOL_CHANGED (the registry kept the schema
//   registered first), so `{ release }` could never be sent. After: the new schema is listed and enforced — the
//   new input runs on the server, the old one is INPUT_INVALID before anything is sent.
// - anthropics/claude-ai-mcp#811 "tool state diverges ... the cached schema does not show the new parameter": a tool
//   gained an optional parameter; the model-facing schema and description stayed the old ones. Before: after a
//   re-registration the capability kept its first description (what the model reads) and version 1, so a call recorded
//   under the old definition was replayed for the new one. After: title, description and model schema are the
//   server's new ones, version 2, and the same arguments in the same task run on the server again (a new ledger key).
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Type } from 'typebox';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  canReplaceCapabilities,
  DefaultCapabilityRegistry,
  replaceCapability,
} from '../../src/capabilities/capability-registry';
import { ConsoleLogger, createAgentHost, defineCapability } from '../../src/index';
import { registerMcpServer } from '../../src/mcp';
import { MemoryStorage } from '../../src/storage';
import { closeDriftResources, driftSetup, hosts, servers, transports } from './drift-harness';
import { startDriftMcpServer } from './fixtures/drift-mcp-server';

afterEach(closeDriftResources);

async function setup() {
  const { server, host, changes, register, announce } = await driftSetup();
  server.tools.push({ name: 'slow', description: 'Takes a while.', inputSchema: { type: 'object', properties: {} } });
  await register();
  const invoke = (tool: string, input: Record<string, unknown>, extra: { taskId?: string } = {}) =>
    host.invoke(`mcp.idx.${tool}`, input, { actor: 'user:admin', ...extra });
  return { server, host, invoke, changes, register, announce };
}

describe('re-registering a consumed MCP server accepts changed tools', () => {
  it('openai/codex#19155: a server restarted with a new required input — the re-registration lists and enforces the new schema, the old input is INPUT_INVALID', async () => {
    const { server, host, invoke, register } = await setup();
    expect(await invoke('grab', { id: 'dune' })).toMatchObject({ status: 'succeeded' });
    server.tools[1]!.inputSchema = {
      type: 'object',
      properties: { release: { type: 'string' } },
      required: ['release'],
      additionalProperties: false,
    };
    await server.restart();
    expect((await invoke('grab', { id: 'dune-2' })).error).toMatchObject({ code: 'MCP_TOOL_CHANGED' });
    expect(server.stats.runs.grab).toBe(1);

    const registered = await register();
    expect(registered.find((t) => t.tool === 'grab')).toMatchObject({ kind: 'execute' });
    const grab = host.capabilities.get('mcp.idx.grab');
    expect(grab.version).toBe(2);
    expect(grab.modelInputSchema).toMatchObject({ properties: { release: { type: 'string' } }, required: ['release'] });
    expect(JSON.stringify(grab.modelInputSchema)).not.toContain('"id"');

    // Valid only under the new schema: runs on the server.
    expect(await invoke('grab', { release: 'dune-3' })).toMatchObject({ status: 'succeeded' });
    expect(server.stats.runs.grab).toBe(2);
    // Valid only under the old schema: refused before anything is sent.
    await expect(invoke('grab', { id: 'dune-4' })).rejects.toMatchObject({ code: 'INPUT_INVALID' });
    expect(server.stats.runs.grab).toBe(2);
    // The unchanged tools keep their version.
    expect(host.capabilities.get('mcp.idx.search').version).toBe(1);
  });

  it('anthropics/claude-ai-mcp#811: a new optional parameter and new words — title, description and model schema are the new ones, version 2, and a call recorded under version 1 is not replayed', async () => {
    const { server, host, invoke, register, announce, changes } = await setup();
    const first = await invoke('grab', { id: 'dune' }, { taskId: 'task-1' });
    expect(first).toMatchObject({
      status: 'succeeded',
      idempotencyKey: expect.stringMatching(/^mcp\.idx\.grab:v1:task-1:/),
    });
    // The same arguments in the same task: the recorded call is returned, nothing sent.
    expect(await invoke('grab', { id: 'dune' }, { taskId: 'task-1' })).toMatchObject({ replayed: true });
    expect(server.stats.runs.grab).toBe(1);

    Object.assign(server.tools[1]!, {
      title: 'Grab a release',
      description: 'Send a release to the downloader, optionally first in its queue.',
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'string' }, priority: { type: 'boolean' } },
        required: ['id'],
      },
    });
    await announce();
    await vi.waitFor(() => expect(changes).toHaveLength(1), { timeout: 30_000 });
    expect(changes[0]).toMatchObject({ change: 'changed', tool: 'grab' });
    expect(changes[0]!.fields.sort()).toEqual(['description', 'inputSchema', 'title']);
    await vi.waitFor(async () => expect(await host.decisions({ kind: 'mcp_tool_changed' })).toHaveLength(1), {
      timeout: 30_000,
    });

    await register();
    const grab = host.capabilities.get('mcp.idx.grab');
    expect(grab).toMatchObject({
      version: 2,
      kind: 'execute',
      replay: 'never',
      title: 'Grab a release',
      description: 'Send a release to the downloader, optionally first in its queue.\n\n(MCP tool grab of server idx)',
    });
    expect(grab.modelInputSchema).toMatchObject({ properties: { priority: { type: 'boolean' } } });
    expect(host.capabilities.search('downloader queue')[0]?.capability.id).toBe('mcp.idx.grab');

    // The same arguments in the same task under the new definition: a new key, the call runs on the server.
    const again = await invoke('grab', { id: 'dune' }, { taskId: 'task-1' });
    expect(again).toMatchObject({
      status: 'succeeded',
      idempotencyKey: expect.stringMatching(/^mcp\.idx\.grab:v2:task-1:/),
    });
    expect(again.replayed).not.toBe(true);
    expect(server.stats.runs.grab).toBe(2);
    expect(await invoke('grab', { id: 'dune', priority: true })).toMatchObject({ status: 'succeeded' });

    // The re-registration carries no administrator identity: the decision stays open for the administrator.
    expect(await host.decisions({ kind: 'mcp_tool_changed' })).toMatchObject([{ status: 'open' }]);

    // Unchanged since: a further re-registration keeps version 2.
    await register();
    expect(host.capabilities.get('mcp.idx.grab').version).toBe(2);
  });

  it('a description-only change: the re-registration gives the model the new words under version 2, and the same call in the same task is sent again, not replayed', async () => {
    const { server, host, invoke, register } = await setup();
    expect(await invoke('grab', { id: 'dune' }, { taskId: 'task-2' })).toMatchObject({ status: 'succeeded' });
    server.tools[1]!.description = 'Send a release to the downloader (it now also notifies the household).';
    await register();
    expect(host.capabilities.get('mcp.idx.grab')).toMatchObject({
      version: 2,
      description: expect.stringContaining('notifies the household'),
    });
    const again = await invoke('grab', { id: 'dune' }, { taskId: 'task-2' });
    expect(again.replayed).not.toBe(true);
    expect(server.stats.runs.grab).toBe(2);
  });

  it('a call in flight during the re-registration finishes on the old definition; later calls are validated against the new one', async () => {
    const { server, host, invoke, register } = await setup();
    let open!: () => void;
    server.gate = new Promise<void>((r) => (open = r));
    const running = invoke('slow', {});
    await vi.waitFor(() => expect(server.stats.runs.slow).toBe(1), { timeout: 30_000 });
    server.tools[2]!.inputSchema = {
      type: 'object',
      properties: { minutes: { type: 'number' } },
      required: ['minutes'],
    };
    await register();
    expect(host.capabilities.get('mcp.idx.slow').version).toBe(2);
    open();
    expect(await running).toMatchObject({
      status: 'succeeded',
      idempotencyKey: expect.stringMatching(/^mcp\.idx\.slow:v1:/),
    });
    server.gate = undefined;
    await expect(invoke('slow', {})).rejects.toMatchObject({ code: 'INPUT_INVALID' });
    expect(await invoke('slow', { minutes: 1 })).toMatchObject({ status: 'succeeded' });
    expect(server.stats.runs.slow).toBe(2);
  });

  it("a host's read-only tool keeps kind read and replay safe when its schema changes; its read-only status still cannot change", async () => {
    const { server, host, invoke, register } = await setup();
    server.tools[0]!.inputSchema = {
      type: 'object',
      properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
      required: ['query', 'limit'],
    };
    await register();
    expect(host.capabilities.get('mcp.idx.search')).toMatchObject({ version: 2, kind: 'read', replay: 'safe' });
    expect(await invoke('search', { query: 'x', limit: 3 })).toMatchObject({ status: 'succeeded' });
    await expect(invoke('search', { query: 'x' })).rejects.toMatchObject({ code: 'INPUT_INVALID' });

    const transport = new StreamableHTTPClientTransport(server.url);
    transports.push(transport);
    await expect(registerMcpServer(host, { name: 'idx', transport, readOnlyTools: [] })).rejects.toMatchObject({
      code: 'MCP_OPTIONS_INVALID',
    });
    expect(host.capabilities.get('mcp.idx.search').version).toBe(2);
  });
});

describe('replacing a capability (the registry)', () => {
  const registry = () => {
    const host = createAgentHost({ storage: new MemoryStorage(), logger: new ConsoleLogger('silent') });
    hosts.push(host);
    return host.capabilities;
  };
  const cap = (version: number, kind: 'read' | 'execute' = 'execute', id = 'demo.thing') =>
    defineCapability({
      id,
      version,
      title: `Thing v${version}`,
      description: 'A thing.',
      kind,
      replay: kind === 'read' ? 'safe' : 'never',
      input: Type.Object({ n: Type.Number() }),
      output: Type.Object({ v: Type.Number() }),
      handler: async () => ({ v: version }),
    });

  it('accepts the same id and kind under a higher version only', () => {
    const r = registry();
    expect(r).toBeInstanceOf(DefaultCapabilityRegistry);
    expect(canReplaceCapabilities(r)).toBe(true);
    r.register(cap(1));
    expect(() => replaceCapability(r, cap(1))).toThrow(
      expect.objectContaining({ code: 'CAPABILITY_DEFINITION_INVALID' }),
    );
    expect(() => replaceCapability(r, cap(2, 'read'))).toThrow(/keeps kind and replay/);
    expect(() => replaceCapability(r, cap(2, 'execute', 'demo.other'))).toThrow(
      expect.objectContaining({ code: 'CAPABILITY_NOT_FOUND' }),
    );
    expect(r.get('demo.thing').version).toBe(1);
    replaceCapability(r, cap(3));
    expect(r.get('demo.thing')).toMatchObject({ version: 3, title: 'Thing v3' });
    expect(r.list().filter((d) => d.id === 'demo.thing')).toHaveLength(1);
  });

  it('a registry of another class cannot replace: an input schema change of its MCP tool is refused as before', async () => {
    const r = registry();
    // A registry of the host's own making that delegates to the default one.
    const wrapper: typeof r = {
      register: (c) => r.register(c),
      registerVerifier: (id, v) => r.registerVerifier(id, v),
      get: (id) => r.get(id),
      definition: (id) => r.definition(id),
      dryRun: (id, input, ctx) => r.dryRun(id, input, ctx),
      has: (id) => r.has(id),
      list: (f) => r.list(f),
      search: (q, l) => r.search(q, l),
      invoke: ((id: string, input: unknown, ctx: never) => r.invoke(id, input, ctx)) as typeof r.invoke,
      readBack: (id, input, entry, ctx) => r.readBack(id, input, entry, ctx),
      events: r.events,
    };
    expect(canReplaceCapabilities(wrapper)).toBe(false);
    expect(() => replaceCapability(wrapper, cap(2))).toThrow(/cannot replace/);

    const server = await startDriftMcpServer();
    servers.push(server);
    const register = () => {
      const transport = new StreamableHTTPClientTransport(server.url);
      transports.push(transport);
      return registerMcpServer(wrapper, { name: 'own', transport });
    };
    await register();
    server.tools[1]!.inputSchema = { type: 'object', properties: { release: { type: 'string' } } };
    await expect(register()).rejects.toMatchObject({
      code: 'MCP_TOOL_CHANGED',
      details: { tool: 'grab', reason: 'input-schema' },
    });
    expect(r.get('mcp.own.grab').version).toBe(1);
  });
});
