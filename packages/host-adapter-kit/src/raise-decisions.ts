import type { AgentHost, DecisionRecord } from '@media-agent/sdk';

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
