// Secrets never leave the boundary: a gateway key echoed in a provider's 401, and credentials in a
// capability's error message, reach no run record, run event, audit row, history row, logger line
// or model request. Real HTTP (a local OpenAI-compatible gateway), real SQLite.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentHost, defineCapability, ManualClock, type AgentHost } from '../../src/index';
import { SqliteHistoryStore, SqliteStorage } from '../../src/sqlite';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  CapturingLogger,
  transcriptEvents,
  WireReplayServer,
  type RecordedRequest,
  type ReplayResponse,
} from '../../src/testing';
import { filesUnder } from './files-under';

const GATEWAY_KEY = 'gw-7f3a9c1e5b2d8f40';
const API_KEY = 'local-api-key-556677';

const chunk = (delta: object, finish: string | null = null) => ({
  id: 'chatcmpl-redaction',
  object: 'chat.completion.chunk',
  created: 1770000000,
  model: 'own-model',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

function reply(r: { text?: string; call?: { name: string; args: string } }): ReplayResponse {
  const lines: object[] = [chunk({ role: 'assistant', ...(r.text ? { content: r.text } : {}) })];
  if (r.call)
    lines.push(
      chunk({
        tool_calls: [
          { index: 0, id: 'call_r_0', type: 'function', function: { name: r.call.name, arguments: r.call.args } },
        ],
      }),
    );
  lines.push(chunk({}, r.call ? 'tool_calls' : 'stop'));
  return { events: transcriptEvents(lines.map((l) => JSON.stringify(l)).join('\n'), 'openai') };
}

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function setup(respond: (req: RecordedRequest, index: number) => ReplayResponse) {
  const server = await WireReplayServer.start(respond);
  cleanup.push(() => server.close());
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-redaction-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const storage = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
  const logger = new CapturingLogger();
  const history = new SqliteHistoryStore({ directory: join(dir, 'history') });
  cleanup.push(() => history.close());
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
  const host: AgentHost = createAgentHost({
    storage,
    history: { store: history },
    tracing: { tracer, captureContent: true },
    clock: new ManualClock(Date.UTC(2026, 10, 30, 12)),
    logger,
    model: {
      provider: {
        provider: 'openai-compatible',
        baseUrl: server.url,
        apiKey: API_KEY,
        headers: { 'x-gateway-key': GATEWAY_KEY },
        retry: { maxAttempts: 1 },
      },
      model: 'own-model',
    },
    runs: { pollMs: 5, leaseMs: 60_000, refusedTurnPauseMs: 1 },
  });
  cleanup.push(() => host.stop());
  return { server, storage, logger, host, dir, exporter };
}

async function finished(host: AgentHost, runId: string) {
  for await (const e of host.events({ runId }))
    if (
      e.type === 'run_status' &&
      ['succeeded', 'failed', 'cancelled', 'budget_exceeded'].includes((e.data as { status: string }).status)
    )
      break;
  return host.getRun(runId, { limit: 1000 });
}

/** Everything the run left behind, as one text. */
async function everything(env: Awaited<ReturnType<typeof setup>>, runId: string) {
  const detail = await env.host.getRun(runId, { limit: 1000 });
  const events = await env.storage.events.listByRun(runId, { limit: 1000 });
  const messages = await env.storage.messages.list(runId);
  const audit = await env.storage.audit.list({ limit: 1000 } as never);
  const ledger = await env.storage.ledger.listByState([
    'failed',
    'succeeded',
    'unknown',
    'running',
    'pending',
  ] as never);
  const spans = env.exporter
    .getFinishedSpans()
    .map((s) => ({ name: s.name, attributes: s.attributes, events: s.events }));
  return JSON.stringify({ detail, events, messages, audit, ledger, log: env.logger.lines, spans });
}

describe('secrets are redacted once, at the boundary', () => {
  it('a gateway that echoes the x-gateway-key header in its 401 leaves no key in the failure reason, events, audit or logs', async () => {
    const env = await setup((req) => ({
      status: 401,
      body: JSON.stringify({
        error: {
          message: `invalid gateway key ${String(req.headers['x-gateway-key'])} for bearer ${String(req.headers.authorization)}`,
          type: 'invalid_request_error',
        },
      }),
    }));
    await env.host.start();
    const run = await env.host.startRun({ goal: 'What is in the library?', actor: 'user:alice' });
    const detail = await finished(env.host, run.id);
    expect(detail.run.status).toBe('failed');
    // The gateway saw the key (the test is real) …
    expect(env.server.requests[0]!.headers['x-gateway-key']).toBe(GATEWAY_KEY);
    // … and echoed it; nothing the runtime stored or emitted holds it.
    expect(detail.run.error?.message).toContain('invalid gateway key');
    const all = await everything(env, run.id);
    expect(all).not.toContain(GATEWAY_KEY);
    expect(all).not.toContain(API_KEY);
  });

  it('credentials in a capability error reach no run event, model request, history, audit row, trace, log line or database file', async () => {
    const SECRET_URL = 'https://admin:hunter2pass@nas.local/api?token=abcd1234efgh';
    const env = await setup((_req, index) =>
      index === 0
        ? reply({ call: { name: 'nas_login', args: '{"share":"movies"}' } })
        : reply({ text: 'The NAS refused the login.' }),
    );
    env.host.capabilities.register(
      defineCapability({
        id: 'nas.login',
        version: 1,
        title: 'Log in to the NAS',
        description: 'Logs in to the NAS share.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({ share: Type.String() }),
        output: Type.Object({ ok: Type.Boolean() }),
        handler: async (_input, ctx) => {
          // The NAS echoes the gateway key it was proxied with: a registered secret, not a known shape.
          ctx.logger.warn('nas login failed', { url: SECRET_URL, via: GATEWAY_KEY });
          throw new Error(`login failed for ${SECRET_URL} (proxy key ${GATEWAY_KEY})`);
        },
      }),
    );
    await env.host.start();
    const run = await env.host.startRun({ goal: 'Open the movies share', actor: 'user:alice' });
    const detail = await finished(env.host, run.id);
    expect(env.server.requests.length).toBeGreaterThanOrEqual(2);
    // The next model request carries the tool result, with the credentials redacted.
    const second = JSON.stringify(env.server.requests[1]!.json);
    expect(second).toContain('login failed for');
    expect(second).toContain('[REDACTED]');
    const stored = await everything(env, run.id);
    await env.host.stop();
    const files = filesUnder(env.dir);
    const all = `${stored} ${second} ${JSON.stringify(detail)} ${files}`;
    // The test is real: the history archive and the traces got the tool result, the logger its line.
    expect(files).toContain('login failed for');
    expect(JSON.stringify(env.exporter.getFinishedSpans().map((x) => x.attributes))).toContain('login failed for');
    expect(env.logger.lines.join('\n')).toContain('nas login failed');
    for (const secret of ['hunter2pass', 'abcd1234efgh', GATEWAY_KEY]) expect(all).not.toContain(secret);
  });
});
