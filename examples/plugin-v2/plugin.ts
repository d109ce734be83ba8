/**
 * A MoviePilot 2.x plugin API as media-agent capabilities.
 *
 * The V2 adapter reads the host's live OpenAPI document and exposes every plugin route
 * `/api/v1/plugin/<PluginID>/<path>` as `plugin.<PluginID>.<path>` (GET → read/safe, other methods →
 * execute/never); each such capability sends its own route and nothing else. A plugin author overrides
 * what the document cannot say with a declaration, keyed by capability id. Here: the LogsClean plugin's
 * `POST /api/v1/plugin/LogsClean/clean` ("clean the logs now") becomes `plugin.LogsClean.clean` with a
 * typed input/output and `replay: 'reconcile'` — running a clean twice is harmless, so an interrupted
 * call may simply be run again. A declaration may raise a route's effect, never lower it: `kind` stays
 * `execute` for a route that writes.
 *
 * A capability that sends several routes is written with `defineV2PluginCapability`: it declares the
 * routes (`METHOD /path-template` or a `V2_OPERATIONS` id) and its handler gets `ctx.client`, a client
 * of that invocation that sends only those routes, for the invoking actor. `plugin.LogsClean.tidy`
 * reads the plugin's status and cleans only when the plugin is enabled.
 */
import Type from 'typebox';
import {
  createV2AgentHost,
  defineV2PluginCapability,
  type V2AgentHostOptions,
  type V2PluginDeclaration,
} from '@media-agent/host-adapter-v2';

export const LOGS_CLEAN = 'plugin.LogsClean.clean';
export const LOGS_TIDY = 'plugin.LogsClean.tidy';
const STATUS = 'GET /api/v1/plugin/LogsClean/status';
const CLEAN = 'POST /api/v1/plugin/LogsClean/clean';

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

/** Reads the LogsClean status, then cleans unless the plugin reports itself disabled. Declares exactly the two routes it sends. */
export const logsTidy = defineV2PluginCapability({
  id: LOGS_TIDY,
  version: 1,
  title: 'Tidy MoviePilot logs',
  description: 'Checks the LogsClean plugin and, when it is enabled, cleans the logs once. Takes no input.',
  kind: 'execute', // it declares a POST: a write needs an execute capability
  replay: 'reconcile',
  routes: [STATUS, CLEAN],
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ cleaned: Type.Boolean() }),
  tags: ['maintenance'],
  handler: async (_input, ctx) => {
    const status = await ctx.client.call<{ enabled?: boolean } | null>(STATUS);
    if (status?.enabled === false) return { cleaned: false };
    await ctx.client.call(CLEAN);
    return { cleaned: true };
  },
});

/** `createV2AgentHost` with the declaration and the plugin capability: everything else is the adapter's default. */
export function createHostWithLogsClean(options: V2AgentHostOptions) {
  return createV2AgentHost({
    ...options,
    plugins: { declarations: { [LOGS_CLEAN]: logsCleanDeclaration }, capabilities: [logsTidy] },
  });
}
