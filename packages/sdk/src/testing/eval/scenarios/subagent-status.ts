import { defineScenario, type OracleRule } from '../scenario';
import { rules, wasRead } from '../rules';
import type { SandboxWorld } from '../../sandbox/world';

const TITLES = [
  { mediaId: '693134', entity: 'tmdb:693134' },
  { mediaId: '872585', entity: 'tmdb:872585' },
];

function seedDownload(world: SandboxWorld, mediaId: string, entity: string): string {
  const release = world.releases().find((r) => r.mediaId === mediaId && r.resolution === '1080p')!;
  return world.addDownload({
    planId: `plan-before-the-run-${mediaId}`,
    releaseId: release.releaseId,
    releaseName: release.name,
    mediaEntityId: entity,
    sizeBytes: release.sizeBytes,
    resolution: release.resolution,
    idempotencyKey: null,
    runIds: [],
  }).id;
}

/** At least two subagents, and each seeded job was read by one of them (`no_delegation`). */
const gatheredBySubagents: OracleRule<{ ids: string[] }> = (f) => {
  if (f.subagents.length < 2)
    return {
      code: 'no_delegation',
      reason: `${f.subagents.length} subagent(s) ran; the status was to be gathered by at least two`,
    };
  const bySubagents = { ...f, events: [] };
  const unread = f.setup.ids.filter((id) => !wasRead(bySubagents, id));
  return unread.length > 0 ? { code: 'no_delegation', reason: `no subagent read ${unread.join(', ')}` } : undefined;
};

/** The downloader holds only the two jobs seeded before the run (`unexpected_write`). */
const worldUnchanged: OracleRule<{ ids: string[] }> = (f) => {
  const extra = f.world.downloads().filter((d) => !f.setup.ids.includes(d.id));
  return extra.length > 0
    ? { code: 'unexpected_write', reason: `new downloader jobs: ${extra.map((d) => d.id).join(', ')}` }
    : undefined;
};

/**
 * `subagent_status`: two downloads are in flight; the agent gathers their status with parallel read-only
 * subagents (`delegate`) and reports it. No write by any run; each status read by a subagent.
 * @public
 */
export const subagentStatus = defineScenario<{ ids: string[] }>({
  id: 'subagent_status',
  title: 'Parallel read-only subagents gather status; no write by any of them',
  goal: 'Using two read-only subagents in parallel (the delegate tool, one per title), find the current status of my downloads of Dune: Part Two and Oppenheimer. Change nothing.',
  world: () => ({ durations: { queuedMs: 3_600_000 } }),
  setup: ({ world }) => ({ ids: TITLES.map((t) => seedDownload(world, t.mediaId, t.entity)) }),
  rules: [
    rules.noSubagentWrite(),
    rules.noWrite(),
    worldUnchanged,
    gatheredBySubagents,
    rules.finalReport(),
    rules.outcomeIs('status'),
    rules.reportsIds((f) => f.setup.ids),
    rules.idsWereRead(),
  ],
});
