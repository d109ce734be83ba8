import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const packages = ['sdk', 'host-adapter-v2', 'host-adapter-v3', 'channel-telegram'];

describe('LICENSE', () => {
  it('is the Apache License 2.0 that every package.json declares', () => {
    const text = readFileSync(join(root, 'LICENSE'), 'utf8');
    expect(text).toContain('Apache License\n                           Version 2.0, January 2004');
    expect(text).toContain('END OF TERMS AND CONDITIONS');
    for (const pkg of ['.', ...packages.map((p) => `packages/${p}`)]) {
      expect(JSON.parse(readFileSync(join(root, pkg, 'package.json'), 'utf8')).license, pkg).toBe('Apache-2.0');
    }
  });

  it.each(packages)('ships in the %s tarball, identical to the root copy', (pkg) => {
    const dir = join(root, 'packages', pkg);
    expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toBe(readFileSync(join(root, 'LICENSE'), 'utf8'));
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir, encoding: 'utf8' }),
    ) as [{ files: Array<{ path: string }> }];
    expect(packed.files.map((f) => f.path)).toContain('LICENSE');
  });
});
