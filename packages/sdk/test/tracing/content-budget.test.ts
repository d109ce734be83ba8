// docs/architecture.md#traces — "A messages attribute stays within 16 KiB: the oldest messages are left
// out first …, the newest never." An assistant turn with many parallel tool calls is one message over 16 KiB:
// gen_ai.output.messages (and the next call's newest input message) are recorded far over the budget.
import Type from 'typebox';
import { afterEach, expect, it } from 'vitest';
import { defineCapability, type AgentHost } from '../../src/index';
import { CONTENT_BUDGET_BYTES } from '../../src/runtime/tracing/message-content';
import type { FakeScript } from '../../src/testing';
import { waitForStatus } from '../runtime/harness';
import { memoryTracing, op, scriptedTracingHost } from './span-harness';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

it('one assistant message with 60 parallel tool calls keeps gen_ai.output.messages within the 16 KiB budget', async () => {
  const { exporter, options } = memoryTracing(true);
  const calls = Array.from({ length: 60 }, (_, i) => ({
    capability: 'library.note',
    input: { page: i, note: `page ${i} `.padEnd(250, 'n') },
  }));
  const scripts: FakeScript[] = [{ match: 'annotate', steps: [{ toolCalls: calls }], finalText: 'Annotated.' }];
  const host = scriptedTracingHost(scripts, options);
  host.capabilities.register(
    defineCapability({
      id: 'library.note',
      version: 1,
      title: 'Note a page',
      description: 'Notes a page.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({ page: Type.Number(), note: Type.String() }),
      output: Type.Object({ ok: Type.Boolean() }),
      handler: async () => ({ ok: true }),
    }),
  );
  await host.start();
  hosts.push(host);
  const run = await host.startRun({ goal: 'annotate every page', actor: 'user:admin', mode: 'plan_only' });
  await waitForStatus(host, run.id, ['succeeded', 'failed', 'cancelled', 'budget_exceeded']);
  await host.stop();
  const chats = exporter.getFinishedSpans().filter((s) => op(s) === 'chat');
  expect(chats.length).toBeGreaterThan(0);
  for (const c of chats) {
    for (const key of ['gen_ai.input.messages', 'gen_ai.output.messages']) {
      const value = c.attributes[key] as string | undefined;
      if (value === undefined) continue;
      expect(() => JSON.parse(value), key).not.toThrow();
      // got: gen_ai.output.messages of the first call is 20 680 bytes (one message, 60 tool_call parts)
      expect(Buffer.byteLength(value), `${c.name} ${key}`).toBeLessThanOrEqual(CONTENT_BUDGET_BYTES);
    }
  }
});
