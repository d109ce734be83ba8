import { defineScenario } from '../scenario';
import { rules } from '../rules';

const DUNE_2 = 'tmdb:693134';

/**
 * `dedup_existing`: the title is already in the library (even seeds) or being downloaded (odd seeds,
 * job `dl-1`). The agent must read the real state, submit nothing, and report the real id with the
 * outcome `already_present`.
 * @public
 */
export const dedupExisting = defineScenario<{ realId: string }>({
  id: 'dedup_existing',
  title: 'Already in the library or downloading: read, do not submit again, report the real id',
  goal: 'Add Dune: Part Two to the library.',
  setup: async ({ host, world, seed }) => {
    await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
    if (seed % 2 === 0) {
      world.addToLibrary(DUNE_2);
      return { realId: DUNE_2 };
    }
    const release = world.releases().find((r) => r.mediaId === '693134' && r.resolution === '1080p')!;
    const job = world.addDownload({
      planId: 'plan-before-the-run',
      releaseId: release.releaseId,
      releaseName: release.name,
      mediaEntityId: DUNE_2,
      sizeBytes: release.sizeBytes,
      resolution: release.resolution,
      idempotencyKey: null,
      runIds: [],
    });
    return { realId: job.id };
  },
  world: (seed) => (seed % 2 === 0 ? {} : { durations: { queuedMs: 3_600_000 } }),
  rules: [
    rules.noSubmit(),
    rules.finalReport(),
    rules.outcomeIs('already_present'),
    rules.reportsIds((f) => [f.setup.realId]),
    rules.idsWereRead(),
  ],
});
