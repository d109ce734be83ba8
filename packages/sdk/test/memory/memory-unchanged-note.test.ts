import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ManualClock } from '../../src/index';
import { MarkdownMemoryStore, MemoryService, type MemoryWriteResult } from '../../src/memory/index';

let dir: string;
let memory: MemoryService;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memory-note-'));
  memory = new MemoryService({
    store: new MarkdownMemoryStore(dir),
    clock: new ManualClock(Date.UTC(2026, 11, 1)),
    roleOf: () => 'user',
  });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('adding an entry already in memory says nothing changed, not "Memory updated"', async () => {
  const add = { action: 'add', target: 'user', content: 'Prefers 1080p, no HDR' };
  const first = (await memory.write('user:alice', add)) as MemoryWriteResult;
  expect(first).toMatchObject({ changed: true, entry_count: 1 });
  expect(first.note).toMatch(/^Memory updated/);

  const again = (await memory.write('user:alice', add)) as MemoryWriteResult;
  expect(again).toMatchObject({ success: true, changed: false, entry_count: 1 });
  expect(again.note).toMatch(/^Already in memory; nothing changed/);
  expect(again.note).not.toMatch(/updated/i);
});
