import type { AuditRecord } from '../../core/records';
import type { RunEventRecord, RunMessageRecord } from '../../core/run-records';
import type { StorageSession } from '../../ports/storage-adapter';
import { StorageError } from '../errors';

/** The keyed tables of the memory store (audit, events and messages are logs kept by their repositories). @internal */
export type TableName =
  | 'ledger'
  | 'approvals'
  | 'grants'
  | 'plans'
  | 'policies'
  | 'settings'
  | 'runs'
  | 'inbox'
  | 'decisions'
  | 'grantUsage'
  | 'budgetUsage'
  | 'budgetReservations'
  | 'leases'
  | 'schedules'
  | 'scheduleTicks'
  | 'intents'
  | 'outbox'
  | 'outboxChats';
const TABLES: readonly TableName[] = [
  'ledger',
  'approvals',
  'grants',
  'plans',
  'policies',
  'settings',
  'runs',
  'inbox',
  'decisions',
  'grantUsage',
  'budgetUsage',
  'budgetReservations',
  'leases',
  'schedules',
  'scheduleTicks',
  'intents',
  'outbox',
  'outboxChats',
];
/** Reverts one write. @internal */
export type Undo = () => void;
/** Keeps a repository's own index in step with writes to its table; a rollback calls it with `before` and `after` swapped. @internal */
export type TableIndex = (id: string, before: unknown, after: unknown) => void;

/** A repository whose methods return their result directly (the memory store's core). @internal */
export type SyncRepository<R> = {
  [K in keyof R]: R[K] extends (...args: infer A) => Promise<infer T> ? (...args: A) => T : never;
};
/** Every repository of a session, synchronous. @internal */
export type SyncSession = { [K in keyof StorageSession]: SyncRepository<StorageSession[K]> };

/**
 * A deep copy of a stored value. Records are JSON-shaped (plain objects, arrays, primitives), which this
 * copies directly; anything else (a Date, a class instance, a cycle) is left to `structuredClone`.
 * @internal
 */
export function copy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  try {
    return copyPlain(value, 0);
  } catch {
    return structuredClone(value);
  }
}

function copyPlain<T>(value: T, depth: number): T {
  if (typeof value !== 'object' || value === null) return value;
  if (depth > 256) throw new RangeError('too deep');
  if (Array.isArray(value)) {
    const n = value.length;
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) {
      const item: unknown = value[i];
      out[i] = typeof item === 'object' && item !== null ? copyPlain(item, depth + 1) : item;
    }
    return out as T;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) throw new TypeError('not a plain object');
  // A spread copies the own properties at once (an own `__proto__` key stays plain data); then only the
  // nested objects need copying (`for … in` allocates no key list; inherited keys are skipped).
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key in out) {
    const item = out[key];
    if (typeof item === 'object' && item !== null && Object.hasOwn(out, key)) out[key] = copyPlain(item, depth + 1);
  }
  return out as T;
}

/**
 * Code-point order: the order of SQL `ORDER BY` on text in SQLite (`BINARY`, UTF-8 bytes) and in PostgreSQL
 * (`C` collation). Differs from JavaScript's `<` (UTF-16 code units) only where a character above U+FFFF meets
 * one in U+E000–U+FFFF: its surrogates (U+D800–U+DFFF) are below the other as code units, above it as a code point.
 * @internal
 */
export function byCodePoint(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length < b.length ? -1 : 1;
  const x = a.charCodeAt(i);
  const y = b.charCodeAt(i);
  const xs = x >= 0xd800 && x <= 0xdfff;
  if (xs !== (y >= 0xd800 && y <= 0xdfff) && (xs ? y : x) >= 0xe000) return xs ? 1 : -1;
  return x < y ? -1 : 1;
}

/** `patch` without its undefined fields (an undefined field means "leave as is", as in SQL adapters). @internal */
export function definedFields<T extends object>(patch: Partial<T>): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(patch)) {
    const value = (patch as Record<string, unknown>)[key];
    if (value !== undefined) out[key] = value;
  }
  return out as Partial<T>;
}

/**
 * The memory store's tables and the undo log of the write running on them: every write through
 * {@link MemoryTables.write} or {@link MemoryTables.remove} registers how to revert it, so a failed
 * transaction keeps none of its writes. Stored values are copies.
 * @internal
 */
export class MemoryTables {
  readonly #tables = new Map<TableName, Map<string, unknown>>();
  readonly #indexes = new Map<TableName, TableIndex>();
  /** The undo log of the running transaction or adapter call; `null` outside one (writes then throw). */
  undo: Undo[] | null = null;

  constructor() {
    for (const t of TABLES) this.#tables.set(t, new Map());
  }

  /** The audit log, in `seq` order (kept by the audit repository; retention removes a prefix). */
  readonly auditLog: AuditRecord[] = [];
  /** The ids of {@link MemoryTables.auditLog}. */
  readonly auditIds = new Set<string>();
  /** Every run event, in `globalSeq` order. */
  readonly eventLog: RunEventRecord[] = [];
  /** Each run's events, in `seq` order. */
  readonly eventsByRun = new Map<string, RunEventRecord[]>();
  /** Each run's messages, in `seq` order. */
  readonly messagesByRun = new Map<string, RunMessageRecord[]>();

  /** Keeps only the items of `log` that `keep` accepts (in place), undoably; returns the removed ones. */
  filterLog<T>(log: T[], keep: (item: T) => boolean): T[] {
    const before = log.slice();
    const removed = before.filter((item) => !keep(item));
    if (removed.length === 0) return removed;
    const kept = before.filter(keep);
    log.splice(0, log.length, ...kept);
    this.undo!.push(() => {
      log.splice(0, log.length, ...before);
    });
    return removed;
  }

  /** When retention pruned each run (ms), by run id (the SQL stores' `runs.pruned_at`). */
  readonly prunedRuns = new Map<string, number>();

  /** Sets `key` of `map` to `value`, undoably. */
  setKey<K, V>(map: Map<K, V>, key: K, value: V): void {
    const had = map.has(key);
    const previous = map.get(key);
    map.set(key, value);
    this.undo!.push(() => {
      if (had) map.set(key, previous as V);
      else map.delete(key);
    });
  }

  /** Removes `key` from `map`, undoably; returns its value. */
  removeKey<K, V>(map: Map<K, V>, key: K): V | undefined {
    if (!map.has(key)) return undefined;
    const value = map.get(key)!;
    map.delete(key);
    this.undo!.push(() => {
      map.set(key, value);
    });
    return value;
  }

  /** Registers the index a repository keeps over `name` (one per table). */
  index(name: TableName, index: TableIndex): void {
    this.#indexes.set(name, index);
  }

  /** The live table (values are the stored records: never hand them out, never change them in place). */
  table<T>(name: TableName): Map<string, T> {
    return this.#tables.get(name) as Map<string, T>;
  }

  /** A copy of the record stored under `id`. */
  read<T>(name: TableName, id: string): T | undefined {
    const v = this.table<T>(name).get(id);
    return v === undefined ? undefined : copy(v);
  }

  /** Copies of every record of a table. */
  all<T>(name: TableName): T[] {
    return [...this.table<T>(name).values()].map((v) => copy(v));
  }

  /** Stores `value` (a copy of it, unless `owned`: built by the store from its own records and copies). */
  write(name: TableName, id: string, value: unknown, owned = false): void {
    if (!this.undo) throw new Error('MemoryStorage: write outside a transaction');
    const table = this.table<unknown>(name);
    const had = table.has(id);
    const previous = table.get(id);
    const stored = owned ? value : copy(value);
    table.set(id, stored);
    const index = this.#indexes.get(name);
    index?.(id, previous, stored);
    this.undo.push(() => {
      if (had) table.set(id, previous);
      else table.delete(id);
      index?.(id, stored, previous);
    });
  }

  /** Deletes the record stored under `id`, if any. */
  remove(name: TableName, id: string): void {
    const table = this.table<unknown>(name);
    if (!table.has(id)) return;
    const previous = table.get(id);
    table.delete(id);
    const index = this.#indexes.get(name);
    index?.(id, previous, undefined);
    this.undo!.push(() => {
      table.set(id, previous);
      index?.(id, undefined, previous);
    });
  }

  /** Stores a new record; a record already stored under `id` is a {@link StorageError}. */
  insertNew(name: TableName, id: string, value: unknown): void {
    if (this.table(name).has(id)) throw new StorageError(`MemoryStorage: duplicate id ${id} in ${name}`);
    this.write(name, id, value);
  }

  /** Appends `item` to `list` (and, when given, to `log`); the undo log pops them again. */
  appendIndexed<T>(index: Map<string, T[]>, runId: string, item: T, log?: T[]): T[] {
    let list = index.get(runId);
    if (!list) index.set(runId, (list = []));
    list.push(item);
    log?.push(item);
    const owned = list;
    this.undo!.push(() => {
      owned.pop();
      log?.pop();
      if (owned.length === 0 && index.get(runId) === owned) index.delete(runId);
    });
    return list;
  }
}
