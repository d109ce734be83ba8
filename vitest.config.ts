import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (p: string) => fileURLToPath(new URL(`./packages/sdk/src/${p}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@media-agent\/sdk\/sqlite$/, replacement: src('sqlite.ts') },
      { find: /^@media-agent\/sdk\/testing$/, replacement: src('testing.ts') },
      { find: /^@media-agent\/sdk$/, replacement: src('index.ts') },
    ],
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 20_000,
    pool: 'forks',
  },
});
