/**
 * Where the run driver's time goes in `npm run bench -- loop`: a wrapper around a storage adapter that
 * counts and times every repository call and every transaction (calls made inside a transaction are
 * named `  in tx: <repo>.<method>` and are part of the transaction's time).
 */
import { performance } from 'node:perf_hooks';
import type { StorageAdapter } from '../packages/sdk/src/index';
import type { StorageSession } from '../packages/sdk/src/storage';

/** Calls of one name and the time until their promises resolved, ms. */
export interface CallStats {
  count: number;
  ms: number;
}

/** Wraps `inner` so every repository call (and every transaction) is counted and timed into `stats`. */
export function countingStorage(inner: StorageAdapter, stats: Map<string, CallStats>): StorageAdapter {
  const record = (name: string, ms: number) => {
    const s = stats.get(name) ?? { count: 0, ms: 0 };
    s.count++;
    s.ms += ms;
    stats.set(name, s);
  };
  const wrapRepo = (repoName: string, repo: object, inTx: boolean) =>
    new Proxy(repo, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          const t = performance.now();
          try {
            return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          } finally {
            record(`${inTx ? '  in tx: ' : ''}${repoName}.${String(prop)}`, performance.now() - t);
          }
        };
      },
    });
  const wrapSession = <S extends StorageSession>(session: S, inTx: boolean): S =>
    new Proxy(session, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop);
        if (prop === 'transaction' && typeof value === 'function') {
          return async <T>(fn: (s: StorageSession) => Promise<T>) => {
            const t = performance.now();
            try {
              return await (value as StorageAdapter['transaction']).call(target, (s) => fn(wrapSession(s, true)));
            } finally {
              record('transaction', performance.now() - t);
            }
          };
        }
        if (typeof value === 'function') return (value as (...a: unknown[]) => unknown).bind(target);
        if (value && typeof value === 'object' && typeof prop === 'string') return wrapRepo(prop, value, inTx);
        return value;
      },
    });
  return wrapSession(inner, false);
}
