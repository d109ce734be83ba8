// A script's capability calls: re-checked on every call, then through the one invocation path.
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import type { CapabilityDescriptor } from '../../core/capability-descriptor';
import { isMediaAgentError } from '../../core/errors';
import type { RunRecord } from '../../core/run-records';
import { runCatalog } from '../loop/run-rule';
import { type ActorRoleOf, isAdministrator } from './administrator';
import type { CellBridge } from './kernel';
import { ownerKey } from './kernel-pool';

/** One capability error a script met (reported even when the script caught it). @public */
export interface ScriptToolError {
  /** The capability the script called. */
  capability: string;
  /** Stable code (`CODE_*`, `AUTH_*`, `INPUT_INVALID` …). */
  code: string;
  /** What went wrong. */
  message: string;
}

/** The capabilities a run's code may call now: `read` capabilities the run may use, sorted. */
export function enabledReads(
  capabilities: CapabilityRegistry,
  run: RunRecord,
  catalog: readonly CapabilityDescriptor[] = runCatalog(capabilities, run),
): string[] {
  return catalog
    .filter((d) => d.kind === 'read')
    .map((d) => d.id)
    .sort();
}

/** What a {@link CapabilityBridge} works with. */
export interface CapabilityBridgeDeps {
  /** The one invocation path. */
  capabilities: CapabilityRegistry;
  /** The run as it is now (read at every call). */
  run: () => RunRecord;
  /** The person the run acts for now (read at every call). */
  actor: () => string;
  /** The role check. */
  roleOf: ActorRoleOf;
  /** The owner key the kernel was made for. */
  owner: string;
  /** The model's call id of the cell; capability calls get `<callId>.<n>`. */
  callId: string;
  /** Calls per cell. */
  maxCalls: number;
  /** Largest result JSON in UTF-8 bytes. */
  maxResultBytes: number;
  /**
   * Hears every output the script is given (a call that succeeded), with its capability: the run records what it
   * shows (docs/untrusted-text.md). A throw is ignored.
   */
  shown?: (descriptor: CapabilityDescriptor, output: unknown) => void;
}

/** Codes the invocation path throws that the same call can never pass (the script's `retry` does not repeat them). */
const NOT_RETRYABLE: ReadonlySet<string> = new Set([
  'INPUT_INVALID',
  'INPUT_TOO_LARGE',
  'ACTOR_INVALID',
  'CAPABILITY_NOT_FOUND',
  'HOST_STOPPED',
]);

/** A failure the script sees (a rejected promise with `code` and `retryable`). */
class ScriptCallFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/**
 * The bridge of one cell. Every call checks, in order: the per-cell call budget; that the run's
 * actor is still an administrator and the run's enabled capability set is still the one the kernel
 * was made for; that the capability exists, is enabled for the run and is of kind `read` exactly.
 * Only then is it invoked, through the one invocation path as `agent:<runId>` (authorized,
 * audited). A result over the size limit is refused whole.
 */
export class CapabilityBridge implements CellBridge {
  /** Calls made (refused ones included). */
  calls = 0;
  /** Capability errors, in order (all of them; the tool reports the first few). */
  readonly errors: ScriptToolError[] = [];
  readonly #deps: CapabilityBridgeDeps;

  /**
   * @param deps - the registry, the run (read at every call), the role resolver, the owner key the
   *   kernel was made for, the model call id (calls get `<callId>.<n>`), the budget and the result limit
   */
  constructor(deps: CapabilityBridgeDeps) {
    this.#deps = deps;
  }

  async call(name: string, inputJson: string, signal: AbortSignal): Promise<string> {
    try {
      return await this.#call(name, inputJson, signal);
    } catch (error) {
      // A refusal the invocation path throws (INPUT_INVALID, INPUT_TOO_LARGE …) keeps its code: the script sees what
      // host.invoke's caller sees for the same input.
      const failure =
        error instanceof ScriptCallFailure
          ? error
          : isMediaAgentError(error)
            ? new ScriptCallFailure(error.code, error.message, !NOT_RETRYABLE.has(error.code))
            : new ScriptCallFailure('INVOCATION_FAILED', error instanceof Error ? error.message : String(error), true);
      this.errors.push({ capability: name, code: failure.code, message: failure.message });
      throw failure;
    }
  }

  async #call(name: string, inputJson: string, signal: AbortSignal): Promise<string> {
    const d = this.#deps;
    const n = ++this.calls;
    if (n > d.maxCalls)
      throw new ScriptCallFailure(
        'CODE_CALL_BUDGET',
        `call ${n} refused: a cell may make at most ${d.maxCalls} capability calls. Aggregate what you have, or continue in a new cell.`,
        false,
      );
    const run = d.run();
    const actor = d.actor();
    if (!(await isAdministrator(d.roleOf, actor)))
      throw new ScriptCallFailure(
        'CODE_OWNER_CHANGED',
        `call refused: the run acts for ${actor}, who is not an administrator.`,
        false,
      );
    const catalog = runCatalog(d.capabilities, run);
    const enabled = enabledReads(d.capabilities, run, catalog);
    if (ownerKey(run.id, actor, enabled) !== d.owner)
      throw new ScriptCallFailure(
        'CODE_OWNER_CHANGED',
        "call refused: the run's enabled capabilities changed while the cell ran; run the cell again.",
        false,
      );
    const descriptor = catalog.find((c) => c.id === name);
    if (!descriptor)
      throw new ScriptCallFailure(
        'CODE_TOOL_UNKNOWN',
        `there is no capability ${JSON.stringify(name)} enabled for this run. Callable from code: ${enabled.join(', ') || 'none'}.`,
        false,
      );
    const kind = descriptor.kind;
    if (kind !== 'read')
      throw new ScriptCallFailure(
        'CODE_TOOL_NOT_READ',
        `${name} is a ${kind} capability: code may call only read capabilities. Call it as a tool, outside code, if it is needed.`,
        false,
      );
    let input: unknown;
    try {
      input = JSON.parse(inputJson);
    } catch {
      throw new ScriptCallFailure('INPUT_INVALID', `the input of ${name} is not JSON-serializable`, false);
    }
    const result = await d.capabilities.invoke(name, input, {
      actor: `agent:${run.id}`,
      runId: run.id,
      callId: `${d.callId}.${n}`,
      signal,
    });
    if (result.status !== 'succeeded')
      throw new ScriptCallFailure(
        result.error?.code ?? 'INVOCATION_FAILED',
        result.error?.message ?? `${name} ended ${result.status}`,
        result.status === 'failed',
      );
    try {
      d.shown?.(descriptor, result.output);
    } catch {
      // the run's record of what it was shown; never the script's failure
    }
    const json = JSON.stringify(result.output ?? null);
    const bytes = Buffer.byteLength(json);
    if (bytes > d.maxResultBytes)
      throw new ScriptCallFailure(
        'CODE_RESULT_TOO_LARGE',
        `the ${name} result is ${bytes} bytes, over the ${d.maxResultBytes}-byte limit for one call; nothing of it was kept. Ask for smaller pages (page/limit/count inputs) and aggregate them.`,
        false,
      );
    return json;
  }
}
