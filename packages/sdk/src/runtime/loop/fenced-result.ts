// A capability's result as the model reads it: untrusted text fenced (docs/untrusted-text.md).
import type { InvocationResult } from '../../capabilities/invocation';
import type { CapabilityDescriptor } from '../../core/capability-descriptor';
import { FENCE_NOTE, fenceOutput, fenceText } from '../../core/data-fence';
import { outputWhollyUntrusted } from '../../capabilities/declared-provenance';

/**
 * Cap of each fenced string of a wholly untrusted output (an MCP client tool's), in characters: the output is
 * capped already (`maxOutputBytes`, 768 KiB by default), so its strings keep their length and a large result is
 * paged with `read_tool_result` as any other.
 */
export const WHOLLY_UNTRUSTED_FENCE_MAX_CHARS = 786_432;

/** A copy of `value` with every string fenced; `fenced` counts them. */
function fenceEveryString(value: unknown): { value: unknown; fenced: number } {
  let fenced = 0;
  const visit = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') {
      fenced++;
      return fenceText(v, WHOLLY_UNTRUSTED_FENCE_MAX_CHARS);
    }
    if (depth > 64 || typeof v !== 'object' || v === null) return v;
    if (Array.isArray(v)) return v.map((item) => visit(item, depth + 1));
    return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, visit(item, depth + 1)]));
  };
  return { value: visit(value, 0), fenced };
}

/**
 * The result the model is told of a capability's call: the output's untrusted strings fenced (`fenceOutput`; every
 * string of a wholly untrusted output, such as an MCP client tool's), and `dataNote` ({@link FENCE_NOTE}) to add to
 * the tool message when anything was fenced. Events and the ledger keep the output as it was.
 * @param descriptor - the capability's descriptor (its output schema)
 * @param result - the invocation result
 */
export function fencedResult<R extends Pick<InvocationResult, 'status' | 'output' | 'error'>>(
  descriptor: Pick<CapabilityDescriptor, 'output'>,
  result: R,
): { result: R; dataNote?: string } {
  if (result.output === undefined || result.output === null) return { result };
  const fenced = outputWhollyUntrusted(descriptor.output)
    ? fenceEveryString(result.output)
    : fenceOutput(descriptor.output, result.output);
  if (fenced.fenced === 0) return { result };
  return { result: { ...result, output: fenced.value }, dataNote: FENCE_NOTE };
}
