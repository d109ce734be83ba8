/**
 * Peers benchmark child: media-agent on SQLite (one file in WAL mode in a fresh temporary directory): durable. The workload's host is
 * `startFilmHost` from `bench/_add-a-film-ours.ts`; the run's figures come from the run record.
 */
import { join } from 'node:path';
import { serve } from './_child';

serve(async (dir) => {
  const { createSqliteStorage } = await import('../../packages/sdk/src/sqlite');
  const storage = createSqliteStorage({ path: join(dir, 'media-agent.sqlite') });
  const { startFilmHost } = await import('../_add-a-film-ours');
  const film = await startFilmHost(storage);
  return {
    // The run's turns, tool calls and final text are read from its record by `check` (not on every run:
    // the peers count them in memory, and a read per run would be extra work on this side only).
    once: async () => {
      await film.once();
      return null;
    },
    check: film.check,
    close: film.close,
  };
});
