// Runs the hooks of the run middleware in order, gives each its context, and turns a throw into a
// RunMiddlewareError naming the middleware.
import type { CapabilityDescriptor } from '../../core/capability-descriptor';
import type { InvocationStatus } from '../../capabilities/invocation';
import type {
  AssistantMessage,
  ModelMessage,
  ModelRequest,
  ModelTool,
  ToolCallPart,
  ToolResultMessage,
} from '../../models/types';
import type { JsonValue } from '../../core/records';
import type { RunStatus, RunUsage } from '../../core/run-records';
import type { GuardCallKind } from '../guardrails/types';
import type { RunSession } from '../loop/run-session';
import {
  RunMiddlewareError,
  type DriveStartContext,
  type MiddlewareState,
  type ModelRequestContext,
  type ModelTurnContext,
  type RunMiddleware,
  type RunMiddlewareHook,
  type RunStepContext,
  type ToolCallContext,
  type ToolCallVerdict,
  type ToolResultContext,
} from './run-middleware';

/** A middleware as the pipeline runs it. */
export interface MiddlewareEntry {
  /** The middleware. */
  middleware: RunMiddleware;
  /** Where its state lives in the run's runtime state. */
  stateKey: string;
  /** Who it is, for people: `the loop guard`, `middleware "x"`. */
  by: string;
  /** Source of the warning event of a stop it asks for. */
  source: 'loop_guard' | 'runtime';
}

/** The request a model call is made with, after every `beforeModelRequest`. */
export interface PreparedRequest {
  /** Messages to send (without the system prompt). */
  messages: ModelMessage[];
  /** Tools to send. */
  tools: ModelTool[];
}

/** What a refused call is answered with, and who refused it. */
export interface RefusedCall {
  /** The verdict. */
  verdict: ToolCallVerdict;
  /** The middleware that gave it. */
  entry: MiddlewareEntry;
}

/**
 * The ordered middleware of a run driver. Every hook of every middleware runs in order; a throw
 * (while the run is not being aborted) becomes a {@link RunMiddlewareError}.
 */
export class MiddlewarePipeline {
  readonly #entries: readonly MiddlewareEntry[];
  readonly #with: { [H in RunMiddlewareHook]: readonly MiddlewareEntry[] };

  /** @param entries - the middleware, in the order their hooks run */
  constructor(entries: readonly MiddlewareEntry[]) {
    this.#entries = entries;
    const withHook = (hook: RunMiddlewareHook) => entries.filter((e) => typeof e.middleware[hook] === 'function');
    this.#with = {
      onDriveStart: withHook('onDriveStart'),
      beforeModelRequest: withHook('beforeModelRequest'),
      afterModelTurn: withHook('afterModelTurn'),
      beforeToolCall: withHook('beforeToolCall'),
      afterToolCall: withHook('afterToolCall'),
      onRunEnd: withHook('onRunEnd'),
    };
  }

  /** The middleware, in order. */
  get entries(): readonly MiddlewareEntry[] {
    return this.#entries;
  }

  /**
   * `onDriveStart` of every middleware.
   * @returns the drive's base tool offer
   */
  async driveStart(
    session: RunSession,
    start: { catalog: readonly CapabilityDescriptor[]; runtimeTools: readonly ModelTool[]; tools: ModelTool[] },
  ): Promise<ModelTool[]> {
    let tools = start.tools;
    for (const entry of this.#with.onDriveStart) {
      const p = partsOf(entry, session);
      const ctx: DriveStartContext = {
        run: session.view,
        usage: session.usage,
        signal: session.lease.signal,
        state: p.state,
        warn: p.warn,
        stopRun: p.stopRun,
        failRun: p.failRun,
        chargeUsage: p.chargeUsage,
        woken: session.woken,
        catalog: start.catalog,
        runtimeTools: start.runtimeTools,
        tools,
      };
      const done = this.#call(entry, 'onDriveStart', session, () => entry.middleware.onDriveStart!(ctx));
      if (done instanceof Promise) await done;
      tools = ctx.tools;
    }
    return tools;
  }

  /**
   * `beforeModelRequest` of every middleware, until one ends the run.
   * @param session - the run; its working conversation may be compacted
   * @param tools - the drive's base tool offer
   * @returns the request to send (ignore it when `session.stop` is set)
   */
  async beforeModelRequest(session: RunSession, tools: readonly ModelTool[]): Promise<PreparedRequest> {
    const request: PreparedRequest = { messages: [...session.messages], tools: [...tools] };
    let requestTokens: number | undefined;
    for (const entry of this.#with.beforeModelRequest) {
      const p = partsOf(entry, session);
      const ctx: ModelRequestContext = {
        run: session.view,
        usage: session.usage,
        signal: session.lease.signal,
        state: p.state,
        warn: p.warn,
        stopRun: p.stopRun,
        failRun: p.failRun,
        chargeUsage: p.chargeUsage,
        history: session.messages,
        messages: request.messages,
        tools: request.tools,
        requestTokens,
        compactHistory: (summary, keep) => {
          compactWorkingConversation(session, summary, keep);
          ctx.messages = [...session.messages];
        },
      };
      const done = this.#call(entry, 'beforeModelRequest', session, () => entry.middleware.beforeModelRequest!(ctx));
      if (done instanceof Promise) await done;
      request.messages = ctx.messages;
      request.tools = ctx.tools;
      requestTokens = ctx.requestTokens;
      if (session.stop) break;
    }
    return request;
  }

  /**
   * `afterModelTurn` of every middleware.
   * @returns prompts middleware asked to continue with (only for a reply without tool calls)
   */
  async afterModelTurn(
    session: RunSession,
    message: AssistantMessage,
    calls: readonly ToolCallPart[],
    text: string,
    request: ModelRequest,
  ): Promise<string[]> {
    const prompts: string[] = [];
    for (const entry of this.#with.afterModelTurn) {
      const p = partsOf(entry, session);
      const ctx: ModelTurnContext = {
        run: session.view,
        usage: session.usage,
        signal: session.lease.signal,
        state: p.state,
        warn: p.warn,
        stopRun: p.stopRun,
        failRun: p.failRun,
        chargeUsage: p.chargeUsage,
        message,
        calls,
        text,
        request,
        continueWith: (prompt) => {
          if (calls.length === 0) prompts.push(String(prompt));
        },
      };
      const done = this.#call(entry, 'afterModelTurn', session, () => entry.middleware.afterModelTurn!(ctx));
      if (done instanceof Promise) await done;
    }
    return prompts;
  }

  /**
   * `beforeToolCall` of every middleware, until one refuses the call or ends the run.
   * @returns the refusal, or undefined to run the call
   */
  async beforeToolCall(
    session: RunSession,
    call: ToolCallPart,
    index: number,
    kind: GuardCallKind,
  ): Promise<RefusedCall | undefined> {
    for (const entry of this.#with.beforeToolCall) {
      const p = partsOf(entry, session);
      const ctx: ToolCallContext = {
        run: session.view,
        usage: session.usage,
        signal: session.lease.signal,
        state: p.state,
        warn: p.warn,
        stopRun: p.stopRun,
        failRun: p.failRun,
        chargeUsage: p.chargeUsage,
        call,
        index,
        kind,
      };
      const returned = this.#call(entry, 'beforeToolCall', session, () => entry.middleware.beforeToolCall!(ctx));
      const verdict = returned instanceof Promise ? await returned : returned;
      if (verdict) {
        if (verdict.action !== 'refuse' && verdict.action !== 'stop')
          throw new RunMiddlewareError(
            entry.middleware.name,
            'beforeToolCall',
            new Error(`unknown verdict action ${JSON.stringify((verdict as { action: unknown }).action)}`),
          );
        return {
          verdict: { action: verdict.action, code: String(verdict.code), message: String(verdict.message) },
          entry,
        };
      }
      if (session.stop) return undefined;
    }
    return undefined;
  }

  /**
   * `afterToolCall` of every middleware.
   * @returns the result message as the middleware left it
   */
  async afterToolCall(
    session: RunSession,
    call: ToolCallPart,
    index: number,
    kind: GuardCallKind,
    status: InvocationStatus,
    result: ToolResultMessage,
  ): Promise<ToolResultMessage> {
    let current = result;
    for (const entry of this.#with.afterToolCall) {
      const p = partsOf(entry, session);
      const ctx: ToolResultContext = {
        run: session.view,
        usage: session.usage,
        signal: session.lease.signal,
        state: p.state,
        warn: p.warn,
        stopRun: p.stopRun,
        failRun: p.failRun,
        chargeUsage: p.chargeUsage,
        call,
        index,
        kind,
        status,
        result: current,
      };
      const done = this.#call(entry, 'afterToolCall', session, () => entry.middleware.afterToolCall!(ctx));
      if (done instanceof Promise) await done;
      current = ctx.result;
    }
    return current;
  }

  /**
   * `onRunEnd` of every middleware, after the end is stored. A throw cannot change the outcome: it
   * is returned for the caller to log and report.
   * @returns the errors thrown, in order
   */
  async runEnd(session: RunSession, status: RunStatus, reason: string): Promise<RunMiddlewareError[]> {
    const errors: RunMiddlewareError[] = [];
    for (const entry of this.#with.onRunEnd) {
      try {
        await entry.middleware.onRunEnd!({
          run: session.view,
          status,
          terminal: status !== 'waiting',
          reason,
          usage: session.usage,
        });
      } catch (error) {
        errors.push(new RunMiddlewareError(entry.middleware.name, 'onRunEnd', error));
      }
    }
    return errors;
  }

  /**
   * Calls one hook; a throw (or a rejection) while the run is not being aborted becomes a
   * {@link RunMiddlewareError}. A hook that returns no promise is not awaited (no extra tick).
   */
  #call<T>(
    entry: MiddlewareEntry,
    hook: RunMiddlewareHook,
    session: RunSession,
    run: () => T | Promise<T>,
  ): T | Promise<T> {
    let result: T | Promise<T>;
    try {
      result = run();
    } catch (error) {
      return hookFailed(entry, hook, session, error);
    }
    // Any thenable is awaited (hooks may return a promise of another library).
    return typeof (result as { then?: unknown } | null | undefined)?.then === 'function'
      ? Promise.resolve(result).catch((error: unknown) => hookFailed(entry, hook, session, error))
      : result;
  }
}

/** A hook's throw: as it is while the run is being aborted, else a {@link RunMiddlewareError} naming the middleware. */
function hookFailed(entry: MiddlewareEntry, hook: RunMiddlewareHook, session: RunSession, error: unknown): never {
  // Host code that throws on the aborted signal: an abort (or a stop), handled as such.
  if (session.lease.signal.aborted) throw error;
  throw new RunMiddlewareError(entry.middleware.name, hook, error);
}

/**
 * The parts of a step context that depend only on the run and the middleware. Each hook's context is
 * written out field by field (`run`, `usage`, `signal`, then these, then the hook's own): a spread of a
 * shared base object into a literal with more fields takes V8's slow path, on every hook of every step.
 */
type StepParts = Pick<RunStepContext, 'state' | 'warn' | 'stopRun' | 'failRun' | 'chargeUsage'>;

/** A usage delta a middleware charged: finite, non-negative numbers only (anything else counts 0). */
function validUsage(usage: Partial<RunUsage>): Partial<RunUsage> {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  const u = (usage ?? {}) as Partial<RunUsage>;
  return {
    modelCalls: Math.floor(n(u.modelCalls)),
    inputTokens: Math.floor(n(u.inputTokens)),
    outputTokens: Math.floor(n(u.outputTokens)),
    costUsd: n(u.costUsd),
  };
}

const stepParts = new WeakMap<RunSession, Map<MiddlewareEntry, StepParts>>();

function partsOf(entry: MiddlewareEntry, session: RunSession): StepParts {
  let byEntry = stepParts.get(session);
  if (!byEntry) stepParts.set(session, (byEntry = new Map()));
  let parts = byEntry.get(entry);
  if (parts) return parts;
  const name = entry.middleware.name;
  parts = {
    state: stateOf(entry.stateKey, session),
    warn: (code, message, details) =>
      session.emit('warning', {
        source: 'runtime',
        code: String(code),
        message: String(message),
        details: { ...(details ?? {}), middleware: name } as JsonValue,
      }),
    stopRun: (code, message) => {
      session.stop ??= {
        code: String(code),
        message: String(message),
        kind: 'stop',
        by: entry.by,
        source: entry.source,
      };
    },
    failRun: (code, message) => {
      session.stop ??= {
        code: String(code),
        message: String(message),
        kind: 'fail',
        by: entry.by,
        source: entry.source,
      };
    },
    chargeUsage: (usage) => session.addUsage(validUsage(usage)),
  };
  byEntry.set(entry, parts);
  return parts;
}

/** A middleware's state slot on a run. */
function stateOf(key: string, session: RunSession): MiddlewareState {
  return {
    get: () => session.getState(key),
    set: (value) => session.setState(key, value),
    local: <T>(create: () => T): T => {
      if (!session.locals.has(key)) session.locals.set(key, create());
      return session.locals.get(key) as T;
    },
  };
}

/**
 * Replaces the older part of the working conversation by `summary`, keeping its last `keep`
 * messages, and records it in the runtime state (`compaction`: the storage index the kept part
 * starts at, and the summary), so a resumed run rebuilds the same working conversation.
 */
function compactWorkingConversation(session: RunSession, summary: ModelMessage, keep: number): void {
  if (!Number.isInteger(keep) || keep < 0 || keep > session.messages.length)
    throw new RangeError(`keep must be an integer from 0 to ${session.messages.length}, got ${keep}`);
  const kept = session.messages.slice(session.messages.length - keep);
  session.messages.splice(0, session.messages.length, summary, ...kept);
  session.setState('compaction', { keepFrom: session.storedCount - keep, summary: summary as unknown as JsonValue });
}
