import { standardFromFamilies } from '@media-agent/host-adapter-kit';
import type { StandardImplementations } from '@media-agent/sdk/media';
import { v3CatalogCapabilities } from './standard/catalog';
import { v3ReleaseCapabilities } from './standard/release';
import { v3DownloadCapabilities } from './standard/download';
import { v3OrganizeCapabilities } from './standard/organize';
import { v3TaskCapabilities } from './standard/task';
import { v3PolicyCapabilities } from './standard/policy';
import { v3InventoryCapabilities } from './standard/inventory';
import { v3StandardHelpers, type V3Services } from './standard/services';

/**
 * The MoviePilot 3.x implementations of the 15 standard media capabilities, one family per file in
 * `standard/`; see the mapping table in the package README. `download.plan`/`organize.plan` create SDK
 * plan artifacts with the host's `PlanService`; `download.submit` carries the standard-style verifier
 * `verifyV3DownloadSubmit` (downloader task list: hash, else title + size).
 * @param s - the services of one host
 * @returns the 15 capabilities by id, for `registerStandardCapabilities`
 * @internal
 */
export function v3StandardCapabilities(s: V3Services): StandardImplementations {
  return standardFromFamilies(s, v3StandardHelpers(s), [
    v3CatalogCapabilities,
    v3ReleaseCapabilities,
    v3DownloadCapabilities,
    v3OrganizeCapabilities,
    v3TaskCapabilities,
    v3PolicyCapabilities,
    v3InventoryCapabilities,
  ]);
}
