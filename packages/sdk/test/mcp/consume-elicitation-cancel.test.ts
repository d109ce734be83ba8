// Elicitation that is no longer wanted: the host's onElicitation handler may never return (a person who walked
// away). The form must be given up when the tool call ends (cancelled by its caller, or timed out after the
// registration's callTimeoutMs) or when the server cancels its own `elicitation/create` (notifications/cancelled).
// Real servers: the official SDK's low-level Server over StreamableHTTPServerTransport on node:http at 127.0.0.1
// (the drift fixture, and a small server here whose tool cancels its own elicitation), consumed by registerMcpServer
// with the official StreamableHTTPClientTransport.
//
// Public reports reproduced here:
// - anthropics/claude-code#46340 "MCP elicitation queue leaks on abort": an elicitation aborted while its prompt
//   was pending stays pending for ever. Before: the handler's promise was awaited without a bound, the server's
//   elicitInput never got an answer and the tool call hung until its timeout. After: the call's abort answers
//   `cancel` at once and the handler's signal fires.
// - openai/codex#40390 "does not dismiss server-originated MCP elicitation after notifications/cancelled". Before:
//   the request's own signal was ignored, the handler's signal never fired. After: it fires with the server's
//   cancellation and the tool's result arrives.
// The own-property checks of an answer (a field named `toString` or `constructor` is not answered by Object's
// prototype) are tested on the exported checks.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConsoleLogger, createAgentHost } from '../../src/index';
import { registerMcpServer, type McpElicitationContext } from '../../src/mcp';
import { elicitationProblems, withElicitationDefaults } from '../../src/mcp/elicitation';
import { MemoryStorage } from '../../src/storage';
import { BASE_TOOLS, startDriftMcpServer } from './fixtures/drift-mcp-server';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

const FORM = {
  message: 'Which quality?',
  requestedSchema: { type: 'object', properties: { quality: { type: 'string', enum: ['720p', '1080p'] } } },
};

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

/** A handler that never answers; it records each context it was given. */
function neverAnswers() {
  const contexts: McpElicitationContext[] = [];
  return {
    contexts,
    handler: (_request: unknown, context: McpElicitationContext) => {
      contexts.push(context);
      return new Promise<never>(() => {});
    },
  };
}

async function driftSetup(callTimeoutMs?: number) {
  const server = await startDriftMcpServer([
    ...structuredClone([...BASE_TOOLS]),
    { name: 'ask_quality', description: 'Asks for a quality.', inputSchema: { type: 'object', properties: {} } },
  ]);
  server.forms.ask_quality = FORM;
  cleanups.push(() => server.stop());
  const host = createAgentHost({ storage: new MemoryStorage(), logger: new ConsoleLogger('silent') });
  await host.start();
  cleanups.push(() => host.stop());
  const never = neverAnswers();
  const transport = new StreamableHTTPClientTransport(server.url);
  cleanups.push(() => transport.close());
  await registerMcpServer(host, {
    name: 'idx',
    transport,
    readOnlyTools: ['search', 'ask_quality'],
    onElicitation: never.handler,
    ...(callTimeoutMs ? { callTimeoutMs } : {}),
  });
  return { server, host, never };
}

describe('consumed MCP servers: an elicitation no longer wanted is given up', () => {
  it('anthropics/claude-code#46340: the caller cancels the tool call while the handler never answers → the server gets cancel, the handler its signal', async () => {
    const { server, host, never } = await driftSetup();
    const before = timers();
    const caller = new AbortController();
    const call = host.invoke('mcp.idx.ask_quality', {}, { actor: 'user:admin', signal: caller.signal });
    await vi.waitFor(() => expect(never.contexts).toHaveLength(1), { timeout: 10_000 });
    expect(never.contexts[0]!.signal.aborted).toBe(false);
    caller.abort(new Error('the person closed the chat'));
    await vi.waitFor(() => expect(server.stats.answers).toEqual([{ action: 'cancel' }]), { timeout: 10_000 });
    expect(never.contexts[0]!.signal.aborted).toBe(true);
    const result = await call;
    expect(result.status).not.toBe('succeeded');
    // Nothing of the abandoned form keeps a timer alive (the MCP SDK's request timers are settled too).
    await vi.waitFor(() => expect(timers()).toBeLessThanOrEqual(before), { timeout: 10_000 });
  });

  it('the call times out (callTimeoutMs) while the handler never answers → the server gets cancel, the call fails MCP_CALL_TIMEOUT', async () => {
    const { server, host, never } = await driftSetup(400);
    const started = Date.now();
    const result = await host.invoke('mcp.idx.ask_quality', {}, { actor: 'user:admin' });
    expect(result.status).toBe('failed');
    expect(JSON.stringify(result)).toContain('MCP_CALL_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(never.contexts).toHaveLength(1);
    expect(never.contexts[0]!.signal.aborted).toBe(true);
    await vi.waitFor(() => expect(server.stats.answers).toEqual([{ action: 'cancel' }]), { timeout: 10_000 });
  });

  it('openai/codex#40390: the server cancels its own elicitation/create → the handler signal fires, the tool result arrives', async () => {
    // A server whose tool asks, gives up asking after 150 ms (notifications/cancelled for its request), then waits
    // (at most 2 s) for the client's form to be dismissed, and answers.
    const never = neverAnswers();
    const outcomes: string[] = [];
    const sessions = new Map<string, StreamableHTTPServerTransport>();
    const http = createServer((req: IncomingMessage, res: ServerResponse) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
        const id = req.headers['mcp-session-id'];
        const known = typeof id === 'string' ? sessions.get(id) : undefined;
        if (known) return known.handleRequest(req, res, body);
        const server = new Server({ name: 'asker', version: '1.0.0' }, { capabilities: { tools: {} } });
        server.setRequestHandler(ListToolsRequestSchema, async () => ({
          tools: [{ name: 'ask', description: 'Asks, then stops asking.', inputSchema: { type: 'object' } }],
        }));
        server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
          // A ping first: the MCP SDK's client ignores notifications/cancelled for request id 0 (its check is
          // `!requestId`), so the elicitation is the server's second request.
          await server.ping();
          const stop = new AbortController();
          // It stops asking once the form is shown (not after a fixed time, which a slow machine outruns).
          const shown = (async () => {
            while (!never.contexts[0] && !stop.signal.aborted) await new Promise((r) => setTimeout(r, 5));
            stop.abort(new Error('asked elsewhere'));
          })();
          try {
            await server.elicitInput(
              { mode: 'form', message: FORM.message, requestedSchema: FORM.requestedSchema as never },
              { relatedRequestId: extra.requestId, signal: stop.signal },
            );
            outcomes.push('answered');
          } catch {
            outcomes.push('stopped asking');
          } finally {
            stop.abort();
            await shown;
          }
          for (let waited = 0; !never.contexts[0]?.signal.aborted && waited < 2000; waited += 10)
            await new Promise((r) => setTimeout(r, 10));
          outcomes.push(never.contexts[0]?.signal.aborted ? 'form dismissed' : 'form still shown');
          return { content: [{ type: 'text', text: 'done without the form' }] };
        });
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => {
            sessions.set(sid, transport);
          },
        });
        cleanups.push(() => server.close());
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
      })().catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
    cleanups.push(
      () =>
        new Promise<void>((r) => {
          http.closeAllConnections();
          http.close(() => r());
        }),
    );
    const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
    const host = createAgentHost({ storage: new MemoryStorage(), logger: new ConsoleLogger('silent') });
    await host.start();
    cleanups.push(() => host.stop());
    const transport = new StreamableHTTPClientTransport(url);
    cleanups.push(() => transport.close());
    await registerMcpServer(host, { name: 'asker', transport, readOnlyTools: ['ask'], onElicitation: never.handler });

    const result = await host.invoke('mcp.asker.ask', {}, { actor: 'user:admin' });
    expect(result.status).toBe('succeeded');
    expect(never.contexts).toHaveLength(1);
    // The form is dismissed while the tool call still runs (not only once the call is over).
    expect(outcomes).toEqual(['stopped asking', 'form dismissed']);
  });
});

describe('an answer is checked by its own properties only', () => {
  const schema = {
    type: 'object',
    properties: { toString: { type: 'string' }, constructor: { type: 'string', default: 'kept' } },
    required: ['toString', 'constructor'],
  };

  it('a required field named toString or constructor is not answered by the prototype', () => {
    expect(elicitationProblems(schema, {})).toEqual(['toString: required', 'constructor: required']);
    expect(elicitationProblems(schema, { toString: 'a', constructor: 'b' })).toEqual([]);
  });

  it("a field named like a prototype member gets the schema's default; a field not in the form is refused", () => {
    expect(withElicitationDefaults(schema, {})).toEqual({ constructor: 'kept' });
    expect(elicitationProblems({ type: 'object', properties: {} }, { hasOwnProperty: 'x' })).toEqual([
      'hasOwnProperty: not in the form',
    ]);
  });
});
