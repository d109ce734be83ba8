// The server span's `mcp.protocol.version` on a connection without HTTP headers (stdio-like): the revision
// negotiated at `initialize`, by the SDK's own rule.
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentHost, defineCapability, type AgentHost } from '../../src/index';
import { createMcpServer } from '../../src/mcp';
import { MemoryStorage } from '../../src/storage';

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
let host: AgentHost | undefined;

afterEach(async () => {
  await host?.stop();
  exporter.reset();
});

async function callOver(requested: string): Promise<Record<string, unknown>> {
  host = createAgentHost({ storage: new MemoryStorage() });
  await host.start();
  host.capabilities.register(
    defineCapability({
      id: 'probe.echo',
      version: 1,
      title: 'Echo',
      description: 'Echoes its text.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({ text: Type.String() }),
      output: Type.Object({ text: Type.String() }),
      handler: async ({ text }) => ({ text }),
    }),
  );
  const server = createMcpServer(host, { authenticate: () => 'apikey:probe', tracing: { tracer } });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  // A client asking for `requested` (the SDK's client always asks for its latest): raw JSON-RPC on one connection.
  const answers = new Map<number, (message: unknown) => void>();
  clientSide.onmessage = (message) => {
    const id = (message as { id?: number }).id;
    if (id !== undefined) answers.get(id)?.(message);
  };
  await clientSide.start();
  const ask = (id: number, method: string, params: unknown) =>
    new Promise<unknown>((resolve) => {
      answers.set(id, resolve);
      void clientSide.send({ jsonrpc: '2.0', id, method, params } as never);
    });
  const init = (await ask(1, 'initialize', {
    protocolVersion: requested,
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  })) as { result: { protocolVersion: string } };
  await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await ask(2, 'tools/call', { name: 'probe.echo', arguments: { text: 'x' } });
  await clientSide.close();
  const span = exporter.getFinishedSpans().find((s) => s.name === 'tools/call probe.echo')!;
  expect(span.kind).toBe(SpanKind.SERVER);
  return { answered: init.result.protocolVersion, ...span.attributes };
}

describe('mcp.protocol.version on a connection without HTTP headers', () => {
  it('an unsupported revision asked for is recorded as the latest the server answered', async () => {
    const attributes = await callOver('1999-01-01');
    expect(attributes.answered).toBe(LATEST_PROTOCOL_VERSION);
    expect(attributes['mcp.protocol.version']).toBe(LATEST_PROTOCOL_VERSION);
  });

  it('the span of a tools/call records the revision the connection negotiated and network.transport pipe', async () => {
    const older = SUPPORTED_PROTOCOL_VERSIONS.find((v) => v !== LATEST_PROTOCOL_VERSION)!;
    const attributes = await callOver(older);
    expect(attributes.answered).toBe(older);
    expect(attributes['mcp.protocol.version']).toBe(older);
    expect(attributes['network.transport']).toBe('pipe');
    expect(attributes['jsonrpc.request.id']).toBeDefined();
  });
});
