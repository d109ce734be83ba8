import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConsoleLogger, ManualClock, SequentialIdGenerator } from '@media-agent/sdk';
import { MemoryStorage } from '@media-agent/sdk/storage';
import { addToLibraryScript, ScriptedProvider } from '@media-agent/sdk/testing';
import {
  MoviePilotV2Simulator,
  type SimRelease,
  type SimTitle,
  type V2SimulatorOptions,
} from '@media-agent/host-adapter-v2/testing';
import { createV2AgentHost, type V2AgentHost, type V2AgentHostOptions } from '../src/index';

export const started: Array<{ close(): Promise<void> } | MoviePilotV2Simulator> = [];

export async function cleanup(): Promise<void> {
  for (const x of started.splice(0).reverse()) await x.close();
}

/** A simulator and an adapter host on one manual clock, scripted model adding `title`. */
export async function v2Setup(
  options: { sim?: V2SimulatorOptions; host?: Partial<V2AgentHostOptions>; title?: string } = {},
) {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const sim = new MoviePilotV2Simulator({ clock, ...options.sim });
  await sim.start();
  started.push(sim);
  const adapter: V2AgentHost = createV2AgentHost({
    url: sim.url,
    auth: { apiKey: sim.apiKey },
    storage: new MemoryStorage(),
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: addToLibraryScript(options.title ?? 'Dune: Part Two') }) },
    runs: { pollMs: 5, goalPollSec: 1 },
    ...options.host,
  });
  started.push(adapter);
  await adapter.host.start();
  return { clock, sim, adapter, host: adapter.host };
}

export { waitForRunStatus as waitForStatus } from '@media-agent/sdk/testing';

/** Starts `server` on a free loopback port, closed by {@link cleanup}; returns its base URL. */
export async function listenLocal(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  started.push({
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A series sharing Dune: Part Two's TMDB id (TMDB movie and TV ids are separate number spaces). */
export const TWIN: SimTitle = {
  tmdbId: 693134,
  doubanId: '99999999',
  kind: 'tv',
  title: 'Harbour Lights',
  originalTitle: 'Harbour Lights',
  localizedTitle: '港湾灯火',
  year: 2019,
  overview: 'A series whose TMDB TV id equals a film id.',
  seasons: 1,
};
export const TWIN_RELEASE: SimRelease = {
  tmdbId: 693134,
  kind: 'tv',
  title: 'Harbour.Lights.S01.1080p.WEB-DL.H264-SIM',
  size: 9_000_000_000,
  seeders: 900,
  site: 'HDSky',
  siteId: 1,
  enclosure: 'magnet:?xt=urn:btih:feedfacefeedfacefeedfacefeedfacefeedface',
  pageUrl: 'https://hdsky.example/details.php?id=99',
  description: '港湾灯火 第一季',
};
