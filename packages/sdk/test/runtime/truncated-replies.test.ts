// Replies cut by the output limit (OpenAI-compatible `finish_reason: "length"`, Anthropic
// `stop_reason: "max_tokens"`) and calls without arguments, through the real runtime: HTTP providers
// over undici against a local replay server, SQLite storage.
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { defineCapability } from '../../src/index';
import { runEvents, waitForStatus } from './harness';
import { anthropicReply, closeWireHosts, openaiReply, wireHost } from './wire-host';

afterEach(closeWireHosts);

type ToolEvent = { callId: string; capabilityId: string; phase: string; error?: { code: string; message: string } };
const settledCalls = async (host: Parameters<typeof runEvents>[0], runId: string) =>
  (await runEvents(host, runId))
    .filter((e) => e.type === 'tool_call' && (e.data as ToolEvent).phase !== 'started')
    .map((e) => e.data as ToolEvent);

/** A capability whose path is optional: without one it scans every folder (what a cut reply must never cause). */
function libraryScan(scanned: Array<string | undefined>) {
  return defineCapability({
    id: 'library.scan',
    version: 1,
    title: 'Scan library folders',
    description: 'Scans one library folder, or every folder when no path is given.',
    kind: 'read',
    replay: 'safe',
    input: Type.Object({ path: Type.Optional(Type.String()) }),
    output: Type.Object({ scanned: Type.Integer() }),
    handler: async (input) => {
      scanned.push(input.path);
      return { scanned: input.path ? 1 : 240 };
    },
  });
}

describe('a reply cut by the output limit runs none of its calls', () => {
  // earendil-works/pi #6284 (fixed by #6285): a tool call of a `length`-stopped message whose arguments
  // parse and validate was executed; the fix fails every call of such a message and lets the model re-issue.
  // Before: the complete-looking download.submit ran (one job). After: none ran, TOOL_CALL_TRUNCATED, the run went on.
  it('a complete-looking download.submit in a finish_reason "length" reply is not submitted; the model is told and the run continues', async () => {
    const { host, server, world, start } = await wireHost([
      openaiReply({ calls: [{ name: 'download_submit', args: '{"title":"Dune"}' }], finish: 'length' }),
      openaiReply({ text: 'I will not download it after all.', finish: 'stop' }),
    ]);
    await start();
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'download Dune', actor: 'user:admin' });
    const ended = await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    expect(world.jobs).toEqual([]);
    // The drive ended normally (no driver error): the run's outcome is the goal report's, nothing was downloaded.
    expect(ended.error).toBeNull();
    expect(ended.report).toMatchObject({
      facts: { downloads: [] },
      modelText: { text: 'I will not download it after all.' },
    });
    const calls = await settledCalls(host, run.id);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      capabilityId: 'download.submit',
      phase: 'failed',
      error: { code: 'TOOL_CALL_TRUNCATED' },
    });
    expect(calls[0]!.error!.message).toMatch(/output token limit.*again/);
    // The run continued with a second model call that carries the error as the call's result.
    expect(server.requests).toHaveLength(2);
    const second = server.requests[1]!.json as { messages: Array<{ role: string; content?: unknown }> };
    const result = second.messages.find((m) => m.role === 'tool');
    expect(JSON.stringify(result)).toContain('TOOL_CALL_TRUNCATED');
  });

  // The Anthropic side of the same report: `stop_reason: "max_tokens"` after a tool_use block; and a
  // tool_use with no input_json_delta at all (the translator gives "" for it, which read as {} scanned
  // every folder: library.scan's path is optional).
  it('Anthropic max_tokens: neither a complete tool_use nor one without input runs', async () => {
    const scanned: Array<string | undefined> = [];
    const { host, world, start } = await wireHost(
      [
        anthropicReply({
          text: 'Submitting and scanning.',
          calls: [
            { name: 'download_submit', input: ['{"title":', '"Heat"}'] },
            { name: 'library_scan', input: [] },
          ],
          stop: 'max_tokens',
        }),
        anthropicReply({ text: 'Stopping here.', stop: 'end_turn' }),
      ],
      { provider: 'anthropic' },
    );
    host.capabilities.register(libraryScan(scanned));
    await start();
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'download Heat and rescan', actor: 'user:admin' });
    const ended = await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    expect(ended.error).toBeNull();
    expect(world.jobs).toEqual([]);
    expect(scanned).toEqual([]);
    const calls = await settledCalls(host, run.id);
    expect(calls.map((c) => [c.capabilityId, c.phase, c.error?.code])).toEqual([
      ['download.submit', 'failed', 'TOOL_CALL_TRUNCATED'],
      ['library.scan', 'failed', 'TOOL_CALL_TRUNCATED'],
    ]);
  });

  // NousResearch/hermes-agent #7680: with finish_reason "length" and tool_calls present the length check
  // was skipped and truncated arguments processed; retries were unbounded in spirit (3 wasted attempts).
  // Before: every cut reply was dispatched and the run never said why it stopped. After: none dispatched,
  // and the third cut reply in a row ends the run failed with MODEL_OUTPUT_TRUNCATED, visible in events.
  it('three cut replies in a row end the run with MODEL_OUTPUT_TRUNCATED; nothing was submitted', async () => {
    const cut = () => openaiReply({ calls: [{ name: 'download_submit', args: '{"title":"Alien' }], finish: 'length' });
    const { host, server, world, start } = await wireHost(
      [cut(), cut(), cut(), openaiReply({ text: 'x', finish: 'stop' })],
      {
        maxTokens: 64,
      },
    );
    await start();
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'download Alien', actor: 'user:admin' });
    const ended = await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    expect(ended.status).toBe('failed');
    expect(ended.error).toMatchObject({ code: 'MODEL_OUTPUT_TRUNCATED' });
    expect(world.jobs).toEqual([]);
    expect(server.requests).toHaveLength(3);
    const events = await runEvents(host, run.id);
    const warning = events.find(
      (e) => e.type === 'warning' && (e.data as { code: string }).code === 'MODEL_OUTPUT_TRUNCATED',
    );
    expect(warning?.data).toMatchObject({ source: 'runtime', details: { truncatedTurns: 3, maxTokens: 64 } });
    const calls = await settledCalls(host, run.id);
    expect(calls.map((c) => c.error?.code)).toEqual([
      'TOOL_CALL_TRUNCATED',
      'TOOL_CALL_TRUNCATED',
      'MODEL_OUTPUT_TRUNCATED',
    ]);
    expect(calls.every((c) => c.phase !== 'succeeded')).toBe(true);
  });

  it('the count is of cut replies in a row: a complete reply between them resets it', async () => {
    const cut = () => openaiReply({ calls: [{ name: 'inventory_query', args: '{"title":"Al' }], finish: 'length' });
    const whole = openaiReply({
      calls: [{ name: 'inventory_query', args: '{"title":"Arrival"}' }],
      finish: 'tool_calls',
    });
    const { host, server, start } = await wireHost([
      cut(),
      cut(),
      whole,
      cut(),
      cut(),
      openaiReply({ text: 'Arrival is in the library.', finish: 'stop' }),
    ]);
    await start();
    const run = await host.startRun({ goal: 'is Arrival in the library?', mode: 'plan_only', actor: 'user:admin' });
    const ended = await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    expect(ended.error).toBeNull();
    expect(ended.status).toBe('succeeded');
    expect(server.requests).toHaveLength(6);
    const phases = (await settledCalls(host, run.id)).map((c) => c.error?.code ?? c.phase);
    expect(phases).toEqual([
      'TOOL_CALL_TRUNCATED',
      'TOOL_CALL_TRUNCATED',
      'succeeded',
      'TOOL_CALL_TRUNCATED',
      'TOOL_CALL_TRUNCATED',
    ]);
  });
});

describe('a call without arguments', () => {
  // NousResearch/hermes-agent #92264 (and #83937): empty tool arguments passed the dispatch check for a tool
  // whose schema declares required fields, reaching the handler; empty arguments for a tool without
  // required fields must still run. Before: the failure said only "/: must have required property". After:
  // the model is told the call came with no arguments and which fields are required; the handler never ran.
  it('"" for a tool with required fields never reaches the handler; "" for a tool without any runs it with {}', async () => {
    const scanned: Array<string | undefined> = [];
    const { host, world, start } = await wireHost([
      openaiReply({
        calls: [
          { name: 'download_submit', args: '' },
          { name: 'library_scan', args: '' },
        ],
        finish: 'tool_calls',
      }),
      openaiReply({ text: 'Scanned; the download needs a title.', finish: 'stop' }),
    ]);
    host.capabilities.register(libraryScan(scanned));
    await start();
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'rescan and download', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    expect(world.jobs).toEqual([]);
    expect(scanned).toEqual([undefined]);
    const calls = await settledCalls(host, run.id);
    expect(calls[0]).toMatchObject({
      capabilityId: 'download.submit',
      phase: 'failed',
      error: { code: 'TOOL_ARGS_INVALID' },
    });
    expect(calls[0]!.error!.message).toMatch(/no arguments.*requires title/);
    expect(calls[1]).toMatchObject({ capabilityId: 'library.scan', phase: 'succeeded' });
  });
});
