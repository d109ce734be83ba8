// Elicitation from a consumed MCP server: during a tool call the server sends `elicitation/create` (form mode); the
// host's onElicitation handler answers for the person the call acts for. Real server: the official SDK's Server over
// StreamableHTTPServerTransport on node:http at 127.0.0.1 (fixtures/drift-mcp-server.ts: a tool named ask… elicits
// and returns the client's answer), consumed by registerMcpServer with the official StreamableHTTPClientTransport.
//
// Public reports reproduced here:
// - modelcontextprotocol/typescript-sdk#1097 "apply elicitation defaults client-side for SEP-1034" (the official
//   conformance scenario elicitation-sep1034-client-defaults: a client accepting with no values must send the
//   schema's string, integer, number, enum and boolean defaults). Before: our client declared no `elicitation`
//   capability, so the server could not ask at all (its elicitInput threw, the tool call failed MCP_TOOL_ERROR).
//   After: the handler's `{}` reaches the server as the five defaults.
// - php-sdk#462 / java-sdk#976 (the same SEP in other SDKs): falsy defaults (0, false) and partial answers are kept;
//   covered by the partial-answer case.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConsoleLogger, createAgentHost } from '../../src/index';
import {
  registerMcpServer,
  type McpElicitationAnswer,
  type McpElicitationContext,
  type McpElicitationRequest,
} from '../../src/mcp';
import { MemoryStorage } from '../../src/storage';
import { ScriptedProvider, type FakeScript } from '../../src/testing';
import { waitForStatus } from '../runtime/harness';
import { closeDriftResources, hostOwnedClient, hosts, servers, trackedTransport } from './drift-harness';
import { BASE_TOOLS, startDriftMcpServer } from './fixtures/drift-mcp-server';

afterEach(closeDriftResources);

/** The form of the official conformance scenario elicitation-sep1034-client-defaults. */
const DEFAULTS_FORM = {
  message: 'Test client default value handling - please accept with defaults',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'User name', default: 'John Doe' },
      age: { type: 'integer', description: 'User age', default: 30 },
      score: { type: 'number', description: 'User score', default: 95.5 },
      status: {
        type: 'string',
        description: 'User status',
        enum: ['active', 'inactive', 'pending'],
        default: 'active',
      },
      verified: { type: 'boolean', description: 'Verification status', default: true },
    },
    required: [],
  },
};

async function setup(
  answer?: (request: McpElicitationRequest, context: McpElicitationContext) => McpElicitationAnswer,
  scripts: FakeScript[] = [],
) {
  const server = await startDriftMcpServer([
    ...structuredClone([...BASE_TOOLS]),
    { name: 'ask_defaults', description: 'Asks for a profile.', inputSchema: { type: 'object', properties: {} } },
    {
      name: 'ask_approve',
      description: 'Grabs after asking the person.',
      inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
  ]);
  server.forms.ask_defaults = DEFAULTS_FORM;
  server.forms.ask_approve = {
    message: 'Approve sending this release to the downloader?',
    requestedSchema: { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] },
  };
  servers.push(server);
  const host = createAgentHost({
    storage: new MemoryStorage(),
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts }) },
    runs: { pollMs: 5 },
  });
  hosts.push(host);
  await host.start();
  const seen: { request: McpElicitationRequest; context: Omit<McpElicitationContext, 'signal'> }[] = [];
  await registerMcpServer(host, {
    name: 'idx',
    transport: trackedTransport(server.url),
    readOnlyTools: ['search', 'ask_defaults'],
    ...(answer
      ? {
          onElicitation: (request: McpElicitationRequest, context: McpElicitationContext) => {
            const { signal, ...rest } = context;
            expect(signal.aborted).toBe(false);
            seen.push({ request, context: rest });
            return answer(request, context);
          },
        }
      : {}),
  });
  return { server, host, seen };
}

const answerOf = (output: unknown) => (output as { structuredContent: { answer: unknown } }).structuredContent.answer;

describe('consumed MCP servers: elicitation', () => {
  it('typescript-sdk#1097 (conformance elicitation-sep1034-client-defaults): an accepted answer without values reaches the server as the schema defaults', async () => {
    const { server, host, seen } = await setup(() => ({ action: 'accept', content: {} }));
    const result = await host.invoke('mcp.idx.ask_defaults', {}, { actor: 'user:admin' });
    expect(result.status).toBe('succeeded');
    expect(answerOf(result.output)).toEqual({
      action: 'accept',
      content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true },
    });
    expect(server.stats.answers).toHaveLength(1);
    expect(seen).toEqual([
      {
        request: { server: 'idx', message: DEFAULTS_FORM.message, requestedSchema: DEFAULTS_FORM.requestedSchema },
        context: {
          capabilityId: 'mcp.idx.ask_defaults',
          tool: 'ask_defaults',
          actor: 'user:admin',
          runId: undefined,
          owner: 'user:admin',
        },
      },
    ]);
  });

  it('a partial answer keeps its values, falsy ones too, and gets the other defaults', async () => {
    const { host } = await setup(() => ({ action: 'accept', content: { name: 'Paul', age: 0, verified: false } }));
    const result = await host.invoke('mcp.idx.ask_defaults', {}, { actor: 'user:admin' });
    expect(answerOf(result.output)).toEqual({
      action: 'accept',
      content: { name: 'Paul', age: 0, score: 95.5, status: 'active', verified: false },
    });
  });

  it('without a handler every form is declined; an answer that does not fit the form is sent as decline; cancel stays cancel', async () => {
    const none = await setup();
    expect(answerOf((await none.host.invoke('mcp.idx.ask_defaults', {}, { actor: 'user:admin' })).output)).toEqual({
      action: 'decline',
    });

    const bad = await setup(() => ({
      action: 'accept',
      content: { status: 'gone', age: 'thirty' as unknown as number },
    }));
    expect(answerOf((await bad.host.invoke('mcp.idx.ask_defaults', {}, { actor: 'user:admin' })).output)).toEqual({
      action: 'decline',
    });
    const extra = await setup(() => ({ action: 'accept', content: { password: 'hunter2' } }));
    expect(answerOf((await extra.host.invoke('mcp.idx.ask_defaults', {}, { actor: 'user:admin' })).output)).toEqual({
      action: 'decline',
    });

    const cancelled = await setup(() => ({ action: 'cancel' }));
    expect(answerOf((await cancelled.host.invoke('mcp.idx.ask_defaults', {}, { actor: 'user:admin' })).output)).toEqual(
      { action: 'cancel' },
    );
  });

  it('with another call of the server in flight a form cannot be tied to one person: declined without asking anyone', async () => {
    const { server, host, seen } = await setup(() => ({ action: 'accept', content: {} }));
    server.tools.push({ name: 'slow', description: 'Takes a while.', inputSchema: { type: 'object', properties: {} } });
    let release = () => {};
    server.gate = new Promise<void>((r) => {
      release = r;
    });
    // Registered again to list slow (its read-only declaration is new, so slow is a new capability).
    await registerMcpServer(host, {
      name: 'idx',
      transport: () => new StreamableHTTPClientTransport(server.url),
      readOnlyTools: ['search', 'ask_defaults', 'slow'],
      onElicitation: (request, context) => {
        seen.push({ request, context });
        return { action: 'accept', content: {} };
      },
    });
    const running = host.invoke('mcp.idx.slow', {}, { actor: 'user:bob' });
    await vi.waitFor(() => expect(server.stats.runs.slow).toBe(1), { timeout: 10_000 });
    const asked = await host.invoke('mcp.idx.ask_defaults', {}, { actor: 'user:admin' });
    expect(answerOf(asked.output)).toEqual({ action: 'decline' });
    expect(seen).toHaveLength(0);
    release();
    expect(await running).toMatchObject({ status: 'succeeded' });
    // Alone again: asked.
    expect(answerOf((await host.invoke('mcp.idx.ask_defaults', {}, { actor: 'user:admin' })).output)).toMatchObject({
      action: 'accept',
    });
    expect(seen).toHaveLength(1);
  });

  it('an elicited "approve?" is never authority: the tool is still execute/never, unapproved callers are still denied before anything is sent, no approval or grant appears', async () => {
    const { server, host, seen } = await setup(() => ({ action: 'accept', content: { approve: true } }));
    const descriptor = host.capabilities.get('mcp.idx.ask_approve');
    expect([descriptor.kind, descriptor.replay]).toEqual(['execute', 'never']);

    const denied = await host.invoke('mcp.idx.ask_approve', { id: 'dune' }, { actor: 'apikey:ci' });
    expect(denied.status).toBe('denied');
    expect(server.stats.runs.ask_approve).toBeUndefined();
    expect(seen).toHaveLength(0);

    // The administrator's own call runs; the server asks and gets "approve: true".
    const ran = await host.invoke('mcp.idx.ask_approve', { id: 'dune' }, { actor: 'user:admin' });
    expect(ran.status).toBe('succeeded');
    expect(answerOf(ran.output)).toEqual({ action: 'accept', content: { approve: true } });

    // Nothing of the answer reached authorization: no approval, no grant; the next unapproved call is denied as before.
    expect(await host.approvals.list()).toEqual([]);
    expect(await host.grants.list()).toEqual([]);
    const again = await host.invoke('mcp.idx.ask_approve', { id: 'dune-2' }, { actor: 'apikey:ci' });
    expect(again.status).toBe('denied');
    expect(server.stats.runs.ask_approve).toBe(1);
    expect(seen).toHaveLength(1);
  });

  it("in a run the form is for the run's owner, with the run and the capability named", async () => {
    const scripts: FakeScript[] = [
      {
        match: 'profile',
        steps: [{ toolCalls: [{ capability: 'mcp.idx.ask_defaults', input: {} }] }],
        finalText: 'Asked.',
      },
    ];
    const { host, seen } = await setup(() => ({ action: 'decline' }), scripts);
    const run = await host.startRun({ goal: 'fill in my profile', actor: 'user:alice', mode: 'plan_only' });
    await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.context).toEqual({
      capabilityId: 'mcp.idx.ask_defaults',
      tool: 'ask_defaults',
      actor: `agent:${run.id}`,
      runId: run.id,
      owner: 'user:alice',
    });
  });

  it('a host-owned client answers with its own handlers: onElicitation is refused', async () => {
    const { host, client } = await hostOwnedClient();
    await expect(
      registerMcpServer(host, { name: 'idx', client, onElicitation: () => ({ action: 'decline' }) }),
    ).rejects.toMatchObject({ code: 'MCP_OPTIONS_INVALID', details: { option: 'onElicitation' } });
  });
});
