// Runs a host script in a real child process and SIGKILLs it at a chosen point of its output: the
// crash tests' shared harness.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Starts `script` (with tsx) and kills it with SIGKILL once `ready` finds what it waits for in the
 * child's stdout so far.
 * @param script - absolute path of the worker script
 * @param args - its arguments
 * @param ready - returns the value to resolve with once the output shows the point to crash at, else undefined
 * @returns that value and the signal the child died of
 * @throws when the child exits before `ready` matched (its stderr in the message)
 */
export async function killWorkerWhen<T>(
  script: string,
  args: string[],
  ready: (stdout: string) => T | undefined,
): Promise<{ value: T; signal: NodeJS.Signals | null }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  const value = await new Promise<T>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const found = ready(out);
      if (found !== undefined) resolve(found);
    });
    void exited.then(() => reject(new Error(`worker exited early: ${stderr}`)));
  });
  child.kill('SIGKILL');
  return { value, signal: await exited };
}
