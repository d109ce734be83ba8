// PostgresStorage and SqliteStorage check their options in the constructor, before any socket or file is opened,
// and refuse with OPTIONS_INVALID naming the option and the accepted shape.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'pg-connection-string';
import { afterEach, describe, expect, it } from 'vitest';
import { isMediaAgentError } from '../../src/core/errors';
import { PostgresStorage } from '../../src/postgres';
import { SqliteStorage } from '../../src/sqlite';
import { closedPort, watchSockets } from './no-io';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The error `make` throws (undefined when it throws none). */
function thrown(make: () => unknown): unknown {
  try {
    make();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('new PostgresStorage(options): refused before any network access', () => {
  const cases: Array<[label: string, options: unknown, option: string, says: RegExp]> = [
    ['no options at all', undefined, 'options', /must be an object such as \{ connectionString/],
    ['null', null, 'options', /must be an object/],
    ['a URL given as the options', 'postgres://a@b/c', 'options', /must be an object/],
    ['neither connectionString nor pool', {}, 'connectionString', /connection URL .* or a pg\.Pool \(pool\)/],
    // remult/remult#304: node-postgres reads text that is not a URL relative to `postgres://base` and fails much
    // later with "getaddrinfo ENOTFOUND base"
    ['connectionString that is not a URL', { connectionString: 'not a url' }, 'connectionString', /not a URL/],
    ['connectionString host only', { connectionString: 'db.internal:5432' }, 'connectionString', /a db\.internal: URL/],
    ['an http URL', { connectionString: 'http://db.internal/app' }, 'connectionString', /a http: URL/],
    ['an empty connectionString', { connectionString: '' }, 'connectionString', /empty string/],
    ['a number as connectionString', { connectionString: 5432 }, 'connectionString', /got 5432/],
    ['a pool that is not one', { pool: { host: 'db' } }, 'pool', /must be a pg\.Pool/],
    [
      'a misspelt option',
      { connectionUrl: 'postgres://a@db/app' },
      'connectionUrl',
      /not an option; known: connectionString/,
    ],
    [
      'schema given as an array',
      { connectionString: 'postgres://a@db/app', schema: ['app'] },
      'schema',
      /lowercase identifier/,
    ],
    ['poolSize given as text', { connectionString: 'postgres://a@db/app', poolSize: '4' }, 'poolSize', /got "4"/],
    [
      'onBackgroundError not a function',
      { connectionString: 'postgres://a@db/app', onBackgroundError: 'log' },
      'onBackgroundError',
      /must be a function/,
    ],
  ];

  it.each(cases)('%s → OPTIONS_INVALID naming %s', (_label, options, option, says) => {
    const sockets = watchSockets();
    try {
      const error = thrown(() => new PostgresStorage(options as never));
      expect(isMediaAgentError(error, 'OPTIONS_INVALID'), String(error)).toBe(true);
      const e = error as { message: string; details: { option?: string } };
      expect(e.details.option).toBe(option);
      expect(e.message).toContain(`PostgresStorage option ${option}`);
      expect(e.message).toMatch(says);
      expect(sockets.targets).toEqual([]);
    } finally {
      sockets.restore();
    }
  });

  it('remult/remult#304: what node-postgres would have done with "not a url" (look up a host named base)', () => {
    expect(parse('not a url').host).toBe('base');
  });

  it('never quotes a long connection string (it may hold a password)', () => {
    const url = 'mysql://agent:s3cret-password-of-some-length@db.internal:3306/app';
    const error = thrown(() => new PostgresStorage({ connectionString: url }));
    expect(isMediaAgentError(error, 'OPTIONS_INVALID')).toBe(true);
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('accepts the forms node-postgres reads, and the watch sees the sockets of a real connection attempt', async () => {
    for (const connectionString of [
      'postgres://agent:pw@db.internal:5432/app?sslmode=require',
      'postgresql://agent@[::1]:5432/app',
      'postgres://agent@/app?host=/var/run/postgresql',
      'socket://agent@/var/run/postgresql?db=app',
      '/var/run/postgresql app',
    ]) {
      const s = new PostgresStorage({ connectionString });
      await s.close();
    }
    // the check is not vacuous: a valid URL to a local port nothing listens on opens a socket when used
    const port = await closedPort();
    const sockets = watchSockets();
    const storage = new PostgresStorage({
      connectionString: `postgres://agent@127.0.0.1:${port}/app`,
      connectionTimeoutMs: 2_000,
    });
    try {
      expect(sockets.targets).toEqual([]); // nothing at construction
      await expect(storage.migrate()).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
      expect(sockets.targets).toContain(`127.0.0.1:${port}`);
    } finally {
      sockets.restore();
      await storage.close();
    }
  });
});

describe('new SqliteStorage(options): refused before any file is touched', () => {
  const cases: Array<[label: string, options: (dir: string) => unknown, option: string, says: RegExp]> = [
    ['no options at all', () => undefined, 'options', /must be an object such as \{ path/],
    ['a path given as the options', (d) => join(d, 'a', 'agent.sqlite'), 'options', /must be an object/],
    ['no path', () => ({}), 'path', /must be a file path/],
    ['an empty path', () => ({ path: '' }), 'path', /empty string/],
    [
      'a misspelt option',
      (d) => ({ path: join(d, 'a', 'agent.sqlite'), busyTimeout: 10 }),
      'busyTimeout',
      /known: path, busyTimeoutMs, cacheSizeKiB/,
    ],
    [
      'busyTimeoutMs given as text',
      (d) => ({ path: join(d, 'a', 'agent.sqlite'), busyTimeoutMs: '5000' }),
      'busyTimeoutMs',
      /non-negative number; got "5000"/,
    ],
    [
      'a negative cacheSizeKiB',
      (d) => ({ path: join(d, 'a', 'agent.sqlite'), cacheSizeKiB: -1 }),
      'cacheSizeKiB',
      /got -1/,
    ],
  ];

  it.each(cases)('%s → OPTIONS_INVALID naming %s', (_label, options, option, says) => {
    const dir = mkdtempSync(join(tmpdir(), 'ma-sqlite-options-'));
    dirs.push(dir);
    const error = thrown(() => new SqliteStorage(options(dir) as never));
    expect(isMediaAgentError(error, 'OPTIONS_INVALID'), String(error)).toBe(true);
    const e = error as { message: string; details: { option?: string } };
    expect(e.details.option).toBe(option);
    expect(e.message).toContain(`SqliteStorage option ${option}`);
    expect(e.message).toMatch(says);
    expect(existsSync(join(dir, 'a'))).toBe(false); // no directory made, no file opened
  });

  it('a valid path is opened on first use (so the check above can fail)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ma-sqlite-options-'));
    dirs.push(dir);
    const storage = new SqliteStorage({ path: join(dir, 'a', 'agent.sqlite') });
    expect(existsSync(join(dir, 'a'))).toBe(false);
    await storage.migrate();
    expect(existsSync(join(dir, 'a', 'agent.sqlite'))).toBe(true);
    await storage.close();
  });
});
