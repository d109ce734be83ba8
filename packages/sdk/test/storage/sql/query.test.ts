/** The pure pieces every SQL repository is written with: queries, binding, per-dialect memo, text cache, filters. */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SQLITE_DIALECT } from '../../../src/storage/sqlite/sqlite-dialect';
import { sqliteExecutor } from '../../../src/storage/sqlite/sqlite-executor';
import { equalityWhere } from '../../../src/storage/sql/filters';
import {
  bindStatements,
  count,
  exactlyOne,
  limitParam,
  perDialect,
  type Query,
  row,
  rows,
  SqlTexts,
} from '../../../src/storage/sql/query';
import { TableMapping } from '../../../src/storage/sql/table-mapping';

describe('bindStatements', () => {
  const statements = {
    find: (id: string) => row(`SELECT * FROM t WHERE id = @id`, { id }, (r) => r?.name as string | undefined),
    remove: (id: string) => count(`DELETE FROM t WHERE id = @id`, { id }, exactlyOne),
  };

  it('makes one method per statement that runs its query with the executor and returns what the executor returns', () => {
    const seen: Query<unknown>[] = [];
    const repo = bindStatements<{ find(id: string): string; remove(id: string): string }>(statements, (q) => {
      seen.push(q);
      return `ran ${q.returns}`;
    });
    expect(Object.keys(repo)).toEqual(['find', 'remove']);
    expect(repo.find('a')).toBe('ran row');
    expect(repo.remove('b')).toBe('ran count');
    expect(seen.map((q) => [q.sql, q.params])).toEqual([
      ['SELECT * FROM t WHERE id = @id', { id: 'a' }],
      ['DELETE FROM t WHERE id = @id', { id: 'b' }],
    ]);
  });

  it('runs on better-sqlite3: rows, the first row, and the count of changed rows, each through its result', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE t (id TEXT PRIMARY KEY, name TEXT)`);
    db.exec(`INSERT INTO t VALUES ('a', 'Alice'), ('b', 'Bob')`);
    const run = sqliteExecutor((sql) => db.prepare(sql));
    const repo = bindStatements<{
      find(id: string): string | undefined;
      remove(id: string): boolean;
      names(): string[];
    }>(
      {
        ...statements,
        names: () => rows(`SELECT name FROM t ORDER BY id`, {}, (found) => found.map((r) => r.name as string)),
      },
      run,
    );
    expect(repo.names()).toEqual(['Alice', 'Bob']);
    expect(repo.find('b')).toBe('Bob');
    expect(repo.find('z')).toBeUndefined();
    expect(repo.remove('a')).toBe(true);
    expect(repo.remove('a')).toBe(false);
    expect(repo.names()).toEqual(['Bob']);
    db.close();
  });
});

describe('perDialect and SqlTexts', () => {
  it('builds once per dialect object, separately for each dialect', () => {
    let builds = 0;
    const make = perDialect((d: { name: string }) => ({ built: ++builds, name: d.name }));
    const a = { name: 'a' };
    const b = { name: 'b' };
    expect(make(a)).toBe(make(a));
    expect(make(b).name).toBe('b');
    expect(builds).toBe(2);
  });

  it('keeps the first text built under a key (the same fields give the very same SQL text)', () => {
    const texts = new SqlTexts();
    let builds = 0;
    const first = texts.get('k', () => `UPDATE t SET a = @a -- ${++builds}`);
    expect(texts.get('k', () => `UPDATE t SET a = @a -- ${++builds}`)).toBe(first);
    expect(texts.get('other', () => 'x')).toBe('x');
    expect(builds).toBe(1);
  });
});

describe('limitParam', () => {
  it('is the dialect’s "no limit" when absent, else a non-negative integer', () => {
    expect(limitParam(undefined, -1)).toBe(-1);
    expect(limitParam(undefined, null)).toBeNull();
    expect(limitParam(2.9, null)).toBe(2);
    expect(limitParam(-3, -1)).toBe(0);
    expect(limitParam(0, -1)).toBe(0);
  });
});

describe('equalityWhere', () => {
  const filters = [
    ['status', 'status'],
    ['planId', 'plan_id'],
  ] as const;

  it('makes a condition for each given filter only, in the order of the filters, and binds its value', () => {
    const params: Record<string, unknown> = {};
    const where = equalityWhere(filters, { planId: 'p1', status: 'requested' }, params, true);
    expect(where.clause).toBe(' WHERE status = @status AND plan_id = @planId');
    expect(params).toEqual({ status: 'requested', planId: 'p1' });
    expect(equalityWhere(filters, {}, {}, true)).toEqual({ clause: '', key: '' });
  });

  it('skips null only where null means any; the key tells texts apart', () => {
    const any = equalityWhere(filters, { status: null, planId: 'p' }, {}, true);
    const exact = equalityWhere(filters, { status: null, planId: 'p' }, {}, false);
    expect(any.clause).toBe(' WHERE plan_id = @planId');
    expect(exact.clause).toBe(' WHERE status = @status AND plan_id = @planId');
    expect(any.key).not.toBe(exact.key);
  });

  it('puts the conditions that always hold first', () => {
    const params: Record<string, unknown> = {};
    expect(equalityWhere(filters, { status: 's' }, params, true, ['seq > @after']).clause).toBe(
      ' WHERE seq > @after AND status = @status',
    );
    expect(equalityWhere(filters, {}, {}, true, ['seq > @after']).clause).toBe(' WHERE seq > @after');
  });

  it('filters what the dialect binds: on SQLite, a list is JSON text read with json_each', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE t (id TEXT, state TEXT)`);
    db.exec(`INSERT INTO t VALUES ('a', 'running'), ('b', 'failed'), ('c', 'unknown')`);
    const found = db
      .prepare(`SELECT id FROM t WHERE ${SQLITE_DIALECT.inList('state', 'states')} ORDER BY id`)
      .all({ states: SQLITE_DIALECT.list(['running', 'unknown']) });
    expect(found).toEqual([{ id: 'a' }, { id: 'c' }]);
    db.close();
  });
});

describe('TableMapping.setEvery', () => {
  it('assigns every column but the excepted fields, by their column names', () => {
    const m = new TableMapping<{ id: string; dedupeKey: string; createdAt: number; data: unknown }>('t', {
      id: 'value',
      dedupeKey: 'value',
      createdAt: 'value',
      data: 'json',
    });
    expect(m.setEvery(['id', 'dedupeKey'])).toBe('"created_at" = @createdAt, "data" = @data');
  });
});
