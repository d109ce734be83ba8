// Shared by the tracing tests: a real OpenTelemetry SDK with an in-memory exporter, hosts whose model is a
// real HTTP provider against a local replay server (SQLite in a temp directory), and the semantic-conventions
// registry of @opentelemetry/semantic-conventions (stable and incubating entries).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as stable from '@opentelemetry/semantic-conventions';
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  ConsoleLogger,
  createAgentHost,
  SequentialIdGenerator,
  type AgentHost,
  type ManualClock,
} from '../../src/index';
import type { TracingOptions } from '../../src/loop';
import { AnthropicProvider, OpenAICompatibleProvider, type ModelProvider } from '../../src/models';
import { SqliteStorage } from '../../src/sqlite';
import { MemoryStorage } from '../../src/storage';
import {
  registerSandboxCapabilities,
  ScriptedProvider,
  WireReplayServer,
  type SandboxWorld,
  type FakeScript,
  type RecordedRequest,
  type ReplayResponse,
} from '../../src/testing';

/** A tracer of a real SDK provider, its spans kept in memory. */
export function memoryTracing(captureContent = false): { exporter: InMemorySpanExporter; options: TracingOptions } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, options: { tracer: provider.getTracer('test'), captureContent } };
}

/** The statuses a run ends in. */
export const TERMINAL = ['succeeded', 'failed', 'cancelled', 'budget_exceeded'] as const;

/** A host (not started) on MemoryStorage whose model is `scripted-1` of a ScriptedProvider, polling every 5 ms, traced into `tracing`. */
export function scriptedTracingHost(scripts: FakeScript[], tracing: TracingOptions): AgentHost {
  return createAgentHost({
    storage: new MemoryStorage(),
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts }), model: 'scripted-1' },
    runs: { pollMs: 5 },
    tracing,
  });
}

/**
 * A host (not started) on MemoryStorage over the sandbox `world` (its capabilities registered, its goal facts),
 * on `clock` with sequential ids, whose model is `scripted-1` of a ScriptedProvider, traced into `tracing`.
 */
export function sandboxTracingHost(
  scripts: FakeScript | FakeScript[],
  tracing: TracingOptions,
  clock: ManualClock,
  world: SandboxWorld,
): AgentHost {
  const host = createAgentHost({
    storage: new MemoryStorage(),
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts }), model: 'scripted-1' },
    goalFacts: world,
    runs: { pollMs: 5, goalPollSec: 1 },
    tracing,
  });
  registerSandboxCapabilities(host, world);
  return host;
}

/** Starts the plan-only run "find out whether Dune is tracked" for `user:admin`. */
export const startDuneCheck = (host: AgentHost) =>
  host.startRun({ goal: 'find out whether Dune is tracked', actor: 'user:admin', mode: 'plan_only' });

/** Every attribute name of the registry: the string values of all `ATTR_*` exports, stable and incubating. */
export const REGISTRY: ReadonlySet<string> = new Set(
  [...Object.entries(stable), ...Object.entries(incubating)]
    .filter(([k, v]) => k.startsWith('ATTR_') && typeof v === 'string')
    .map(([, v]) => v as string),
);

/** The registry's well-known `gen_ai.provider.name` values. */
export const PROVIDER_NAMES: ReadonlySet<string> = new Set(
  Object.entries(incubating)
    .filter(([k]) => k.startsWith('GEN_AI_PROVIDER_NAME_VALUE_'))
    .map(([, v]) => v as string),
);

export const op = (s: ReadableSpan) => s.attributes['gen_ai.operation.name'];
export const parentOf = (s: ReadableSpan, spans: readonly ReadableSpan[]) =>
  spans.find((p) => p.spanContext().spanId === s.parentSpanContext?.spanId);

/** What the conventions require (or condition-require) on each kind of span the runtime makes. */
const REQUIRED: Record<string, readonly string[]> = {
  invoke_agent: ['gen_ai.operation.name', 'gen_ai.provider.name'],
  chat: ['gen_ai.operation.name', 'gen_ai.provider.name', 'gen_ai.request.model'],
  execute_tool: ['gen_ai.operation.name', 'gen_ai.tool.name'],
};

/**
 * Every way `spans` break the conventions: an attribute name neither in the registry nor `media_agent.*`
 * (on spans, events and links), a required attribute missing, a span name not `{operation} {target}`,
 * a failed span without `error.type`, a `server.address` without `server.port`, a deprecated attribute.
 */
export function violations(spans: readonly ReadableSpan[]): string[] {
  const out: string[] = [];
  const known = (k: string) => REGISTRY.has(k) || k.startsWith('media_agent.');
  for (const s of spans) {
    const names = [
      ...Object.keys(s.attributes),
      ...s.events.flatMap((e) => Object.keys(e.attributes ?? {})),
      ...s.links.flatMap((l) => Object.keys(l.attributes ?? {})),
    ];
    for (const k of names) if (!known(k)) out.push(`${s.name}: ${k} is not in the registry`);
    for (const deprecated of ['gen_ai.system', 'gen_ai.usage.prompt_tokens', 'gen_ai.usage.completion_tokens'])
      if (deprecated in s.attributes) out.push(`${s.name}: deprecated ${deprecated}`);
    const operation = op(s) as string | undefined;
    const isMcp = s.attributes['mcp.method.name'] !== undefined;
    if (isMcp) {
      for (const k of ['mcp.method.name', 'jsonrpc.request.id', 'gen_ai.tool.name', 'network.transport'])
        if (s.attributes[k] === undefined) out.push(`${s.name}: ${k} missing`);
      if (s.name !== `${s.attributes['mcp.method.name']} ${s.attributes['gen_ai.tool.name']}`)
        out.push(`${s.name}: MCP span name is not "{mcp.method.name} {tool}"`);
    } else if (operation) {
      for (const k of REQUIRED[operation] ?? []) if (s.attributes[k] === undefined) out.push(`${s.name}: ${k} missing`);
      const target =
        operation === 'invoke_agent'
          ? s.attributes['gen_ai.agent.name']
          : operation === 'chat'
            ? s.attributes['gen_ai.request.model']
            : s.attributes['gen_ai.tool.name'];
      if (s.name !== `${operation} ${target}`) out.push(`${s.name}: name is not "${operation} ${target}"`);
      const provider = s.attributes['gen_ai.provider.name'];
      if (typeof provider === 'string' && (provider.includes(':') || provider.includes('@')))
        out.push(`${s.name}: gen_ai.provider.name ${provider} carries a dialect`);
    }
    if (s.status.code === 2 && s.attributes['error.type'] === undefined)
      out.push(`${s.name}: failed without error.type`);
    if (s.attributes['server.address'] !== undefined && s.attributes['server.port'] === undefined)
      out.push(`${s.name}: server.address without server.port`);
  }
  return out;
}

const cleanup: { hosts: AgentHost[]; servers: WireReplayServer[]; dirs: string[] } = {
  hosts: [],
  servers: [],
  dirs: [],
};

/** Stops what {@link providerHost} started. */
export async function closeProviderHosts(): Promise<void> {
  for (const h of cleanup.hosts.splice(0)) await h.stop().catch(() => undefined);
  await Promise.all(cleanup.servers.splice(0).map((s) => s.close()));
  for (const d of cleanup.dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A temp directory removed by {@link closeProviderHosts}. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-otel-'));
  cleanup.dirs.push(dir);
  return dir;
}

/** Registers a host for {@link closeProviderHosts}. */
export function track(host: AgentHost): AgentHost {
  cleanup.hosts.push(host);
  return host;
}

/**
 * A started host whose model is a real provider (Anthropic, or OpenAI-compatible in `dialect`) against a
 * local replay server, SQLite storage, traced into `tracing`.
 */
export async function providerHost(
  responses: ReplayResponse[] | ((req: RecordedRequest, index: number) => ReplayResponse),
  tracing: TracingOptions,
  options: { family: 'anthropic' | 'openai'; dialect?: string; model: string },
): Promise<{ host: AgentHost; server: WireReplayServer; provider: ModelProvider }> {
  const server = await WireReplayServer.start(responses);
  cleanup.servers.push(server);
  const provider: ModelProvider =
    options.family === 'anthropic'
      ? new AnthropicProvider({ baseUrl: server.url, apiKey: 'sk-ant-test-0123456789', retry: { maxAttempts: 1 } })
      : new OpenAICompatibleProvider({
          baseUrl: server.url,
          apiKey: 'sk-test-0123456789',
          retry: { maxAttempts: 1 },
          ...(options.dialect ? { dialect: options.dialect } : {}),
        } as ConstructorParameters<typeof OpenAICompatibleProvider>[0]);
  const host = track(
    createAgentHost({
      storage: new SqliteStorage({ path: join(tempDir(), 'agent.sqlite') }),
      logger: new ConsoleLogger('silent'),
      model: { provider, model: options.model },
      runs: { pollMs: 5, leaseMs: 60_000 },
      tracing,
    }),
  );
  await host.start();
  return { host, server, provider };
}
