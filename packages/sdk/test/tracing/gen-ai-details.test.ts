// What the chat and invoke_agent spans say about real provider calls (Anthropic and OpenAI-compatible
// providers over undici against a local replay server of recorded streams), and the content attributes.
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { defineCapability, type AgentHost } from '../../src/index';
import { transcriptEvents, type FakeScript } from '../../src/testing';
import { CONTENT_BUDGET_BYTES } from '../../src/runtime/tracing/message-content';
import { fixture } from '../models/helpers';
import { waitForStatus } from '../runtime/harness';
import {
  closeProviderHosts,
  memoryTracing,
  op,
  parentOf,
  providerHost,
  scriptedTracingHost,
  TERMINAL,
  violations,
} from './span-harness';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  await closeProviderHosts();
});

const schema = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/semconv/${name}`, import.meta.url), 'utf8')) as object;

describe('chat spans of real provider calls', () => {
  // open-telemetry/semantic-conventions#3163: gen_ai.usage.input_tokens MUST include cached tokens (reads and
  // writes); Anthropic reports them apart (pydantic/logfire#1812 fixed the same undercount). Before: 12 → after: 2312.
  it('semantic-conventions#3163 (Anthropic): input_tokens include cache reads and writes, each also on its own; the raw stop_reason, response id and model, server address', async () => {
    const { exporter, options } = memoryTracing();
    const recorded = fixture('anthropic-text.chunks.txt')
      .replaceAll('"cache_read_input_tokens":0', '"cache_read_input_tokens":2000')
      .replaceAll('"cache_creation_input_tokens":0', '"cache_creation_input_tokens":300');
    const { host, server } = await providerHost([{ events: transcriptEvents(recorded, 'anthropic') }], options, {
      family: 'anthropic',
      model: 'claude-sonnet-4-5',
    });
    const run = await host.startRun({ goal: 'say hi', actor: 'user:admin', mode: 'plan_only' });
    expect((await waitForStatus(host, run.id, TERMINAL)).status).toBe('succeeded');
    await host.stop();
    const spans = exporter.getFinishedSpans();
    const chat = spans.find((s) => op(s) === 'chat')!;
    expect(chat.attributes).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.usage.input_tokens': 12 + 2000 + 300,
      'gen_ai.usage.cache_read.input_tokens': 2000,
      'gen_ai.usage.cache_creation.input_tokens': 300,
      'gen_ai.usage.output_tokens': 30,
      'gen_ai.response.finish_reasons': ['end_turn'],
      'gen_ai.response.id': 'msg_01QC4g3HwBThD4BaNtBckFDJ',
      'gen_ai.response.model': 'claude-sonnet-4-5-20250929',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(server.url).port),
    });
    // The run span's totals are its model calls' (cached tokens counted once).
    const agent = parentOf(chat, spans)!;
    expect(agent.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.usage.input_tokens': 2312,
      'gen_ai.usage.cache_read.input_tokens': 2000,
      'gen_ai.usage.output_tokens': 30,
    });
    expect(violations(spans)).toEqual([]);
  });

  // The provider name was our provider id with its dialect (`openai-compatible:deepseek`), not the registry's
  // `deepseek`; OpenAI-style prompt_tokens already include cached_tokens (339 with 320 cached): not added twice.
  it('DeepSeek dialect: gen_ai.provider.name deepseek; input_tokens = prompt_tokens (cached inside, not doubled); finish reasons tool_calls then stop as sent', async () => {
    const { exporter, options } = memoryTracing();
    const { host } = await providerHost(
      [
        { events: transcriptEvents(fixture('deepseek-tool-call.chunks.txt'), 'openai') },
        { events: transcriptEvents(fixture('openai-text.chunks.txt'), 'openai') },
      ],
      options,
      { family: 'openai', dialect: 'deepseek', model: 'deepseek-reasoner' },
    );
    const run = await host.startRun({ goal: 'what is the weather', actor: 'user:admin', mode: 'plan_only' });
    await waitForStatus(host, run.id, TERMINAL);
    await host.stop();
    const spans = exporter.getFinishedSpans();
    const chats = spans.filter((s) => op(s) === 'chat');
    expect(chats.length).toBe(2);
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.provider.name': 'deepseek',
      'gen_ai.usage.input_tokens': 339,
      'gen_ai.usage.cache_read.input_tokens': 320,
      'gen_ai.usage.output_tokens': 83,
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'gen_ai.response.id': 'cca85624-4056-401f-b220-d77601d1f70d',
      'gen_ai.response.model': 'deepseek-reasoner',
    });
    expect(chats[1]!.attributes).toMatchObject({
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.response.id': 'chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0',
      'gen_ai.usage.input_tokens': 16,
    });
    const agent = spans.find((s) => op(s) === 'invoke_agent')!;
    expect(agent.attributes['gen_ai.provider.name']).toBe('deepseek');
    expect(agent.attributes['gen_ai.usage.input_tokens']).toBe(339 + 16);
    expect(violations(spans)).toEqual([]);
  });
});

describe('content attributes (captureContent)', () => {
  it('input, output and system instructions in the conventions’ parts shape (valid against their JSON schemas); a long conversation drops its oldest messages, never the newest', async () => {
    const { exporter, options } = memoryTracing(true);
    const steps = Array.from({ length: 12 }, (_, i) => ({
      toolCalls: [{ capability: 'library.page', input: { page: i } }],
    }));
    const scripts: FakeScript[] = [{ match: 'list the library', steps, finalText: 'Listed every page.' }];
    const host = scriptedTracingHost(scripts, options);
    host.capabilities.register(
      defineCapability({
        id: 'library.page',
        version: 1,
        title: 'A library page',
        description: 'One page of the library.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({ page: Type.Number() }),
        output: Type.Object({ titles: Type.Array(Type.String()) }),
        // 20 titles of 200 characters: about 4 KB a result, so 12 results are well over the budget.
        handler: async (input) => ({
          titles: Array.from({ length: 20 }, (_, i) => `page ${input.page} title ${i} `.padEnd(200, 'x')),
        }),
      }),
    );
    await host.start();
    hosts.push(host);
    const run = await host.startRun({ goal: 'list the library, page by page', actor: 'user:admin', mode: 'plan_only' });
    expect((await waitForStatus(host, run.id, TERMINAL)).status).toBe('succeeded');
    await host.stop();

    const ajv = new Ajv({ strict: false });
    const validInput = ajv.compile(schema('gen-ai-input-messages.json'));
    const validOutput = ajv.compile(schema('gen-ai-output-messages.json'));
    const spans = exporter.getFinishedSpans();
    const chats = spans.filter((s) => op(s) === 'chat');
    expect(chats.length).toBe(13);
    for (const c of chats) {
      const input = JSON.parse(c.attributes['gen_ai.input.messages'] as string) as unknown;
      const output = JSON.parse(c.attributes['gen_ai.output.messages'] as string) as unknown;
      expect(validInput(input), JSON.stringify(validInput.errors)).toBe(true);
      expect(validOutput(output), JSON.stringify(validOutput.errors)).toBe(true);
      expect(Buffer.byteLength(c.attributes['gen_ai.input.messages'] as string)).toBeLessThanOrEqual(
        CONTENT_BUDGET_BYTES,
      );
      const system = JSON.parse(c.attributes['gen_ai.system_instructions'] as string) as Array<{
        type: string;
        content: string;
      }>;
      expect(system[0]!.type).toBe('text');
      expect(system[0]!.content.length).toBeGreaterThan(0);
    }
    // The first call sees the goal; the last sees the newest tool result (page 11) but no longer the goal.
    const first = JSON.parse(chats[0]!.attributes['gen_ai.input.messages'] as string) as Array<{
      role: string;
      parts: Array<Record<string, unknown>>;
    }>;
    expect(first).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'list the library, page by page' }] }]);
    const last = chats.at(-1)!;
    const lastInput = JSON.parse(last.attributes['gen_ai.input.messages'] as string) as typeof first;
    expect(last.attributes['media_agent.gen_ai.messages.dropped']).toBeGreaterThan(0);
    expect(JSON.stringify(lastInput)).not.toContain('list the library, page by page');
    const newest = lastInput.at(-1)!;
    expect(newest.role).toBe('tool');
    expect(newest.parts[0]).toMatchObject({ type: 'tool_call_response' });
    expect(JSON.stringify(newest.parts[0]!.response)).toContain('page 11 title');
    const calls = lastInput.filter((m) => m.role === 'assistant').flatMap((m) => m.parts);
    expect(calls.at(-1)).toMatchObject({ type: 'tool_call', name: 'library.page', arguments: { page: 11 } });
    // Output: the tool call, then the final text, with the conventions' finish reasons.
    expect(JSON.parse(chats[0]!.attributes['gen_ai.output.messages'] as string)).toEqual([
      expect.objectContaining({ role: 'assistant', finish_reason: 'tool_call' }),
    ]);
    expect(JSON.parse(last.attributes['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Listed every page.' }], finish_reason: 'stop' },
    ]);
    expect(violations(spans)).toEqual([]);
  });
});
