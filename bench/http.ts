/**
 * Benchmark `http`: the cost of the HTTP surface (`@media-agent/sdk/http` mounted on Node's `http`, requests
 * with undici over a local port) against the same host calls made in process, on a SQLite file (WAL) in
 * `os.tmpdir()`, workers off (no model runs; events are written by steering messages).
 *
 * - `GET /api/runs/:id` (a run with 100 events, one page of 100) requests per second, 1 and 16 in flight,
 *   against `host.getRun(id, { actor })` awaited in process: the HTTP, JSON and authentication overhead.
 * - Live event latency: the time from writing an event (`host.appendToInbox`) to its arrival at a subscriber,
 *   for an SSE client (`GET /api/events`, parsed from the socket) against an in-process `host.events()`
 *   iterator; median and p95 of 300 events written one at a time.
 * - Replay: 10,000 stored events streamed to a reading SSE client from `after=0`, events per second, against
 *   iterating `host.events({ after: 0 })` in process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { ConsoleLogger, createAgentHost } from '../packages/sdk/src/index';
import { createAgentRouter, toNodeListener } from '../packages/sdk/src/http';
import { SqliteStorage } from '../packages/sdk/src/sqlite';
import { registerSandboxCapabilities, SandboxWorld } from '../packages/sdk/src/testing';
import { printMachine, printTable } from './_report';

const ACTOR = 'user:bench';
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]!;

/** Runs `op` for `ms` after a warm-up, `inFlight` at a time; returns operations per second. */
async function rate(op: () => Promise<unknown>, ms: number, inFlight = 1): Promise<number> {
  for (let i = 0; i < 50; i++) await op();
  let done = 0;
  const end = performance.now() + ms;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        await op();
        done++;
      }
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

/** Reads SSE frames from a response body, calling `onEvent` with each event's parsed data. */
async function readFrames(body: AsyncIterable<Buffer>, onEvent: (data: { data: { text?: string } }) => boolean) {
  let buffer = '';
  for await (const chunk of body) {
    buffer += chunk.toString();
    let cut = buffer.indexOf('\n\n');
    while (cut >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      cut = buffer.indexOf('\n\n');
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (data !== undefined && onEvent(JSON.parse(data))) return;
    }
  }
}

export async function run(): Promise<void> {
  printMachine();
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-bench-http-'));
  const world = new SandboxWorld({});
  const host = createAgentHost({
    storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
    logger: new ConsoleLogger('silent'),
    model: { provider: { provider: 'scripted' }, model: 'scripted' },
    goalFacts: world,
  });
  registerSandboxCapabilities(host, world);
  await host.start({ workers: false });
  const router = createAgentRouter(host, { authenticate: () => ACTOR, consoleDir: false });
  const server = createServer(toNodeListener(router));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dispatcher = new Agent({ connections: 32 });
  try {
    const runRecord = await host.startRun({ goal: 'Add Dune: Part Two to the library', actor: ACTOR });
    for (let i = 0; i < 99; i++) await host.appendToInbox(runRecord.id, `message ${i}`, ACTOR);

    // 1. Reading a run.
    const get = async () => {
      const res = await request(`${base}/api/runs/${runRecord.id}?limit=100`, { dispatcher });
      await res.body.json();
    };
    const bare = () => host.getRun(runRecord.id, { limit: 100, actor: ACTOR });
    const rows: string[][] = [];
    for (const inFlight of [1, 16]) {
      const viaHttp = await rate(get, 2000, inFlight);
      const inProcess = await rate(bare, 2000, inFlight);
      rows.push([
        `GET /api/runs/:id (100 events), ${inFlight} in flight`,
        viaHttp.toFixed(0),
        inProcess.toFixed(0),
        `${(inProcess / viaHttp).toFixed(2)}×`,
      ]);
    }
    printTable(['scenario', 'HTTP req/s', 'in process ops/s', 'in process ÷ HTTP'], rows, new Set([1, 2, 3]));

    // 2. Live event latency: write one event, wait for it at the subscriber, repeat.
    const measureLatency = async (subscribe: (onText: (text: string) => void, signal: AbortSignal) => void) => {
      const controller = new AbortController();
      let waiting: { text: string; resolve: () => void } | undefined;
      subscribe((text) => {
        if (waiting && text === waiting.text) waiting.resolve();
      }, controller.signal);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const samples: number[] = [];
      for (let i = 0; i < 300; i++) {
        const text = `latency ${i} ${Math.random()}`;
        const arrived = new Promise<void>((resolve) => (waiting = { text, resolve }));
        const t0 = performance.now();
        await host.appendToInbox(runRecord.id, text, ACTOR);
        await arrived;
        samples.push(performance.now() - t0);
      }
      controller.abort();
      return samples;
    };
    const after = (await host.listEvents({ after: 0, limit: 1000 })).at(-1)!.globalSeq;
    const overSse = await measureLatency((onText, signal) => {
      void request(`${base}/api/events?after=${after}`, {
        dispatcher,
        headers: { accept: 'text/event-stream' },
        signal,
      })
        .then((res) =>
          readFrames(res.body, (e) => {
            if (e.data.text) onText(e.data.text);
            return false;
          }),
        )
        .catch(() => undefined);
    });
    const inProcess = await measureLatency((onText, signal) => {
      void (async () => {
        for await (const e of host.events({ after, signal })) if (e.type === 'inbox_queued') onText(e.data.text);
      })().catch(() => undefined);
    });
    printTable(
      ['live event (write → subscriber)', 'median ms', 'p95 ms'],
      [
        ['SSE client over HTTP', quantile(overSse, 0.5).toFixed(2), quantile(overSse, 0.95).toFixed(2)],
        ['host.events() in process', quantile(inProcess, 0.5).toFixed(2), quantile(inProcess, 0.95).toFixed(2)],
      ],
      new Set([1, 2]),
    );

    // 3. Replay of stored events.
    while ((await host.listEvents({ after: 0, limit: 1000 })).length < 1000 || (await countEvents()) < 10_000)
      for (let i = 0; i < 500; i++) await host.appendToInbox(runRecord.id, `filler ${i}`, ACTOR);
    async function countEvents(): Promise<number> {
      let n = 0;
      for (let page = await host.listEvents({ after: 0, limit: 1000 }); page.length > 0; ) {
        n += page.length;
        page = await host.listEvents({ after: page.at(-1)!.globalSeq, limit: 1000 });
      }
      return n;
    }
    const total = await countEvents();
    let t0 = performance.now();
    const controller = new AbortController();
    const res = await request(`${base}/api/events?after=0`, {
      dispatcher,
      headers: { accept: 'text/event-stream' },
      signal: controller.signal,
    });
    let seen = 0;
    await readFrames(res.body, () => ++seen === total).catch(() => undefined);
    const sseRate = total / ((performance.now() - t0) / 1000);
    controller.abort();
    t0 = performance.now();
    const stop = new AbortController();
    let counted = 0;
    for await (const _ of host.events({ after: 0, signal: stop.signal })) if (++counted === total) break;
    const bareRate = total / ((performance.now() - t0) / 1000);
    printTable(
      ['replay from storage', 'events', 'events/s'],
      [
        ['SSE client over HTTP', String(total), sseRate.toFixed(0)],
        ['host.events() in process', String(total), bareRate.toFixed(0)],
      ],
      new Set([1, 2]),
    );
  } finally {
    router.closeStreams();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await dispatcher.close();
    await host.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
