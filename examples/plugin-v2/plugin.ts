/**
 * A MoviePilot 2.x plugin API as a media-agent capability.
 *
 * The V2 adapter reads the host's live OpenAPI document and exposes every plugin route
 * `/api/v1/plugin/<PluginID>/<path>` as `plugin.<PluginID>.<path>` (GET → read/safe, other methods →
 * execute/never). A plugin author overrides what the document cannot say with a declaration, keyed by
 * capability id. Here: the LogsClean plugin's `POST /api/v1/plugin/LogsClean/clean` ("clean the logs
 * now") becomes `plugin.LogsClean.clean` with a typed input/output and `replay: 'reconcile'` — running a
 * clean twice is harmless, so an interrupted call may simply be run again.
 */
import Type from 'typebox';
import { createV2AgentHost, type V2AgentHostOptions, type V2PluginDeclaration } from '@media-agent/host-adapter-v2';

export const LOGS_CLEAN = 'plugin.LogsClean.clean';

export const logsCleanDeclaration: V2PluginDeclaration = {
  kind: 'execute',
  replay: 'reconcile',
  title: 'Clean MoviePilot logs now',
  description: 'Runs the LogsClean plugin once: deletes log lines older than its configured retention. Takes no input.',
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ cleaned: Type.Boolean(), host: Type.Unknown() }),
  toRequest: () => ({}), // the route has no parameters and no body
  fromResponse: (data) => ({ cleaned: true, host: data }),
  tags: ['maintenance'],
  aliases: ['clean logs', '清理日志'],
};

/** `createV2AgentHost` with the declaration: everything else is the adapter's default. */
export function createHostWithLogsClean(options: V2AgentHostOptions) {
  return createV2AgentHost({ ...options, plugins: { declarations: { [LOGS_CLEAN]: logsCleanDeclaration } } });
}
