// The MCP server over real HTTP (node:http + the official SDK client / undici): tool results as MCP content
// (image, audio, embedded resource), progress and log notifications, protocol revisions. The Host/Origin checks
// are in server-http-guard.test.ts. Public reports turned into tests here:
// - modelcontextprotocol/typescript-sdk#866: with JSON responses, notifications related to a request
//   (progress) are dropped; a stateless server must stream a tool call to deliver them.
// - smithy-lang/smithy-java#1339 (and lightpanda-io/browser#3274): `initialize` with an unknown revision must
//   be answered with the server's latest supported revision.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CallToolResultSchema,
  LATEST_PROTOCOL_VERSION,
  LoggingMessageNotificationSchema,
  type Progress,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import Type from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentHost, createAgentHost, defineCapability } from '../../src/index';
import { createMcpServer } from '../../src/mcp';
import { MemoryStorage } from '../../src/storage';
import { initialize, post, type Serving, serve, stop } from './http-serving';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A WAV header (44 bytes, no samples). */
const WAV = Buffer.from('UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=', 'base64').toString('base64');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function makeHost(): Promise<AgentHost> {
  const host = createAgentHost({ storage: new MemoryStorage() });
  host.capabilities.register(
    defineCapability({
      id: 'probe.slow',
      version: 1,
      title: 'Slow',
      description: 'Reports progress and logs while it works.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({}),
      output: Type.Object({ done: Type.Boolean() }),
      handler: async (_input, ctx) => {
        ctx.logToCaller('info', 'Tool execution started');
        ctx.progress({ progress: 0, total: 100 });
        await sleep(30);
        ctx.logToCaller('debug', 'Tool processing data', { step: 2 });
        ctx.progress({ progress: 50, total: 100, message: 'half' });
        ctx.progress({ progress: 40, total: 100 }); // going back: dropped
        ctx.progress({ progress: Number.NaN }); // not a number: dropped
        await sleep(30);
        ctx.progress({ progress: 100, total: 100 });
        ctx.logToCaller('warn', 'Tool execution completed');
        return { done: true };
      },
    }),
  );
  host.capabilities.register(
    defineCapability({
      id: 'probe.media',
      version: 1,
      title: 'Media',
      description: 'Returns an image, an audio clip and an embedded resource.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({ broken: Type.Optional(Type.Boolean()) }),
      output: Type.Unknown(),
      handler: async (input) => ({
        title: 'Dune: Part Two',
        poster: { type: 'image', data: input.broken ? 'bm90IGFuIGltYWdl' : PNG, mediaType: 'image/png' },
        clips: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }],
        nfo: {
          type: 'resource',
          resource: { uri: 'media://dune-2/nfo', mimeType: 'application/json', text: '{"year":2024}' },
        },
      }),
    }),
  );
  await host.start({ workers: false });
  return host;
}

async function client(s: Serving): Promise<Client> {
  const c = new Client({ name: 'test', version: '1.0.0' });
  await c.connect(
    new StreamableHTTPClientTransport(s.url, { requestInit: { headers: { authorization: 'Bearer t' } } }),
  );
  return c;
}

let host: AgentHost;
beforeAll(async () => {
  host = await makeHost();
});
afterAll(async () => {
  await host.stop();
});

describe('tool results as MCP content, progress and logs over HTTP', () => {
  let s: Serving;
  let c: Client;
  beforeAll(async () => {
    s = await serve(host);
    c = await client(s);
  });
  afterAll(async () => {
    await c.close();
    await stop(s);
  });

  it('delivers growing progress to a client that sent a progress token (typescript-sdk#866)', async () => {
    const seen: Progress[] = [];
    const result = await c.request(
      { method: 'tools/call', params: { name: 'probe.slow', arguments: {}, _meta: { progressToken: 'p-1' } } },
      CallToolResultSchema,
      { onprogress: (p) => seen.push(p) },
    );
    expect(seen).toEqual([
      { progress: 0, total: 100 },
      { progress: 50, total: 100, message: 'half' },
      { progress: 100, total: 100 },
    ]);
    expect(result.structuredContent).toMatchObject({ status: 'succeeded', output: { done: true } });
  });

  it('sends the handler caller log as notifications/message, named by the capability', async () => {
    const logs: unknown[] = [];
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params);
    });
    await c.callTool({ name: 'probe.slow', arguments: {} });
    expect(logs).toEqual([
      { level: 'info', logger: 'probe.slow', data: 'Tool execution started' },
      { level: 'debug', logger: 'probe.slow', data: { message: 'Tool processing data', step: 2 } },
      { level: 'warning', logger: 'probe.slow', data: 'Tool execution completed' },
    ]);
  });

  it('answers a tools/call as an SSE stream and everything else as JSON', async () => {
    const call = await post(
      s,
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'probe.slow', arguments: {}, _meta: { progressToken: 9 } },
      },
      { 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
    );
    expect(call.status).toBe(200);
    expect(call.type).toMatch(/^text\/event-stream/);
    const events = call.text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    expect(events.map((e) => e.method ?? `result:${e.id}`)).toEqual([
      'notifications/message',
      'notifications/progress',
      'notifications/message',
      'notifications/progress',
      'notifications/progress',
      'notifications/message',
      'result:7',
    ]);
    const list = await post(
      s,
      { jsonrpc: '2.0', id: 8, method: 'tools/list' },
      { 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
    );
    expect(list.type).toMatch(/^application\/json/);
    expect(JSON.parse(list.text).result.tools.map((t: { name: string }) => t.name)).toContain('probe.media');
  });

  it('turns image, audio and resource parts into content blocks; structuredContent names them by index', async () => {
    const result = await c.callTool({ name: 'probe.media', arguments: {} });
    const content = result.content as Array<Record<string, unknown>>;
    expect(content.map((b) => b.type)).toEqual(['text', 'image', 'audio', 'resource']);
    expect(content[1]).toEqual({ type: 'image', data: PNG, mimeType: 'image/png' });
    expect(content[2]).toEqual({ type: 'audio', data: WAV, mimeType: 'audio/wav' });
    expect(content[3]).toEqual({
      type: 'resource',
      resource: { uri: 'media://dune-2/nfo', mimeType: 'application/json', text: '{"year":2024}' },
    });
    expect(result.structuredContent).toMatchObject({
      status: 'succeeded',
      output: {
        title: 'Dune: Part Two',
        poster: { type: 'image', content_index: 1, mimeType: 'image/png' },
        clips: [{ type: 'audio', content_index: 2, mimeType: 'audio/wav' }],
        nfo: { type: 'resource', content_index: 3, uri: 'media://dune-2/nfo' },
      },
    });
    // the text block is the structured result, without the bytes (the MCP spec's backwards-compatibility rule;
    // camunda/camunda#46949: clients that read only text saw nothing when it was missing)
    expect(JSON.parse((content[0] as { text: string }).text)).toEqual(result.structuredContent);
    expect((content[0] as { text: string }).text).not.toContain(PNG);
  });

  it('an image part that is not an image stays out of the content, its refusal in the output', async () => {
    const result = await c.callTool({ name: 'probe.media', arguments: { broken: true } });
    expect((result.content as Array<{ type: string }>).map((b) => b.type)).toEqual(['text', 'audio', 'resource']);
    const poster = (result.structuredContent as { output: { poster: { error: string } } }).output.poster;
    expect(poster.error).toMatch(/^IMAGE_INVALID/);
    expect(
      (result.structuredContent as { output: { clips: Array<{ content_index: number }> } }).output.clips[0]!
        .content_index,
    ).toBe(1);
  });
});

describe('logging/setLevel on a connection that lasts (stdio-like)', () => {
  it('drops caller log messages below the level the client set', async () => {
    const server = createMcpServer(host, { authenticate: () => 'apikey:client' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const c = new Client({ name: 'mem', version: '1' });
    await c.connect(b);
    const logs: string[] = [];
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params.level);
    });
    expect(await c.setLoggingLevel('warning')).toEqual({});
    await c.callTool({ name: 'probe.slow', arguments: {} });
    await sleep(20);
    expect(logs).toEqual(['warning']);
    await c.close();
    await server.close();
  });
});

describe('protocol revisions are the installed MCP SDK’s', () => {
  let s: Serving;
  beforeAll(async () => {
    s = await serve(host);
  });
  afterAll(() => stop(s));

  it('echoes each supported revision at initialize and answers an unknown one with the latest (smithy-java#1339)', async () => {
    for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
      const r = await post(s, initialize(version));
      expect(JSON.parse(r.text).result.protocolVersion).toBe(version);
    }
    const future = await post(s, initialize('2999-01-01'));
    expect(future.status).toBe(200);
    expect(JSON.parse(future.text).result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
  });

  it('answers an unsupported MCP-Protocol-Version header with 400, a supported one normally', async () => {
    const ping = { jsonrpc: '2.0', id: 3, method: 'ping' };
    const bad = await post(s, ping, { 'mcp-protocol-version': '1999-01-01' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Unsupported protocol version');
    for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
      const ok = await post(s, ping, { 'mcp-protocol-version': version });
      expect(ok.status, version).toBe(200);
      expect(JSON.parse(ok.text)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    }
  });

  it('the README names the installed SDK version and exactly its supported revisions', () => {
    const readme = readFileSync(`${root}examples/mcp-server/README.md`, 'utf8');
    const sdk = JSON.parse(readFileSync(`${root}node_modules/@modelcontextprotocol/sdk/package.json`, 'utf8')) as {
      version: string;
    };
    const section = readme.slice(readme.indexOf('## Protocol revisions'));
    expect(section).toContain(`\`@modelcontextprotocol/sdk\` ${sdk.version}`);
    const listed = [...section.split('\n## ')[0]!.matchAll(/`(\d{4}-\d{2}-\d{2})`/g)].map((m) => m[1]);
    expect(new Set(listed)).toEqual(new Set(SUPPORTED_PROTOCOL_VERSIONS));
    expect(section).toContain(`latest, \`${LATEST_PROTOCOL_VERSION}\``);
  });
});
