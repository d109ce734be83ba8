// Builds every workspace package to ESM (.mjs) + CJS (.cjs) and one bundled .d.ts per entry point.
import { builtinModules } from 'node:module';
import typescript from '@rollup/plugin-typescript';
import { dts } from 'rollup-plugin-dts';

/** Entry points per package: subpath name -> source file. */
const packages = [
  { dir: 'packages/sdk', entries: { index: 'src/index.ts', sqlite: 'src/sqlite.ts', testing: 'src/testing.ts' } },
  { dir: 'packages/host-adapter-v2', entries: { index: 'src/index.ts', testing: 'src/testing.ts' } },
  { dir: 'packages/host-adapter-v3', entries: { index: 'src/index.ts', testing: 'src/testing.ts' } },
];

const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
/** Everything that is not a relative path is a dependency, never bundled. */
const external = (id) => builtins.has(id) || !(id.startsWith('.') || id.startsWith('/') || id.startsWith('\0'));

const input = (pkg) => Object.fromEntries(Object.entries(pkg.entries).map(([name, file]) => [name, `${pkg.dir}/${file}`]));

export default packages.flatMap((pkg) => [
  {
    input: input(pkg),
    external,
    plugins: [
      typescript({
        tsconfig: './tsconfig.json',
        include: [`${pkg.dir}/src/**/*.ts`],
        compilerOptions: { declaration: false, sourceMap: true, outDir: `${pkg.dir}/dist`, paths: {} },
      }),
    ],
    output: [
      { dir: `${pkg.dir}/dist`, format: 'es', entryFileNames: '[name].mjs', chunkFileNames: 'chunks/[name]-[hash].mjs', sourcemap: true },
      { dir: `${pkg.dir}/dist`, format: 'cjs', entryFileNames: '[name].cjs', chunkFileNames: 'chunks/[name]-[hash].cjs', sourcemap: true, exports: 'named' },
    ],
  },
  {
    input: input(pkg),
    external,
    plugins: [dts({ tsconfig: './tsconfig.json', compilerOptions: { paths: {} } })],
    output: { dir: `${pkg.dir}/dist`, format: 'es', entryFileNames: '[name].d.ts', chunkFileNames: 'chunks/[name]-[hash].d.ts' },
  },
]);
