// Elicitation forms whose fields are named like Object.prototype members. Real drift server (official SDK Server over
// Streamable HTTP) elicits during a tool call; registerMcpServer consumes it. No mocks.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost } from '../../src/index';
import { registerMcpServer, type McpElicitationAnswer } from '../../src/mcp';
import { elicitationProblems, withElicitationDefaults } from '../../src/mcp/elicitation';
import { MemoryStorage } from '../../src/storage';
import { ScriptedProvider } from '../../src/testing';
import { BASE_TOOLS, startDriftMcpServer } from './fixtures/drift-mcp-server';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => undefined);
});

const PROTO_FORM =
  '{"type":"object","properties":{"__proto__":{"type":"string","default":"kept"},"title":{"type":"string"}},"required":["__proto__"]}';

async function ask(requestedSchema: Record<string, unknown>, answer: () => McpElicitationAnswer) {
  const server = await startDriftMcpServer([
    ...structuredClone([...BASE_TOOLS]),
    { name: 'ask_form', description: 'Asks.', inputSchema: { type: 'object', properties: {} } },
  ]);
  cleanup.push(() => server.stop());
  server.forms.ask_form = { message: 'Fill in', requestedSchema };
  const host: AgentHost = createAgentHost({
    storage: new MemoryStorage(),
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: [] }) },
  });
  cleanup.push(() => host.stop());
  await host.start();
  const transport = new StreamableHTTPClientTransport(server.url);
  cleanup.push(() => transport.close());
  const seen: Array<Record<string, unknown>> = [];
  await registerMcpServer(host, {
    name: 'idx',
    transport,
    onElicitation: (request) => {
      seen.push(request.requestedSchema);
      return answer();
    },
  });
  await host.invoke('mcp.idx.ask_form', {}, { actor: 'user:admin' });
  return { answer: server.stats.answers[0] as { action: string; content?: Record<string, unknown> }, seen };
}

it('a form field named __proto__ with a default gets the default (an own field, serialized) when the answer leaves it out', () => {
  const schema = JSON.parse(PROTO_FORM);
  const content = withElicitationDefaults(schema, { title: 'Dune' });
  // before: the default was assigned to out['__proto__'] (a prototype set, silently dropped) → required field missing
  expect(Object.hasOwn(content, '__proto__')).toBe(true);
  expect(Object.getPrototypeOf(content)).toBe(Object.prototype);
  expect(JSON.parse(JSON.stringify(content))).toEqual(JSON.parse('{"title":"Dune","__proto__":"kept"}'));
  expect(elicitationProblems(schema, content)).toEqual([]);
});

it('over the official MCP SDK, a __proto__ field the SDK strips from the form is never answered as if it were filled', async () => {
  // The MCP SDK's schema validation drops a `__proto__` property from the request's form and from the answer's
  // content, so the required field cannot be answered through it: the server gets decline, never an accept lacking it.
  const { answer, seen } = await ask(JSON.parse(PROTO_FORM), () => ({ action: 'accept', content: { title: 'Dune' } }));
  expect(seen).toHaveLength(1);
  expect(answer).toEqual({ action: 'decline' });
});
