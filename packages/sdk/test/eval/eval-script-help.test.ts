import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { EVAL_USAGE } from '../../src/testing/eval/index';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

it('`npm run eval -- --help` prints the usage on stdout and exits 0 (it used to be refused as an unknown argument, exit 2)', () => {
  const run = (arg: string) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'scripts/eval.ts', arg], { cwd: root, encoding: 'utf8' });
  const help = run('--help');
  expect(help.status, help.stderr).toBe(0);
  expect(help.stdout).toBe(`${EVAL_USAGE}\n`);
  expect(help.stderr).toBe('');
}, 120_000);
