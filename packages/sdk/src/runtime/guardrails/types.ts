import type { LoopGuardCode } from './codes';

/**
 * How a run is attended, which decides what a tripped threshold does:
 * `interactive` (web, compatible API, supervised subagents) only warns — a rule that blocks still
 * refuses the single call, but the run goes on; `background`, `channel` and `schedule` (background tasks,
 * channel gateways, a schedule's runs) stop the run.
 * @public
 */
export type GuardMode = 'interactive' | 'background' | 'channel' | 'schedule';

/**
 * Kind of the called tool as the driver sees it: a capability kind, or `internal` for runtime tools
 * such as `update_plan`, `search_tools`, `read_tool_result`, `delegate`.
 * `read` and `preview` are read-only; `propose`, `approve` and `execute` are writes.
 * @public
 */
export type GuardCallKind = 'read' | 'preview' | 'propose' | 'approve' | 'execute' | 'internal';

/**
 * One tool call the model asked for.
 * @public
 */
export interface GuardCall {
  /** Tool (capability) name as the model called it. */
  tool: string;
  /** Parsed arguments; identity is the tool plus the canonical JSON of this value. */
  input: unknown;
  /** Kind of the tool, see {@link GuardCallKind}. */
  kind: GuardCallKind;
}

/**
 * Outcome of a call that ran, as the driver reports it. The guard never changes it.
 * `failed` and `denied` count as failures; `succeeded` as success; `pending` and `unknown`
 * are neither (an unknown write stays unknown).
 * @public
 */
export interface GuardOutcome {
  /** Status of the invocation result. */
  status: 'succeeded' | 'failed' | 'pending' | 'unknown' | 'denied';
  /** The text the model will see for this result (output or error); hashed to detect repeats. */
  resultText?: string;
}

/**
 * What to do with a call before it runs.
 * - `allow`: run it.
 * - `block`: do not run it; answer the call with a synthetic failed result carrying `reason`, emit a
 *   blocked event, and continue the run.
 * - `stop`: do not run it (nor the rest of its batch); answer it with `reason`, then end the run as
 *   stopped by the guard. Outcomes already recorded (e.g. an `unknown` write) stay as they are.
 * @public
 */
export type GuardVerdict =
  | { action: 'allow' }
  | { action: 'block' | 'stop'; code: LoopGuardCode; reason: string; count: number };

/**
 * A message the driver appends to a tool result for the model (and may emit as an event).
 * `notice` and `warn` only inform; `stop` means the run must end after this result is recorded.
 * @public
 */
export interface GuardNotice {
  /** Severity. */
  level: 'notice' | 'warn' | 'stop';
  /** Stable code. */
  code: LoopGuardCode;
  /** Text for the model. */
  message: string;
  /** The count that tripped the rule (failures, repeats, laps, or calls). */
  count: number;
}
