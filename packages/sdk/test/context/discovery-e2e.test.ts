import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { defineCapability, type AgentHost } from '../../src/index';
import type { ModelMessage } from '../../src/models';
import type { ScriptContext } from '../../src/testing';
import { startHost, waitForStatus } from '../runtime/harness';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

const results = (messages: ModelMessage[], name: string) =>
  messages
    .filter((m) => m.role === 'tool' && m.name === name)
    .map((m) => JSON.parse(m.content as string) as Record<string, unknown>);

describe('tool discovery through the real runtime (seed 000, 按需发现工具)', () => {
  it('the first call carries only the selected tools; search_tools finds 整理 → organize, enabled on the next call, and still goes through the invocation path', async () => {
    const { host, provider } = await startHost(
      {
        match: 'inventory',
        steps: [
          { toolCalls: [{ capability: 'search_tools', input: { search: '整理' } }] },
          { toolCalls: [{ capability: 'organize.files', input: { path: '/downloads/Dune' } }] },
        ],
        finalText: 'done',
      },
      { runs: { maxTools: 2 } },
    );
    hosts.push(host);
    for (let i = 0; i < 30; i++) {
      host.capabilities.register(
        defineCapability({
          id: `misc.tool${i}`,
          version: 1,
          title: `Misc ${i}`,
          description: `An unrelated tool number ${i}.`,
          kind: 'read',
          replay: 'safe',
          input: Type.Object({}),
          output: Type.Object({}),
          handler: async () => ({}),
        }),
      );
    }
    host.capabilities.register(
      defineCapability({
        id: 'organize.files',
        version: 1,
        title: 'Organize files',
        description: 'Moves downloaded files into the library.',
        kind: 'execute',
        replay: 'reconcile',
        aliases: ['整理', '入库'],
        input: Type.Object({ path: Type.String() }),
        output: Type.Object({ ok: Type.Boolean() }),
        handler: async () => ({ ok: true }),
      }),
    );
    const run = await host.startRun({ goal: 'check the inventory for Dune', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    const first = provider.requests[0]!.tools!.map((t) => t.name);
    expect(first).toContain('search_tools');
    expect(first).not.toContain('organize.files');
    expect(first.filter((n) => n.startsWith('misc.')).length).toBeLessThanOrEqual(2);
    expect(provider.requests[1]!.tools!.map((t) => t.name)).toContain('organize.files');
    const found = results(provider.requests[1]!.messages, 'search_tools')[0]!;
    expect(JSON.stringify(found.output)).toContain('organize.files');
    // Discovery does not authorize: the agent has no grant, so the organize call is denied.
    expect(results(provider.requests.at(-1)!.messages, 'organize.files')[0]).toMatchObject({ status: 'denied' });
  });
});

describe('large results per run through the real runtime', () => {
  it('the 9th stored result in a run evicts the oldest: reading the first id is a clear error', async () => {
    const read = (i: number) => ({ toolCalls: [{ capability: 'big.read', input: { n: i } }] });
    const { host, provider } = await startHost(
      {
        match: 'nine',
        steps: [
          ...Array.from({ length: 9 }, (_, i) => read(i)),
          {
            toolCalls: (ctx: ScriptContext) => [
              {
                capability: 'read_tool_result',
                input: { result_id: results(ctx.request.messages, 'big.read')[0]!.result_id as string },
              },
            ],
          },
        ],
        finalText: 'done',
      },
      { runs: { compactionThreshold: 0 } },
    );
    hosts.push(host);
    host.capabilities.register(
      defineCapability({
        id: 'big.read',
        version: 1,
        title: 'Big',
        description: 'A big result.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({ n: Type.Integer() }),
        output: Type.Object({ text: Type.String() }),
        handler: async ({ n }) => ({ text: `${n}`.repeat(80_000) }),
      }),
    );
    const run = await host.startRun({ goal: 'nine big reads', mode: 'plan_only', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['succeeded', 'failed']);
    const last = provider.requests.at(-1)!.messages;
    expect(results(last, 'big.read').every((r) => r.truncated === true)).toBe(true);
    expect(results(last, 'read_tool_result')[0]).toMatchObject({
      status: 'failed',
      error: { code: 'TOOL_RESULT_EXPIRED' },
    });
  });
});
