/**
 * `npm run eval -- --replay <trajectory.json | dir> | --live | --compare A B | --injection-corpus`: task evaluation over the
 * sandbox world (docs/evaluation.md). `--help` / `-h` prints the usage. Exit 0 pass, 1 fail, 2 invalid input.
 */
import { EVAL_USAGE, runEvalCli } from '../packages/sdk/src/testing/eval/index';

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  process.stdout.write(`${EVAL_USAGE}\n`);
  process.exitCode = 0;
} else {
  process.exitCode = await runEvalCli(argv, {
    env: process.env,
    cwd: process.cwd(),
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
}
