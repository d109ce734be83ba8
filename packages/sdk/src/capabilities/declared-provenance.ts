// Whether a capability declares provenance, and whether its output is untrusted as a whole (docs/untrusted-text.md).
import { isProvenanceDeclared, TEXT_MARK } from '../core/provenance-marks';

/**
 * True when a capability's output is untrusted as a whole: its output schema's root carries
 * `x-media-agent-text: 'untrusted'` (the capabilities made from MCP client tools): every string in it is text
 * written by strangers, whatever its place, and none is an issued id.
 * @param outputSchema - the capability's output schema
 * @internal
 */
export function outputWhollyUntrusted(outputSchema: unknown): boolean {
  return (
    typeof outputSchema === 'object' &&
    outputSchema !== null &&
    (outputSchema as Record<string, unknown>)[TEXT_MARK] === 'untrusted'
  );
}

/**
 * `declared` when the capability's schemas carry provenance marks (`isProvenanceDeclared`): a run's side effects of
 * it are checked for untrusted arguments. An output untrusted as a whole ({@link outputWhollyUntrusted}) says
 * nothing of the input, so on its own it does not declare the capability (an MCP client tool's input schema is the
 * remote server's, with no marks: its calls keep the behaviour without the check, and it is listed as undeclared).
 * @param input - the input schema
 * @param output - the output schema
 * @internal
 */
export function declaredProvenance(input: unknown, output: unknown): 'declared' | 'undeclared' {
  let marked = output;
  if (outputWhollyUntrusted(output)) {
    const { [TEXT_MARK]: _whole, ...rest } = output as Record<string, unknown>;
    marked = rest;
  }
  return isProvenanceDeclared(input, marked) ? 'declared' : 'undeclared';
}
