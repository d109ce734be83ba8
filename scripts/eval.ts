/**
 * `npm run eval -- --replay <trajectory.json | dir> | --live | --compare A B`: task evaluation over the
 * sandbox world (docs/evaluation.md). Exit 0 pass, 1 fail, 2 invalid input.
 */
import { runEvalCli } from '../packages/sdk/src/testing';

process.exitCode = await runEvalCli(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
