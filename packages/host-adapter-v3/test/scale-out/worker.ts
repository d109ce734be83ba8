// One host process of the scale-out scenario (started by harness.ts with `node --import tsx`):
// a V3 agent host on the shared database, driving whichever queued runs its workers lease, with a
// subscriber to every event of every process. It reports over the IPC channel:
//   { type: 'ready' }                     the host started (migrated, workers running)
//   { type: 'events', seqs: number[] }    the global sequence numbers its subscriber delivered, in order
//   { type: 'error', message }            its subscriber failed (it stops delivering)
// The controller SIGKILLs it at random moments; SIGTERM stops it cleanly.
import { ConsoleLogger } from '@media-agent/sdk';
import { ScriptedProvider } from '@media-agent/sdk/testing';
import { createV3AgentHost } from '@media-agent/host-adapter-v3';
import { scaleFilms, scaleScripts } from './films';
import { openScaleStorage, type ScaleStorageSpec } from './storage-spec';

/** What the controller passes in the `SCALE_OUT_WORKER` environment variable (JSON). */
export interface ScaleWorkerConfig {
  storage: ScaleStorageSpec;
  /** Simulator base URL, and the host user this process logs in as (one per worker slot). */
  url: string;
  auth: { username: string; password: string };
  /** Films of the scenario (their count; the same list in every process). */
  films: number;
  /** Runs this process drives at once. */
  concurrency: number;
  /** Run lease in ms (another process takes a killed process's runs over after it). */
  leaseMs: number;
  /** Idle worker poll and subscriber poll, ms. */
  pollMs: number;
  /** Log level of the host (default silent). */
  logLevel?: 'silent' | 'error' | 'warn' | 'info' | 'debug';
}

const config = JSON.parse(process.env.SCALE_OUT_WORKER ?? '') as ScaleWorkerConfig;
const send = (message: unknown) => process.send?.(message);

const films = scaleFilms(config.films);
const v3 = createV3AgentHost({
  url: config.url,
  auth: config.auth,
  storage: await openScaleStorage(config.storage),
  logger: new ConsoleLogger(config.logLevel ?? 'silent'),
  model: { provider: new ScriptedProvider({ scripts: scaleScripts(films), chunkSize: 24 }), model: 'scripted' },
  runs: {
    concurrency: config.concurrency,
    leaseMs: config.leaseMs,
    pollMs: config.pollMs,
    goalPollSec: 0.1,
    daily: { agentMaxRunsPerDay: 1_000_000 },
  },
});
await v3.host.start();

// The subscriber: every event of every process from the first one, in global order.
const stop = new AbortController();
let pending: number[] = [];
let flushing = false;
const flush = () => {
  flushing = false;
  if (pending.length === 0) return;
  send({ type: 'events', seqs: pending });
  pending = [];
};
const subscriber = (async () => {
  for await (const e of v3.host.events({ after: 0, pollMs: config.pollMs, signal: stop.signal })) {
    pending.push(e.globalSeq);
    if (!flushing) {
      flushing = true;
      setImmediate(flush);
    }
  }
})().catch((error: unknown) => {
  send({ type: 'error', message: `subscriber failed: ${error instanceof Error ? error.message : String(error)}` });
  throw error;
});

process.on('SIGTERM', () => {
  stop.abort();
  void subscriber
    .catch(() => undefined)
    .then(flush)
    .then(() => v3.close())
    .finally(() => process.exit(0));
});
send({ type: 'ready' });
