// Many host processes write a person's new skill library at the same instant: the library folder, its
// lock file and `.ownership.json` are created by whichever process comes first, and every skill of every
// process is there afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileSkillStore } from '../../src/skills/file-skill-store';
import { raceFirstOpens } from '../storage/first-open-race';

const root = mkdtempSync(join(tmpdir(), 'skills-first-open-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('FileSkillStore: concurrent first writes of one new library', () => {
  it('8 processes create skills in the same new library at once, 6 rounds: none fails, every skill is there', async () => {
    const report = await raceFirstOpens({
      kind: 'skills',
      processes: 8,
      // 6 rounds, not 20: the same race on the same harness (8 children at one barrier, a new target each round) as
      // history/concurrent-first-open.test.ts, which carries the 8 × 20 requirement; 6 rounds keep CI time down
      // and every round is still a fresh race: 8 first opens of a new target at one instant.
      rounds: 6,
      perChild: 2,
      target: (round) => join(root, `round-${round}`),
      stored: async (dataDir) => {
        const mine = (await new FileSkillStore({ dataDir }).list('alice')).filter((s) => s.source !== 'public');
        return mine.length;
      },
    });
    expect(report.failures).toEqual([]);
    expect(report.shortRounds).toEqual([]);
  }, 240_000);
});
