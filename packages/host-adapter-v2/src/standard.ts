import { standardFromFamilies } from '@media-agent/host-adapter-kit';
import type { StandardImplementations } from '@media-agent/sdk/media';
import { v2CatalogCapabilities } from './standard/catalog';
import { v2ReleaseCapabilities } from './standard/release';
import { v2DownloadCapabilities } from './standard/download';
import { v2OrganizeCapabilities } from './standard/organize';
import { v2TaskCapabilities } from './standard/task';
import { v2PolicyCapabilities } from './standard/policy';
import { v2InventoryCapabilities } from './standard/inventory';
import { v2StandardHelpers, type V2StandardDeps } from './standard/services';

/**
 * The MoviePilot 2.x implementations of the 15 standard media capabilities, one family per file in
 * `standard/`, with read-only verifiers for `download.submit` (downloader task list: hash, else title +
 * size) and `organize.execute` (transfer history). The mapping to endpoints is the table in the package
 * README.
 * @param deps - the host view and the host's plan service
 * @returns the 15 capabilities by id, for `registerStandardCapabilities`
 * @internal
 */
export function v2StandardCapabilities(deps: V2StandardDeps): StandardImplementations {
  return standardFromFamilies(deps, v2StandardHelpers(deps), [
    v2CatalogCapabilities,
    v2ReleaseCapabilities,
    v2DownloadCapabilities,
    v2OrganizeCapabilities,
    v2TaskCapabilities,
    v2PolicyCapabilities,
    v2InventoryCapabilities,
  ]);
}
