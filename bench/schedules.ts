/**
 * Benchmark `schedules`: the schedules scale scenario at a longer window. {@link PROCESSES} host processes (real child
 * processes, `node --import tsx`) share one store and one clock running {@link SPEED}x faster than real time, and
 * fire the ticks of {@link SCHEDULES} schedules (every 6 / 8 min and cron every 6 / 10 min, half `skip`, half
 * `catch_up_one`), while a controller SIGKILLs a random process every 1.5–4 s and starts it again, and about one kill
 * in seven hits every process at once for 7–9 s (an all-down gap; at least one per store). After the window every
 * process is killed, the store is read and judged (packages/sdk/test/schedules/scale/oracle.ts). The CI test
 * (packages/sdk/test/schedules/scale.test.ts) runs the same harness for 65 s.
 *
 * Configure: `npm run bench -- schedules --seconds=300 --schedules=120 --seed=123` (or the environment variables
 * `SCHEDULE_BENCH_SECONDS`, `SCHEDULE_BENCH_SCHEDULES`, `SCHEDULE_BENCH_SEED`). Defaults: 180 s real per store
 * (3 h of scenario time), 120 schedules.
 *
 * Output: the machine line, the settings line, progress lines per store (`  sqlite: …`), then one Markdown table row
 * per store (a SQLite file in `os.tmpdir()`; PostgreSQL when `MEDIA_AGENT_PG_URL` or the default server answers, on a
 * fresh schema dropped afterwards):
 * - store: `sqlite` or `postgres`
 * - ticks: decidable ticks (due at least the grace before the last process stopped)
 * - fired / skipped: of them, fired (a run started) or recorded skipped (missed during a gap, per policy)
 * - runs: runs the schedules started (all of them, the last grace included)
 * - double fires: tick keys with more than one run or tick row, plus runs no claim names (must be 0)
 * - missed fires: ticks a process was alive for from the tick to its grace, without a run (must be 0)
 * - policy violations: skip fired a missed tick, catch_up_one fired other than the newest missed one (must be 0)
 * - kills: SIGKILLs sent (the final stop not counted)
 * - all-down gaps: kills of every process at once
 * - covered / uncovered: ticks that had to fire / that no process could fire on time
 * - ticks/s: ticks handled per real second
 * Then a `!` line per problem and the seed of each store (replay with `--seed`).
 *
 * Figures are from one run on the machine that printed them; compare rows, not machines.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  runScheduleScale,
  type ScheduleScaleResult,
  scaleScheduleMix,
} from '../packages/sdk/test/schedules/scale/harness';
import {
  dropPostgresSchema,
  postgresUnreachable,
  SCALE_PG_URL,
  type ScaleStoreSpec,
} from '../packages/sdk/test/schedules/scale/store-spec';
import { printMachine, printTable } from './_report';

/** Host processes sharing the store. */
const PROCESSES = 4;
/** Scenario ms per real ms. */
const SPEED = 60;

/** A `--name=value` argument or the environment variable, as a number, else the default. */
function setting(name: string, env: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const value = Number(arg ?? process.env[env] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

const SECONDS = setting('seconds', 'SCHEDULE_BENCH_SECONDS', 180);
const SCHEDULES = Math.round(setting('schedules', 'SCHEDULE_BENCH_SCHEDULES', 120));
const SEED =
  process.argv.some((a) => a.startsWith('--seed=')) || process.env.SCHEDULE_BENCH_SEED
    ? setting('seed', 'SCHEDULE_BENCH_SEED', 1)
    : undefined;

function row(r: ScheduleScaleResult): string[] {
  const o = r.oracle;
  return [
    r.store,
    String(o.ticks),
    String(o.fired),
    String(o.skipped),
    String(o.runs),
    String(o.doubleFires),
    String(o.missedFires),
    String(o.violations.length),
    String(r.kills),
    String(r.allDownKills),
    `${o.covered} / ${o.uncovered}`,
    ((o.fired + o.skipped) / (r.elapsedRealMs / 1000)).toFixed(1),
  ];
}

/** Entry point called by `bench/run.ts`. */
export async function run(): Promise<void> {
  printMachine();
  console.log(
    `${PROCESSES} host processes, clock ${SPEED}x, ${SCHEDULES} schedules, ${SECONDS} s real per store (${((SECONDS * SPEED) / 3600).toFixed(1)} h of scenario time); a random process SIGKILLed every 1.5–4 s and restarted, about 1 kill in 7 of every process for 7–9 s.`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-bench-schedules-'));
  const stores: Array<{ spec: ScaleStoreSpec; cleanup: () => Promise<void> }> = [
    { spec: { kind: 'sqlite', path: join(dir, 'agent.sqlite') }, cleanup: async () => undefined },
  ];
  const unreachable = await postgresUnreachable();
  if (unreachable) console.log(`PostgreSQL row skipped: no server at ${SCALE_PG_URL} (${unreachable})`);
  else {
    const schema = `ma_bench_schedules_${process.pid}_${Date.now()}`;
    stores.push({
      spec: { kind: 'postgres', url: SCALE_PG_URL, schema },
      cleanup: () => dropPostgresSchema(SCALE_PG_URL, schema),
    });
  }
  const rows: string[][] = [];
  const notes: string[] = [];
  const started = performance.now();
  try {
    for (const { spec, cleanup } of stores) {
      try {
        const r = await runScheduleScale({
          store: spec,
          schedules: scaleScheduleMix(SCHEDULES),
          durationRealMs: SECONDS * 1000,
          processes: PROCESSES,
          speed: SPEED,
          ...(SEED === undefined ? {} : { seed: SEED }),
          log: (line) => console.log(`  ${spec.kind}: ${line}`),
        });
        rows.push(row(r));
        notes.push(`${r.store}: seed ${r.seed}`);
        for (const c of r.crashes) notes.push(`! ${r.store}: ${c}`);
        for (const d of r.oracle.examples.doubleFires) notes.push(`! ${r.store}: double fire ${d}`);
        for (const m of r.oracle.examples.missedFires) notes.push(`! ${r.store}: missed fire ${m}`);
        for (const v of r.oracle.violations.slice(0, 20)) notes.push(`! ${r.store}: ${v}`);
      } finally {
        await cleanup();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log('');
  printTable(
    [
      'store',
      'ticks',
      'fired',
      'skipped',
      'runs',
      'double fires',
      'missed fires',
      'policy violations',
      'kills',
      'all-down gaps',
      'covered / uncovered',
      'ticks/s',
    ],
    rows,
    new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
  );
  console.log('');
  for (const n of notes) console.log(n);
  console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
