import { trace, type Span, type Tracer } from '@opentelemetry/api';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, defineCapability, ManualClock, type AgentHost } from '../../src/index';
import { MemoryStorage } from '../../src/storage';
import {
  addToLibraryScript,
  SandboxWorld,
  ScriptedProvider,
  type FakeScript,
  approveRequested,
  requestedApproval,
} from '../../src/testing';
import { waitForStatus } from '../runtime/harness';
import { memoryTracing, op, parentOf, sandboxTracingHost, startDuneCheck, TERMINAL } from './span-harness';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

describe('OpenTelemetry GenAI spans of a run', () => {
  it('a scripted run with an approval wait: invoke_agent per processing, chat and execute_tool under it, await_approval; no content', async () => {
    const { exporter, options } = memoryTracing(false);
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
    const world = new SandboxWorld({ clock });
    const host = sandboxTracingHost(addToLibraryScript('Dune: Part Two'), options, clock, world);
    await host.start();
    hosts.push(host);
    await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'Add Dune: Part Two to the library', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['waiting']);
    const asked = await requestedApproval(host, run.id);
    clock.advance(5_000);
    await approveRequested(host, asked);
    expect((await waitForStatus(host, run.id, TERMINAL, { clock, tickMs: 1000, timeoutMs: 15_000 })).status).toBe(
      'succeeded',
    );
    await host.stop();

    const spans = exporter.getFinishedSpans();
    const agents = spans.filter((s) => op(s) === 'invoke_agent');
    // The first processing waits for the approval; a later one resumes after the decision and ends the run.
    expect(agents.length).toBeGreaterThanOrEqual(2);
    // One run, one trace: the first processing is the root, later ones are its children with a link to it.
    expect(agents[0]!.parentSpanContext).toBeUndefined();
    for (const a of agents.slice(1)) {
      expect(a.spanContext().traceId).toBe(agents[0]!.spanContext().traceId);
      expect(a.parentSpanContext?.spanId).toBe(agents[0]!.spanContext().spanId);
      expect(a.links.map((l) => l.context.spanId)).toEqual([agents[0]!.spanContext().spanId]);
    }
    for (const a of agents) {
      expect(a.name).toBe('invoke_agent media-agent');
      expect(a.attributes).toMatchObject({
        'gen_ai.agent.id': run.id,
        'gen_ai.request.model': 'scripted-1',
        'media_agent.run.id': run.id,
        'media_agent.run.mode': 'execute',
      });
    }
    expect(agents[0]!.attributes['media_agent.run.status']).toBe('waiting');
    expect(agents.at(-1)!.attributes['media_agent.run.status']).toBe('succeeded');

    const chats = spans.filter((s) => op(s) === 'chat');
    expect(chats.length).toBeGreaterThanOrEqual(5);
    for (const c of chats) {
      expect(c.name).toBe('chat scripted-1');
      expect(op(parentOf(c, spans)!)).toBe('invoke_agent');
      expect(c.attributes['gen_ai.provider.name']).toBe('scripted');
      expect(c.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(c.attributes['gen_ai.response.finish_reasons']).toEqual([expect.stringMatching(/^(tool_use|end_turn)$/)]);
    }
    expect(chats.at(-1)!.attributes['gen_ai.response.finish_reasons']).toEqual(['end_turn']);

    const tools = spans.filter((s) => op(s) === 'execute_tool');
    for (const t of tools) {
      expect(op(parentOf(t, spans)!)).toBe('invoke_agent');
      expect(t.name).toBe(`execute_tool ${t.attributes['gen_ai.tool.name']}`);
      expect(t.attributes['gen_ai.tool.call.id']).toMatch(/^call_\d+_\d+$/);
    }
    const submits = tools.filter((t) => t.attributes['gen_ai.tool.name'] === 'download.submit');
    expect(submits.map((t) => t.attributes['media_agent.invocation.status'])).toEqual(['denied', 'pending']);
    expect(submits[0]!.attributes).toMatchObject({
      'error.type': 'AUTH_NO_AUTHORIZATION',
      'media_agent.approval.requested_id': asked.approvalId,
      'media_agent.capability.kind': 'execute',
    });
    expect(submits[1]!.attributes['media_agent.idempotency_key']).toMatch(/^download\.submit:v1:/);
    expect(submits[1]!.attributes['media_agent.invocation.id']).toEqual(expect.any(String));

    const waits = spans.filter((s) => s.name === 'await_approval download');
    expect(waits).toHaveLength(1);
    expect(waits[0]!.attributes).toMatchObject({
      'media_agent.approval.id': asked.approvalId,
      'media_agent.approval.status': 'approved',
      'media_agent.plan.id': asked.planId,
    });
    expect(op(parentOf(waits[0]!, spans)!)).toBe('invoke_agent');
    // The wait lasted from the request to the decision (times from the approval record).
    const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;
    expect(ms(waits[0]!.endTime) - ms(waits[0]!.startTime)).toBeGreaterThanOrEqual(5_000);

    // No content unless the host opts in.
    const contentKeys = [
      'gen_ai.input.messages',
      'gen_ai.output.messages',
      'gen_ai.tool.call.arguments',
      'gen_ai.tool.call.result',
    ];
    for (const s of spans) for (const k of contentKeys) expect(s.attributes[k]).toBeUndefined();
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('Dune');
  });

  it('a subagent’s run span is a child of the parent’s delegate call; captured content is redacted (no secret)', async () => {
    const { exporter, options } = memoryTracing(true);
    const SECRET = 'sk-live-8d7f6e5c4b3a';
    const scripts: FakeScript[] = [
      {
        match: 'find out',
        steps: [{ toolCalls: [{ capability: 'delegate', input: { goal: 'investigate Dune' } }] }],
        finalText: 'The subagent reported back.',
      },
      {
        match: 'investigate',
        steps: [{ toolCalls: [{ capability: 'tracker.check', input: { title: 'Dune', apiKey: SECRET } }] }],
        finalText: 'Dune is tracked.',
      },
    ];
    const host = createAgentHost({
      storage: new MemoryStorage(),
      logger: new ConsoleLogger('silent'),
      model: { provider: new ScriptedProvider({ scripts }) },
      runs: { pollMs: 5 },
      tracing: options,
    });
    host.capabilities.register(
      defineCapability({
        id: 'tracker.check',
        version: 1,
        title: 'Check a tracker',
        description: 'Whether a title is tracked.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({ title: Type.String(), apiKey: Type.String() }),
        output: Type.Object({ tracked: Type.Boolean(), echo: Type.String() }),
        handler: async (input) => ({ tracked: true, echo: `token=${input.apiKey}` }),
      }),
    );
    await host.start();
    hosts.push(host);
    const run = await startDuneCheck(host);
    expect((await waitForStatus(host, run.id, TERMINAL)).status).toBe('succeeded');
    await host.stop();

    const spans = exporter.getFinishedSpans();
    const delegate = spans.find((s) => s.attributes['gen_ai.tool.name'] === 'delegate')!;
    expect(op(parentOf(delegate, spans)!)).toBe('invoke_agent');
    const child = spans.find((s) => op(s) === 'invoke_agent' && s.attributes['media_agent.run.parent_id'] === run.id)!;
    expect(child).toBeDefined();
    expect(parentOf(child, spans)).toBe(delegate);
    expect(child.spanContext().traceId).toBe(delegate.spanContext().traceId);
    const check = spans.find((s) => s.attributes['gen_ai.tool.name'] === 'tracker.check')!;
    expect(parentOf(check, spans)).toBe(child);

    // Content is there (opted in), redacted: the arguments, the result and the model's messages.
    expect(JSON.parse(check.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({
      title: 'Dune',
      apiKey: '[REDACTED]',
    });
    expect(check.attributes['gen_ai.tool.call.result']).toContain('[REDACTED]');
    const parentRun = spans.find((s) => op(s) === 'invoke_agent' && s.attributes['media_agent.run.id'] === run.id)!;
    expect(parentRun.attributes['gen_ai.input.messages']).toContain('find out whether Dune is tracked');
    expect(parentRun.attributes['gen_ai.output.messages']).toContain('The subagent reported back.');
    expect(spans.some((s) => op(s) === 'chat' && typeof s.attributes['gen_ai.input.messages'] === 'string')).toBe(true);
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain(SECRET);
  });

  it('without a tracer provider the spans record nothing and get no attributes (the global no-op tracer)', async () => {
    // The global provider's tracer, unregistered: every span it starts is non-recording. Counted, not replaced.
    const global = trace.getTracer('@media-agent/sdk');
    let started = 0;
    let attributeCalls = 0;
    const counting: Tracer = {
      startSpan(name, options, ctx) {
        started++;
        const span = global.startSpan(name, options, ctx);
        return new Proxy(span, {
          get(target, key) {
            if (key === 'setAttribute' || key === 'setAttributes') attributeCalls++;
            const value = Reflect.get(target, key) as unknown;
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          },
        }) as Span;
      },
      startActiveSpan: global.startActiveSpan.bind(global) as Tracer['startActiveSpan'],
    };
    const host = createAgentHost({
      storage: new MemoryStorage(),
      logger: new ConsoleLogger('silent'),
      model: { provider: new ScriptedProvider({ scripts: { match: 'x', finalText: 'ok' } }) },
      runs: { pollMs: 5 },
      tracing: { tracer: counting, captureContent: true },
    });
    await host.start();
    hosts.push(host);
    const run = await host.startRun({ goal: 'x', actor: 'user:admin', mode: 'plan_only' });
    expect((await waitForStatus(host, run.id, TERMINAL)).status).toBe('succeeded');
    expect(started).toBeGreaterThanOrEqual(2); // the run and its model call
    expect(attributeCalls).toBe(0);
  });
});
