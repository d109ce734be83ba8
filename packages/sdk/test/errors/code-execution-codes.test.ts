// execute_code reports the same code as host.invoke for the same failure inside a cell, and the paths of a
// non-administrator end with the codes docs/code-execution.md names.
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  ManualClock,
  SequentialIdGenerator,
  createAgentHost,
  defineCapability,
  type AgentHost,
} from '../../src/index';
import type { ModelMessage } from '../../src/models';
import { MemoryStorage } from '../../src/storage';
import { ScriptedProvider, waitForRunStatus, type ScriptStep } from '../../src/testing';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

/** One run whose model plays `steps`; a `read` capability `library.page` counts its handler calls. */
async function play(steps: ScriptStep[], actor: string, roleOf: (actor: string) => 'admin' | 'user') {
  const calls = { page: 0 };
  const provider = new ScriptedProvider({ scripts: [{ match: 'library', steps, finalText: 'done' }] });
  const host = createAgentHost({
    storage: new MemoryStorage(),
    clock: new ManualClock(Date.UTC(2026, 10, 30, 12)),
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    identity: { roleOf },
    model: { provider, model: 'scripted' },
    runs: { pollMs: 5, leaseMs: 600_000, refusedTurnPauseMs: 1, code: { cpuMs: 2_000 } },
  });
  hosts.push(host);
  host.capabilities.register(
    defineCapability({
      id: 'library.page',
      version: 1,
      title: 'Library page',
      description: 'One page of library titles.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({ page: Type.Integer({ minimum: 1 }) }),
      output: Type.Object({ items: Type.Array(Type.String()) }),
      handler: async () => {
        calls.page++;
        return { items: ['Dune'] };
      },
    }),
  );
  await host.start();
  const run = await host.startRun({ goal: 'check the library', actor: actor as 'user:admin' });
  await waitForRunStatus(host, run.id, ['succeeded', 'failed', 'waiting'], { timeoutMs: 30_000 });
  const cells = provider.requests
    .at(-1)!
    .messages.filter((m): m is Extract<ModelMessage, { role: 'tool' }> => m.role === 'tool')
    .map((m) => JSON.parse(m.content as string) as Record<string, any>);
  return { host, provider, cells, calls };
}

const cell = (code: string): ScriptStep => ({ toolCalls: [{ capability: 'execute_code', input: { code } }] });
const admin = () => 'admin' as const;

describe('execute_code error codes', () => {
  it("a capability's invalid input inside a cell is INPUT_INVALID, as host.invoke says for the same input", async () => {
    const { host, cells, calls } = await play(
      [cell("try { await tools.library.page({ page: 'one' }) } catch (e) { console.log(e.code, e.retryable) }")],
      'user:admin',
      admin,
    );
    const direct = await host.invoke('library.page', { page: 'one' }, { actor: 'user:admin' }).catch((e) => e);
    expect(direct).toMatchObject({ code: 'INPUT_INVALID' });
    expect(cells[0]!.output).toMatchObject({ stdout: 'INPUT_INVALID false\n', tool_error_count: 1 });
    expect(cells[0]!.output.tool_errors[0]).toMatchObject({ capability: 'library.page', code: direct.code });
    expect(cells[0]!.output.tool_errors[0].message).toContain('/page');
    expect(calls.page).toBe(0);
  });

  it('a run acting for a non-administrator is not offered the tool; its model calling it anyway gets TOOL_UNKNOWN', async () => {
    const { provider, cells, calls } = await play(
      [cell('await tools.library.page({ page: 1 })')],
      'user:bob',
      () => 'user',
    );
    expect(provider.requests[0]!.tools!.map((t) => t.name)).not.toContain('execute_code');
    expect(cells[0]).toMatchObject({ status: 'failed', error: { code: 'TOOL_UNKNOWN' } });
    expect(calls.page).toBe(0);
  });

  it('offered, then the person is no longer an administrator when the call comes: CODE_ADMIN_ONLY, nothing ran', async () => {
    let demoted = false;
    const step: ScriptStep = {
      toolCalls: [
        {
          capability: 'execute_code',
          input: () => {
            demoted = true; // between the offer (drive start) and the call
            return { code: 'await tools.library.page({ page: 1 })' };
          },
        },
      ],
    };
    const { provider, cells, calls } = await play([step], 'user:alice', () => (demoted ? 'user' : 'admin'));
    expect(provider.requests[0]!.tools!.map((t) => t.name)).toContain('execute_code');
    expect(cells[0]).toMatchObject({ status: 'failed', error: { code: 'CODE_ADMIN_ONLY' } });
    expect(calls.page).toBe(0);
  });
});
