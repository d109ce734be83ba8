import type { ApprovalService } from '../authorization/approval-service';
import type { CapabilityRegistry } from '../capabilities/capability-registry';
import type { InvocationResult } from '../capabilities/invocation';
import { isSideEffecting, type CapabilityDescriptor } from '../capabilities/types';
import { MediaAgentError } from '../errors';
import type { RunEventPayloads, ToolCallPhase } from '../events/run-event';
import type { RunEventBus } from '../events/run-event-bus';
import { utcDayStart } from '../authorization/grant-rules';
import type { InvocationLedger } from '../ledger/invocation-ledger';
import { costOf, priceFor } from '../models/cost';
import type { AssistantMessage, ModelMessage, ModelProvider, ModelTool, ModelUsage, ToolCallPart, ToolResultMessage } from '../models/types';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Logger } from '../ports/logger';
import type { JsonValue, LedgerEntry } from '../storage/records';
import type { RunRecord, RunStatus, RunUsage } from '../storage/run-records';
import type { RunPatch, StorageAdapter } from '../storage/storage-adapter';
import type { GoalFacts, GoalFactsSnapshot } from './goal-facts';
import { buildGoalReport, factsSettled } from './goal-report';
import { UPDATE_PLAN_MODEL_TOOL, UPDATE_PLAN_TOOL, validatePlan } from './plan-tool';
import { checkDailyBudgets, checkRunBudgets, DEFAULT_RUN_BUDGETS, type BudgetBreach, type DailyBudgets, type RunBudgets } from './run-budgets';
import { RUNTIME_SYSTEM_PROMPT } from './system-prompt';
import { toolResultMessage } from './tool-result';
import { abortableSleep } from '../models/retry';
import { admitToolCall, runtimeCallId } from './tool-call-identity';
import { ambiguityQuestion, candidatesFromLookup, decideGoalTarget, type GoalCandidate } from './goal-target';
import { checkRun } from '../authorization/decide';
import { LoopGuard } from './guardrails/loop-guard';
import type { GuardCall, GuardCallKind } from './guardrails/types';
import type { LoopGuardConfig } from './guardrails/loop-guard';
import { formatStoredToolResult, READ_TOOL_RESULT_MODEL_TOOL, READ_TOOL_RESULT_TOOL, toolResultPageView, type ToolResultStore } from './context/tool-result-store';
import { DELEGATE_MODEL_TOOL, DELEGATE_TOOL, MAX_SUBAGENT_DEPTH, parseDelegateInput, subagentFindings } from './delegate-tool';
import { capabilityModelTool, SEARCH_TOOLS_MODEL_TOOL, SEARCH_TOOLS_TOOL, ToolDiscovery } from './context/tool-discovery';
import { compact, dedupeRepeatedResults, planCompaction, summaryRequestMessages, type PinnedFacts } from './context/compaction';
import type { TokenCounter } from '../models/tokens';

/** Settings of the run driver. @public */
export interface RunDriverSettings {
  /** Model id sent to the provider. */
  model: string;
  /** Max output tokens per model call (default: provider default). */
  maxTokens: number | undefined;
  /** Host system prompt layers, after the runtime's own. */
  systemPrompt: string | undefined;
  /** Daily limits. */
  daily: DailyBudgets;
  /** Seconds between goal-settled polls (seed 004 `agent.goalPollSec`, default 60). */
  goalPollSec: number;
  /** Longest wait for facts to settle, in hours (seed 004 `agent.goalWaitHours`, default 72). */
  goalWaitHours: number;
  /** Largest number of queued steering messages applied before one model call (the inbox bound, default 16). */
  inboxCapacity: number;
  /** Loop guard thresholds (defaults: seed 000). */
  loopGuard: Partial<LoopGuardConfig> | undefined;
  /** Capabilities offered on the first model call, ranked against the goal; 0 offers all (seed 000 `LLM_MAX_TOOLS`). */
  maxTools: number;
  /** The model's context window in tokens (seed 004 `contextBudget`, default 128 000). */
  contextWindowTokens: number;
  /** Compaction threshold as a share of the window (seed 004 `compaction.thresholdRatio`, default 0.8); 0 turns compaction off. */
  compactionThreshold: number;
  /** Largest tool-call argument text accepted from the model, in bytes (the invocation path's input limit, default 1 MiB). */
  maxInputBytes: number;
  /** Wait before the model call that follows a turn whose every call was refused, in ms; doubles per such turn in a row, at most 30 000 (default 1000). */
  refusedTurnPauseMs: number;
}

/** Everything the driver needs. @public */
export interface RunDriverDeps {
  /** Storage. */
  storage: StorageAdapter;
  /** The one invocation path. */
  capabilities: CapabilityRegistry;
  /** Ledger (crash reconciliation of a run). */
  ledger: InvocationLedger;
  /** Approvals (requested when a plan execution is denied). */
  approvals: ApprovalService;
  /** The model. */
  provider: ModelProvider;
  /** Business facts for the goal report. */
  goalFacts: GoalFacts;
  /** Events. */
  bus: RunEventBus;
  /** Time. */
  clock: Clock;
  /** Ids. */
  ids: IdGenerator;
  /** Logger. */
  logger: Logger;
  /** Large tool results kept for paging with `read_tool_result`. */
  results: ToolResultStore;
  /** Token counting for compaction and the tool budget. */
  counter: TokenCounter;
  /** Creates a read-only subagent run (queued) for `delegate`; the driver drives it inline. */
  startSubagent: (parent: RunRecord, goal: string, capabilityIds: string[], budgets: RunBudgets, leaseOwner: string) => Promise<RunRecord>;
  /** Settings. */
  settings: RunDriverSettings;
}

/** How one drive ended. */
type DriveOutcome =
  | { kind: 'ended' }
  | { kind: 'aborted' }
  | { kind: 'stopped' }
  | { kind: 'budget'; breach: BudgetBreach }
  | { kind: 'failed'; code: string; message: string }
  | { kind: 'paused'; code: string; message: string };

/** A lease the driver works under; `signal` aborts when the run is aborted, the lease is lost or the host stops. */
export interface RunLease {
  /** Worker id that holds the lease. */
  owner: string;
  /** Aborted on run abort, lost lease or host stop. */
  signal: AbortSignal;
  /** Why the signal aborted. */
  reason(): 'abort' | 'lost' | 'stop' | undefined;
  /**
   * Renews the lease of another run (a subagent driven inline) together with this one, until the
   * returned function is called.
   * @param runId - the run leased to the same owner
   * @returns stops renewing it
   */
  adopt(runId: string): () => void;
}

const EMPTY_FACTS: GoalFactsSnapshot = { plans: [], downloads: [], organizes: [], library: [] };

/** The standard capability whose results say which titles a goal could mean. */
const CATALOG_LOOKUP = 'catalog.lookup';

/** A run's goal-target state (in its runtime state under `goal`). */
interface GoalTargetState {
  /** Candidates of every successful catalog lookup, one array per call. */
  lookups: GoalCandidate[][];
  /** Titles side effects were allowed on: the goal's targets, verified by the report. */
  targets: GoalCandidate[];
}

/** A question for a person: which of these titles does the goal mean? */
interface GoalTargetQuestion {
  question: string;
  candidates: GoalCandidate[];
}

/**
 * Drives one leased run through drive → goal-settled → finalize (DESIGN.md §7; seed 004, runAgent 做什么).
 * Every tool call goes through the one invocation path as `agent:<runId>`; every message is stored
 * before the next step, so another worker can resume after a crash.
 * @public
 */
export class RunDriver {
  /** Tool discovery of the runs this driver is driving now (search_tools updates the same instance). */
  readonly #discoveries = new Map<string, ToolDiscovery>();
  /** Runtime state (guard, discovery, compaction) of runs being driven: one driver per run, so it is written, never re-read. */
  readonly #states = new Map<string, Record<string, JsonValue>>();
  /** Messages stored per run being driven (the working set may be shorter after a compaction). */
  readonly #storedCounts = new Map<string, number>();

  /** @param deps - storage, registry, ledger, approvals, model, facts, events, clock, ids, logger, settings */
  constructor(private readonly deps: RunDriverDeps) {}

  /**
   * Processes a leased run until it ends, waits, or the lease is lost.
   * @param run - the run as leased
   * @param lease - the lease it runs under
   */
  async process(run: RunRecord, lease: RunLease): Promise<void> {
    try {
      await this.#process(run, lease);
    } catch (error) {
      const current = (await this.deps.storage.runs.get(run.id)) ?? run;
      // The host is stopping or the lease was lost: leave the run as stored, for the next worker to resume.
      if (lease.signal.aborted && lease.reason() !== 'abort') return;
      // Aborted by the user while host code (GoalFacts, a provider) threw on the signal: cancelled, not failed.
      if (lease.signal.aborted) return void (await this.#finish(current, lease, 'cancelled', current.abortReason ?? 'aborted'));
      // An unexpected failure (storage, a bug): the run ends failed with the reason, visible to subscribers.
      const code = error instanceof MediaAgentError ? error.code : 'DRIVER_FAILED';
      const message = error instanceof Error ? error.message : String(error);
      this.deps.logger.error('run driver failed', { runId: run.id, code });
      await this.#finish(current, lease, 'failed', message, { code, message });
    } finally {
      this.#states.delete(run.id);
      this.#storedCounts.delete(run.id);
      this.#discoveries.delete(run.id);
    }
  }

  async #process(run: RunRecord, lease: RunLease): Promise<void> {
    let current = run;
    const woken = run.wakeRequested;
    if (current.abortRequested) return void (await this.#finish(current, lease, 'cancelled', current.abortReason ?? 'aborted'));
    if (current.status === 'queued') {
      const day = utcDayStart(this.deps.clock.now());
      const today = await this.deps.storage.runs.totalsBetween(day, day + 86_400_000);
      const breach = checkDailyBudgets({ runs: today.runs - 1, costUsd: today.costUsd }, this.deps.settings.daily);
      if (breach) return void (await this.#budgetExceeded(current, lease, breach));
      current = (await this.#patch(current, lease, { status: 'running', step: 'drive', startedAt: this.deps.clock.now() })) ?? current;
      await this.#status(current);
    } else if (current.wakeRequested || current.status === 'running') {
      const wasTerminal = current.endedAt !== null;
      const patch: RunPatch = { status: 'running', wakeRequested: false, step: current.wakeRequested ? 'drive' : current.step, endedAt: null };
      if (wasTerminal) Object.assign(patch, { plan: null, report: null, startedAt: this.deps.clock.now() });
      const next = await this.#patch(current, lease, patch);
      if (!next) return;
      if (wasTerminal) await this.deps.bus.emit(current.id, 'plan_updated', { plan: null });
      current = next;
      await this.#status(current, woken ? 'woken by a new message' : 'resumed');
    }

    if (current.step === 'drive') {
      const outcome = await this.#drive(current, lease, woken);
      const fresh = (await this.deps.storage.runs.get(current.id)) ?? current;
      switch (outcome.kind) {
        case 'stopped':
          return;
        case 'aborted':
          return void (await this.#finish(fresh, lease, 'cancelled', fresh.abortReason ?? 'aborted'));
        case 'budget':
          return void (await this.#budgetExceeded(fresh, lease, outcome.breach));
        case 'failed':
          return void (await this.#finish(fresh, lease, 'failed', outcome.message, { code: outcome.code, message: outcome.message }));
        case 'paused':
          // Waits for the user: a message wakes it for a new drive (nothing is scheduled).
          return void (await this.#finish(fresh, lease, 'waiting', outcome.code === 'GOAL_TARGET_AMBIGUOUS' ? outcome.message : `paused by the loop guard (${outcome.code}): send a message to continue`));
        case 'ended':
          current = (await this.#patch(fresh, lease, { step: fresh.mode === 'execute' ? 'goal_settled' : 'finalize' })) ?? fresh;
      }
    }

    if (current.step === 'goal_settled') {
      const facts = await this.#facts(current, lease);
      const decided = await this.#approvalsDecidedSince(current);
      if (decided.length > 0) {
        // A person decided on an approval this run asked for: tell the model and drive again.
        for (const a of decided) await this.deps.bus.emit(current.id, 'approval_decided', { approvalId: a.id, status: a.status });
        await this.deps.storage.messages.append(
          current.id,
          { role: 'user', content: decided.map((a) => `Approval ${a.id} for ${a.planType} plan ${a.planId} was ${a.status}. Continue.`).join('\n') },
          this.deps.clock.now(),
        );
        await this.#patch(current, lease, { step: 'drive', wakeRequested: true, notBefore: null });
        return;
      }
      const waitingForApproval = (await this.#openApprovals(current)).length > 0;
      const deadline = (current.startedAt ?? current.createdAt) + this.deps.settings.goalWaitHours * 3_600_000;
      if ((!factsSettled(facts) || waitingForApproval) && this.deps.clock.now() < deadline) {
        const report = buildGoalReport({ runId: current.id, mode: current.mode, facts, finalText: current.finalText, at: this.deps.clock.now(), targets: this.#goalState(current).targets });
        const next = await this.#patch(current, lease, {
          status: 'waiting',
          notBefore: this.deps.clock.now() + this.deps.settings.goalPollSec * 1000,
          report: report as unknown as JsonValue,
        });
        if (next && current.status !== 'waiting') await this.#status(next, waitingForApproval ? 'waiting for an approval' : report.summary);
        return;
      }
      current = (await this.#patch(current, lease, { step: 'finalize' })) ?? current;
    }

    if (current.step === 'finalize') {
      const facts = current.mode === 'execute' ? await this.#facts(current, lease) : await this.#facts(current, lease).catch(() => EMPTY_FACTS);
      const report = buildGoalReport({ runId: current.id, mode: current.mode, facts, finalText: current.finalText, at: this.deps.clock.now(), targets: this.#goalState(current).targets });
      await this.deps.bus.emit(current.id, 'report', { report: report as unknown as JsonValue });
      const status: RunStatus = report.status === 'waiting' ? 'waiting' : report.status;
      await this.#finish(current, lease, status, report.summary, null, report as unknown as JsonValue);
    }
  }

  async #drive(run: RunRecord, lease: RunLease, woken: boolean): Promise<DriveOutcome> {
    const { storage, clock } = this.deps;
    const stored = (await storage.messages.list(run.id)).map((m) => m.message as unknown as ModelMessage);
    const compacted = (run.runtimeState as { compaction?: { keepFrom: number; summary: ModelMessage } } | null)?.compaction;
    // The working conversation: after a compaction, its summary and the messages kept since (all stay in storage).
    const messages = compacted ? [compacted.summary, ...stored.slice(compacted.keepFrom)] : stored;
    this.#storedCounts.set(run.id, stored.length);
    this.#states.set(run.id, { ...((run.runtimeState ?? {}) as Record<string, JsonValue>) });
    if (messages.length === 0) await this.#append(run, messages, { role: 'user', content: run.goal });
    await this.#reconcileDanglingCalls(run, messages, lease);
    const discovery = await this.#discovery(run);
    if (discovery) this.#discoveries.set(run.id, discovery);
    else this.#discoveries.delete(run.id);
    const budgets = run.budgets as unknown as RunBudgets;
    const guard = this.#guard(run);
    // A person answered a run the guard stopped: a new attempt (counts are kept).
    if (woken && guard.stopped) {
      guard.resume();
      await this.#saveGuard(run, lease, guard);
    }
    let usage: RunUsage = { ...run.usage };
    /** Model turns in a row whose every call was refused: the next model call waits first. */
    let refusedTurns = 0;
    let pausedFor = 0;
    for (;;) {
      if (lease.signal.aborted) return lease.reason() === 'abort' ? { kind: 'aborted' } : { kind: 'stopped' };
      const fresh = await storage.runs.get(run.id);
      if (!fresh || fresh.leaseOwner !== lease.owner) return { kind: 'stopped' };
      if (fresh.abortRequested) return { kind: 'aborted' };
      await this.#applyInbox(run, messages);
      const breach = checkRunBudgets(usage, budgets, clock.now() - (fresh.startedAt ?? fresh.createdAt));
      if (breach) return { kind: 'budget', breach };
      if (refusedTurns > pausedFor) {
        pausedFor = refusedTurns;
        const pauseMs = refusedTurnPause(this.deps.settings.refusedTurnPauseMs, refusedTurns);
        await this.deps.bus.emit(run.id, 'warning', {
          source: 'loop_guard',
          code: 'LOOP_PAUSED',
          message: `every call of the last ${refusedTurns === 1 ? 'model turn was' : `${refusedTurns} model turns were`} refused; waiting ${pauseMs} ms before the next model call`,
          details: { pauseMs, refusedTurns },
        });
        await abortableSleep(pauseMs, lease.signal);
        continue; // re-check abort, lease and budgets after the pause
      }

      const prepared = await this.#prepareRequest(run, lease, messages, this.#storedCounts.get(run.id) ?? messages.length, discovery);
      if ('failed' in prepared) return prepared.failed;
      // Calls of this turn are named after the index its message will have in storage: unique in the run, stable on resume.
      const turn = await this.#callModel(run, prepared.messages, prepared.tools, lease.signal, `call_${this.#storedCounts.get(run.id) ?? messages.length}`);
      usage = { ...usage, modelCalls: usage.modelCalls + 1, inputTokens: usage.inputTokens + turn.usage.inputTokens, outputTokens: usage.outputTokens + turn.usage.outputTokens, costUsd: usage.costUsd + turn.costUsd };
      await this.#patch(run, lease, { usage });
      if (turn.aborted) return lease.reason() === 'abort' ? { kind: 'aborted' } : { kind: 'stopped' };
      if (turn.message.content.length > 0) await this.#append(run, messages, turn.message);
      if (turn.error) return { kind: 'failed', code: turn.error.code ?? 'MODEL_FAILED', message: turn.error.message };
      const calls = turn.message.content.filter((p): p is ToolCallPart => p.type === 'tool_call');
      if (calls.length === 0) {
        const text = turn.message.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
        const next = guard.afterReply(text, false);
        await this.#saveGuard(run, lease, guard);
        if (next.action === 'continue') {
          // The reply announced a next action but called no tool (seed 000: at most 2 continuation prompts).
          await this.#append(run, messages, { role: 'user', content: next.prompt });
          continue;
        }
        await this.#patch(run, lease, { finalText: text || null });
        return { kind: 'ended' };
      }
      const guardCalls = calls.map((c) => this.#guardCall(c));
      const batch = guard.beforeBatch(guardCalls);
      let stop: { code: string; message: string } | undefined;
      let asked: GoalTargetQuestion | undefined;
      let ran = 0;
      for (const [i, call] of calls.entries()) {
        if (stop) {
          await this.#append(run, messages, await this.#blocked(run, call, 'stop', stop));
          continue;
        }
        // Every call the model makes counts toward maxToolCalls, refused ones included.
        const overBudget = checkRunBudgets({ ...usage, toolCalls: usage.toolCalls + 1 }, budgets, 0);
        if (overBudget?.budget === 'maxToolCalls') return { kind: 'budget', breach: overBudget };
        if (lease.signal.aborted) return lease.reason() === 'abort' ? { kind: 'aborted' } : { kind: 'stopped' };
        usage = { ...usage, toolCalls: usage.toolCalls + 1 };
        await this.#patch(run, lease, { usage });
        const first = batch[i]!;
        const decision = first.action === 'allow' ? guard.before(guardCalls[i]!) : first;
        if (decision.action !== 'allow') {
          const refused = decision.action === 'block' ? guard.refused(guardCalls[i]!) : undefined;
          await this.#saveGuard(run, lease, guard);
          if (decision.action === 'stop') stop = { code: decision.code, message: decision.reason };
          else if (refused) stop = { code: refused.code, message: refused.message };
          await this.#append(run, messages, await this.#blocked(run, call, decision.action, { code: decision.code, message: decision.reason }));
          continue;
        }
        ran++;
        const { message, status, childUsage, ask } = await this.#runTool(run, call, turn.failures.get(call.id), lease, messages);
        if (childUsage) {
          usage = { ...usage, toolCalls: usage.toolCalls + childUsage.toolCalls, inputTokens: usage.inputTokens + childUsage.inputTokens, outputTokens: usage.outputTokens + childUsage.outputTokens, costUsd: usage.costUsd + childUsage.costUsd, modelCalls: usage.modelCalls + childUsage.modelCalls };
          await this.#patch(run, lease, { usage });
        }
        const notices = guard.after(guardCalls[i]!, { status, resultText: typeof message.content === 'string' ? message.content : undefined });
        await this.#saveGuard(run, lease, guard);
        if (notices.length > 0) {
          message.content = withGuardNotices(message.content, notices);
          const stopping = notices.find((n) => n.level === 'stop');
          if (stopping) stop = { code: stopping.code, message: stopping.message };
        }
        await this.#append(run, messages, message);
        if (ask) {
          asked = ask;
          stop = { code: 'GOAL_TARGET_AMBIGUOUS', message: ask.question };
        }
      }
      refusedTurns = ran === 0 ? refusedTurns + 1 : 0;
      if (refusedTurns === 0) pausedFor = 0;
      if (asked) {
        await this.#ask(run, asked);
        return { kind: 'paused', code: 'GOAL_TARGET_AMBIGUOUS', message: `${asked.question} Reply to continue.` };
      }
      if (stop) {
        await this.deps.bus.emit(run.id, 'warning', { source: 'loop_guard', code: stop.code, message: stop.message });
        // An attended run waits for its user; background and channel runs end.
        if (guard.mode === 'interactive') return { kind: 'paused', code: stop.code, message: stop.message };
        return { kind: 'failed', code: stop.code, message: `stopped by the loop guard: ${stop.message}` };
      }
    }
  }

  /**
   * The next request: compaction above the threshold (the summary replaces older turns in the working set,
   * never splitting a call from its result; plan, unknown writes and open approvals pinned), repeated long
   * results replaced by references in the outbound copy, and the tools discovery offers.
   */
  async #prepareRequest(
    run: RunRecord,
    lease: RunLease,
    messages: ModelMessage[],
    storedCount: number,
    discovery: ToolDiscovery | undefined,
  ): Promise<{ messages: ModelMessage[]; tools: ModelTool[] } | { failed: DriveOutcome }> {
    const { settings, counter } = this.deps;
    let note: string | undefined;
    let tools = discovery ? discovery.baseTools() : this.#tools(run);
    if (settings.compactionThreshold > 0) {
      try {
        const base = {
          counter,
          model: settings.model,
          contextWindow: settings.contextWindowTokens,
          thresholdShare: settings.compactionThreshold,
          system: [{ role: 'system' as const, content: RUNTIME_SYSTEM_PROMPT }],
          tools,
        };
        // Pinned facts cost storage reads: gather them only when a compaction is due.
        const due = planCompaction(messages, base).needed;
        const result = await compact(messages, {
          ...base,
          ...(due ? { pinned: await this.#pinned(run) } : {}),
          summarize: (older, signal) => this.#summarize(older, signal),
          signal: lease.signal,
        });
        if (result.summarySource !== 'none') {
          const summary = result.messages[0]!;
          const keepFrom = storedCount - (result.messages.length - 1);
          messages.splice(0, messages.length, ...result.messages);
          await this.#saveState(run, lease, 'compaction', { keepFrom, summary: summary as unknown as JsonValue });
        }
        if (discovery) {
          const next = discovery.toolsForNextCall({ requestTokens: result.tokensAfter });
          tools = next.tools;
          note = next.note;
        }
      } catch (error) {
        if (error instanceof MediaAgentError && error.code === 'CONTEXT_TURN_TOO_LARGE') return { failed: { kind: 'failed', code: error.code, message: error.message } };
        throw error;
      }
    } else if (discovery) {
      const next = discovery.toolsForNextCall({ messages });
      tools = next.tools;
      note = next.note;
    }
    if (discovery) await this.#saveState(run, lease, 'discovery', discovery.toJSON() as unknown as JsonValue);
    const outbound = dedupeRepeatedResults(messages);
    return { messages: note ? [{ role: 'system', content: note }, ...outbound] : outbound, tools };
  }

  /** Summaries are written by the model; compaction falls back to a deterministic digest when this throws. */
  async #summarize(older: readonly ModelMessage[], signal?: AbortSignal): Promise<string> {
    const turn = await this.deps.provider.stream({ model: this.deps.settings.model, messages: summaryRequestMessages(older) }, signal);
    let text = '';
    for await (const event of turn) {
      if (event.type === 'text_delta') text += event.text;
      if (event.type === 'error') throw event.error;
    }
    return text;
  }

  /** Facts that survive every compaction: the plan, unresolved unknown writes, approvals still open. */
  async #pinned(run: RunRecord): Promise<PinnedFacts> {
    const fresh = (await this.deps.storage.runs.get(run.id)) ?? run;
    const unknown = (await this.deps.storage.ledger.listByState(['unknown'])).filter((e) => e.runId === run.id);
    return {
      goal: run.goal,
      ...(fresh.plan ? { plan: fresh.plan } : {}),
      unknownWrites: unknown.map((e) => ({ capability: e.capabilityId, callId: e.callId, input: e.inputSummary, note: 'outcome unknown: verify before retrying' })),
      pendingApprovals: (await this.#openApprovals(run)).map((a) => ({ approvalId: a.id, planType: a.planType, planId: a.planId })),
    };
  }

  /** Tool discovery for the run (seed 000, 按需发现工具), restored from its runtime state; undefined when every tool is offered. */
  async #discovery(run: RunRecord): Promise<ToolDiscovery | undefined> {
    if (this.deps.settings.maxTools <= 0) return undefined;
    const catalog = this.deps.capabilities.list().filter((d) => !this.#refusal(run, d.id));
    const alwaysOn = [UPDATE_PLAN_MODEL_TOOL, SEARCH_TOOLS_MODEL_TOOL, READ_TOOL_RESULT_MODEL_TOOL, ...(run.depth < MAX_SUBAGENT_DEPTH ? [DELEGATE_MODEL_TOOL] : [])];
    const options = { maxTools: this.deps.settings.maxTools, counter: this.deps.counter, model: this.deps.settings.model, contextWindow: this.deps.settings.contextWindowTokens, alwaysOn };
    const saved = (run.runtimeState as { discovery?: unknown } | null)?.discovery;
    if (saved) return ToolDiscovery.fromJSON(saved as never, catalog, options);
    const discovery = new ToolDiscovery(catalog, options);
    discovery.select(run.goal);
    return discovery;
  }

  async #saveState(run: RunRecord, lease: RunLease, key: string, value: JsonValue): Promise<void> {
    const state = { ...(this.#states.get(run.id) ?? ((run.runtimeState ?? {}) as Record<string, JsonValue>)), [key]: value };
    this.#states.set(run.id, state);
    await this.#patch(run, lease, { runtimeState: state });
  }

  /** The loop guard of a run, restored from its runtime state (crash resume) or new. */
  #guard(run: RunRecord): LoopGuard {
    const saved = (run.runtimeState as { guard?: unknown } | null)?.guard;
    const options = { mode: run.origin, ...(this.deps.settings.loopGuard ? { config: this.deps.settings.loopGuard } : {}) };
    return saved ? LoopGuard.fromJSON(saved, options) : new LoopGuard(options);
  }

  async #saveGuard(run: RunRecord, lease: RunLease, guard: LoopGuard): Promise<void> {
    await this.#saveState(run, lease, 'guard', guard.toJSON() as unknown as JsonValue);
  }

  #guardCall(call: ToolCallPart): GuardCall {
    const internal = [UPDATE_PLAN_TOOL, READ_TOOL_RESULT_TOOL, DELEGATE_TOOL, SEARCH_TOOLS_TOOL];
    const kind: GuardCallKind = internal.includes(call.name) ? 'internal' : this.deps.capabilities.has(call.name) ? this.deps.capabilities.get(call.name).kind : 'internal';
    return { tool: call.name, input: call.input, kind };
  }

  /** A call the guard refused: never run; the model is told why; the event says blocked. */
  async #blocked(run: RunRecord, call: ToolCallPart, action: 'block' | 'stop', error: { code: string; message: string }): Promise<ToolResultMessage> {
    await this.deps.bus.emit(run.id, 'tool_call', { callId: call.id, capabilityId: call.name, phase: 'blocked', error });
    return toolResultMessage(call.id, call.name, { status: 'failed', error }, { blocked: action === 'stop' ? 'the run is stopping' : 'this call was not run' });
  }

  /** A dangling tool call (the process died after the model asked for it) gets the ledger's record, else "outcome unknown". */
  async #reconcileDanglingCalls(run: RunRecord, messages: ModelMessage[], lease: RunLease): Promise<void> {
    const answered = new Set(messages.filter((m): m is ToolResultMessage => m.role === 'tool').map((m) => m.toolCallId));
    const last = [...messages].reverse().find((m): m is AssistantMessage => m.role === 'assistant');
    if (!last) return;
    const dangling = last.content.filter((p): p is ToolCallPart => p.type === 'tool_call' && !answered.has(p.id));
    if (dangling.length === 0) return;
    await this.deps.ledger.recover({ claimedBefore: this.deps.clock.now() + 1, runId: run.id });
    const children = ((run.runtimeState as { subagents?: Record<string, string> } | null)?.subagents ?? {}) as Record<string, string>;
    for (const call of dangling) {
      const childId = call.name === DELEGATE_TOOL ? children[call.id] : undefined;
      const child = childId ? await this.#endOrphanedChild(childId, run) : undefined;
      if (child) {
        const result = await this.#subagentResult(child);
        await this.deps.bus.emit(run.id, 'tool_call', { callId: call.id, capabilityId: call.name, phase: result.status === 'succeeded' ? 'succeeded' : 'failed', ...(result.error ? { error: result.error } : {}) });
        await this.#append(run, messages, toolResultMessage(call.id, call.name, result, { recovered: true }));
        continue;
      }
      const entry: LedgerEntry | undefined = await this.deps.storage.ledger.findByCall(run.id, call.id);
      const result: Pick<InvocationResult, 'status' | 'output' | 'error'> =
        entry && (entry.state === 'succeeded' || entry.state === 'pending')
          ? { status: entry.state, output: entry.output }
          : entry?.state === 'failed'
            ? { status: 'failed', error: entry.error ?? { code: 'FAILED', message: 'failed' } }
            : { status: 'unknown', error: { code: 'OUTCOME_UNKNOWN', message: 'the run was interrupted during this call and no receipt was recorded; verify before retrying' } };
      await this.deps.bus.emit(run.id, 'tool_call', { callId: call.id, capabilityId: call.name, phase: result.status === 'succeeded' ? 'succeeded' : result.status, ...(result.error ? { error: result.error } : {}) });
      await this.#append(run, messages, toolResultMessage(call.id, call.name, result, { recovered: true }));
    }
  }

  async #applyInbox(run: RunRecord, messages: ModelMessage[]): Promise<void> {
    const queued = (await this.deps.storage.inbox.listQueued(run.id)).slice(0, this.deps.settings.inboxCapacity);
    if (queued.length === 0) return;
    for (const m of queued) await this.#append(run, messages, { role: 'user', content: m.text });
    await this.deps.storage.inbox.markApplied(
      queued.map((m) => m.id),
      this.deps.clock.now(),
    );
    await this.deps.bus.emit(run.id, 'message_applied', { messageIds: queued.map((m) => m.id) });
  }

  async #callModel(
    run: RunRecord,
    messages: ModelMessage[],
    tools: ModelTool[],
    signal: AbortSignal,
    callPrefix: string,
  ): Promise<{ message: AssistantMessage; usage: ModelUsage; costUsd: number; aborted: boolean; error?: Error & { code?: string }; failures: Map<string, { code: string; message: string }> }> {
    const { settings, provider } = this.deps;
    const system = [RUNTIME_SYSTEM_PROMPT, settings.systemPrompt].filter(Boolean).join('\n\n');
    const request = {
      model: settings.model,
      messages: [{ role: 'system' as const, content: system }, ...messages],
      tools,
      ...(settings.maxTokens ? { maxTokens: settings.maxTokens } : {}),
    };
    const content: AssistantMessage['content'] = [];
    const failures = new Map<string, { code: string; message: string }>();
    const usage: ModelUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    let text = '';
    let pending = '';
    let calls = 0;
    let aborted = false;
    let error: (Error & { code?: string }) | undefined;
    const flush = async () => {
      if (pending) await this.deps.bus.emit(run.id, 'text_delta', { text: pending });
      pending = '';
    };
    const flushText = () => {
      if (text) content.push({ type: 'text', text });
      text = '';
    };
    for await (const event of provider.stream(request, signal)) {
      switch (event.type) {
        case 'text_delta':
          text += event.text;
          pending += event.text;
          if (pending.length >= 64) await flush();
          break;
        case 'thinking_delta': {
          flushText();
          const lastPart = content[content.length - 1];
          if (lastPart?.type === 'thinking') {
            lastPart.thinking += event.thinking;
            if (event.signature) lastPart.signature = event.signature;
          } else content.push({ type: 'thinking', thinking: event.thinking, ...(event.signature ? { signature: event.signature } : {}), ...(event.redacted ? { redacted: event.redacted } : {}) });
          break;
        }
        case 'tool_call_end': {
          flushText();
          // The runtime's own call id: servers reuse ids across turns (or send none), the ledger needs run-unique ones.
          const call = admitToolCall(event, runtimeCallId(callPrefix, calls++), settings.maxInputBytes);
          content.push(call.part);
          if (call.failure) failures.set(call.part.id, call.failure);
          break;
        }
        case 'warning':
          await this.deps.bus.emit(run.id, 'warning', { source: 'provider', code: event.warning.code, message: event.warning.message, ...(event.warning.details ? { details: event.warning.details as JsonValue } : {}) });
          break;
        case 'usage':
          usage.inputTokens += event.usage.inputTokens;
          usage.outputTokens += event.usage.outputTokens;
          usage.cacheReadTokens += event.usage.cacheReadTokens;
          usage.cacheWriteTokens += event.usage.cacheWriteTokens;
          break;
        case 'error':
          error = event.error;
          break;
        case 'done':
          if (event.stopReason === 'aborted') aborted = true;
          break;
      }
    }
    await flush();
    flushText();
    const price = priceFor(settings.model);
    return { message: { role: 'assistant', content }, usage, costUsd: price ? costOf(usage, price) : 0, aborted: aborted || signal.aborted, ...(error ? { error } : {}), failures };
  }

  async #runTool(
    run: RunRecord,
    call: ToolCallPart,
    failure: { code: string; message: string } | undefined,
    lease: RunLease,
    messages: readonly ModelMessage[],
  ): Promise<{ message: ToolResultMessage; status: InvocationResult['status']; childUsage?: RunUsage; ask?: GoalTargetQuestion }> {
    const { bus, capabilities } = this.deps;
    const signal = lease.signal;
    const emit = (phase: ToolCallPhase, extra: Partial<RunEventPayloads['tool_call']> = {}) => bus.emit(run.id, 'tool_call', { callId: call.id, capabilityId: call.name, phase, ...extra });
    const done = async (result: Pick<InvocationResult, 'status' | 'output' | 'error'> & { invocationId?: string; idempotencyKey?: string }, extra: Record<string, unknown> = {}) => {
      await emit(result.status, {
        ...(result.invocationId ? { invocationId: result.invocationId } : {}),
        ...(result.idempotencyKey ? { idempotencyKey: result.idempotencyKey } : {}),
        ...(result.error ? { error: result.error } : {}),
        ...(result.output !== undefined ? { output: result.output as JsonValue } : {}),
      });
      return { message: this.#deliver(run, call, toolResultMessage(call.id, call.name, result, extra)), status: result.status };
    };
    await emit('started');
    // A registered capability this run may not use is denied whatever the model sent (also enforced by the authorizer).
    const refusal = this.#refusal(run, call.name);
    if (refusal) return done({ status: 'denied', error: refusal });
    if (failure) return done({ status: 'failed', error: failure });
    if (call.name === UPDATE_PLAN_TOOL) {
      const problems = validatePlan(call.input);
      if (problems.length > 0) return done({ status: 'failed', error: { code: 'PLAN_INVALID', message: problems.join('; ') } });
      await this.deps.storage.runs.patch(run.id, { plan: call.input as JsonValue, updatedAt: this.deps.clock.now() });
      await bus.emit(run.id, 'plan_updated', { plan: call.input as JsonValue });
      return done({ status: 'succeeded', output: { saved: true } });
    }
    if (call.name === READ_TOOL_RESULT_TOOL) {
      try {
        const page = this.deps.results.readToolInput(run.id, call.input);
        return done({ status: 'succeeded', output: toolResultPageView((call.input as { result_id: string }).result_id, page) });
      } catch (error) {
        return done({ status: 'failed', error: { code: error instanceof MediaAgentError ? error.code : 'TOOL_RESULT_FAILED', message: error instanceof Error ? error.message : String(error) } });
      }
    }
    if (call.name === DELEGATE_TOOL) return this.#delegate(run, call, lease, done);
    if (!capabilities.has(call.name) && call.name !== SEARCH_TOOLS_TOOL) return done({ status: 'failed', error: { code: 'CAPABILITY_NOT_FOUND', message: `there is no tool named ${call.name}` } });
    if (call.name === SEARCH_TOOLS_TOOL) {
      const discovery = this.#discoveries.get(run.id);
      if (!discovery) return done({ status: 'failed', error: { code: 'TOOL_SEARCH_OFF', message: 'every tool is already offered' } });
      try {
        const output = discovery.searchFromInput(call.input);
        await this.#saveState(run, lease, 'discovery', discovery.toJSON() as unknown as JsonValue);
        return done({ status: 'succeeded', output: output as unknown as JsonValue });
      } catch (error) {
        return done({ status: 'failed', error: { code: error instanceof MediaAgentError ? error.code : 'TOOL_SEARCH_FAILED', message: error instanceof Error ? error.message : String(error) } });
      }
    }
    const descriptor = capabilities.get(call.name);
    const question = await this.#checkGoalTarget(run, lease, descriptor, call.input, messages);
    if (question) {
      const result = await done({ status: 'failed', error: { code: 'GOAL_TARGET_AMBIGUOUS', message: `${question.question} The goal does not say; a person was asked. Do not choose: wait for the answer.` } });
      return { ...result, ask: question };
    }
    const approvalId = await this.#approvalFor(run, descriptor, call.input);
    let result: InvocationResult;
    try {
      result = await capabilities.invoke(call.name, call.input, { actor: `agent:${run.id}`, runId: run.id, callId: call.id, signal, ...(approvalId ? { approvalId } : {}) });
    } catch (error) {
      const code = error instanceof MediaAgentError ? error.code : 'INVOCATION_FAILED';
      result = { status: 'failed', error: { code, message: error instanceof Error ? error.message : String(error) }, invocationId: '' };
    }
    if (result.status === 'succeeded' && call.name === CATALOG_LOOKUP) await this.#recordLookup(run, lease, result.output);
    const extra: Record<string, unknown> = {};
    if (result.status === 'denied') {
      const requested = await this.#requestApproval(run, descriptor, call.input);
      if (requested) extra.approvalRequested = { approvalId: requested, note: 'a person was asked to approve this plan; wait for the decision before retrying' };
    }
    return done(result, extra);
  }

  /** The goal-target state of a run: every lookup result (one array per call) and the targets resolved so far. */
  #goalState(run: RunRecord): GoalTargetState {
    const saved = (this.#states.get(run.id)?.goal ?? (run.runtimeState as { goal?: unknown } | null)?.goal) as GoalTargetState | undefined;
    return saved ?? { lookups: [], targets: [] };
  }

  async #recordLookup(run: RunRecord, lease: RunLease, output: unknown): Promise<void> {
    const found = candidatesFromLookup(output);
    if (found.length === 0) return;
    const state = this.#goalState(run);
    await this.#saveState(run, lease, 'goal', { ...state, lookups: [...state.lookups, found] } as unknown as JsonValue);
  }

  /**
   * Before a side effect on a media entity: is it the goal's title? Resolved: remembered as a target
   * the report verifies. Ambiguous: the question to put to a person instead of running the call.
   */
  async #checkGoalTarget(run: RunRecord, lease: RunLease, descriptor: CapabilityDescriptor, input: unknown, messages: readonly ModelMessage[]): Promise<GoalTargetQuestion | undefined> {
    if (!isSideEffecting(descriptor.kind)) return undefined;
    const state = this.#goalState(run);
    if (state.lookups.length === 0) return undefined;
    let entity: string | undefined;
    try {
      const target = descriptor.target?.(input);
      entity = target?.mediaEntityId ?? (target?.planId ? ((await this.deps.storage.plans.get(target.planId))?.mediaEntityId ?? undefined) : undefined);
    } catch {
      return undefined; // the invocation path reports a failing target()
    }
    if (!entity) return undefined;
    const said = [run.goal, ...messages.flatMap((m) => (m.role === 'user' && typeof m.content === 'string' ? [m.content] : []))].join('\n');
    const decision = decideGoalTarget(entity, state.lookups, said);
    if (decision.kind === 'ambiguous') return { question: ambiguityQuestion(decision.candidates), candidates: decision.candidates };
    if (decision.kind === 'resolved' && !state.targets.some((t) => t.mediaEntityId === entity)) {
      await this.#saveState(run, lease, 'goal', { ...state, targets: [...state.targets, decision.target] } as unknown as JsonValue);
    }
    return undefined;
  }

  /** Puts the question to a person: an event, and a decision when the run is not attended. */
  async #ask(run: RunRecord, ask: GoalTargetQuestion): Promise<void> {
    let decisionId: string | undefined;
    if (run.origin !== 'interactive') {
      decisionId = this.deps.ids.next('dec');
      const inserted = await this.deps.storage.decisions.insert({
        id: decisionId,
        kind: 'identity_ambiguous',
        dedupeKey: `identity_ambiguous:${run.id}:${ask.candidates.map((c) => c.mediaEntityId).sort().join(',')}`,
        subjectId: run.id,
        status: 'open',
        reason: `run ${run.id}: ${ask.question}`,
        data: { goal: run.goal, candidates: ask.candidates } as unknown as JsonValue,
        createdAt: this.deps.clock.now(),
        resolvedAt: null,
      });
      if (!inserted) decisionId = undefined;
    }
    await this.deps.bus.emit(run.id, 'input_requested', { reason: 'GOAL_TARGET_AMBIGUOUS', question: ask.question, options: ask.candidates as unknown as JsonValue, ...(decisionId ? { decisionId } : {}) });
  }

  /** Large results reach the model as a preview with a result_id (seed 000, 工具结果与大结果续读). */
  #deliver(run: RunRecord, call: ToolCallPart, message: ToolResultMessage): ToolResultMessage {
    if (typeof message.content !== 'string' || call.name === READ_TOOL_RESULT_TOOL) return message;
    const offer = this.deps.results.offer(run.id, call.id, call.name, message.content);
    if (offer.kind === 'inline') return message;
    if (offer.kind === 'stored') return { ...message, content: formatStoredToolResult(offer) };
    const status = (JSON.parse(message.content) as { status?: string }).status ?? 'failed';
    return { ...message, content: JSON.stringify({ status, error: { code: 'TOOL_RESULT_TOO_LARGE', message: offer.message } }) };
  }

  /** `delegate`: a read-only subagent run, driven inline under this run's lease and signal; its report is the tool result. */
  async #delegate(
    run: RunRecord,
    call: ToolCallPart,
    lease: RunLease,
    done: (result: Pick<InvocationResult, 'status' | 'output' | 'error'>) => Promise<{ message: ToolResultMessage; status: InvocationResult['status'] }>,
  ): Promise<{ message: ToolResultMessage; status: InvocationResult['status']; childUsage?: RunUsage }> {
    if (run.depth >= MAX_SUBAGENT_DEPTH) return done({ status: 'failed', error: { code: 'DELEGATE_DEPTH', message: `subagents may nest at most ${MAX_SUBAGENT_DEPTH} deep` } });
    const input = parseDelegateInput(call.input);
    if (!input.ok) return done({ status: 'failed', error: { code: 'DELEGATE_INVALID', message: input.message } });
    const readOnly = this.deps.capabilities
      .list()
      .filter((d) => (d.kind === 'read' || d.kind === 'preview') && (!run.capabilityAllowlist || run.capabilityAllowlist.includes(d.id)))
      .map((d) => d.id)
      .filter((id) => !input.capabilities || input.capabilities.includes(id));
    // The child shares the parent's budgets: it gets what is left.
    const parentBudgets = run.budgets as unknown as RunBudgets;
    const fresh = (await this.deps.storage.runs.get(run.id)) ?? run;
    const left = (limit: number | null, used: number) => (limit === null ? null : Math.max(0, limit - used));
    const budgets: RunBudgets = {
      maxToolCalls: Math.max(0, parentBudgets.maxToolCalls - fresh.usage.toolCalls),
      maxDurationSec: Math.max(0, parentBudgets.maxDurationSec - Math.floor((this.deps.clock.now() - (fresh.startedAt ?? fresh.createdAt)) / 1000)),
      maxTokensPerRun: left(parentBudgets.maxTokensPerRun, fresh.usage.inputTokens + fresh.usage.outputTokens),
      maxCostUsdPerRun: left(parentBudgets.maxCostUsdPerRun, fresh.usage.costUsd),
      maxModelCalls: Math.max(0, (parentBudgets.maxModelCalls ?? DEFAULT_RUN_BUDGETS.maxModelCalls) - fresh.usage.modelCalls),
    };
    const child = await this.deps.startSubagent(fresh, input.goal, readOnly, budgets, lease.owner);
    // Remembered before it runs, so a parent resumed after a crash finds its child (see #reconcileDanglingCalls).
    const subagents = { ...((this.#states.get(run.id)?.subagents ?? {}) as Record<string, JsonValue>), [call.id]: child.id };
    await this.#saveState(run, lease, 'subagents', subagents);
    const release = lease.adopt(child.id);
    try {
      await this.process(child, lease);
    } finally {
      release();
      await this.deps.storage.runs.releaseLease(child.id, lease.owner);
    }
    const ended = (await this.deps.storage.runs.get(child.id))!;
    const result = await done(await this.#subagentResult(ended));
    return { ...result, childUsage: ended.usage };
  }

  /** The delegate tool result of a child run that ended: its report, and what it had read when it ended without one. */
  async #subagentResult(child: RunRecord): Promise<Pick<InvocationResult, 'status' | 'output' | 'error'>> {
    const report = child.report as { summary?: string } | null;
    const output: Record<string, JsonValue> = { runId: child.id, status: child.status, finalText: child.finalText, summary: report?.summary ?? null, note: 'the subagent only read; its text is its own account, not verified facts' };
    if (child.status === 'succeeded') return { status: 'succeeded', output };
    const { findings, lastText } = subagentFindings((await this.deps.storage.messages.list(child.id)).map((m) => m.message as unknown as ModelMessage));
    output.findings = findings as unknown as JsonValue;
    if (output.finalText === null && lastText !== null) output.lastText = lastText;
    if (findings.length > 0) output.note = 'the subagent ended before its report; these are the results it had read so far (use them instead of reading again)';
    return { status: 'failed', output, error: { code: `SUBAGENT_${child.status.toUpperCase()}`, message: child.error?.message ?? child.status } };
  }

  /**
   * A child the parent was driving when it was interrupted: ended now if it has not ended (a live
   * driver elsewhere is asked to abort; nobody driving it: cancelled here), and its result read.
   */
  async #endOrphanedChild(childId: string, parent: RunRecord): Promise<RunRecord | undefined> {
    const now = this.deps.clock.now();
    const { storage, bus } = this.deps;
    const reason = `the parent run ${parent.id} was interrupted and resumed`;
    const outcome = await storage.transaction(async (s) => {
      const child = await s.runs.get(childId);
      if (!child || child.endedAt !== null) return { child, event: undefined };
      const live = child.leaseOwner !== null && (child.leaseExpiresAt ?? 0) > now;
      if (live) return { child: (await s.runs.patch(childId, { abortRequested: true, abortReason: reason, updatedAt: now })) ?? child, event: undefined };
      const cancelled = await s.runs.patch(childId, { status: 'cancelled', abortReason: reason, endedAt: now, updatedAt: now, notBefore: null, wakeRequested: false, leaseOwner: null, leaseExpiresAt: null });
      return { child: cancelled ?? child, event: await bus.emit(childId, 'run_status', { status: 'cancelled', step: child.step, reason }, s) };
    });
    if (outcome.event) bus.publish(outcome.event);
    return outcome.child;
  }

  /** The run rule (the authorizer's `checkRun`, so the model sees the same denial): read-only subagents, plan_only, allowlists. */
  #refusal(run: RunRecord, name: string): { code: string; message: string } | undefined {
    if (!this.deps.capabilities.has(name)) return undefined;
    const descriptor = this.deps.capabilities.get(name);
    const failure = checkRun({ capability: descriptor, run: { mode: run.mode, allowlist: run.capabilityAllowlist, readOnly: run.depth > 0 } });
    return failure ? { code: failure.code, message: failure.reason } : undefined;
  }

  /** Capabilities offered to the model: those the run's mode and allowlist permit, plus update_plan. */
  #tools(run: RunRecord): ModelTool[] {
    return [
      ...this.deps.capabilities
        .list()
        .filter((d) => !this.#refusal(run, d.id))
        .map(capabilityModelTool),
      UPDATE_PLAN_MODEL_TOOL,
      READ_TOOL_RESULT_MODEL_TOOL,
      ...(run.depth < MAX_SUBAGENT_DEPTH ? [DELEGATE_MODEL_TOOL] : []),
    ];
  }

  /** The plan a call executes, from the capability's target (if it names one). */
  #planTarget(descriptor: CapabilityDescriptor, input: unknown): { planType: string; planId: string } | undefined {
    if (!isSideEffecting(descriptor.kind)) return undefined;
    const target = descriptor.target?.(input);
    return target?.planType && target.planId ? { planType: target.planType, planId: target.planId } : undefined;
  }

  /** An approved approval this run asked for on the call's plan: passed as a pointer; the record decides. */
  async #approvalFor(run: RunRecord, descriptor: CapabilityDescriptor, input: unknown): Promise<string | undefined> {
    const plan = this.#planTarget(descriptor, input);
    if (!plan) return undefined;
    const approvals = await this.deps.approvals.list({ planId: plan.planId });
    return approvals.find((a) => a.requestedBy === `agent:${run.id}` && (a.status === 'approved' || a.status === 'consumed'))?.id;
  }

  /** After a denial of a plan execution, asks a person once (per plan revision) for an approval. */
  async #requestApproval(run: RunRecord, descriptor: CapabilityDescriptor, input: unknown): Promise<string | undefined> {
    const plan = this.#planTarget(descriptor, input);
    if (!plan) return undefined;
    const existing = (await this.deps.approvals.list({ planId: plan.planId })).find((a) => a.requestedBy === `agent:${run.id}` && a.status === 'requested');
    if (existing) return existing.id;
    try {
      const approval = await this.deps.approvals.request({ planType: plan.planType, planId: plan.planId, actor: `agent:${run.id}`, reason: `run ${run.id}: ${run.goal.slice(0, 200)}` });
      await this.deps.bus.emit(run.id, 'approval_requested', { approvalId: approval.id, planType: approval.planType, planId: approval.planId, payloadHash: approval.payloadHash, capabilityId: descriptor.id });
      return approval.id;
    } catch (error) {
      this.deps.logger.warn('could not request an approval', { runId: run.id, code: error instanceof MediaAgentError ? error.code : 'UNKNOWN' });
      return undefined;
    }
  }

  async #openApprovals(run: RunRecord) {
    return (await this.deps.approvals.list({ status: 'requested' })).filter((a) => a.requestedBy === `agent:${run.id}` && a.expiresAt > this.deps.clock.now());
  }

  /** Approvals this run asked for that were decided after the run last drove. */
  async #approvalsDecidedSince(run: RunRecord) {
    const all = await this.deps.approvals.list({});
    const told = new Set(
      (await this.deps.storage.events.listByRun(run.id, { limit: 100_000 })).filter((e) => e.type === 'approval_decided').map((e) => (e.data as { approvalId: string }).approvalId),
    );
    return all.filter((a) => a.requestedBy === `agent:${run.id}` && (a.status === 'approved' || a.status === 'rejected') && !told.has(a.id));
  }

  async #facts(run: RunRecord, lease: RunLease): Promise<GoalFactsSnapshot> {
    return this.deps.goalFacts.forRun(run.id, lease.signal);
  }

  async #append(run: RunRecord, messages: ModelMessage[], message: ModelMessage): Promise<void> {
    messages.push(message);
    this.#storedCounts.set(run.id, (this.#storedCounts.get(run.id) ?? 0) + 1);
    await this.deps.storage.messages.append(run.id, message as unknown as JsonValue, this.deps.clock.now());
  }

  async #patch(run: RunRecord, lease: RunLease, patch: RunPatch): Promise<RunRecord | undefined> {
    return this.deps.storage.runs.patch(run.id, { ...patch, updatedAt: this.deps.clock.now() }, lease.owner);
  }

  async #status(run: RunRecord, reason?: string): Promise<void> {
    await this.deps.bus.emit(run.id, 'run_status', { status: run.status, step: run.step, ...(reason ? { reason } : {}) });
  }

  async #budgetExceeded(run: RunRecord, lease: RunLease, breach: BudgetBreach): Promise<void> {
    await this.deps.bus.emit(run.id, 'budget_exceeded', { budget: breach.budget, limit: breach.limit, used: breach.used });
    await this.deps.storage.decisions.insert({
      id: this.deps.ids.next('dec'),
      kind: 'agent_budget',
      dedupeKey: `agent_budget:${run.id}`,
      subjectId: run.id,
      status: 'open',
      reason: `run ${run.id} exceeded ${breach.budget} (limit ${breach.limit}, used ${breach.used})`,
      data: { ...breach },
      createdAt: this.deps.clock.now(),
      resolvedAt: null,
    });
    await this.#finish(run, lease, 'budget_exceeded', `${breach.budget} exceeded (limit ${breach.limit}, used ${breach.used})`);
  }

  async #finish(run: RunRecord, lease: RunLease, status: RunStatus, reason: string, error: { code: string; message: string } | null = null, report?: JsonValue): Promise<void> {
    const now = this.deps.clock.now();
    const terminal = status !== 'waiting';
    const next = await this.#patch(run, lease, {
      status,
      step: 'finalize',
      ...(terminal ? { endedAt: now } : {}),
      notBefore: null,
      ...(error ? { error } : {}),
      ...(report !== undefined ? { report } : {}),
      abortRequested: false,
    });
    if (next) await this.#status(next, reason);
    if (terminal) this.deps.results.releaseRun(run.id);
    // A message that arrived while the run was finishing wakes it once more (seed 004, 已知限制).
    if (terminal && (await this.deps.storage.inbox.listQueued(run.id)).length > 0) await this.deps.storage.runs.patch(run.id, { wakeRequested: true, status: 'waiting' });
  }
}

/**
 * The wait before a model call that follows `turns` model turns in a row whose every call was
 * refused: `baseMs`, doubling per turn, at most 30 s.
 */
function refusedTurnPause(baseMs: number, turns: number): number {
  return Math.min(30_000, baseMs * 2 ** Math.min(turns - 1, 15));
}

/** Appends loop-guard notices to a tool result's JSON (the model reads them with the result). */
function withGuardNotices(content: ToolResultMessage['content'], notices: ReadonlyArray<{ level: string; code: string; message: string }>): ToolResultMessage['content'] {
  if (typeof content !== 'string') return content;
  try {
    const body = JSON.parse(content) as Record<string, unknown>;
    return JSON.stringify({ ...body, guard: notices.map((n) => ({ level: n.level, code: n.code, message: n.message })) });
  } catch {
    return `${content}\n[guard] ${notices.map((n) => `${n.level} ${n.code}: ${n.message}`).join(' | ')}`;
  }
}
