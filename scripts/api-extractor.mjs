// Runs API Extractor for every public entry point of every workspace package. The configuration of
// each entry is generated here from the package's `exports` (one shape for all of them).
// `--local` rewrites api-reports/*.api.md; without it a report change fails (npm run api:check).
//
// Rules enforced beyond API Extractor's own:
// - every exported declaration is documented (ae-undocumented is an error);
// - a type reachable from an entry's signatures but not exported by that entry (ae-forgotten-export)
//   must be exported by another entry of the same package, so a user can always name it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';
import ts from 'typescript';

const local = process.argv.includes('--local');
const root = process.cwd();

/** The API Extractor configuration of one entry point. */
function configObject(pkgDir, entryName, reportName) {
  return {
    projectFolder: pkgDir,
    mainEntryPointFilePath: `<projectFolder>/dist/${entryName}.d.ts`,
    bundledPackages: [],
    compiler: {
      overrideTsconfig: {
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          types: ['node'],
          strict: true,
          skipLibCheck: true,
        },
        include: ['dist/**/*.d.ts'],
      },
    },
    apiReport: {
      enabled: true,
      reportFileName: `${reportName}.api.md`,
      reportFolder: join(root, 'api-reports'),
      reportTempFolder: join(root, 'temp/api'),
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    messages: {
      compilerMessageReporting: { default: { logLevel: 'warning' } },
      extractorMessageReporting: {
        default: { logLevel: 'warning' },
        'ae-missing-release-tag': { logLevel: 'none' },
        'ae-undocumented': { logLevel: 'error', addToApiReportFile: false },
        // Checked below against the package's other entries.
        'ae-forgotten-export': { logLevel: 'warning', addToApiReportFile: false },
        // Links across entry points ({@link Foo} where Foo is exported by a sibling entry) do not resolve per entry.
        'ae-unresolved-link': { logLevel: 'none' },
      },
      tsdocMessageReporting: { default: { logLevel: 'warning' } },
    },
  };
}

/** Names exported by a declaration file. */
function exportedNames(file) {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(file));
  return new Set(moduleSymbol ? checker.getExportsOfModule(moduleSymbol).map((s) => s.name) : []);
}

let failed = 0;
for (const dir of readdirSync('packages')) {
  const pkgDir = resolve('packages', dir);
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const short = pkg.name.replace(/^@media-agent\//, '');
  const entries = Object.keys(pkg.exports ?? {})
    .filter((s) => s !== './package.json')
    .map((s) => (s === '.' ? 'index' : s.slice(2)));
  const exported = new Set(entries.flatMap((e) => [...exportedNames(join(pkgDir, 'dist', `${e}.d.ts`))]));
  for (const entry of entries) {
    const reportName = entry === 'index' ? short : `${short}.${entry}`;
    const config = ExtractorConfig.prepare({
      configObject: configObject(pkgDir, entry, reportName),
      configObjectFullPath: join(pkgDir, `api-extractor.${entry}.json`), // virtual: names the entry in messages
      packageJsonFullPath: join(pkgDir, 'package.json'),
    });
    const unnamed = [];
    const result = Extractor.invoke(config, {
      localBuild: local,
      showVerboseMessages: false,
      messageCallback: (message) => {
        if (message.messageId !== 'ae-forgotten-export') return;
        message.handled = true;
        // A declaration renamed in a bundle (`Foo$1`, `Foo_2`) is the export `Foo` of another entry.
        const raw = /The symbol "([^"]+)"/.exec(message.text)?.[1];
        const name = raw && !exported.has(raw) ? raw.replace(/(?:\$|_)\d+$/, '') : raw;
        if (name && !exported.has(name)) unnamed.push(name);
        else if (!name) message.logLevel = ExtractorLogLevel.Error;
      },
    });
    const label = `${pkg.name}${entry === 'index' ? '' : `/${entry}`}`;
    const problems = [];
    if (result.errorCount > 0) problems.push(`${result.errorCount} error(s)`);
    if (unnamed.length)
      problems.push(
        `reachable but exported by no entry of ${pkg.name} (export it, or mark it @internal and keep it out of public signatures): ${[...new Set(unnamed)].sort().join(', ')}`,
      );
    if (!local && result.apiReportChanged) problems.push('the API report changed: review it and run `npm run api`');
    if (problems.length) {
      failed++;
      console.error(`api-extractor: ${label}: ${problems.join('; ')}`);
    } else {
      console.log(`api-extractor: ${label}: ok${result.apiReportChanged ? ' (report updated)' : ''}`);
    }
  }
}
process.exit(failed ? 1 : 0);
