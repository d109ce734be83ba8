import type { InvocationResult } from '../capabilities/invocation';
import type { ToolResultMessage, ToolResultStatus } from '../models/types';

/**
 * What each invocation status means, as told to the model with every tool result: pending is not
 * done, unknown must be verified (docs/architecture.md#tool-results).
 * @public
 */
export const TOOL_RESULT_NOTES: Readonly<Record<InvocationResult['status'], string>> = Object.freeze({
  succeeded: 'done: the call succeeded.',
  pending:
    'accepted, NOT done: an asynchronous job was accepted; it is not complete until a later read shows it finished. Do not submit it again.',
  unknown:
    'outcome unknown: the call may or may not have taken effect. Verify with a read before retrying; do not assume success or failure.',
  failed: 'failed: the call did not take effect.',
  denied: 'denied: not authorized. Retrying will not help unless a person grants an approval or an automation grant.',
});

/**
 * Notes that replace the status note for a refusal whose remedy is not an approval or a grant: a tainted argument
 * (docs/untrusted-text.md) and a job someone else already does (docs/intents.md).
 * @public
 */
export const TOOL_RESULT_CODE_NOTES: Readonly<Record<string, string>> = Object.freeze({
  TAINTED_ARGUMENT:
    'refused: an argument is not an id a host read returned to this run, or repeats text from an untrusted source. No approval or grant lifts this. Do not retry with that value: use ids the host returned, or ask the person what they want.',
  INTENT_IN_PROGRESS:
    'joined: another run or person is already doing this job for this title; nothing new was started. Do not plan or submit it again: report who has it and its status.',
});

/**
 * The tool-result message the model sees for one invocation: JSON text with `status`, `note` (the status's, or
 * `TOOL_RESULT_CODE_NOTES` for the error's code), and the output or error.
 * @param callId - the model's tool-call id
 * @param name - the tool (capability) name
 * @param result - the invocation result
 * @param extra - more fields for the model, e.g. `{ approvalRequested: 'apr_…' }`
 * @public
 */
export function toolResultMessage(
  callId: string,
  name: string,
  result: Pick<InvocationResult, 'status' | 'output' | 'error'>,
  extra: Record<string, unknown> = {},
): ToolResultMessage {
  const status: ToolResultStatus =
    result.status === 'succeeded' || result.status === 'pending'
      ? 'ok'
      : result.status === 'unknown'
        ? 'unknown'
        : 'error';
  const note = (result.error && TOOL_RESULT_CODE_NOTES[result.error.code]) ?? TOOL_RESULT_NOTES[result.status];
  const body: Record<string, unknown> = { status: result.status, note };
  if (result.output !== undefined) body.output = result.output;
  if (result.error) body.error = result.error;
  Object.assign(body, extra);
  return { role: 'tool', toolCallId: callId, name, status, content: JSON.stringify(body) };
}
