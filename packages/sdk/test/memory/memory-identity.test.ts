// Memory: one identity form for a person (user:alice ≡ alice), and typed refusals of wrong-typed arguments
// of the service's and the Markdown store's public methods, before anything is written.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MediaAgentError } from '../../src/core/errors';
import { ManualClock } from '../../src/index';
import { MarkdownMemoryStore, MemoryService, memoryUserKey } from '../../src/memory/index';

let dir: string;
let store: MarkdownMemoryStore;
let memory: MemoryService;
const roles: string[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memory-id-'));
  store = new MarkdownMemoryStore(dir);
  roles.length = 0;
  memory = new MemoryService({
    store,
    clock: new ManualClock(Date.UTC(2026, 11, 1)),
    roleOf: (actor) => {
      roles.push(actor);
      return actor === 'user:admin' ? 'admin' : 'user';
    },
  });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function codeOf(call: () => unknown): Promise<string> {
  try {
    await call();
    return 'resolved';
  } catch (error) {
    if (error instanceof MediaAgentError) return error.code;
    throw error;
  }
}
const tree = (): string[] => readdirSync(dir, { recursive: true }).map(String).sort();

describe('memory identity: user:alice and alice are one person', () => {
  // langchain-ai/memory-template#15: memories saved under one namespace form and read under another were
  // never recalled. Here what one form writes, the other form reads, in the snapshot and in search_memory.
  it('a write through alice is in the snapshot and search of user:alice, and the other way round', async () => {
    await memory.write('alice', { action: 'add', target: 'user', content: 'Prefers 1080p, no HDR' });
    await memory.write('user:alice', { action: 'add', content: 'The NAS is at 10.0.0.5' });
    for (const who of ['alice', 'user:alice']) {
      const snapshot = await memory.snapshot(who);
      expect(snapshot, who).toContain('Prefers 1080p, no HDR');
      expect(snapshot, who).toContain('The NAS is at 10.0.0.5');
      const found = await memory.search(who, { query: 'NAS' });
      expect(JSON.stringify(found), who).toContain('10.0.0.5');
    }
    expect(await memory.snapshot('user:bob')).not.toContain('NAS');
    expect(memoryUserKey('alice')).toBe(memoryUserKey('user:alice'));
  });

  it('memory stored before under user:alice is read through the bare id (the key did not change)', async () => {
    const key = memoryUserKey('user:alice');
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    mkdirSync(join(dir, 'users', key), { recursive: true });
    writeFileSync(join(dir, 'users', key, 'USER.md'), 'Subtitles in English');
    expect(await memory.snapshot('alice')).toContain('Subtitles in English');
  });

  it('proposals staged for alice are listed, shown and approved through user:alice', async () => {
    await memory.write('alice', { action: 'add', content: 'old fact' });
    const staged = (await memory.write(
      'alice',
      { action: 'replace', old_text: 'old fact', content: 'new fact' },
      { background: true },
    )) as { pending_id: string };
    expect((await memory.listProposals('user:alice')).map((p) => p.id)).toEqual([staged.pending_id]);
    expect((await memory.showProposal('user:alice', staged.pending_id)).id).toBe(staged.pending_id);
    await memory.approveProposal('user:alice', staged.pending_id);
    expect(await memory.snapshot('alice')).toContain('new fact');
  });

  it('writeGlobal resolves the role of the actor form: admin and user:admin are one administrator', async () => {
    await memory.writeGlobal('admin', { action: 'add', content: 'Library on /mnt/media' });
    expect(roles).toEqual(['user:admin']);
    expect(await codeOf(() => memory.writeGlobal('apikey:ci', { action: 'add', content: 'x' }))).toBe(
      'MEMORY_FORBIDDEN',
    );
    expect(await memory.snapshot('apikey:ci')).toContain('Library on /mnt/media');
  });

  // langchain-ai/langgraph#7427: an integer user id reached the store's namespace check deep in a run. Here
  // a wrong-typed or malformed person is refused at the entry; other actor kinds keep MEMORY_USER_REQUIRED.
  it('other actor kinds are MEMORY_USER_REQUIRED; malformed and wrong-typed actors PERSON_ID_INVALID; nothing written', async () => {
    const add = { action: 'add', content: 'x' };
    for (const who of ['agent:r1', 'apikey:ci', 'system:cron'])
      expect(await codeOf(() => memory.write(who, add)), who).toBe('MEMORY_USER_REQUIRED');
    for (const who of ['', 'user:', 'user:user:alice', ' alice', 42, null, undefined]) {
      const label = JSON.stringify(who);
      expect(await codeOf(() => memory.write(who as never, add)), label).toBe('PERSON_ID_INVALID');
      expect(await codeOf(() => memory.snapshot(who as never)), label).toBe('PERSON_ID_INVALID');
      expect(await codeOf(() => memory.search(who as never, { query: 'x' })), label).toBe('PERSON_ID_INVALID');
      expect(await codeOf(() => memory.listProposals(who as never)), label).toBe('PERSON_ID_INVALID');
      expect(await codeOf(() => memory.writeGlobal(who as never, add)), label).toBe('PERSON_ID_INVALID');
      expect(await codeOf(() => memory.currentEntries(who as never, 'memory')), label).toBe('PERSON_ID_INVALID');
    }
    expect(tree()).toEqual([]);
  });
});

describe('memory: wrong-typed arguments are refused with a stable code, never a TypeError', () => {
  it('MemoryService', async () => {
    const refused = async (call: () => unknown, code = 'MEMORY_INPUT_INVALID') => expect(await codeOf(call)).toBe(code);
    await refused(() => memory.write('alice', { action: 'add', content: 'x' }, null as never));
    await refused(() => memory.write('alice', { action: 'add', content: 'x' }, { background: 'yes' } as never));
    await refused(() => memory.write('alice', { action: 'add', content: 'x' }, { backgroud: true } as never));
    await refused(() => memory.write('alice', 'add x'));
    await refused(() => memory.showProposal('alice', 42 as never));
    await refused(() => memory.approveProposal('alice', null as never));
    await refused(() => memory.discardProposal('alice', {} as never));
    await refused(() => memory.answerCommand('alice', 42 as never));
    await refused(() => memory.currentEntries('alice', 'notes' as never));
    await refused(() => memory.search('alice', 42));
    expect(tree()).toEqual([]);
    expect(await memory.currentEntries('apikey:ci', 'memory')).toBeUndefined();
  });

  it('MarkdownMemoryStore: scope, file, text, lock function, proposal and path', async () => {
    const user = { kind: 'user' as const, userKey: memoryUserKey('alice') };
    const refused = async (call: () => unknown) => expect(await codeOf(call)).toBe('MEMORY_INPUT_INVALID');
    await refused(() => store.read(null as never, 'MEMORY.md'));
    await refused(() => store.read({ kind: 'users' } as never, 'MEMORY.md'));
    await refused(() => store.read({ kind: 'user', userKey: ['a'.repeat(32)] } as never, 'MEMORY.md'));
    // A file argument never names another path.
    await refused(() => store.read(user, '../../../etc/hostname' as never));
    await refused(() => store.write(user, 'NOTES.md' as never, 'x'));
    await refused(() => store.write(user, 'MEMORY.md', 42 as never));
    await refused(() => store.backup(user, 'USER.md', undefined as never));
    await refused(() => store.withLock(user, undefined as never));
    await refused(() => store.putProposal(user.userKey, 'a'.repeat(32), undefined as never));
    await refused(() => store.readMarkdown(7 as never));
    expect(await codeOf(() => store.getProposal(user.userKey, 42 as never))).toBe('MEMORY_PROPOSAL_NOT_FOUND');
    expect(existsSync(join(dir, 'users'))).toBe(false);
    expect(tree()).toEqual([]);
    for (const root of [undefined, '', 42]) expect(() => new MarkdownMemoryStore(root as never)).toThrow(/dataDir/);
  });
});
