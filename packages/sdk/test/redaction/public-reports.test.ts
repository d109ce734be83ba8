// Public reports of peer projects, as tests of this runtime's one redaction step (docs/secrets.md).
// Real HTTP (a local OpenAI-compatible gateway), real SQLite, real PostgreSQL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAgentContainer,
  createAgentHost,
  defineCapability,
  ManualClock,
  Tokens,
  type AgentHost,
  type Logger,
  type StorageAdapter,
} from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { WireReplayServer, type RecordedRequest, type ReplayResponse } from '../../src/testing';
import { dropSchema, freshSchemaName, PG_URL, pgStorage } from '../storage/postgres-available';
import { describePostgres } from '../storage/postgres-available';

class CapturingLogger implements Logger {
  readonly lines: string[] = [];
  debug(m: string, f?: Record<string, unknown>) {
    this.lines.push(JSON.stringify({ m, f, e: String((f?.error as Error | undefined)?.message) }));
  }
  info(m: string, f?: Record<string, unknown>) {
    this.debug(m, f);
  }
  warn(m: string, f?: Record<string, unknown>) {
    this.debug(m, f);
  }
  error(m: string, f?: Record<string, unknown>) {
    this.debug(m, f);
  }
}

const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

function sqliteFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-redaction-reports-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'agent.sqlite');
}

async function gatewayHost(respond: (req: RecordedRequest) => ReplayResponse, logger: Logger) {
  const server = await WireReplayServer.start(respond);
  cleanup.push(() => server.close());
  const storage = new SqliteStorage({ path: sqliteFile() });
  const host = createAgentHost({
    storage,
    logger,
    clock: new ManualClock(Date.UTC(2026, 10, 30, 12)),
    model: {
      provider: {
        provider: 'openai-compatible',
        baseUrl: server.url,
        apiKey: 'local-key-000111',
        retry: { maxAttempts: 1 },
      },
      model: 'gemini-2.5-flash',
    },
    runs: { pollMs: 5, leaseMs: 60_000 },
  });
  cleanup.push(() => host.stop());
  await host.start();
  return { host, storage };
}

async function ended(host: AgentHost, runId: string) {
  for await (const e of host.events({ runId }))
    if (e.type === 'run_status' && ['succeeded', 'failed', 'cancelled'].includes((e.data as { status: string }).status))
      break;
  return host.getRun(runId, { limit: 1000 });
}

async function storedText(storage: StorageAdapter, runId?: string): Promise<string> {
  const parts: unknown[] = [
    await storage.audit.list({ limit: 1000 } as never),
    await storage.ledger.listByState(['succeeded', 'failed', 'unknown', 'running', 'pending'] as never),
  ];
  if (runId)
    parts.push(
      await storage.runs.get(runId),
      await storage.events.listByRun(runId, { limit: 1000 }),
      await storage.messages.list(runId),
    );
  return JSON.stringify(parts);
}

describe('public reports: secrets in errors, audit rows and logs', () => {
  it('BerriAI/litellm#15799 (also #8075, #24902): an upstream URL with ?key=AIza… echoed in a provider error never reaches the run or its events', async () => {
    // The gateway's own upstream key: the host never configured it, so only the documented shapes can catch it.
    const UPSTREAM = 'AIzaSyD-0123456789abcdefghijklmnopqrstu';
    const logger = new CapturingLogger();
    const { host, storage } = await gatewayHost(
      () => ({
        status: 404,
        body: JSON.stringify({
          error: {
            message: `Client error '404 Not Found' for url 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent?key=${UPSTREAM}'`,
          },
        }),
      }),
      logger,
    );
    const run = await host.startRun({ goal: 'Recommend a film', actor: 'user:alice' });
    const detail = await ended(host, run.id);
    expect(detail.run.status).toBe('failed');
    expect(detail.run.error?.message).toContain('generateContent?key=');
    const all = `${await storedText(storage, run.id)} ${JSON.stringify(detail)} ${logger.lines.join('\n')}`;
    expect(all).not.toContain(UPSTREAM);
    expect(all).not.toContain('0123456789abcdefghijklmnopqrstu');
  });

  it('BerriAI/litellm#31620 (raw API keys in the audit log): a media server token the host registered never reaches audit or ledger rows, in the error or the input', async () => {
    const TOKEN = 'mp-token-0123456789abcdef';
    const storage = new SqliteStorage({ path: sqliteFile() });
    const host = createAgentHost({ storage, logger: new CapturingLogger(), redact: { secrets: [TOKEN] } });
    cleanup.push(() => host.stop());
    host.capabilities.register(
      defineCapability({
        id: 'library.refresh',
        version: 1,
        title: 'Refresh the library',
        description: 'Asks the media server to rescan.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({ note: Type.String() }),
        output: Type.Object({ ok: Type.Boolean() }),
        handler: async () => {
          throw new Error(`MoviePilot refused X-API-KEY ${TOKEN} (HTTP 401)`);
        },
      }),
    );
    await host.start();
    const result = await host.invoke(
      'library.refresh',
      { note: `token ${TOKEN} pasted by mistake` },
      { actor: 'user:alice' },
    );
    expect(result.status).toBe('failed');
    // What invoke hands back (to an MCP client, say) names the failure without the token.
    expect(result.error?.message).toBe('MoviePilot refused X-API-KEY [REDACTED] (HTTP 401)');
    const rows = await storedText(storage);
    expect(rows).toContain('library.refresh');
    expect(rows).not.toContain(TOKEN);
    expect(rows).toContain('[REDACTED]');
  });

  it('steve-goldberg/NocoBot#3 (a provider error with its key logged via str(e)): what a handler logs through ctx.logger is redacted, message and error field', async () => {
    const KEY = 'sk-or-v1-abcdef0123456789';
    const GATEWAY = 'gw-secret-9988776655';
    const logger = new CapturingLogger();
    const host = createAgentHost({
      storage: new SqliteStorage({ path: sqliteFile() }),
      logger,
      redact: { secrets: [GATEWAY] },
    });
    cleanup.push(() => host.stop());
    host.capabilities.register(
      defineCapability({
        id: 'indexer.search',
        version: 1,
        title: 'Search the indexer',
        description: 'Searches.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({ q: Type.String() }),
        output: Type.Object({ hits: Type.Number() }),
        handler: async (_input, ctx) => {
          const e = new Error(`AuthenticationError: OpenRouter returned 401: API key: ${KEY} via ${GATEWAY}`);
          ctx.logger.error(`Error calling LLM: ${e.message}`, { error: e, detail: { gateway: GATEWAY } });
          return { hits: 0 };
        },
      }),
    );
    await host.start();
    await host.invoke('indexer.search', { q: 'dune' }, { actor: 'user:alice' });
    const log = logger.lines.join('\n');
    expect(log).toContain('Error calling LLM');
    expect(log).not.toContain(KEY);
    expect(log).not.toContain(GATEWAY);
  });
});

describePostgres('the PostgreSQL store names its password to the redaction step', () => {
  it('a driver message quoting the bare password is stored redacted (the store registered it)', async () => {
    const schema = freshSchemaName('ma_redact');
    cleanup.push(() => dropSchema(schema));
    const url = new URL(PG_URL);
    url.password = 'pg-pass-4242aa';
    const storage = pgStorage(schema, { connectionString: url.toString() });
    const container = createAgentContainer({ storage, logger: new CapturingLogger() });
    expect(container.resolve(Tokens.SecretRedactor).text('password pg-pass-4242aa refused')).toBe(
      'password [REDACTED] refused',
    );
    const host = container.resolve<AgentHost>(Tokens.AgentHost);
    cleanup.push(() => host.stop());
    host.capabilities.register(
      defineCapability({
        id: 'db.check',
        version: 1,
        title: 'Check',
        description: 'Checks.',
        kind: 'execute',
        replay: 'never',
        input: Type.Object({}),
        output: Type.Object({}),
        handler: async () => {
          throw new Error('password authentication failed: pg-pass-4242aa');
        },
      }),
    );
    await host.start();
    await host.invoke('db.check', {}, { actor: 'user:admin' });
    const rows = await storedText(storage);
    expect(rows).toContain('db.check');
    expect(rows).not.toContain('pg-pass-4242aa');
  });
});
