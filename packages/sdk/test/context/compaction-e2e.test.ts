import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { defineCapability, type AgentHost } from '../../src/index';
import { TiktokenCounter, type ModelMessage } from '../../src/models';
import { runEvents, startHost, waitForStatus } from '../runtime/harness';
import { shelfReadCapability } from '../helpers';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

function paired(messages: ModelMessage[]): boolean {
  const results = new Set(
    messages.filter((m) => m.role === 'tool').map((m) => (m as { toolCallId: string }).toolCallId),
  );
  const calls = messages.flatMap((m) =>
    m.role === 'assistant' ? m.content.filter((p) => p.type === 'tool_call').map((p) => (p as { id: string }).id) : [],
  );
  return calls.every((id) => results.has(id)) && [...results].every((id) => calls.includes(id));
}

describe('compaction through the real runtime (seed 000; issue 6 item 3)', () => {
  it('a long scripted conversation is compacted below the threshold with every tool call still paired with its result, and the plan survives', async () => {
    const window = 6000;
    const plan = { goal: 'survey the library', steps: [{ title: 'read every shelf', status: 'in_progress' as const }] };
    const steps = [
      { toolCalls: [{ capability: 'update_plan', input: plan }] },
      ...Array.from({ length: 30 }, (_, i) => ({
        text: `Reading shelf ${i}. `,
        toolCalls: [{ capability: 'shelf.read', input: { shelf: i } }],
      })),
    ];
    const { host, provider } = await startHost(
      { match: 'survey', steps, finalText: 'Surveyed every shelf.' },
      { runs: { contextWindowTokens: window, budgets: { maxToolCalls: 100 } } },
    );
    hosts.push(host);
    host.capabilities.register(shelfReadCapability());
    const run = await host.startRun({ goal: 'survey the library', mode: 'plan_only', actor: 'user:admin' });
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed', 'budget_exceeded', 'cancelled'], {
      timeoutMs: 15_000,
    });
    expect(done.status).toBe('succeeded');
    const counter = new TiktokenCounter();
    const toolRequests = provider.requests.filter((r) => r.tools && r.tools.length > 0);
    const last = toolRequests.at(-1)!;
    expect(
      last.messages.some(
        (m) => m.role === 'user' && typeof m.content === 'string' && m.content.startsWith('[context summary]'),
      ),
    ).toBe(true);
    for (const r of toolRequests) expect(paired(r.messages)).toBe(true);
    expect(counter.countRequest(last.messages, last.tools, 'scripted')).toBeLessThan(window * 0.8);
    const summary = last.messages.find(
      (m) => m.role === 'user' && typeof m.content === 'string' && m.content.startsWith('[context summary]'),
    )!;
    expect(summary.content).toContain('read every shelf');
    expect(
      (await runEvents(host, run.id)).filter(
        (e) => e.type === 'tool_call' && (e.data as { phase: string }).phase === 'succeeded',
      ),
    ).toHaveLength(31);
    // The summary calls are the run's: they count in its usage (and against its budgets).
    const summaries = provider.requests.filter((r) => !r.tools || r.tools.length === 0).length;
    expect(summaries).toBeGreaterThan(0);
    expect(done.usage.modelCalls).toBe(toolRequests.length + summaries);
  });

  it('a single turn larger than the window is an explicit error, never a silent drop', async () => {
    const { host } = await startHost(
      { match: 'huge', steps: [{ toolCalls: [{ capability: 'huge.read', input: {} }] }], finalText: 'x' },
      { runs: { contextWindowTokens: 2000 } },
    );
    hosts.push(host);
    host.capabilities.register(
      defineCapability({
        id: 'huge.read',
        version: 1,
        title: 'Huge',
        description: 'A big result.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({}),
        output: Type.Object({ text: Type.String() }),
        handler: async () => ({ text: 'word '.repeat(4000) }),
      }),
    );
    const run = await host.startRun({ goal: 'huge read', mode: 'plan_only', actor: 'user:admin' });
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed']);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'CONTEXT_TURN_TOO_LARGE' } });
  });
});
