import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** A real child `node` process running a TypeScript fixture (through tsx), read line by line. */
export interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  /** The next stdout line. */
  nextLine(): Promise<string>;
  /** Writes one line to the child's stdin. */
  send(line: string): void;
  /** Closes the child's stdin. */
  end(): void;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

export function spawnFixture(name: string, args: string[]): Child {
  const script = fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines: string[] = [];
  const waiters: Array<{ resolve: (l: string) => void; reject: (e: Error) => void }> = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  void exited.then((code) => {
    for (const w of waiters.splice(0))
      w.reject(new Error(`${name} exited with ${code} before writing a line; stderr:\n${stderr}`));
  });
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      const waiter = waiters.shift();
      if (waiter) waiter.resolve(line);
      else lines.push(line);
    }
  });
  return {
    process: child,
    exited,
    send: (line) => child.stdin.write(`${line}\n`),
    end: () => child.stdin.end(),
    nextLine: () => {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (child.exitCode !== null)
        return Promise.reject(new Error(`${name} exited with ${child.exitCode}; stderr:\n${stderr}`));
      return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
    },
  };
}
