/**
 * `npm run bench -- peers`: the add-a-film workload (`_add-a-film.ts`) on media-agent and on the peer SDKs
 * a user would pick instead, each in its own child process (`peers/<side>.ts`), in interleaved rounds.
 * Each round every side runs the workload `BENCH_RUNS` times (default 20) in rotating order; the ratio of
 * a round is media-agent-on-SQLite's ms per run over the side's (above 1 = the side is faster), reported
 * as the median and interquartile range over `BENCH_ROUNDS` rounds (default 9). See `peers/README.md`.
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { ChildMessage, ParentMessage, RoundFigures } from './peers/_child';
import { installedVersion, printMachine, printTable } from './_report';
import { formatRatio, formatSpread, roundOrder, spread, type Spread, envInt } from './_stats';

/** One side of the comparison. */
interface PeerSide {
  name: string;
  /** Its child runner, `peers/<file>.ts`. */
  file: string;
  /** What it keeps on disk, and when. */
  durable: string;
  /** What a SIGKILL in the middle of a run leaves. */
  afterKill: string;
}

const SIDES: readonly PeerSide[] = [
  {
    name: 'media-agent (SQLite)',
    file: 'media-agent-sqlite',
    durable: "per step, within a 50 ms commit window (a side effect's claim always before its handler)",
    afterKill: 'resumes; an effect whose claim is committed never runs twice',
  },
  { name: 'media-agent (memory)', file: 'media-agent-memory', durable: 'no', afterKill: 'run lost' },
  {
    name: 'LangGraph + SqliteSaver',
    file: 'langgraph',
    durable: 'yes, every step',
    afterKill: 'resumes from the last checkpoint; a tool call in flight runs again',
  },
  {
    name: 'Mastra + LibSQL memory',
    file: 'mastra',
    durable: 'per step, debounced 100 ms (savePerStep)',
    afterKill: 'keeps steps saved > 100 ms before; a tool call in flight has no record',
  },
  { name: 'Vercel AI SDK', file: 'vercel-ai', durable: 'no', afterKill: 'run lost' },
  { name: 'OpenAI Agents SDK', file: 'openai-agents', durable: 'no', afterKill: 'run lost' },
];

/** The peer packages whose versions are printed. */
const PEER_PACKAGES = [
  '@langchain/langgraph',
  '@langchain/langgraph-checkpoint-sqlite',
  '@mastra/core',
  'ai',
  '@openai/agents',
];

const root = fileURLToPath(new URL('..', import.meta.url));
const peersDir = fileURLToPath(new URL('./peers/', import.meta.url));

/** A forked side and a way to ask it one thing at a time. */
interface Child {
  side: PeerSide;
  proc: ChildProcess;
  ask: (m: ParentMessage) => Promise<ChildMessage>;
  importMs: number;
}

/** Forks a side's runner and waits until it has warmed up. */
async function start(side: PeerSide): Promise<Child> {
  const proc = fork(`${peersDir}${side.file}.ts`, [], { execArgv: ['--import', 'tsx'], cwd: root });
  let pending: { resolve: (m: ChildMessage) => void; reject: (e: Error) => void } | undefined;
  const fail = (e: Error) => {
    const p = pending;
    pending = undefined;
    p?.reject(e);
  };
  proc.on('message', (m: ChildMessage) => {
    if (m.type === 'error') return fail(new Error(`${side.name}: ${m.message}`));
    const p = pending;
    pending = undefined;
    p?.resolve(m);
  });
  proc.on('error', fail);
  proc.on('exit', (code, signal) => fail(new Error(`${side.name} exited (${code ?? signal})`)));
  const next = () => new Promise<ChildMessage>((resolve, reject) => (pending = { resolve, reject }));
  const ready = await next();
  if (ready.type !== 'ready') throw new Error(`${side.name}: expected ready, got ${ready.type}`);
  const ask = (m: ParentMessage) => {
    const answer = next();
    proc.send(m);
    return answer;
  };
  return { side, proc, ask, importMs: ready.importMs };
}

/** Per-side figures of every round. */
interface Rounds {
  msPerRun: number[];
  cpuMsPerRun: number[];
  kibPerRun: number[];
  rssMiB: number[];
}

/** The ratio of each round: `base[i] / side[i]` (ms per run), i.e. the side's throughput relative to `base`. */
export function roundRatios(base: readonly number[], side: readonly number[]): number[] {
  if (base.length !== side.length) throw new Error('rounds differ in number');
  return base.map((b, i) => b / side[i]!);
}

/** Runs the benchmark and prints its tables. */
export async function run(): Promise<void> {
  const rounds = envInt('BENCH_ROUNDS', 9, 9);
  const runs = envInt('BENCH_RUNS', 20, 1);
  // `npm ci` writes node_modules/.package-lock.json last: without it (never installed, or an install that did
  // not finish) the folder is installed again from its lockfile.
  if (!existsSync(`${peersDir}node_modules/.package-lock.json`)) {
    console.log('installing the peer SDKs into bench/peers/node_modules (npm ci from its lockfile, first use only)…');
    try {
      execFileSync('npm', ['ci', '--prefix', peersDir, '--no-audit', '--no-fund'], { stdio: 'inherit' });
    } catch (error) {
      throw new Error(
        `could not install the peer SDKs (npm ci --prefix bench/peers): ${(error as Error).message.split('\n')[0]}`,
      );
    }
  }
  printMachine();
  const children: Child[] = [];
  try {
    for (const side of SIDES) children.push(await start(side));
    const figures: Rounds[] = SIDES.map(() => ({ msPerRun: [], cpuMsPerRun: [], kibPerRun: [], rssMiB: [] }));
    for (let r = 0; r < rounds; r++)
      for (const k of roundOrder(SIDES.length, r)) {
        const answer = await children[k]!.ask({ cmd: 'round', runs });
        if (answer.type !== 'round') throw new Error(`${SIDES[k]!.name}: expected round, got ${answer.type}`);
        const f: RoundFigures = answer.figures;
        figures[k]!.msPerRun.push(f.wallMs / runs);
        figures[k]!.cpuMsPerRun.push(f.cpuMs / runs);
        figures[k]!.kibPerRun.push(f.writtenBytes / 1024 / runs);
        figures[k]!.rssMiB.push(f.rssBytes / 2 ** 20);
      }
    for (const c of children) {
      const answer = await c.ask({ cmd: 'check' });
      if (answer.type !== 'checked') throw new Error(`${c.side.name}: expected checked, got ${answer.type}`);
    }
    const base = figures[0]!.msPerRun;
    const ratios: Spread[] = figures.map((f) => spread(roundRatios(base, f.msPerRun)));
    console.log(
      `\n${rounds} rounds × ${runs} runs per side; ratio = media-agent (SQLite) ms/run ÷ side ms/run per round (above 1 = faster than media-agent on SQLite), median (IQR)`,
    );
    printTable(
      [
        'side',
        'durable',
        'after SIGKILL',
        'ratio',
        'ms/run',
        'CPU ms/run',
        'KiB written/run',
        'RSS MiB',
        'import→first run ms',
      ],
      SIDES.map((s, k) => {
        const f = figures[k]!;
        return [
          s.name,
          s.durable,
          s.afterKill,
          formatRatio(ratios[k]!),
          formatSpread(spread(f.msPerRun), 2),
          formatSpread(spread(f.cpuMsPerRun), 2),
          spread(f.kibPerRun).median.toFixed(1),
          spread(f.rssMiB).median.toFixed(0),
          children[k]!.importMs.toFixed(0),
        ];
      }),
      new Set([3, 4, 5, 6, 7, 8]),
    );
    const target = (ours: number, peer: number) => {
      const s = spread(roundRatios(figures[peer]!.msPerRun, figures[ours]!.msPerRun));
      return [SIDES[ours]!.name, SIDES[peer]!.name, formatRatio(s), s.median >= 1 ? 'met' : 'not met'];
    };
    console.log(
      "durable and after SIGKILL: what each side's design gives, from its documentation and code (media-agent's: its SIGKILL tests); nothing is killed here.",
    );
    console.log(
      `peer versions (bench/peers/package-lock.json): ${PEER_PACKAGES.map((n) => `${n} ${installedVersion(`${peersDir}node_modules/${n}`)}`).join(', ')}`,
    );
    console.log(
      '\ntargets: media-agent throughput relative to the peer (peer ms/run ÷ media-agent ms/run), ≥ 1.00 is met',
    );
    printTable(['media-agent', 'peer', 'ratio', 'target ≥ 1.0'], [target(0, 5), target(1, 4)], new Set([2]));
    console.log(
      `load average at end ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.proc.exitCode !== null || c.proc.signalCode !== null) return resolve();
            c.proc.once('exit', () => resolve());
            c.proc.send({ cmd: 'exit' } satisfies ParentMessage);
            setTimeout(() => c.proc.kill(), 10_000).unref();
          }),
      ),
    );
  }
}
