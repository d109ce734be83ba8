// Every span the runtime emits, in representative runs, checked against the OpenTelemetry semantic
// conventions registry (@opentelemetry/semantic-conventions 1.45.0, stable and incubating entries):
// names in the registry or `media_agent.*`, required attributes present, span names by the conventions.
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import { SpanStatusCode } from '@opentelemetry/api';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { defineCapability, ManualClock, type AgentHost } from '../../src/index';
import { GEN_AI, MCP, OPERATION } from '../../src/runtime/tracing/gen-ai-attributes';
import { providerName } from '../../src/runtime/tracing/provider-name';
import {
  addToLibraryScript,
  SandboxWorld,
  transcriptEvents,
  type FakeScript,
  approveRequested,
  requestedApproval,
} from '../../src/testing';
import { fixture } from '../models/helpers';
import { waitForStatus } from '../runtime/harness';
import {
  closeProviderHosts,
  memoryTracing,
  op,
  parentOf,
  PROVIDER_NAMES,
  providerHost,
  REGISTRY,
  sandboxTracingHost,
  startDuneCheck,
  TERMINAL,
  violations,
} from './span-harness';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  await closeProviderHosts();
});

describe('the runtime’s attribute names are the registry’s', () => {
  it('every gen_ai.* / mcp.* / server.* constant the runtime writes is a registry attribute; operation names are the registry values', () => {
    for (const name of [...Object.values(GEN_AI), ...Object.values(MCP)]) expect(REGISTRY, name).toContain(name);
    expect(OPERATION).toEqual({
      invokeAgent: incubating.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      chat: incubating.GEN_AI_OPERATION_NAME_VALUE_CHAT,
      executeTool: incubating.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    });
    expect(MCP.methodName).toBe(incubating.ATTR_MCP_METHOD_NAME);
    expect(incubating.MCP_METHOD_NAME_VALUE_TOOLS_CALL).toBe('tools/call');
  });

  it('gen_ai.provider.name: the registry’s well-known value for every provider that has one, never a dialect suffix', () => {
    const cases: Array<[string, string | undefined, string]> = [
      ['anthropic', undefined, incubating.GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC],
      ['openai-compatible:openai', undefined, incubating.GEN_AI_PROVIDER_NAME_VALUE_OPENAI],
      ['openai-compatible:deepseek', undefined, incubating.GEN_AI_PROVIDER_NAME_VALUE_DEEPSEEK],
      ['openai-compatible:gemini', undefined, incubating.GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI],
      ['openai-compatible:groq', undefined, incubating.GEN_AI_PROVIDER_NAME_VALUE_GROQ],
      ['openai-compatible:xai', undefined, incubating.GEN_AI_PROVIDER_NAME_VALUE_X_AI],
      ['openai-compatible:mistral', undefined, incubating.GEN_AI_PROVIDER_NAME_VALUE_MISTRAL_AI],
      [
        'openai-compatible:openai',
        'https://my-res.openai.azure.com/openai/v1',
        incubating.GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_OPENAI,
      ],
      ['deepseek@2025-01', undefined, incubating.GEN_AI_PROVIDER_NAME_VALUE_DEEPSEEK],
    ];
    for (const [id, url, want] of cases) expect(providerName(id, url), id).toBe(want);
    for (const [, , want] of cases) expect(PROVIDER_NAMES).toContain(want);
    // No registry value: the documented lowercase dialect or provider id.
    expect(providerName('openai-compatible:ollama')).toBe('ollama');
    expect(providerName('openai-compatible:openrouter')).toBe('openrouter');
    expect(providerName('My-Relay')).toBe('my-relay');
    expect(providerName('scripted')).toBe('scripted');
  });

  it('the checker fails on what the conventions forbid (a made-up name, the deprecated gen_ai.system, a missing provider, a failure without error.type)', () => {
    const { exporter, options } = memoryTracing();
    const span = options.tracer!.startSpan('chat some-model');
    span.setAttributes({
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'openai',
      'llm.vendor': 'x',
      'gen_ai.request.model': 'some-model',
    });
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    const found = violations(exporter.getFinishedSpans());
    expect(found).toEqual(
      expect.arrayContaining([
        'chat some-model: llm.vendor is not in the registry',
        'chat some-model: deprecated gen_ai.system',
        'chat some-model: gen_ai.provider.name missing',
        'chat some-model: failed without error.type',
      ]),
    );
  });
});

describe('every span of representative runs follows the conventions', () => {
  it('a run with tools that waits for an approval and resumes, and a run with a subagent', async () => {
    const { exporter, options } = memoryTracing(true);
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
    const world = new SandboxWorld({ clock });
    const scripts: FakeScript[] = [
      ...[addToLibraryScript('Dune: Part Two')].flat(),
      {
        match: 'find out',
        steps: [{ toolCalls: [{ capability: 'delegate', input: { goal: 'investigate Dune' } }] }],
        finalText: 'The subagent reported back.',
      },
      {
        match: 'investigate',
        steps: [{ toolCalls: [{ capability: 'tracker.check', input: { title: 'Dune' } }] }],
        finalText: 'Dune is tracked.',
      },
    ];
    const host = sandboxTracingHost(scripts, options, clock, world);
    host.capabilities.register(
      defineCapability({
        id: 'tracker.check',
        version: 1,
        title: 'Check a tracker',
        description: 'Whether a title is tracked.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({ title: Type.String() }),
        output: Type.Object({ tracked: Type.Boolean() }),
        handler: async () => ({ tracked: true }),
      }),
    );
    await host.start();
    hosts.push(host);
    await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'Add Dune: Part Two to the library', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['waiting']);
    await approveRequested(host, await requestedApproval(host, run.id));
    expect((await waitForStatus(host, run.id, TERMINAL, { clock, tickMs: 1000, timeoutMs: 15_000 })).status).toBe(
      'succeeded',
    );
    const sub = await startDuneCheck(host);
    expect((await waitForStatus(host, sub.id, TERMINAL)).status).toBe('succeeded');
    await host.stop();

    const spans = exporter.getFinishedSpans();
    expect(new Set(spans.map(op))).toEqual(new Set(['invoke_agent', 'chat', 'execute_tool', undefined]));
    expect(spans.some((s) => s.name.startsWith('await_approval'))).toBe(true);
    expect(spans.some((s) => s.attributes['media_agent.run.parent_id'] === sub.id)).toBe(true);
    expect(violations(spans)).toEqual([]);
    // The scripted provider has no registry value: its documented name.
    for (const s of spans.filter((x) => op(x) === 'invoke_agent' || op(x) === 'chat'))
      expect(s.attributes['gen_ai.provider.name']).toBe('scripted');
    // Chat and tool spans carry their run's conversation id.
    for (const s of spans.filter((x) => op(x) === 'chat' || op(x) === 'execute_tool'))
      expect(s.attributes['gen_ai.conversation.id']).toBe(parentOf(s, spans)!.attributes['gen_ai.conversation.id']);
    const tool = spans.find((s) => s.attributes['gen_ai.tool.name'] === 'tracker.check')!;
    expect(tool.attributes['gen_ai.tool.description']).toBe('Whether a title is tracked.');
  });

  it('a failed model call (DeepSeek dialect, HTTP 401) and a run woken by a message after it ended (Anthropic, recorded stream)', async () => {
    const { exporter, options } = memoryTracing();
    const failing = await providerHost(
      [
        {
          status: 401,
          body: JSON.stringify({ error: { message: 'Authentication Fails', type: 'authentication_error' } }),
        },
      ],
      options,
      { family: 'openai', dialect: 'deepseek', model: 'deepseek-chat' },
    );
    const failed = await failing.host.startRun({ goal: 'say hi', actor: 'user:admin', mode: 'plan_only' });
    const ended = await waitForStatus(failing.host, failed.id, TERMINAL);
    expect(ended.status).toBe('failed');

    const woken = await providerHost(
      [{ events: transcriptEvents(fixture('anthropic-text.chunks.txt'), 'anthropic') }],
      options,
      {
        family: 'anthropic',
        model: 'claude-sonnet-4-5',
      },
    );
    const first = await woken.host.startRun({ goal: 'say hi', actor: 'user:admin', mode: 'plan_only' });
    expect((await waitForStatus(woken.host, first.id, TERMINAL)).status).toBe('succeeded');
    await woken.host.appendToInbox(first.id, 'and once more', 'user:admin');
    await expect.poll(() => woken.server.requests.length, { timeout: 10_000 }).toBe(2);
    expect((await waitForStatus(woken.host, first.id, TERMINAL)).status).toBe('succeeded');
    await woken.host.stop();
    await failing.host.stop();

    const spans = exporter.getFinishedSpans();
    expect(violations(spans)).toEqual([]);
    const failedChat = spans.find((s) => op(s) === 'chat' && s.attributes['gen_ai.provider.name'] === 'deepseek')!;
    expect(failedChat.status.code).toBe(SpanStatusCode.ERROR);
    expect(failedChat.attributes['error.type']).toBe(ended.error!.code);
    const failedRun = spans.find((s) => op(s) === 'invoke_agent' && s.attributes['media_agent.run.id'] === failed.id)!;
    expect(failedRun.attributes['error.type']).toBe(ended.error!.code);
    expect(failedRun.attributes['gen_ai.provider.name']).toBe('deepseek');
    const wokenRuns = spans.filter((s) => op(s) === 'invoke_agent' && s.attributes['media_agent.run.id'] === first.id);
    expect(wokenRuns.length).toBeGreaterThanOrEqual(2);
    for (const s of wokenRuns) expect(s.attributes['gen_ai.provider.name']).toBe('anthropic');
  });
});
