/**
 * The media-agent client of the MCP conformance run (`npm run conformance:mcp`): the suite runs it as
 * `client.ts <serverUrl>` with the scenario in `MCP_CONFORMANCE_SCENARIO`. It makes a host on a SQLite file,
 * registers the suite's server with `registerMcpServer({ transport: new StreamableHTTPClientTransport(url) })`
 * (that is the MCP `initialize` and `tools/list`), and calls its tools through `host.invoke`, as each scenario
 * expects. Exit code 0 when the calls settled as expected, 1 otherwise (the suite's checks decide the verdict).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ConsoleLogger, createAgentHost } from '@media-agent/sdk';
import { registerMcpServer, type McpServerRegistration } from '@media-agent/sdk/mcp';
import { SqliteStorage } from '@media-agent/sdk/sqlite';

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
if (!url) {
  process.stderr.write('usage: client.ts <serverUrl> (MCP_CONFORMANCE_SCENARIO names the scenario)\n');
  process.exit(2);
}

/** What each scenario's server offers and what we call on it. */
const plans: Record<string, { readOnlyTools?: string[]; call?: [tool: string, input: Record<string, unknown>] }> = {
  // Registering is the whole scenario: initialize, then tools/list.
  initialize: {},
  // add_numbers is a pure function: the host declares it read-only, so no approval is needed to call it.
  tools_call: { readOnlyTools: ['add_numbers'], call: ['add_numbers', { a: 5, b: 3 }] },
  // The server elicits during the call; the client accepts with the schema's defaults for omitted fields.
  'elicitation-sep1034-client-defaults': {
    readOnlyTools: ['test_client_elicitation_defaults'],
    call: ['test_client_elicitation_defaults', {}],
  },
  // The server closes the call's SSE stream after a priming event with `retry: 500`; the answer comes on the
  // stream the client reopens after waiting that long.
  'sse-retry': { readOnlyTools: ['test_reconnection'], call: ['test_reconnection', {}] },
};

const plan = plans[scenario];
if (!plan) {
  process.stderr.write(
    `unknown scenario ${JSON.stringify(scenario)}: this client runs ${Object.keys(plans).join(', ')}\n`,
  );
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'media-agent-mcp-client-'));
const host = createAgentHost({
  storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
  logger: new ConsoleLogger('warn'),
});
let exitCode = 1;
const transport = new StreamableHTTPClientTransport(new URL(url));
try {
  await host.start({ workers: false });
  const registration: McpServerRegistration = {
    name: 'conformance',
    transport,
    ...(plan.readOnlyTools ? { readOnlyTools: plan.readOnlyTools } : {}),
    // The person behind the call accepts the form as it stands: the SDK fills each omitted field from its default.
    onElicitation: () => ({ action: 'accept', content: {} }),
  };
  const tools = await registerMcpServer(host, registration);
  process.stderr.write(`registered ${tools.map((t) => t.capabilityId).join(', ') || 'no tools'}\n`);
  if (plan.call) {
    const [tool, input] = plan.call;
    const result = await host.invoke(`mcp.conformance.${tool}`, input, { actor: 'system:conformance' });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    exitCode = result.status === 'succeeded' ? 0 : 1;
  } else exitCode = 0;
} catch (error) {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
} finally {
  await transport.close().catch(() => undefined);
  await host.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
