/**
 * `@media-agent/host-adapter-kit`: what the media-agent MoviePilot host adapters
 * (`@media-agent/host-adapter-v2`, `@media-agent/host-adapter-v3`) share. Host applications use the
 * adapters; this package is for adapter authors and for code that handles both adapters' errors.
 *
 * @packageDocumentation
 */

export { startAfter } from './start-check';
export {
  declaresJsonOnly,
  hostPluginSegments,
  rulePluginRoute,
  type PluginRouteContext,
  type PluginRouteOperation,
  type PluginRouteRefusal,
  type PluginRouteRuling,
} from './plugin-routes';
