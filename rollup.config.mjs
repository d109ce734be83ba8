// Builds every workspace package to ESM only (`.js`, the packages are `"type": "module"`) and one
// bundled `.d.ts` per entry point (shared declarations in dist/chunks/). Node ≥ 20.19 loads ESM
// from `require()`, so CommonJS hosts use the same files.
// Entry points come from each package.json's `exports`: `"./x"` is built from `src/x.ts`, `"."` from `src/index.ts`.
import { readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import typescript from '@rollup/plugin-typescript';
import { dts } from 'rollup-plugin-dts';

const packageDirs = [
  'packages/sdk',
  'packages/host-adapter-kit',
  'packages/host-adapter-v2',
  'packages/host-adapter-v3',
  'packages/channel-telegram',
];

/** Entry points of a package: output name -> source file, from its `exports`. */
export function entriesOf(dir) {
  const { exports } = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'));
  return Object.fromEntries(
    Object.keys(exports)
      .filter((subpath) => subpath !== './package.json')
      .map((subpath) => {
        const name = subpath === '.' ? 'index' : subpath.slice(2);
        return [name, `${dir}/src/${name}.ts`];
      }),
  );
}

const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
/** Everything that is not a relative path is a dependency, never bundled. */
const external = (id) => builtins.has(id) || !(id.startsWith('.') || id.startsWith('/') || id.startsWith('\0'));

// A stale chunk from an earlier build would ship in the tarball and confuse the API report: start clean.
for (const dir of packageDirs) rmSync(`${dir}/dist`, { recursive: true, force: true });

export default packageDirs.flatMap((dir) => [
  {
    input: entriesOf(dir),
    external,
    plugins: [
      typescript({
        tsconfig: './tsconfig.json',
        include: [`${dir}/src/**/*.ts`],
        compilerOptions: { declaration: false, sourceMap: true, outDir: `${dir}/dist`, paths: {} },
      }),
    ],
    output: {
      dir: `${dir}/dist`,
      format: 'es',
      entryFileNames: '[name].js',
      chunkFileNames: 'chunks/[name]-[hash].js',
      sourcemap: true,
    },
  },
  {
    input: entriesOf(dir),
    external,
    plugins: [dts({ tsconfig: './tsconfig.json', compilerOptions: { paths: {} } })],
    output: {
      dir: `${dir}/dist`,
      format: 'es',
      entryFileNames: '[name].d.ts',
      chunkFileNames: 'chunks/[name]-[hash].d.ts',
    },
  },
]);
