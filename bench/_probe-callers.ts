import { mkdtempSync } from 'node:fs';
import { startFilmHost } from './_add-a-film-ours';
import { createSqliteStorage } from '../packages/sdk/src/sqlite';
const storage = createSqliteStorage({ path: mkdtempSync('/tmp/f-') + '/a.sqlite' });
let on = false;
const seen = new Map<string, number>();
const wrap = (repo: string, method: string) => {
  const r = (storage as unknown as Record<string, Record<string, (...a: unknown[]) => unknown>>)[repo]!;
  const f = r[method]!.bind(r);
  r[method] = (...a: unknown[]) => {
    if (on) {
      const k =
        `${repo}.${method} <- ` +
        new Error()
          .stack!.split('\n')
          .slice(2, 7)
          .map((l) =>
            l
              .trim()
              .replace(/^at /, '')
              .replace(/\(\/work\/main\/packages\/sdk\/src\//, '('),
          )
          .join(' < ');
      seen.set(k, (seen.get(k) ?? 0) + 1);
    }
    return f(...a);
  };
};
for (const spec of (process.env.WHO ?? 'runs.get').split(',')) {
  const [r, m] = spec.split('.');
  wrap(r!, m!);
}
const h = await startFilmHost(storage as never);
for (let i = 0; i < 5; i++) await h.once();
on = true;
for (let i = 0; i < 10; i++) await h.once();
on = false;
for (const [k, n] of [...seen].sort((a, b) => b[1] - a[1])) console.log((n / 10).toFixed(1), k);
await h.close();
