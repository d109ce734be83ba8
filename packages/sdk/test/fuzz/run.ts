// The long fuzz run: `npm run fuzz [-- --runs N] [--seed S] [--target name[,name…]]`.
// Runs every target of ./properties (the same properties as the vitest subset) for N cases
// (default 100 000) with seed S (default FUZZ_SEED, else the constant DEFAULT_FUZZ_SEED), prints per
// target the cases, failures, seconds and cases/s, then for a failing target the failure kinds seen
// and the counterexample fast-check shrinks from the same seed. Exits 1 when any case failed.
import fc from 'fast-check';
import { printMachine, printTable } from '../../../../bench/_report';
import { createTarget, fuzzSeed, propertyOf, TARGET_NAMES, type TargetName } from './properties';

interface Options {
  runs: number;
  seed: number;
  targets: TargetName[];
}

function usage(message: string): never {
  console.error(`${message}\nusage: npm run fuzz -- [--runs N] [--seed S] [--target ${TARGET_NAMES.join(',')}]`);
  process.exit(2);
}

function parseArgs(argv: string[]): Options {
  const options: Options = { runs: 100_000, seed: fuzzSeed(), targets: [...TARGET_NAMES] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    const value = () => inline ?? argv[++i] ?? usage(`${flag} needs a value`);
    if (flag === '--runs') {
      options.runs = Number(value());
      if (!Number.isSafeInteger(options.runs) || options.runs < 1) usage('--runs must be a positive integer');
    } else if (flag === '--seed') {
      options.seed = Number(value());
      if (!Number.isSafeInteger(options.seed)) usage('--seed must be an integer');
      options.seed |= 0;
    } else if (flag === '--target') {
      const names = value().split(',').filter(Boolean);
      const unknown = names.filter((n) => !(TARGET_NAMES as readonly string[]).includes(n));
      if (unknown.length > 0) usage(`unknown target(s): ${unknown.join(', ')}`);
      options.targets = names as TargetName[];
    } else if (flag === '--help' || flag === '-h') usage('');
    else usage(`unknown argument ${arg}`);
  }
  return options;
}

/** The stable part of a failure message (before ` | `), with numbers folded, to group failures by kind. */
function signature(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const head = (message.split(' | ')[0] ?? '').split('\n')[0]!;
  return head.replace(/\d+/g, 'N').slice(0, 240);
}

interface FailureKind {
  count: number;
  /** The shortest case (as fast-check prints it) that failed this way. */
  example: string;
  message: string;
}

const options = parseArgs(process.argv.slice(2));
printMachine();
console.log(
  `fuzz: ${options.runs} cases per target, seed ${options.seed} (FUZZ_SEED or --seed to change, --runs to change the count)\n`,
);

const rows: string[][] = [];
const reports: string[] = [];
let failed = false;
for (const name of options.targets) {
  const target = await createTarget(name);
  try {
    console.log(`- ${name}: ${target.description}`);
    // Pass 1: every case, counting failures (fast-check itself stops at the first one).
    const kinds = new Map<string, FailureKind>();
    let failures = 0;
    const counting = fc.asyncProperty(target.arbitrary, async (value) => {
      try {
        await target.check(value);
      } catch (error) {
        failures++;
        const key = signature(error);
        let shown: string;
        try {
          shown = fc.stringify(value);
        } catch {
          shown = '(a case fast-check cannot print)';
        }
        const kind = kinds.get(key);
        if (!kind)
          kinds.set(key, { count: 1, example: shown, message: error instanceof Error ? error.message : String(error) });
        else {
          kind.count++;
          if (shown.length < kind.example.length)
            Object.assign(kind, { example: shown, message: error instanceof Error ? error.message : String(error) });
        }
      }
    });
    const started = performance.now();
    await fc.assert(counting, { seed: options.seed, numRuns: options.runs });
    const seconds = (performance.now() - started) / 1000;
    rows.push([name, String(options.runs), String(failures), seconds.toFixed(1), (options.runs / seconds).toFixed(0)]);
    const coverage = [...target.stats].filter(([k]) => !k.startsWith('fixture:')).sort((a, b) => b[1] - a[1]);
    console.log(`  ${coverage.map(([k, v]) => `${k}: ${v}`).join(' · ')}`);
    if (failures > 0) {
      failed = true;
      let report = `## ${name}: ${failures} of ${options.runs} cases failed (seed ${options.seed})\n\nfailure kinds (count, shortest failing case):\n`;
      for (const [key, kind] of [...kinds].sort((a, b) => b[1].count - a[1].count)) {
        report += `\n* ${kind.count}× ${key}\n    case: ${kind.example}\n    error: ${kind.message.slice(0, 1500)}\n`;
      }
      // Pass 2: the same seed, stopping at the first failure and shrinking it.
      const details = await fc.check(propertyOf(target), { seed: options.seed, numRuns: options.runs });
      report += `\nshrunk counterexample of the first failure (reproduce with --seed ${options.seed} --target ${name}):\n${fc.defaultReportMessage(details) ?? '(fast-check reported no failure on the second pass)'}\n`;
      reports.push(report);
    }
  } finally {
    await target.close?.();
  }
}

console.log('');
printTable(['target', 'cases', 'failures', 'seconds', 'cases/s'], rows, new Set([1, 2, 3, 4]));
for (const r of reports) console.log(`\n${r}`);
process.exit(failed ? 1 : 0);
