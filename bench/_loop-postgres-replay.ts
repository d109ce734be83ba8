// Record and replay of the statements `PostgresStorage` sends during one run of the loop benchmark: the
// bare `pg` baseline of its PostgreSQL rows sends exactly those statements, in the same transactions, with
// node-postgres alone. Files starting with `_` are not benchmarks.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** One statement as the adapter sent it: SQL text (its schema name in it) and parameter values. */
export interface RecordedStatement {
  text: string;
  values: unknown[];
  /** The value the global-sequence counter returned (the adapter passes it to the next event insert). */
  counter?: number;
}

/** Ids the SDK makes (`run_…`, `aud_…`, `inv_…`: a prefix and 32 hex digits): replaced by fresh ones in each replay. */
const ID = /\b([a-z]{2,6})_([0-9a-f]{32})\b/g;
/** The statement that takes the next global event sequence (run-event-repository.ts). */
const COUNTER = /\.event_sequence SET value = value \+ 1/;

/**
 * Records every statement sent on any node-postgres connection of this process while `fn` runs (the
 * adapter's pool and its listener), in order.
 * @param schema - the schema the statements name, replaced by `{schema}` in the recorded text
 */
export async function recordStatements(schema: string, fn: () => Promise<void>): Promise<RecordedStatement[]> {
  const recorded: RecordedStatement[] = [];
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const [first, second] = args;
    const config =
      typeof first === 'string' ? { text: first, values: second } : (first as { text?: string; values?: unknown });
    const entry: RecordedStatement | undefined =
      typeof config?.text === 'string'
        ? {
            text: config.text.replaceAll(schema, '{schema}'),
            values: Array.isArray(config.values) ? structuredClone(config.values) : [],
          }
        : undefined;
    if (entry) recorded.push(entry);
    const result = original.apply(this, args);
    if (entry && COUNTER.test(entry.text) && result instanceof Promise)
      void result.then(
        (r: { rows?: Array<{ value?: unknown }> }) => {
          entry.counter = Number(r.rows?.[0]?.value);
        },
        () => undefined,
      );
    return result;
  };
  try {
    await fn();
  } finally {
    proto.query = original;
  }
  return recorded;
}

/** `value` with every SDK id in its strings (arrays and objects included) replaced through `ids`. */
function renew(value: unknown, ids: Map<string, string>): unknown {
  if (typeof value === 'string')
    return value.replace(ID, (id, prefix: string) => {
      let fresh = ids.get(id);
      if (!fresh) ids.set(id, (fresh = `${prefix}_${randomBytes(16).toString('hex')}`));
      return fresh;
    });
  if (Array.isArray(value)) return value.map((v) => renew(v, ids));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renew(v, ids)]));
  return value;
}

/**
 * Sends the recorded statements once on `client`, into `schema`, as the adapter sent them — the same texts
 * and transactions — with the SDK's ids replaced by fresh ones (so the rows are new rows) and the global
 * sequence the counter hands out now passed to the event insert that follows it, as the adapter does.
 */
export async function replayRecordedRun(
  client: pg.Client,
  schema: string,
  recording: readonly RecordedStatement[],
): Promise<void> {
  const ids = new Map<string, string>();
  let counter: { recorded: number; now: number } | undefined;
  for (const s of recording) {
    let values = renew(s.values, ids) as unknown[];
    if (counter) {
      const { recorded, now } = counter;
      values = values.map((v) => (v === recorded || v === String(recorded) ? now : v));
      counter = undefined;
    }
    const result = await client.query(s.text.replaceAll('{schema}', schema), values);
    if (s.counter !== undefined) counter = { recorded: s.counter, now: Number(result.rows[0]?.value) };
  }
}
