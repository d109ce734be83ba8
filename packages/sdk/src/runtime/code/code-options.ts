// Options of read-only code orchestration (`execute_code`) and their defaults.
import { MediaAgentError } from '../../core/errors';

/**
 * Defaults of {@link CodeExecutionOptions} (docs/code-execution.md).
 * @public
 */
export const CODE_EXECUTION_DEFAULTS = Object.freeze({
  /** 50 capability calls per cell; the 51st is refused with `CODE_CALL_BUDGET`. */
  maxCallsPerCell: 50,
  /** 16 MiB: a capability result given to a script is at most this many UTF-8 bytes of JSON. */
  maxCallResultBytes: 16_777_216,
  /** 300 000 ms (300 s): wall-clock deadline of one cell, capability calls included. */
  timeoutMs: 300_000,
  /** 10 000 ms: sandbox CPU time of one cell (time spent running the script itself, not waiting for capabilities). */
  cpuMs: 10_000,
  /** 128 MiB: memory of one kernel (the WebAssembly memory of its sandbox, a hard cap). */
  memoryBytes: 134_217_728,
  /** 50 000 bytes (50 KB) of stdout shown inline to the model. */
  stdoutInlineBytes: 50_000,
  /** 10 000 bytes (10 KB) of stderr shown inline to the model. */
  stderrInlineBytes: 10_000,
  /** 5 000 000 bytes (5 MB): stdout kept in all, the part past the inline bytes paged with `read_tool_result`. */
  stdoutSpillBytes: 5_000_000,
  /** 5 capability errors of a cell reported to the model (all are counted). */
  maxToolErrors: 5,
  /** 4 idle kernels kept; one more evicts the least recently used idle one (running cells are never evicted). */
  maxIdleKernels: 4,
  /** 1 800 000 ms (1 800 s): an idle kernel older than this is destroyed. */
  idleTtlMs: 1_800_000,
  /** 200 000 characters: the longest accepted `code`. */
  maxCodeChars: 200_000,
});

/**
 * Options of `execute_code`, the runtime tool that runs model-written JavaScript in a WebAssembly
 * sandbox (QuickJS) with read-only capability calls. Every number is optional; defaults in
 * {@link CODE_EXECUTION_DEFAULTS}. Needs the optional peer dependency `quickjs-emscripten`.
 * @public
 */
export interface CodeExecutionOptions {
  /** Capability calls per cell. @defaultValue 50 */
  maxCallsPerCell?: number;
  /** Largest capability result given to a script, in UTF-8 bytes of its JSON. @defaultValue 16 MiB */
  maxCallResultBytes?: number;
  /** Wall-clock deadline of one cell in ms. @defaultValue 300 000 */
  timeoutMs?: number;
  /**
   * Sandbox CPU time of one cell in ms. The sandbox runs on the host's thread, so this also bounds how
   * long one cell can hold the event loop. @defaultValue 10 000
   */
  cpuMs?: number;
  /** Memory of one kernel in bytes (rounded up to 64 KiB pages, at least 32 MiB). @defaultValue 128 MiB */
  memoryBytes?: number;
  /** Stdout bytes shown inline. @defaultValue 50 000 */
  stdoutInlineBytes?: number;
  /** Stderr bytes shown inline (the rest is cut, never stored). @defaultValue 10 000 */
  stderrInlineBytes?: number;
  /** Stdout bytes kept in all (redacted, then paged with `read_tool_result`). @defaultValue 5 000 000 */
  stdoutSpillBytes?: number;
  /** Capability errors of a cell listed in its result. @defaultValue 5 */
  maxToolErrors?: number;
  /** Idle kernels kept (least recently used evicted first). @defaultValue 4 */
  maxIdleKernels?: number;
  /** Idle time in ms after which a kernel is destroyed. @defaultValue 1 800 000 */
  idleTtlMs?: number;
  /** Longest accepted `code`, in characters. @defaultValue 200 000 */
  maxCodeChars?: number;
}

/** {@link CodeExecutionOptions} with defaults applied. @public */
export type ResolvedCodeExecutionOptions = Readonly<Required<CodeExecutionOptions>>;

/**
 * Applies the defaults and checks every value. A field set to `undefined` takes its default.
 * @param options - the host's options
 * @returns the resolved options
 * @throws MediaAgentError `OPTIONS_INVALID` when the options are not an object, name an unknown field, a value
 *   is not a positive integer, the memory is below 32 MiB, or the inline stdout is larger than the spill
 * @public
 */
export function resolveCodeExecutionOptions(options: CodeExecutionOptions = {}): ResolvedCodeExecutionOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new MediaAgentError('OPTIONS_INVALID', 'runs.code must be an object of limits (`{}` for the defaults)', {
      option: 'runs.code',
    });
  const given = Object.entries(options).filter(([, value]) => value !== undefined);
  const unknown = given.map(([name]) => name).filter((name) => !(name in CODE_EXECUTION_DEFAULTS));
  if (unknown.length > 0)
    throw new MediaAgentError('OPTIONS_INVALID', `runs.code has no option ${unknown.join(', ')}`, {
      option: `runs.code.${unknown[0]}`,
    });
  const resolved = { ...CODE_EXECUTION_DEFAULTS, ...Object.fromEntries(given) };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || (value as number) <= 0)
      throw new MediaAgentError(
        'OPTIONS_INVALID',
        `runs.code.${name} must be a positive integer; got ${String(value)}`,
        {
          option: `runs.code.${name}`,
        },
      );
  }
  if (resolved.memoryBytes < 33_554_432)
    throw new MediaAgentError('OPTIONS_INVALID', 'runs.code.memoryBytes must be at least 32 MiB (33 554 432)', {
      option: 'runs.code.memoryBytes',
    });
  if (resolved.stdoutInlineBytes > resolved.stdoutSpillBytes)
    throw new MediaAgentError('OPTIONS_INVALID', 'runs.code.stdoutInlineBytes must be at most stdoutSpillBytes', {
      option: 'runs.code.stdoutInlineBytes',
    });
  return Object.freeze(resolved);
}
