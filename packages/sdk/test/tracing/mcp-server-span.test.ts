// The server span of an MCP tools/call (McpServerSpans, packages/sdk/src/mcp/server-span.ts) on a real MCP
// SDK server over Streamable HTTP (node:http), called by the SDK's client: attributes by the MCP semantic
// conventions, parented from params._meta (traceparent, tracestate) and from the HTTP headers.
import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, defineCapability, type AgentHost } from '../../src/index';
import { McpServerSpans } from '../../src/mcp/server-span';
import { MemoryStorage } from '../../src/storage';
import { memoryTracing, violations } from './span-harness';

const META_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const META_PARENT = '00f067aa0ba902b7';
const HTTP_TRACE = '0af7651916cd43dd8448eb211c80319c';
const HTTP_PARENT = 'b7ad6b7169203331';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => undefined);
});

/** A host with two capabilities, served as MCP tools over Streamable HTTP with sessions; each call in a server span. */
async function serve() {
  const { exporter, options } = memoryTracing(true);
  const host: AgentHost = createAgentHost({ storage: new MemoryStorage(), logger: new ConsoleLogger('silent') });
  host.capabilities.register(
    defineCapability({
      id: 'library.count',
      version: 1,
      title: 'Count the library',
      description: 'How many titles the library holds.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({ kind: Type.String() }),
      output: Type.Object({ count: Type.Number() }),
      handler: async () => ({ count: 42 }),
    }),
  );
  host.capabilities.register(
    defineCapability({
      id: 'library.broken',
      version: 1,
      title: 'Always fails',
      description: 'Fails.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({}),
      output: Type.Object({}),
      handler: async () => {
        throw new Error('disk unreadable');
      },
    }),
  );
  await host.start();
  cleanup.push(() => host.stop());
  const spans = new McpServerSpans(options);
  const transports = new Map<string, StreamableHTTPServerTransport>();

  const mcpServer = () => {
    const server = new Server({ name: 'otel-test', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: host.capabilities.list().map((d) => ({ name: d.id, inputSchema: { type: 'object' as const } })),
    }));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      const descriptor = host.capabilities.get(request.params.name);
      return spans
        .run(
          request,
          extra,
          { descriptor },
          async () => {
            const result = await host.invoke(descriptor.id, request.params.arguments ?? {}, { actor: 'user:admin' });
            const answer: CallToolResult =
              result.status === 'succeeded'
                ? { content: [{ type: 'text', text: JSON.stringify(result.output) }] }
                : { content: [{ type: 'text', text: result.error?.message ?? result.status }], isError: true };
            return { answer, result };
          },
          ({ answer, result }) => ({
            status: result.status,
            error: result.error,
            invocationId: result.invocationId,
            isError: answer.isError,
          }),
        )
        .then((r) => r.answer);
    });
    return server;
  };

  const http: HttpServer = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? transports.get(id) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void transports.set(sid, transport!),
      });
      await mcpServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise((resolve) => http.close(resolve)));
  cleanup.push(async () => {
    for (const t of transports.values()) await t.close();
  });
  const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
  const connect = async (headers: Record<string, string> = {}) => {
    const client = new Client({ name: 'otel-client', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
    await client.connect(transport);
    cleanup.push(() => client.close());
    return { client, sessionId: transport.sessionId!, protocolVersion: transport.protocolVersion };
  };
  return { exporter, connect };
}

describe('MCP tools/call server span', () => {
  // mastra-ai/mastra#23922: an MCP server that never reads `traceparent` from `params._meta` starts a new
  // root trace for every call (the caller's execute_tool and the server's span end up in two traces).
  it('mastra#23922: the span is a SERVER span named "tools/call {tool}", a child of the _meta trace context (tracestate kept), with the MCP attributes', async () => {
    const { exporter, connect } = await serve();
    const { client, sessionId, protocolVersion } = await connect();
    const result = await client.callTool({
      name: 'library.count',
      arguments: { kind: 'movie' },
      _meta: {
        traceparent: `00-${META_TRACE}-${META_PARENT}-01`,
        tracestate: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE',
      },
    });
    expect(result.isError).toBeFalsy();
    const [span] = exporter.getFinishedSpans();
    expect(span!.name).toBe('tools/call library.count');
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.spanContext().traceId).toBe(META_TRACE);
    expect(span!.parentSpanContext?.spanId).toBe(META_PARENT);
    expect(span!.spanContext().traceState?.get('congo')).toBe('t61rcWkgMzE');
    expect(span!.attributes).toMatchObject({
      [incubating.ATTR_MCP_METHOD_NAME]: incubating.MCP_METHOD_NAME_VALUE_TOOLS_CALL,
      [incubating.ATTR_JSONRPC_REQUEST_ID]: expect.any(String),
      [incubating.ATTR_MCP_SESSION_ID]: sessionId,
      [incubating.ATTR_MCP_PROTOCOL_VERSION]: protocolVersion,
      [incubating.ATTR_GEN_AI_TOOL_NAME]: 'library.count',
      [incubating.ATTR_GEN_AI_OPERATION_NAME]: incubating.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
      [incubating.ATTR_GEN_AI_TOOL_DESCRIPTION]: 'How many titles the library holds.',
      [incubating.ATTR_NETWORK_TRANSPORT]: incubating.NETWORK_TRANSPORT_VALUE_TCP,
      'media_agent.invocation.status': 'succeeded',
    });
    expect(typeof protocolVersion).toBe('string');
    expect(span!.attributes['gen_ai.tool.call.arguments']).toBe('{"kind":"movie"}');
    expect(span!.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(violations([span!])).toEqual([]);
  });

  // envoyproxy/ai-gateway#2487: a client that propagates only at the HTTP layer (traceparent header on the POST)
  // must not have its trace broken; when _meta carries a context too, _meta wins.
  it('ai-gateway#2487: HTTP traceparent parents the span when _meta has none; with both, _meta wins and the HTTP context is a link', async () => {
    const { exporter, connect } = await serve();
    const { client } = await connect({ traceparent: `00-${HTTP_TRACE}-${HTTP_PARENT}-01` });
    await client.callTool({ name: 'library.count', arguments: { kind: 'movie' } });
    await client.callTool({
      name: 'library.count',
      arguments: { kind: 'series' },
      _meta: { traceparent: `00-${META_TRACE}-${META_PARENT}-01` },
    });
    const [viaHttp, viaMeta] = exporter.getFinishedSpans();
    expect(viaHttp!.spanContext().traceId).toBe(HTTP_TRACE);
    expect(viaHttp!.parentSpanContext?.spanId).toBe(HTTP_PARENT);
    expect(viaHttp!.links).toEqual([]);
    expect(viaMeta!.spanContext().traceId).toBe(META_TRACE);
    expect(viaMeta!.parentSpanContext?.spanId).toBe(META_PARENT);
    expect(viaMeta!.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([[HTTP_TRACE, HTTP_PARENT]]);
  });

  it('a failed call: error.type is the invocation’s error code, the status ERROR; a malformed _meta traceparent is ignored (new root)', async () => {
    const { exporter, connect } = await serve();
    const { client } = await connect();
    const result = await client.callTool({
      name: 'library.broken',
      arguments: {},
      _meta: { traceparent: '00-zz-yy-01' },
    });
    expect(result.isError).toBe(true);
    const [span] = exporter.getFinishedSpans();
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.status.code).toBe(SpanStatusCode.ERROR);
    expect(span!.attributes['error.type']).toEqual(expect.stringMatching(/^[A-Z_]+$/));
    expect(violations([span!])).toEqual([]);
  });

  it('without HTTP (stdio): network.transport pipe; a result marked isError without a code is error.type tool_error', () => {
    const { exporter, options } = memoryTracing();
    const spans = new McpServerSpans(options);
    const scope = spans.start(
      { params: { name: 'library.count', arguments: {} } },
      { requestId: 7 },
      { protocolVersion: '2025-11-25' },
    );
    spans.end(scope, { status: 'failed', isError: true });
    const [span] = exporter.getFinishedSpans();
    expect(span!.attributes).toMatchObject({
      'network.transport': 'pipe',
      'jsonrpc.request.id': '7',
      'mcp.protocol.version': '2025-11-25',
      'error.type': 'tool_error',
    });
    expect(span!.attributes['mcp.session.id']).toBeUndefined();
    expect(violations([span!])).toEqual([]);
  });
});
