// The skill store: one identity form for a person (user:alice ≡ alice), and typed refusals of malformed
// arguments before any I/O.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, ManualClock, SequentialIdGenerator, type AgentHost } from '../../src/index';
import { MediaAgentError } from '../../src/core/errors';
import { FileSkillStore } from '../../src/skills/file-skill-store';
import { createSkillReadLog } from '../../src/skills/skill-read-log';
import { MemoryStorage } from '../../src/storage';
import { listRunEvents, ScriptedProvider, waitForRunStatus } from '../../src/testing';

const doc = (name: string, description: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

let dir: string;
let store: FileSkillStore;
const hosts: AgentHost[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'skills-id-'));
  store = new FileSkillStore({ dataDir: join(dir, 'data'), lockWaitMs: 300 });
});
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function codeOf(call: () => unknown): Promise<string> {
  try {
    await call();
    return 'resolved';
  } catch (error) {
    if (error instanceof MediaAgentError) return error.code;
    throw error;
  }
}
async function refusal(call: () => unknown): Promise<MediaAgentError> {
  try {
    await call();
  } catch (error) {
    expect(error).toBeInstanceOf(MediaAgentError);
    return error as MediaAgentError;
  }
  throw new Error('resolved');
}
/** Every file under the data directory (nothing may appear after a refused call). */
const files = (): string[] =>
  (existsSync(join(dir, 'data')) ? readdirSync(join(dir, 'data'), { recursive: true }) : []).map(String);

const create = (name: string) => ({ action: 'create' as const, name, content: doc(name, `About ${name}`, 'Body.\n') });
const FG = { mode: 'foreground' as const };

describe('skill store identity: user:alice and alice are one library', () => {
  // langchain-ai/memory-template#15: written under one namespace form, read under another, never seen.
  it('what manage writes through user:alice is listed and viewed through alice, and the other way round', async () => {
    await store.manage('user:alice', [create('subtitles')], FG);
    await store.manage('alice', [create('codecs')], FG);
    for (const who of ['alice', 'user:alice']) {
      expect((await store.list(who)).map((s) => s.name).sort(), who).toEqual(['codecs', 'subtitles']);
      expect((await store.view(who, 'subtitles')).content, who).toContain('About subtitles');
    }
    expect(store.libraryOf('user:alice')).toBe(store.libraryOf('alice'));
    expect(await store.list('bob')).toEqual([]);
    expect(await store.command('user:alice', { verb: 'pin', name: 'codecs' })).toMatch(/^Pinned codecs/);
    const ownership = JSON.parse(readFileSync(join(store.libraryOf('alice'), '.ownership.json'), 'utf8'));
    expect(ownership.codecs.pinned).toBe(true);
  });

  it("what manage('user:alice') writes is what alice's run sees through skills_list and skill_view", async () => {
    const provider = new ScriptedProvider({
      scripts: [
        {
          match: 'skills',
          steps: [
            {
              toolCalls: [
                { capability: 'skills_list', input: {} },
                { capability: 'skill_view', input: { name: 'subtitles' } },
              ],
            },
          ],
          finalText: 'seen',
        },
      ],
    });
    const host = createAgentHost({
      storage: new MemoryStorage(),
      clock: new ManualClock(Date.UTC(2026, 10, 30, 12)),
      ids: new SequentialIdGenerator(),
      logger: new ConsoleLogger('silent'),
      model: { provider, model: 'scripted' },
      skills: { dataDir: join(dir, 'data') },
      runs: { pollMs: 5, leaseMs: 60_000, refusedTurnPauseMs: 1 },
    });
    await host.start();
    hosts.push(host);
    await store.manage('user:alice', [create('subtitles')], FG);
    const run = await host.startRun({ goal: 'which skills do I have', mode: 'plan_only', actor: 'user:alice' });
    await waitForRunStatus(host, run.id, ['succeeded']);
    const outputs = (await listRunEvents(host, run.id)).flatMap((e) =>
      e.type === 'tool_call' && e.data.phase === 'succeeded' ? [e.data.output] : [],
    );
    expect(outputs[0]).toMatchObject({ skills: [{ name: 'subtitles', source: 'personal' }] });
    expect(outputs[1]).toMatchObject({ name: 'subtitles', editable: true });
  });

  it('refuses other actor kinds, empty and wrong-typed ids with PERSON_ID_INVALID, creating no folder', async () => {
    for (const who of ['agent:run-1', 'apikey:ci', 'system:cron', '', 'user:', 'user:user:alice', 42, null]) {
      const label = JSON.stringify(who);
      expect(await codeOf(() => store.manage(who as never, [create('x')], FG)), label).toBe('PERSON_ID_INVALID');
      expect(await codeOf(() => store.list(who as never)), label).toBe('PERSON_ID_INVALID');
      expect(await codeOf(() => store.view(who as never, 'x')), label).toBe('PERSON_ID_INVALID');
      expect(await codeOf(() => store.command(who as never, { verb: 'pin', name: 'x' })), label).toBe(
        'PERSON_ID_INVALID',
      );
    }
    expect(files()).toEqual([]);
  });
});

describe('skill store: typed refusals of malformed arguments, before any I/O', () => {
  it('manage without its context argument is SKILL_INPUT_INVALID naming context', async () => {
    const e = await refusal(() => store.manage('alice', [create('x')], undefined as never));
    expect(e.code).toBe('SKILL_INPUT_INVALID');
    expect(e.message).toMatch(/^context is required: \{ mode: 'foreground' \| 'background'/);
    for (const context of [
      { mode: 'foregound' },
      { mode: 'foreground', canceled: () => true },
      { mode: 'background', reads: {} },
    ])
      expect(await codeOf(() => store.manage('alice', [create('x')], context as never)), JSON.stringify(context)).toBe(
        'SKILL_INPUT_INVALID',
      );
    expect(files()).toEqual([]);
  });

  // odysseus-dev/odysseus#5604: a manage_skills call without an action silently did something else; here an
  // unknown or missing action is refused with the accepted actions.
  it('an unknown or missing action names operations[i].action and the accepted actions', async () => {
    const e = await refusal(() =>
      store.manage('alice', [create('ok'), { action: 'crate', name: 'x', content: 'y' } as never], FG),
    );
    expect(e.code).toBe('SKILL_INPUT_INVALID');
    expect(e.message).toBe(
      'operations[1].action must be one of create, patch, rewrite, edit, write_file, remove_file, delete; got "crate"',
    );
    expect(e.details).toMatchObject({ argument: 'operations[1].action' });
    expect((await refusal(() => store.manage('alice', [{ name: 'x' } as never], FG))).message).toMatch(
      /^operations\[0\]\.action must be one of .*; got nothing$/,
    );
    expect(await codeOf(() => store.manage('alice', [null as never], FG))).toBe('SKILL_INPUT_INVALID');
    expect(files()).toEqual([]);
  });

  // NousResearch/hermes-agent#33064: skill_manage patch sent without old_string (a `patch` payload instead)
  // failed in a way the model could not act on. Here a misspelt or missing patch field is refused, named,
  // with the fields patch takes — and the skill is untouched (before: a bare TypeError from the matcher).
  it('misspelt or missing patch fields are refused by name; the skill is unchanged', async () => {
    await store.manage('alice', [create('subtitles')], FG);
    const before = readFileSync(join(store.libraryOf('alice'), 'subtitles', 'SKILL.md'), 'utf8');
    const misspelt = await refusal(() =>
      store.manage('alice', [{ action: 'patch', name: 'subtitles', old_str: 'Body.', new_str: 'New.' } as never], FG),
    );
    expect(misspelt.code).toBe('SKILL_INPUT_INVALID');
    expect(misspelt.message).toBe(
      'operations[0].old_str is not a field of patch (patch takes name, old_string, new_string, file_path?, replace_all?)',
    );
    const missing = await refusal(() =>
      store.manage('alice', [{ action: 'patch', name: 'subtitles', new_string: 'New.' } as never], FG),
    );
    expect(missing.message).toMatch(/^operations\[0\]\.old_string is required and must be a string; got nothing/);
    const typed = await refusal(() =>
      store.manage(
        'alice',
        [{ action: 'patch', name: 'subtitles', old_string: 'Body.', new_string: 'New.', replace_all: 'yes' } as never],
        FG,
      ),
    );
    expect(typed.message).toMatch(/^operations\[0\]\.replace_all when given, must be a boolean; got "yes"/);
    expect(
      await codeOf(() =>
        store.manage('alice', [{ action: 'write_file', name: 'subtitles', file_path: 'references/a.md' } as never], FG),
      ),
    ).toBe('SKILL_INPUT_INVALID');
    expect(readFileSync(join(store.libraryOf('alice'), 'subtitles', 'SKILL.md'), 'utf8')).toBe(before);
    // The well-formed patch still goes through.
    await store.manage('alice', [{ action: 'patch', name: 'subtitles', old_string: 'Body.', new_string: 'New.' }], FG);
    expect(readFileSync(join(store.libraryOf('alice'), 'subtitles', 'SKILL.md'), 'utf8')).toContain('New.');
  });

  it('view and command refuse wrong-typed arguments with a stable code, never a TypeError', async () => {
    await store.manage('alice', [create('subtitles')], FG);
    expect(await codeOf(() => store.view('alice', 42 as never))).toBe('SKILL_NAME_INVALID');
    expect(await codeOf(() => store.view('alice', 'subtitles', 7 as never))).toBe('SKILL_PATH_INVALID');
    expect(await codeOf(() => store.view('alice', 'subtitles', undefined, {} as never))).toBe('SKILL_INPUT_INVALID');
    expect(await codeOf(() => store.view('alice', 'subtitles', undefined, createSkillReadLog()))).toBe('resolved');
    expect(await codeOf(() => store.command('alice', undefined as never))).toBe('SKILL_INPUT_INVALID');
    expect(await codeOf(() => store.command('alice', { verb: 'pinn', name: 'subtitles' } as never))).toBe(
      'SKILL_INPUT_INVALID',
    );
    expect(await codeOf(() => store.command('alice', { verb: 'pin', name: 3 } as never))).toBe('SKILL_NAME_INVALID');
    expect(await codeOf(() => store.manage('alice', 'create' as never, FG))).toBe('SKILL_BATCH_INVALID');
  });

  it('the store refuses options of the wrong type when it is made', () => {
    for (const options of [
      undefined,
      { dataDir: 42 },
      { dataDir: '' },
      { dataDir: dir, publicDir: [1] },
      { dataDir: dir, lockWaitMs: '5s' },
      { dataDir: dir, now: new Date() },
    ]) {
      let code = 'accepted';
      try {
        new FileSkillStore(options as never);
      } catch (error) {
        code = error instanceof MediaAgentError ? error.code : String(error);
      }
      expect(code, JSON.stringify(options)).toBe('SKILL_INPUT_INVALID');
    }
  });
});
