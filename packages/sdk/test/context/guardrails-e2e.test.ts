import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { defineCapability, type AgentHost } from '../../src/index';
import type { ModelMessage } from '../../src/models';
import type { ScriptContext, ScriptStep } from '../../src/testing';
import { runEvents, startHost, waitForStatus } from '../runtime/harness';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

/** A text of `chars` code points mixing CJK, emoji outside the BMP, combining marks and JSON-escaped characters. */
function multibyte(chars: number): string {
  const alphabet = ['沙', '丘', '🎬', '🍿', 'é', 'e\u0301', '"', '\\', '\n', 'a', 'Ж', '𝄞'];
  const out: string[] = [];
  for (let i = 0; i < chars; i++) out.push(alphabet[(i * 7 + (i >> 3)) % alphabet.length]!);
  return out.join('');
}

function toolResults(messages: ModelMessage[], name: string): Array<Record<string, unknown>> {
  return messages
    .filter((m) => m.role === 'tool' && m.name === name)
    .map((m) => JSON.parse(m.content as string) as Record<string, unknown>);
}

async function host(scripts: Parameters<typeof startHost>[0], text: () => string, runs = {}) {
  const started = await startHost(scripts, { runs });
  hosts.push(started.host);
  started.host.capabilities.register(
    defineCapability({
      id: 'logs.read',
      version: 1,
      title: 'Read logs',
      description: 'Returns the whole downloader log.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({}),
      output: Type.Object({ log: Type.String() }),
      handler: async () => ({ log: text() }),
    }),
  );
  started.host.capabilities.register(
    defineCapability({
      id: 'flaky.write',
      version: 1,
      title: 'Flaky write',
      description: 'Always fails.',
      kind: 'execute',
      replay: 'never',
      input: Type.Object({ n: Type.Integer() }),
      output: Type.Object({}),
      handler: async () => {
        throw new Error('the downloader rejected it');
      },
    }),
  );
  await started.host.grants.create({ action: '*', actor: 'user:admin' });
  return started;
}

describe('large tool results through the real runtime (seed 000, 工具结果与大结果续读)', () => {
  it('a 900 KiB result with multi-byte characters reaches the model as a preview and is paged to its end with read_tool_result, matching character for character', {
    timeout: 90_000,
  }, async () => {
    const log = multibyte(360_000);
    const bytes = Buffer.byteLength(JSON.stringify({ log }));
    expect(bytes).toBeGreaterThan(900 * 1024);
    expect(bytes).toBeLessThan(1024 * 1024);
    const readNext: ScriptStep = {
      toolCalls: (ctx: ScriptContext) => {
        const pages = toolResults(ctx.request.messages, 'read_tool_result');
        const first = toolResults(ctx.request.messages, 'logs.read')[0]!;
        const last = pages.at(-1)?.output as { next_offset: number | null } | undefined;
        const next = last ? last.next_offset : (first.next_offset as number);
        return next === null
          ? []
          : [{ capability: 'read_tool_result', input: { result_id: first.result_id, offset: next } }];
      },
    };
    const { host: h, provider } = await host(
      {
        match: 'logs',
        steps: [
          { toolCalls: [{ capability: 'logs.read', input: {} }] },
          ...Array.from({ length: 200 }, () => readNext),
        ],
      },
      () => log,
      { budgets: { maxToolCalls: 500 }, compactionThreshold: 0 },
    );
    const run = await h.startRun({ goal: 'read the logs', mode: 'plan_only', actor: 'user:admin' });

    await waitForStatus(h, run.id, ['succeeded', 'failed', 'budget_exceeded'], { timeoutMs: 60_000 });
    const messages = provider.requests.at(-1)!.messages;
    const stored = toolResults(messages, 'logs.read')[0]!;
    expect(stored).toMatchObject({ truncated: true });
    const pages = toolResults(messages, 'read_tool_result').map(
      (r) => r.output as { text: string; offset: number; next_offset: number | null },
    );
    expect(pages.at(-1)!.next_offset).toBeNull();
    const reassembled =
      (stored.preview as string).length > 0
        ? [...(stored.preview as string)].slice(0, pages[0]!.offset).join('') + pages.map((p) => p.text).join('')
        : pages.map((p) => p.text).join('');
    const original = JSON.parse(reassembled) as { status: string; output: { log: string } };
    expect(original.output.log).toBe(log);
    expect([...original.output.log].length).toBe([...log].length);
  });

  it('a 3 MiB result is refused with the narrow-the-query message and nothing is stored', async () => {
    const { host: h, provider } = await host(
      { match: 'logs', steps: [{ toolCalls: [{ capability: 'logs.read', input: {} }] }], finalText: 'ok' },
      () => 'x'.repeat(3 * 1024 * 1024),
    );
    const run = await h.startRun({ goal: 'read the logs', mode: 'plan_only', actor: 'user:admin' });
    await waitForStatus(h, run.id, ['succeeded', 'failed']);
    const [result] = toolResults(provider.requests.at(-1)!.messages, 'logs.read');
    expect(result).toMatchObject({ status: 'succeeded', error: { code: 'TOOL_RESULT_TOO_LARGE' } });
    expect((result!.error as { message: string }).message).toMatch(/narrow/i);
    expect(JSON.stringify(result)).not.toContain('xxxxxxxxxx');
  });
});

describe('the loop guard through the real runtime (seed 000, 执行纠偏与停止)', () => {
  it('a model repeating a failing call is warned at 2 and blocked at 5', async () => {
    const same = { toolCalls: [{ capability: 'flaky.write', input: { n: 1 } }] };
    const { host: h, provider } = await host(
      { match: 'retry', steps: Array.from({ length: 6 }, () => same), finalText: 'giving up' },
      () => '',
    );
    const run = await h.startRun({ goal: 'retry the write', actor: 'user:admin' });
    await waitForStatus(h, run.id, ['succeeded', 'failed']);
    const results = toolResults(provider.requests.at(-1)!.messages, 'flaky.write');
    expect(results[0]!.guard).toBeUndefined();
    expect(results[1]!.guard).toEqual([expect.objectContaining({ level: 'warn', code: 'LOOP_SAME_CALL_FAILING' })]);
    expect(results[4]!.error).toMatchObject({ code: 'HANDLER_FAILED' }); // the 5th attempt still runs and fails
    expect(results[5]).toMatchObject({ status: 'failed', error: { code: 'LOOP_SAME_CALL_FAILING' } }); // after 5 failures: blocked
    const phases = (await runEvents(h, run.id))
      .filter((e) => e.type === 'tool_call' && (e.data as { capabilityId: string }).capabilityId === 'flaky.write')
      .map((e) => (e.data as { phase: string }).phase);
    expect(phases.filter((p) => p === 'blocked').length).toBeGreaterThanOrEqual(1);
    expect(phases.filter((p) => p === 'failed').length).toBe(5);
  });

  it('a 2-step cycle is detected', async () => {
    const a = { toolCalls: [{ capability: 'logs.read', input: {} }] };
    const b = {
      toolCalls: [
        { capability: 'update_plan', input: { goal: 'g', steps: [{ title: 'look', status: 'in_progress' }] } },
      ],
    };
    const { host: h, provider } = await host(
      { match: 'cycle', steps: [a, b, a, b, a, b], finalText: 'done' },
      () => 'same log',
    );
    const run = await h.startRun({ goal: 'cycle around', mode: 'plan_only', actor: 'user:admin' });
    await waitForStatus(h, run.id, ['succeeded', 'failed']);
    const all = provider.requests
      .at(-1)!
      .messages.filter((m) => m.role === 'tool')
      .map((m) => JSON.parse(m.content as string) as { guard?: Array<{ code: string }> });
    expect(all.some((r) => r.guard?.some((g) => g.code === 'LOOP_CYCLE'))).toBe(true);
  });

  it('a background run is stopped by the guard, and the run ends failed with the reason', async () => {
    const same = { toolCalls: [{ capability: 'flaky.write', input: { n: 1 } }] };
    const { host: h } = await host(
      { match: 'retry', steps: Array.from({ length: 8 }, () => same), finalText: 'giving up' },
      () => '',
    );
    const run = await h.startRun({ goal: 'retry the write', actor: 'system:cron', origin: 'background' });
    const done = await waitForStatus(h, run.id, ['succeeded', 'failed']);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toMatch(/^LOOP_/);
  });

  it('a reply that announces a next action without calling a tool gets a continuation prompt', async () => {
    const { host: h, provider } = await host(
      {
        match: 'announce',
        steps: [{ text: 'Next I will check the logs.' }, { toolCalls: [{ capability: 'logs.read', input: {} }] }],
        finalText: 'Logs look fine.',
      },
      () => 'fine',
    );
    const run = await h.startRun({ goal: 'announce and act', mode: 'plan_only', actor: 'user:admin' });
    const done = await waitForStatus(h, run.id, ['succeeded', 'failed']);
    expect(done.finalText).toBe('Logs look fine.');
    expect(provider.requests).toHaveLength(3);
  });
});
