// the MCP `tools/call` SERVER span served by createMcpHttpHandler (real node:http, raw requests).
// 1. docs/architecture.md#traces "A malformed traceparent is ignored" and W3C Trace Context §3.2.2.3 (trace-id and
//    parent-id are lowercase hex; "If the trace-id value is invalid … vendors MUST ignore the traceparent"): an
//    uppercase traceparent in params._meta is accepted as the parent (OpenTelemetry's W3C propagator ignores it).
// 2. MCP 2025-06-18 basic/transports "Protocol Version Header": "If the server does not receive an
//    MCP-Protocol-Version header … the server SHOULD assume protocol version 2025-03-26". A tools/call without the
//    header gets no mcp.protocol.version at all on its span.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Type from 'typebox';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, defineCapability, type AgentHost } from '../../src/index';
import { createMcpHttpHandler, type McpHttpHandler } from '../../src/mcp';
import { MemoryStorage } from '../../src/storage';
import { memoryTracing } from './span-harness';

const { exporter, options } = memoryTracing(false);
let host: AgentHost;
let mcp: McpHttpHandler;
let http: HttpServer;
let port: number;
beforeAll(async () => {
  host = createAgentHost({ storage: new MemoryStorage(), logger: new ConsoleLogger('silent') });
  host.capabilities.register(
    defineCapability({
      id: 'library.count',
      version: 1,
      title: 'Count',
      description: 'How many titles.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({}),
      output: Type.Object({ count: Type.Number() }),
      handler: async () => ({ count: 42 }),
    }),
  );
  await host.start({ workers: false });
  mcp = createMcpHttpHandler(host, { authenticate: () => 'user:admin', tracing: options });
  http = createServer((req, res) => void mcp.handle(req, res));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  port = (http.address() as AddressInfo).port;
});
afterAll(async () => {
  await mcp.close();
  await new Promise((r) => http.close(r));
  await host.stop();
});

async function call(id: number, meta: Record<string, unknown>, headers: Record<string, string>) {
  const r = await request(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'library.count', arguments: {}, _meta: meta },
    }),
  });
  expect(r.statusCode).toBe(200);
  await r.body.text();
  const span = exporter.getFinishedSpans().find((s) => s.attributes['jsonrpc.request.id'] === String(id));
  expect(span?.name).toBe('tools/call library.count');
  return span!;
}

it('an uppercase (invalid W3C) traceparent in params._meta is ignored, as a malformed one is', async () => {
  const span = await call(
    101,
    { traceparent: '00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01' },
    { 'mcp-protocol-version': '2025-06-18' },
  );
  // got: trace 4bf92f3577b34da6a3ce929d0e0e4736, parent 00f067aa0ba902b7 (the invalid header was lower-cased and used)
  expect(span.spanContext().traceId).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  expect(span.parentSpanContext?.spanId).toBeUndefined();
});

it('a tools/call without MCP-Protocol-Version records the revision the spec says to assume (2025-03-26)', async () => {
  const span = await call(102, {}, {});
  // got: no mcp.protocol.version attribute
  expect(span.attributes['mcp.protocol.version']).toBe('2025-03-26');
});

it('an uppercase traceparent HTTP header is ignored too; a valid lowercase one is the parent (PostHog/posthog-js#4776)', async () => {
  const bad = await call(
    103,
    {},
    { 'mcp-protocol-version': '2025-06-18', traceparent: '00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01' },
  );
  expect(bad.parentSpanContext?.spanId).toBeUndefined();
  const good = await call(
    104,
    {},
    { 'mcp-protocol-version': '2025-06-18', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
  );
  expect(good.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  expect(good.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
  // The header, when sent, is what is recorded.
  expect(good.attributes['mcp.protocol.version']).toBe('2025-06-18');
});
