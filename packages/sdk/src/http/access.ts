/**
 * The run an approval was asked for (`agent:<runId>` requests), or undefined.
 * @internal
 */
export function approvalRunId(requestedBy: string): string | undefined {
  return requestedBy.startsWith('agent:') ? requestedBy.slice('agent:'.length) : undefined;
}
