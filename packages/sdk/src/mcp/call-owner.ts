// The person an MCP tool call acts for (the elicitation handler's `owner`).
import { runOwner, type RunLookup } from '../authorization/run-owner';
import { isHumanActor } from '../core/actor';
import type { RunRecord } from '../core/run-records';
import type { McpCallInFlight } from './elicitation';

type RunReader = (id: string, options: { limit: number }) => Promise<{ run: RunRecord }>;

/**
 * The person a call acts for: the `user:` who owns its run (its starter, a subagent's top-level starter, see
 * `runOwner`), or the invoking `user:` for a call outside a run (or when `host` is a bare registry). Undefined when that is not a person or a run cannot
 * be read. Runs are read with `getRun(id, { limit: 1 })` of an `AgentHost` (one event, not the run's history).
 */
export async function callOwner(host: object, call: McpCallInFlight): Promise<string | undefined> {
  const getRun = (host as { getRun?: unknown }).getRun;
  if (!call.runId || typeof getRun !== 'function') return isHumanActor(call.actor) ? call.actor : undefined;
  const read = (id: string) => (getRun as RunReader).call(host, id, { limit: 1 });
  const runs: RunLookup = { get: async (id) => (await read(id)).run };
  try {
    const owner = await runOwner(runs, (await read(call.runId)).run);
    return isHumanActor(owner) ? owner : undefined;
  } catch {
    return undefined;
  }
}
