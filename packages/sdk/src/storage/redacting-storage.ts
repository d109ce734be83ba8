// The storage side of the redaction boundary: a view of a StorageAdapter whose writes of run events,
// run records, conversation messages, inbox messages, audit rows, ledger rows, decisions, schedules and the impact
// reports of approvals pass through the host's SecretRedactor (docs/secrets.md). Reads and every other method go
// to the store as they are.
import type { JsonValue } from '../core/records';
import type { SecretRedactor } from '../core/secret-redactor';
import type { StorageAdapter, StorageSession } from '../ports/storage-adapter';

type Args = unknown[];
type Rewrite = (r: SecretRedactor, args: Args) => Args;
type Obj = Record<string, unknown>;

/** The named fields of `record` redacted (strings as text, other values deeply), the others kept. */
function fields(r: SecretRedactor, record: unknown, names: readonly string[]): unknown {
  if (typeof record !== 'object' || record === null) return record;
  let out: Obj | undefined;
  for (const name of names) {
    if (!(name in (record as Obj))) continue;
    const value = (record as Obj)[name];
    const next = typeof value === 'string' ? r.text(value) : r.value(value);
    if (next !== value) (out ??= { ...(record as Obj) })[name] = next;
  }
  return out ?? record;
}

const RUN_FIELDS = ['goal', 'error', 'report', 'finalText', 'abortReason', 'checklist'] as const;
const AUDIT_FIELDS = ['inputSummary', 'reason'] as const;
const LEDGER_FIELDS = ['inputSummary', 'error'] as const;
const DECISION_FIELDS = ['reason', 'rootCause', 'evidence'] as const;
/** A schedule's goal becomes each of its runs' goal: it is redacted like theirs. */
const SCHEDULE_FIELDS = ['goal'] as const;
/**
 * An approval's impact report (its `reason` may be an `impact()` failure's message, its notes free text); the
 * proposed and approved payloads stay exact: the approval is bound to them by hash, as it is to its plan.
 */
const APPROVAL_FIELDS = ['impact'] as const;

/** The argument at `index` redacted in place (`args` is the wrapper's own rest array). */
const at =
  (index: number, redact: (r: SecretRedactor, value: unknown) => unknown): Rewrite =>
  (r, args) => {
    args[index] = redact(r, args[index]);
    return args;
  };
const named =
  (index: number, names: readonly string[]): Rewrite =>
  (r, args) => {
    args[index] = fields(r, args[index], names);
    return args;
  };

/** Per repository, the write methods and how their arguments are redacted. */
const WRITES: Readonly<Record<string, Readonly<Record<string, Rewrite>>>> = {
  events: { append: named(0, ['data']) },
  messages: { append: at(1, (r, message) => r.value(message as JsonValue)) },
  inbox: { enqueue: named(0, ['text']) },
  runs: { insert: named(0, RUN_FIELDS), patch: named(1, RUN_FIELDS) },
  audit: { append: named(0, AUDIT_FIELDS) },
  ledger: { insert: named(0, LEDGER_FIELDS), compareAndSet: named(2, LEDGER_FIELDS) },
  decisions: { insert: named(0, DECISION_FIELDS), update: named(0, DECISION_FIELDS) },
  approvals: { insert: named(0, APPROVAL_FIELDS), compareAndSet: named(2, APPROVAL_FIELDS) },
  schedules: { insert: named(0, SCHEDULE_FIELDS), compareAndSet: named(2, SCHEDULE_FIELDS) },
};

const wrapped = new WeakMap<object, Map<SecretRedactor, object>>();
const targets = new WeakMap<object, object>();

/**
 * A view of `target` (bound methods) whose listed write methods rewrite their arguments first. What a
 * property reads as is made once per value of the property (a method bound, a write wrapped, a repository
 * viewed) and handed out again while the target's property holds the same value. Only the views of a store
 * (`register`) are remembered as views (for {@link unredactedStorage} and re-wrapping): those of a transaction's
 * session and of its repositories are made per transaction and never handed to either.
 */
function view<T extends object>(target: T, rewrite: (prop: string) => object | undefined, register = false): T {
  const made = new Map<string | symbol, { from: unknown; to: unknown }>();
  const proxy = new Proxy(target, {
    get(t, prop, _receiver) {
      const value: unknown = Reflect.get(t, prop, t);
      if (typeof value !== 'function' && (typeof value !== 'object' || value === null)) return value;
      const known = made.get(prop);
      if (known !== undefined && known.from === value) return known.to;
      let to: unknown = typeof prop === 'string' ? rewrite(prop) : undefined;
      if (to === undefined) to = typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
      made.set(prop, { from: value, to });
      return to;
    },
  });
  if (register) targets.set(proxy, target);
  return proxy;
}

function repository(repo: object, name: string, redactor: SecretRedactor): object {
  const writes = WRITES[name];
  if (!writes) return repo;
  return view(repo, (prop) => {
    const rewrite = writes[prop];
    const method = (repo as Record<string, unknown>)[prop];
    if (!rewrite || typeof method !== 'function') return undefined;
    return (...args: Args) => (method as (...a: Args) => unknown).apply(repo, rewrite(redactor, args));
  });
}

function session<T extends StorageSession>(target: T, redactor: SecretRedactor, register = false): T {
  const repos = new Map<string, { repo: object; view: object }>();
  return view(
    target,
    (prop) => {
      if (!(prop in WRITES)) return undefined;
      const repo = (target as unknown as Record<string, unknown>)[prop];
      if (typeof repo !== 'object' || repo === null) return undefined;
      let out = repos.get(prop);
      if (!out || out.repo !== repo) {
        out = { repo, view: repository(repo, prop, redactor) };
        repos.set(prop, out);
      }
      return out.view;
    },
    register,
  );
}

/**
 * The storage as seen through the redaction boundary: writes of run events (`data`), runs (`goal`,
 * `error`, `report`, `finalText`, `abortReason`, `checklist`), conversation messages, inbox messages
 * (`text`), audit rows and batched audit rows (`inputSummary`, `reason`), ledger rows (`inputSummary`,
 * `error`), decisions (`reason`, `rootCause`, `evidence`), schedules (`goal`) and approvals (`impact`; the proposed
 * and approved payloads stay exact, bound by hash) pass through `redactor`, in transactions too;
 * every read and every other method goes to `storage` unchanged (`instanceof` and `kind` stay those of
 * the store). Wrapping an already wrapped store, or the same store twice, gives the same view.
 *
 * @param storage - the host's store
 * @param redactor - the host's redaction step
 * @returns a view of the store
 * @public
 */
export function redactingStorage<S extends StorageAdapter>(storage: S, redactor: SecretRedactor): S {
  if (targets.has(storage)) return storage;
  let views = wrapped.get(storage);
  const known = views?.get(redactor);
  if (known) return known as S;
  const base = session(storage, redactor, true);
  // The store's transaction sessions seen through the boundary (a store may hand out the same one each time).
  const sessions = new WeakMap<StorageSession, StorageSession>();
  const sessionView = (s: StorageSession): StorageSession => {
    if (typeof s !== 'object' || s === null) return session(s, redactor);
    let known = sessions.get(s);
    if (!known) sessions.set(s, (known = session(s, redactor)));
    return known;
  };
  const out = view(
    base,
    (prop) => {
      if (prop === 'transaction') {
        const transaction = storage.transaction;
        return <R>(fn: (s: StorageSession) => Promise<R>, ...rest: unknown[]) =>
          (transaction as (f: typeof fn, ...r: unknown[]) => Promise<R>).call(
            storage,
            (s: StorageSession) => fn(sessionView(s)),
            ...rest,
          );
      }
      if (prop === 'appendAuditBatched') {
        const append = storage.appendAuditBatched;
        return (record: unknown) =>
          (append as (r: unknown) => Promise<void>).call(storage, fields(redactor, record, AUDIT_FIELDS));
      }
      return undefined;
    },
    true,
  );
  targets.set(out, storage);
  if (!views) wrapped.set(storage, (views = new Map()));
  views.set(redactor, out);
  return out;
}

/** The store behind a {@link redactingStorage} view (the value itself when it is not one). @public */
export function unredactedStorage<S extends StorageAdapter>(storage: S): S {
  let out: object = storage;
  while (targets.has(out)) out = targets.get(out)!;
  return out as S;
}
