import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  createAgentHost,
  ManualClock,
  SequentialIdGenerator,
  type AgentHost,
  type RunEvent,
} from '../../src/index';
import { FileSkillStore } from '../../src/skills';
import { MemoryStorage } from '../../src/storage';
import { ScriptedProvider, type FakeScript, listRunEvents, waitForRunStatus } from '../../src/testing';

const doc = (name: string, description: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function start(scripts: FakeScript[]) {
  const dir = mkdtempSync(join(tmpdir(), 'ma-skill-tools-'));
  dirs.push(dir);
  const publicDir = join(dir, 'public');
  mkdirSync(join(publicDir, 'media-download'), { recursive: true });
  writeFileSync(
    join(publicDir, 'media-download', 'SKILL.md'),
    doc('media-download', 'Downloads', 'Use the planner.\n'),
  );
  const provider = new ScriptedProvider({ scripts });
  const host = createAgentHost({
    storage: new MemoryStorage(),
    clock: new ManualClock(Date.UTC(2026, 10, 30, 12)),
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider, model: 'scripted' },
    skills: { dataDir: join(dir, 'data'), publicDir },
    runs: { pollMs: 5, leaseMs: 60_000, refusedTurnPauseMs: 1 },
  });
  await host.start();
  hosts.push(host);
  // The same files, read through a second store instance (what another process would see).
  return { host, provider, store: new FileSkillStore({ dataDir: join(dir, 'data'), publicDir }) };
}

const settled = (events: RunEvent[]) =>
  events.flatMap((e) => (e.type === 'tool_call' && e.data.phase !== 'started' ? [e.data] : []));

describe('skill tools in a run', () => {
  it('a run for a person lists, creates, views and patches their personal skills; the files land in their library', async () => {
    const { host, store } = await start([
      {
        match: 'remember',
        steps: [
          {
            toolCalls: [
              {
                capability: 'skill_manage',
                input: {
                  operations: [
                    {
                      action: 'create',
                      name: 'subtitles',
                      content: doc('subtitles', 'Subtitle rules', '# Subtitles\nPrefer SRT.\n'),
                    },
                    {
                      action: 'write_file',
                      name: 'subtitles',
                      file_path: 'references/codecs.md',
                      file_content: 'SRT\n',
                    },
                  ],
                },
              },
            ],
          },
          {
            toolCalls: [
              {
                capability: 'skill_manage',
                input: {
                  operations: [
                    {
                      action: 'patch',
                      name: 'subtitles',
                      old_string: 'Prefer SRT.',
                      new_string: 'Prefer SRT, then ASS.',
                    },
                  ],
                },
              },
            ],
          },
          {
            toolCalls: [
              { capability: 'skills_list', input: {} },
              { capability: 'skill_view', input: { name: 'subtitles' } },
            ],
          },
          // Bad input never reaches the store: an unknown field, and a public skill is read-only.
          {
            toolCalls: [
              {
                capability: 'skill_manage',
                input: { operations: [{ action: 'delete', name: 'subtitles', force: true }] },
              },
            ],
          },
          {
            toolCalls: [
              {
                capability: 'skill_manage',
                input: {
                  operations: [
                    { action: 'rewrite', name: 'media-download', content: doc('media-download', 'x', 'y\n') },
                  ],
                },
              },
            ],
          },
        ],
        finalText: 'saved',
      },
    ]);
    const run = await host.startRun({ goal: 'remember how I like subtitles', mode: 'plan_only', actor: 'user:alice' });
    await waitForRunStatus(host, run.id, ['succeeded']);
    const calls = settled(await listRunEvents(host, run.id));
    expect(calls.map((c) => [c.capabilityId, c.phase])).toEqual([
      ['skill_manage', 'succeeded'],
      ['skill_manage', 'succeeded'],
      ['skills_list', 'succeeded'],
      ['skill_view', 'succeeded'],
      ['skill_manage', 'failed'],
      ['skill_manage', 'failed'],
    ]);
    expect(calls[2]!.output).toMatchObject({
      skills: [
        { name: 'media-download', source: 'public' },
        { name: 'subtitles', source: 'personal' },
      ],
    });
    expect(calls[3]!.output).toMatchObject({ editable: true, files: ['references/codecs.md'] });
    expect(calls[5]!.error?.code).toBe('SKILL_READ_ONLY');
    expect((await store.view('alice', 'subtitles')).content).toContain('Prefer SRT, then ASS.');
    expect((await store.list('bob')).map((s) => s.name)).toEqual(['media-download']);
    const lib = store.libraryOf('alice');
    const ownership = JSON.parse(readFileSync(join(lib, '.ownership.json'), 'utf8'));
    expect(ownership.subtitles).toMatchObject({
      created_by: 'user',
      pinned: false,
      last_source: { sessionId: run.id },
    });
  });

  it('answers /skills commands from the goal or the inbox without a model call', async () => {
    const { host, provider, store } = await start([{ match: 'hello', finalText: 'hi' }]);
    await store.manage('alice', [{ action: 'create', name: 'mine', content: doc('mine', 'Mine', 'Rules.\n') }], {
      mode: 'foreground',
    });
    const run = await host.startRun({ goal: '/skills pin mine', mode: 'plan_only', actor: 'user:alice' });
    const done = await waitForRunStatus(host, run.id, ['succeeded']);
    expect(done.finalText).toBe('Pinned mine: background learning will not change it.');
    expect(provider.requests).toHaveLength(0);
    const lib = store.libraryOf('alice');
    expect(JSON.parse(readFileSync(join(lib, '.ownership.json'), 'utf8')).mine.pinned).toBe(true);

    await host.appendToInbox(run.id, '/skills unpin mine', 'user:alice');
    await waitForRunStatus(host, run.id, ['succeeded']);
    expect((await host.getRun(run.id)).run.finalText).toBe('Unpinned mine.');
    expect(JSON.parse(readFileSync(join(lib, '.ownership.json'), 'utf8')).mine.pinned).toBe(false);

    const bad = await host.startRun({ goal: '/skills pin media-download', mode: 'plan_only', actor: 'user:alice' });
    expect((await waitForRunStatus(host, bad.id, ['succeeded'])).finalText).toContain('SKILL_READ_ONLY');
    const usage = await host.startRun({ goal: '/skills frobnicate', mode: 'plan_only', actor: 'user:alice' });
    expect((await waitForRunStatus(host, usage.id, ['succeeded'])).finalText).toContain('Usage: /skills');
    expect(provider.requests).toHaveLength(0);
  });

  it('on a host without skills or memory, /skills and /memory commands say so without a model call', async () => {
    const provider = new ScriptedProvider({ scripts: [{ finalText: 'model answer' }] });
    const host = createAgentHost({
      storage: new MemoryStorage(),
      logger: new ConsoleLogger('silent'),
      model: { provider, model: 'scripted' },
      runs: { pollMs: 5 },
    });
    await host.start();
    hosts.push(host);
    for (const [goal, says] of [
      ['/skills pin subtitles', 'Personal skills are not configured'],
      ['/memory pending', 'Memory is not configured'],
    ] as const) {
      const run = await host.startRun({ goal, mode: 'plan_only', actor: 'user:alice' });
      expect((await waitForRunStatus(host, run.id, ['succeeded'])).finalText).toContain(says);
    }
    expect(provider.requests).toHaveLength(0);
    // Anything else still goes to the model.
    const run = await host.startRun({ goal: 'remember my skills', mode: 'plan_only', actor: 'user:alice' });
    expect((await waitForRunStatus(host, run.id, ['succeeded'])).finalText).toBe('model answer');
  });
});
