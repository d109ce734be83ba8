import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../../../scripts/check-layers.mjs', import.meta.url));
const roots: string[] = [];

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'layers-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function check(src?: string) {
  const r = spawnSync(process.execPath, [script, ...(src === undefined ? [] : ['--src', src])], { encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('layer check', () => {
  it('passes on the SDK as it is', () => {
    const r = check();
    expect(r.out).toContain('imports point down');
    expect(r.status).toBe(0);
  });

  it('passes a tree whose imports point down, including type imports and entries', () => {
    const root = tree({
      'index.ts': "export * from './runtime/run';\n",
      'core/records.ts': 'export type Id = string;\n',
      'ports/clock.ts': "import type { Id } from '../core/records';\nexport type C = Id;\n",
      'runtime/run.ts': "import type { C } from '../ports/clock';\nexport const run = (c: C) => c;\n",
    });
    expect(check(root).status).toBe(0);
  });

  it('fails on an upward import and names it', () => {
    const root = tree({
      'core/records.ts': "import type { Run } from '../runtime/run';\nexport type Id = Run;\n",
      'runtime/run.ts': 'export type Run = string;\n',
    });
    const r = check(root);
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/core\/records\.ts \(core\) imports the higher layer .*runtime\/run\.ts \(runtime\)/);
  });

  it('fails on an import between peers of one layer and on a folder cycle', () => {
    const root = tree({
      'ledger/a.ts': "import type { B } from '../authorization/b';\nexport type A = B;\n",
      'authorization/b.ts': "export type B = string;\nexport type { A } from '../ledger/a';\n",
    });
    const r = check(root);
    expect(r.status).toBe(1);
    expect(r.out).toContain('imports its peer');
    expect(r.out).toMatch(/folder cycle: (ledger -> authorization -> ledger|authorization -> ledger -> authorization)/);
  });

  it('fails on a file cycle inside one folder, a folder in no layer and an unresolvable import', () => {
    const root = tree({
      'core/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
      'core/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
      'misc/c.ts': "import { x } from './missing';\nexport const c = x;\n",
    });
    const r = check(root);
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/file cycle: core\/(a|b)\.ts -> core\/(a|b)\.ts/);
    expect(r.out).toContain("folder 'misc' is in no layer");
    expect(r.out).toContain("cannot resolve './missing'");
  });
});
