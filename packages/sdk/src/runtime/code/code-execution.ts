// One `execute_code` cell from arguments to the result the model sees.
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import { redactText } from '../../capabilities/input-summary';
import type { RunRecord } from '../../core/run-records';
import type { CapabilityDescriptor } from '../../core/capability-descriptor';
import type { Clock } from '../../ports/clock';
import type { ToolResultStore } from '../context/tool-result-store';
import { READ_TOOL_RESULT_TOOL } from '../context/tool-result-store';
import { type ActorRoleOf, isAdministrator } from './administrator';
import { CapabilityBridge, enabledReads, type ScriptToolError } from './capability-bridge';
import { rewriteCell } from './cell-source';
import type { ResolvedCodeExecutionOptions } from './code-options';
import { CodeExecutionError, type CodeErrorCode } from './errors';
import type { CellEnd } from './kernel';
import { type KernelLossReason, KernelPool, ownerKey } from './kernel-pool';
import { utf8Prefix } from './output-capture';
import { loadSandbox } from './sandbox-loader';

/** Name of the tool. @public */
export const EXECUTE_CODE_TOOL = 'execute_code';

/**
 * What the model gets back from one `execute_code` cell (snake_case, as in the tool protocol).
 * @public
 */
export interface CodeCellResult {
  /** True only when the cell ran to its end and no capability call failed (even one the script caught). */
  success: boolean;
  /** Stdout: all of it, or its first 50 KB when `stdout_spill` is set. Secrets redacted. */
  stdout: string;
  /** Stderr, at most 10 KB. */
  stderr: string;
  /** True when stderr was cut. */
  stderr_truncated?: boolean;
  /** Where the rest of a long stdout is: page it with `read_tool_result`. */
  stdout_spill?: {
    result_id: string;
    next_offset: number;
    total_chars: number;
    /** True when the script printed more than the kept 5 MB (the rest is lost). */
    incomplete: boolean;
    how_to_continue: string;
  };
  /** The error that ended the cell, when one did. */
  error?: { code: CodeErrorCode; message: string };
  /** Capability calls the script made (refused ones included). */
  tool_calls: number;
  /** The first capability errors (at most 5). */
  tool_errors: ScriptToolError[];
  /** All capability errors of the cell. */
  tool_error_count: number;
  /** The kernel the cell ran in. */
  kernel: {
    /** Kernel id. */
    id: string;
    /** True when variables from earlier cells of this run were there. */
    reused: boolean;
    /** Cells run in the kernel, this one included. */
    execution_count: number;
    /** True when this cell ended the kernel (exit, limit, timeout, cancel): its state is gone. */
    ended: boolean;
  };
  /** True when `reset` destroyed the earlier state before this cell. */
  state_reset: boolean;
  /** True when state is gone that the model may count on: lost before this cell (see `state_lost_reason`) or ended by it. */
  state_lost: boolean;
  /** Why: `exit`, `script_timeout`, `cpu_limit`, `memory_limit`, `cancelled`, `evicted`, `expired`, `owner_changed`. */
  state_lost_reason?: KernelLossReason;
}

/** What ends a kernel, and the code the cell fails with. */
const ENDS: Record<Exclude<CellEnd, 'ok'>, { code: CodeErrorCode; lost?: KernelLossReason }> = {
  error: { code: 'CODE_SCRIPT_ERROR' },
  exit: { code: 'CODE_EXIT', lost: 'exit' },
  timeout: { code: 'CODE_TIMEOUT', lost: 'script_timeout' },
  cpu: { code: 'CODE_CPU_LIMIT', lost: 'cpu_limit' },
  memory: { code: 'CODE_MEMORY_LIMIT', lost: 'memory_limit' },
  cancelled: { code: 'CODE_CANCELLED', lost: 'cancelled' },
};

/**
 * Read-only code orchestration of a host: the kernels, the limits and the role check, shared by
 * every run this host drives.
 */
export class CodeExecution {
  readonly options: ResolvedCodeExecutionOptions;
  readonly pool: KernelPool;
  readonly #deps: { capabilities: CapabilityRegistry; results: ToolResultStore; roleOf: ActorRoleOf };

  /**
   * @param options - resolved options
   * @param deps - the registry, the large-result store, the role check and the clock of idle expiry
   */
  constructor(
    options: ResolvedCodeExecutionOptions,
    deps: { capabilities: CapabilityRegistry; results: ToolResultStore; roleOf: ActorRoleOf; clock: Clock },
  ) {
    this.options = options;
    this.pool = new KernelPool(options, deps.clock);
    this.#deps = deps;
  }

  /** True when `actor` may use `execute_code` (the one role check). */
  isAdministrator(actor: string): Promise<boolean> {
    return isAdministrator(this.#deps.roleOf, actor);
  }

  /**
   * Runs one cell for a run.
   * @param run - the run as it is now (read again at every capability call)
   * @param actor - the person the run acts for (its owner, whoever steered it; read again at every call)
   * @param callId - the model's call id
   * @param args - the tool arguments `{ code, reset? }`
   * @param signal - the run's signal (abort cancels the cell)
   * @param shown - hears every capability output the script is given (the run records what it shows)
   * @returns the result for the model
   * @throws {@link CodeExecutionError} `CODE_ADMIN_ONLY`, `CODE_INPUT_INVALID`, `CODE_SYNTAX`,
   *   `CODE_SANDBOX_UNAVAILABLE` when nothing ran
   */
  async runCell(
    run: () => RunRecord,
    actor: () => string,
    callId: string,
    args: unknown,
    signal: AbortSignal,
    shown?: (descriptor: CapabilityDescriptor, output: unknown) => void,
  ): Promise<CodeCellResult> {
    const { code, reset } = checkArgs(args, this.options.maxCodeChars);
    const current = run();
    const person = actor();
    if (current.depth > 0 || !(await this.isAdministrator(person)))
      throw new CodeExecutionError(
        'CODE_ADMIN_ONLY',
        'execute_code is for administrators only: this run acts for someone who is not one. Use the tools directly.',
        { actor: person },
      );
    const { source } = rewriteCell(code, (await loadSandbox()).parse);
    const enabled = enabledReads(this.#deps.capabilities, current);
    const owner = ownerKey(current.id, person, enabled);
    const lease = await this.pool.acquire(owner, current.id, reset);
    const bridge = new CapabilityBridge({
      capabilities: this.#deps.capabilities,
      run,
      actor,
      roleOf: this.#deps.roleOf,
      owner,
      callId,
      maxCalls: this.options.maxCallsPerCell,
      maxResultBytes: this.options.maxCallResultBytes,
      ...(shown ? { shown } : {}),
    });
    let outcome: Awaited<ReturnType<typeof lease.kernel.run>>;
    try {
      outcome = await lease.kernel.run(
        source,
        bridge,
        {
          timeoutMs: this.options.timeoutMs,
          cpuMs: this.options.cpuMs,
          stdoutBytes: this.options.stdoutSpillBytes,
          stderrBytes: this.options.stderrInlineBytes,
        },
        signal,
      );
    } catch (error) {
      this.pool.release(owner, lease.kernel, 'cancelled');
      throw error;
    }
    const end = outcome.end === 'ok' ? undefined : ENDS[outcome.end];
    this.pool.release(owner, lease.kernel, end?.lost);
    const result: CodeCellResult = {
      success: outcome.end === 'ok' && bridge.errors.length === 0,
      stdout: '',
      stderr: outcome.stderr.text,
      tool_calls: bridge.calls,
      tool_errors: bridge.errors.slice(0, this.options.maxToolErrors),
      tool_error_count: bridge.errors.length,
      kernel: {
        id: lease.kernel.id,
        reused: lease.reused,
        execution_count: lease.kernel.executionCount,
        ended: end?.lost !== undefined,
      },
      state_reset: lease.stateReset,
      state_lost: lease.lost !== undefined || end?.lost !== undefined,
      ...(end?.lost || lease.lost ? { state_lost_reason: (end?.lost ?? lease.lost) as KernelLossReason } : {}),
    };
    if (outcome.stderr.truncated) result.stderr_truncated = true;
    if (end) result.error = { code: end.code, message: endMessage(outcome, this.options) };
    this.#stdout(result, current.id, callId, outcome.stdout.text, outcome.stdout.truncated);
    return result;
  }

  /** Stdout inline, or its first 50 KB inline and the rest (redacted, at most 5 MB) in the run's large-result store. */
  #stdout(result: CodeCellResult, runId: string, callId: string, text: string, incomplete: boolean): void {
    const redacted = redactText(text);
    const offer = this.#deps.results.offer(runId, callId, EXECUTE_CODE_TOOL, redacted, {
      previewBytes: this.options.stdoutInlineBytes,
      maxResultBytes: Math.max(this.options.stdoutSpillBytes, this.options.stdoutInlineBytes + 1),
    });
    if (offer.kind === 'inline') {
      result.stdout = offer.text;
      return;
    }
    if (offer.kind === 'too_large') {
      // Redaction made it longer than the spill: keep the inline part only.
      result.stdout = utf8Prefix(redacted, this.options.stdoutInlineBytes);
      return;
    }
    result.stdout = offer.preview;
    result.stdout_spill = {
      result_id: offer.resultId,
      next_offset: offer.nextOffset,
      total_chars: offer.totalChars,
      incomplete,
      how_to_continue: `stdout is ${offer.totalChars} characters; the first ${offer.nextOffset} are above. Read the rest with ${READ_TOOL_RESULT_TOOL} {"result_id": ${JSON.stringify(offer.resultId)}, "offset": ${offer.nextOffset}} and each answer's next_offset.${incomplete ? ` The script printed more than the ${this.options.stdoutSpillBytes} bytes kept; print less (aggregate first).` : ''}`,
    };
  }

  /** Destroys the kernels of a run that ended. */
  closeRun(runId: string): void {
    this.pool.closeRun(runId);
  }

  /** Destroys every kernel (the host stops). */
  close(): void {
    this.pool.closeAll();
  }
}

function checkArgs(args: unknown, maxChars: number): { code: string; reset: boolean } {
  const a = (args ?? {}) as { code?: unknown; reset?: unknown };
  if (typeof a.code !== 'string' || a.code.trim() === '')
    throw new CodeExecutionError(
      'CODE_INPUT_INVALID',
      'execute_code needs "code": the JavaScript to run, a non-empty string',
    );
  if (a.code.length > maxChars)
    throw new CodeExecutionError(
      'CODE_INPUT_INVALID',
      `"code" is ${a.code.length} characters, over the ${maxChars} limit`,
    );
  if (a.reset !== undefined && typeof a.reset !== 'boolean')
    throw new CodeExecutionError('CODE_INPUT_INVALID', '"reset" must be true or false');
  return { code: a.code, reset: a.reset === true };
}

function endMessage(
  outcome: { end: CellEnd; error?: { name: string; message: string; stack?: string }; exitCode?: number },
  options: ResolvedCodeExecutionOptions,
): string {
  switch (outcome.end) {
    case 'error': {
      const e = outcome.error;
      return e ? `${e.name}: ${e.message}${e.stack ? `\n${e.stack}` : ''}` : 'the script threw';
    }
    case 'exit':
      return `the script called exit(${outcome.exitCode ?? 0}); the kernel and its variables are gone`;
    case 'timeout':
      return `the cell ran past its ${options.timeoutMs} ms deadline and was stopped; the kernel and its variables are gone`;
    case 'cpu':
      return `the cell used more than ${options.cpuMs} ms of CPU and was stopped (a loop that never ends?); the kernel and its variables are gone`;
    case 'memory':
      return `the cell went over the ${options.memoryBytes}-byte memory limit and was stopped; the kernel and its variables are gone. Keep less in memory (aggregate as you go).`;
    case 'cancelled':
      return 'the run was stopped while the cell ran; the kernel and its variables are gone';
    default:
      return '';
  }
}
