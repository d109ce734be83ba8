// Runs api-extractor for every public entry point (one config per package entry).
// `--local` rewrites api-reports/*.api.md; without it a report change fails (npm run api:check).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const local = process.argv.includes('--local');
let failed = 0;
for (const pkg of readdirSync('packages')) {
  for (const file of readdirSync(join('packages', pkg)).filter((f) => /^api-extractor(\.[\w-]+)?\.json$/.test(f))) {
    const config = ExtractorConfig.loadFileAndPrepare(join('packages', pkg, file));
    const result = Extractor.invoke(config, { localBuild: local, showVerboseMessages: false });
    const label = `${pkg}/${file}`;
    // Errors (undocumented or forgotten exports) and an unreviewed report change fail; warnings are printed only.
    if (result.errorCount > 0 || (!local && result.apiReportChanged)) {
      failed++;
      console.error(`api-extractor: ${label}: ${result.errorCount} error(s), ${result.warningCount} warning(s)` +
        (result.apiReportChanged ? ' - the API report changed: review it and run `npm run api`' : ''));
    } else {
      console.log(`api-extractor: ${label}: ok${result.apiReportChanged ? ' (report updated)' : ''}`);
    }
  }
}
process.exit(failed ? 1 : 0);
