import type { AgentHost, DecisionRecord } from '@media-agent/sdk';
import type { DecisionSubjects } from '@media-agent/sdk/decisions';

/**
 * Raises each decision input on the host in order (raising an occurrence again creates nothing: the
 * SDK deduplicates by `dedupeKey`).
 * @param host - the SDK host
 * @param inputs - the decision inputs an adapter read from its host's state
 * @returns the decisions as stored
 * @throws what `host.raiseDecision` throws
 * @public
 */
export async function raiseEach(
  host: Pick<AgentHost, 'raiseDecision'>,
  inputs: Iterable<Parameters<AgentHost['raiseDecision']>[0]>,
): Promise<DecisionRecord[]> {
  const out: DecisionRecord[] = [];
  for (const input of inputs) out.push(await host.raiseDecision(input));
  return out;
}

/**
 * A host's state as the SDK's `DecisionSubjects`: a subject exists when the ids the host lists now for
 * its type include it (read once per question; a type the host lists nothing for has no subjects).
 * @param read - lists the ids the host knows now, by subject type (e.g. `download` → torrent hashes)
 * @returns the decision subjects
 * @public
 */
export function subjectsFromHostState(
  read: () => Promise<Partial<Record<string, Iterable<string | null | undefined>>>>,
): DecisionSubjects {
  return {
    exists: async ({ type, id }) => {
      for (const known of (await read())[type] ?? []) if (known === id) return true;
      return false;
    },
  };
}

/**
 * Makes an adapter's `raise…Decisions(host, client, signal?)`: reads the decision inputs from the host
 * with `inputs`, then raises each ({@link raiseEach}).
 * @param inputs - reads the decision inputs of the host's state now
 * @returns the raiser
 * @public
 */
export function decisionRaiser<Client>(
  inputs: (client: Client, signal?: AbortSignal) => Promise<Parameters<AgentHost['raiseDecision']>[0][]>,
): (host: Pick<AgentHost, 'raiseDecision'>, client: Client, signal?: AbortSignal) => Promise<DecisionRecord[]> {
  return async (host, client, signal) => raiseEach(host, await inputs(client, signal));
}
