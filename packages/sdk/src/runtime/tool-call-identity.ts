// Tool calls as the runtime keeps them: a run-unique id of its own, and arguments too large for the
// invocation path kept out of the conversation. Pure rules, tested directly.
import type { ModelEvent, ToolCallFailure, ToolCallPart } from '../models/types';

/**
 * The runtime's id of the `index`-th tool call (0-based) of one model turn: `<prefix>_<index>`.
 *
 * @remarks
 * Servers reuse call ids across turns (a constant id, or per-turn numbering such as
 * `download_submit:0`) or send none, so the server's id cannot key the ledger. The run driver uses
 * the storage index of the turn's assistant message as the prefix (`call_<messageIndex>`), which is
 * unique within the run and stored with the message, so a crash resume replays the same id. The
 * result matches both Anthropic's (`^[a-zA-Z0-9_-]+$`) and OpenAI's tool-call id rules.
 *
 * @param prefix - per-turn prefix, e.g. `call_12`
 * @param index - position of the call in the turn, 0-based
 * @returns e.g. `call_12_0`
 * @public
 */
export function runtimeCallId(prefix: string, index: number): string {
  return `${prefix}_${index}`;
}

/** What the runtime keeps of one finished tool call. @public */
export interface AdmittedToolCall {
  /** The call as stored in the conversation (runtime id; the server's id in `providerId`). */
  part: ToolCallPart;
  /** Why the call must not run (`TOOL_*` from the stream, or `INPUT_TOO_LARGE`), if so. */
  failure?: ToolCallFailure | { code: 'INPUT_TOO_LARGE'; message: string };
}

/**
 * Turns a `tool_call_end` event into the call the runtime stores and runs.
 *
 * @remarks
 * Arguments longer than `maxInputBytes` (UTF-8 bytes of the raw argument text) never reach the
 * conversation: the stored call keeps `{}` as input and a short placeholder as raw text, and the
 * call fails with `INPUT_TOO_LARGE`, so the model gets a small error it can act on instead of the
 * run failing on a turn too large for the context window.
 *
 * @param event - the stream's `tool_call_end`
 * @param id - the runtime's id for the call (see {@link runtimeCallId})
 * @param maxInputBytes - the invocation path's input limit in bytes
 * @returns the stored part and the failure, if any
 * @public
 */
export function admitToolCall(
  event: Extract<ModelEvent, { type: 'tool_call_end' }>,
  id: string,
  maxInputBytes: number,
): AdmittedToolCall {
  const providerId = event.id !== id && event.id !== '' ? { providerId: event.id } : {};
  const bytes = Buffer.byteLength(event.rawArguments, 'utf8');
  if (bytes > maxInputBytes) {
    return {
      part: {
        type: 'tool_call',
        id,
        ...providerId,
        name: event.name,
        input: {},
        rawArguments: `[${bytes} bytes of arguments omitted]`,
        ...(event.signature !== undefined ? { signature: event.signature } : {}),
      },
      failure: {
        code: 'INPUT_TOO_LARGE',
        message: `the arguments of this ${event.name} call are ${bytes} bytes, over the ${maxInputBytes}-byte limit; they were not run or kept. Call it again with smaller input (page, filter, or pass a reference instead of the content).`,
      },
    };
  }
  const part: ToolCallPart = {
    type: 'tool_call',
    id,
    ...providerId,
    name: event.name,
    input: event.ok ? event.input : {},
    rawArguments: event.rawArguments,
    ...(event.signature !== undefined ? { signature: event.signature } : {}),
  };
  return event.ok ? { part } : { part, failure: event.failure };
}
