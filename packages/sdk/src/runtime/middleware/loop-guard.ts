// The loop guard, attached as a middleware.
import type { ToolResultMessage } from '../../models/types';
import { LoopGuard, type LoopGuardConfig } from '../guardrails/loop-guard';
import type { GuardCall, GuardVerdict } from '../guardrails/types';
import type { MiddlewareState, RunMiddleware, ToolCallContext } from './run-middleware';

/** The loop guard of a run while it is driven, and the batch decisions of the current turn. */
interface GuardSlot {
  guard: LoopGuard | undefined;
  batch: GuardVerdict[];
}

/**
 * The loop guard as a {@link RunMiddleware} named `loop_guard`: per-run caps
 * checked before a turn's calls, repeated failing or same-result calls refused, notices appended to
 * results (`guard` in the result JSON), continuation prompts for replies that announce an action but
 * call nothing, and stops — an interactive run then waits for its user, a background or channel run
 * ends `failed` with a `LOOP_*` code. A message that wakes a stopped run starts a new attempt (counts
 * are kept). Its state is saved with every step.
 * @param config - threshold overrides (defaults `DEFAULT_LOOP_GUARD_CONFIG`)
 * @returns the middleware
 * @internal
 */
export function loopGuardMiddleware(config?: Partial<LoopGuardConfig>): RunMiddleware {
  const slotOf = (ctx: {
    state: MiddlewareState;
    run: { origin: LoopGuard['mode'] };
  }): GuardSlot & { guard: LoopGuard } => {
    const slot = ctx.state.local<GuardSlot>(() => ({ guard: undefined, batch: [] }));
    if (!slot.guard) {
      const saved = ctx.state.get();
      const options = { mode: ctx.run.origin, ...(config ? { config } : {}) };
      slot.guard = saved ? LoopGuard.fromJSON(saved, options) : new LoopGuard(options);
    }
    return slot as GuardSlot & { guard: LoopGuard };
  };
  // The live state, serialized when the step commits: no copy per call.
  const save = (state: MiddlewareState, guard: LoopGuard) => state.set(guard.liveState as never);
  const guardCall = (ctx: ToolCallContext): GuardCall => ({
    tool: ctx.call.name,
    input: ctx.call.input,
    kind: ctx.kind,
  });
  return {
    name: 'loop_guard',
    onDriveStart(ctx) {
      const { guard } = slotOf(ctx);
      // A person answered a run the guard stopped: a new attempt (counts are kept).
      if (ctx.woken && guard.stopped) {
        guard.resume();
        save(ctx.state, guard);
      }
    },
    afterModelTurn(ctx) {
      const slot = slotOf(ctx);
      if (ctx.calls.length === 0) {
        const next = slot.guard.afterReply(ctx.text, false);
        save(ctx.state, slot.guard);
        // The reply announced a next action but called no tool.
        if (next.action === 'continue') ctx.continueWith(next.prompt);
        return;
      }
      // Kinds are not known here; the per-run caps only look at tool names.
      slot.batch = slot.guard.beforeBatch(ctx.calls.map((c) => ({ tool: c.name, input: c.input, kind: 'internal' })));
    },
    beforeToolCall(ctx) {
      const slot = slotOf(ctx);
      const call = guardCall(ctx);
      const first = slot.batch[ctx.index] ?? { action: 'allow' };
      const verdict = first.action === 'allow' ? slot.guard.before(call) : first;
      if (verdict.action === 'allow') return undefined;
      const refused = verdict.action === 'block' ? slot.guard.refused(call) : undefined;
      save(ctx.state, slot.guard);
      if (verdict.action === 'stop') return { action: 'stop', code: verdict.code, message: verdict.reason };
      if (refused) ctx.stopRun(refused.code, refused.message);
      return { action: 'refuse', code: verdict.code, message: verdict.reason };
    },
    afterToolCall(ctx) {
      const { guard } = slotOf(ctx);
      const notices = guard.after(guardCall(ctx), {
        status: ctx.status,
        resultText: typeof ctx.result.content === 'string' ? ctx.result.content : undefined,
      });
      save(ctx.state, guard);
      if (notices.length === 0) return;
      ctx.result = { ...ctx.result, content: withGuardNotices(ctx.result.content, notices) };
      const stopping = notices.find((n) => n.level === 'stop');
      if (stopping) ctx.stopRun(stopping.code, stopping.message);
    },
  };
}

/** Appends loop-guard notices to a tool result's JSON (the model reads them with the result). */
function withGuardNotices(
  content: ToolResultMessage['content'],
  notices: ReadonlyArray<{ level: string; code: string; message: string }>,
): ToolResultMessage['content'] {
  if (typeof content !== 'string') return content;
  try {
    const body = JSON.parse(content) as Record<string, unknown>;
    return JSON.stringify({
      ...body,
      guard: notices.map((n) => ({ level: n.level, code: n.code, message: n.message })),
    });
  } catch {
    return `${content}\n[guard] ${notices.map((n) => `${n.level} ${n.code}: ${n.message}`).join(' | ')}`;
  }
}
