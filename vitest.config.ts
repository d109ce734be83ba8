import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const src = (p: string) => fileURLToPath(new URL(`./packages/sdk/src/${p}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      {
        find: /^@media-agent\/sdk\/(sqlite|postgres|testing|models|media|storage|mcp|http|memory|history|skills|decisions|code|capabilities|authorization|budgets|limits|secrets|loop|operations)$/,
        replacement: src('$1.ts'),
      },
      { find: /^@media-agent\/sdk$/, replacement: src('index.ts') },
      {
        find: /^@media-agent\/host-adapter-kit\/errors$/,
        replacement: fileURLToPath(new URL('./packages/host-adapter-kit/src/errors.ts', import.meta.url)),
      },
      {
        find: /^@media-agent\/host-adapter-kit$/,
        replacement: fileURLToPath(new URL('./packages/host-adapter-kit/src/index.ts', import.meta.url)),
      },
      {
        find: /^@media-agent\/host-adapter-(v2|v3)\/testing$/,
        replacement: fileURLToPath(new URL('./packages/host-adapter-$1/src/testing.ts', import.meta.url)),
      },
      {
        find: /^@media-agent\/channel-telegram\/testing$/,
        replacement: fileURLToPath(new URL('./packages/channel-telegram/src/testing.ts', import.meta.url)),
      },
      {
        find: /^@media-agent\/channel-telegram$/,
        replacement: fileURLToPath(new URL('./packages/channel-telegram/src/index.ts', import.meta.url)),
      },
      {
        find: /^@media-agent\/host-adapter-(v2|v3)$/,
        replacement: fileURLToPath(new URL('./packages/host-adapter-$1/src/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/**/*.test.ts'],
    // The schedules scale test (4 host processes per store for about 80 s each) runs by itself: `npm run test:scale`
    // (CI runs it beside its build steps). Inside the suite its processes and three test forks share two CPUs, and
    // a tick is then late for reasons that are the machine's, not the scheduler's.
    exclude: [
      ...configDefaults.exclude,
      ...(process.env.MEDIA_AGENT_SCALE_TEST === '1' ? [] : ['packages/sdk/test/schedules/scale.test.ts']),
    ],
    // A test's timeout is the deadline for a hang, never a timing assertion (tests wait for events, not time).
    // It is long because CI shares a 2-CPU machine: with four suites in parallel, starting a tsx child process
    // takes 10-16 s, and a test that starts two of them passed 20 s there while nothing was wrong.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Test files of one fork share its module graph: each file imported the SDK's few hundred modules anew
    // (about 3 s a file, 590 s of the suite's CPU on a 2-CPU machine); shared, the whole suite ran in 397 s
    // instead of 628 s there. No test relies on module state of its own: hosts, stores and servers are made
    // per test, the one fake-timer test restores real timers.
    isolate: false,
    // Most suites wait on I/O (HTTP servers, child processes, SQLite, PostgreSQL): one fork per CPU, and at least
    // three, keeps both CPUs of a small CI machine busy (the default, CPUs - 1, ran one fork at a time there).
    maxWorkers: Math.max(3, availableParallelism()),
    // Probes PostgreSQL once per run for the PostgreSQL suites (MEDIA_AGENT_PG_URL); prints one line when it is unreachable.
    globalSetup: ['packages/sdk/test/storage/postgres-probe.ts'],
  },
});
