/**
 * A PostgreSQL server of the test's own (initdb in a temporary directory, on a free loopback port), so a test
 * can really shut it down and restart it without touching the shared server other suites use.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** The directory of `initdb` and `pg_ctl` (`pg_config --bindir`, else Debian's layout), or undefined. */
export function postgresBinDir(): string | undefined {
  const candidates: string[] = [];
  try {
    candidates.push(
      execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
    );
  } catch {
    // no pg_config on the PATH
  }
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian))
    for (const version of readdirSync(debian).sort().reverse()) candidates.push(join(debian, version, 'bin'));
  return candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
}

/** A free TCP port on 127.0.0.1. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** A private server: its URL, and a real fast restart and stop. */
export interface PrivatePostgres {
  readonly url: string;
  /** `pg_ctl restart -m fast`: every connection is terminated, the server is down, then up again. */
  restart(): Promise<void>;
  /** `pg_ctl stop -m fast` (the server stays down). */
  stop(): void;
  /** `pg_ctl start` after `stop()`. */
  start(): void;
  /** Stops the server and deletes its directory. */
  destroy(): void;
}

/**
 * Creates and starts a private server (trust authentication, user `postgres`, database `postgres`, fsync off).
 * As root, the server runs as the `postgres` user (PostgreSQL refuses root).
 */
export async function startPrivatePostgres(binDir: string): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-pg-'));
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) => {
    const [command, argv] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', join(binDir, tool), ...args]]
      : [join(binDir, tool), args];
    execFileSync(command as string, argv as string[], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 });
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = ['-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, '-l', join(dir, 'log')];
  const start = () => run('pg_ctl', ['-D', data, ...options, '-w', 'start']);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: async () => run('pg_ctl', ['-D', data, ...options, '-m', 'fast', '-w', 'restart']),
    stop: () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    start,
    destroy: () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
