// Re-drives a recorded run in an isolated host: memory storage, a manual clock from the run's creation, sequential
// ids, a scripted model playing the recorded turns and capabilities answering the recorded results, through the real
// run loop, invocation path, authorization and ledger — of the isolated store only.
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import type { JsonValue } from '../../core/records';
import type { RunRecord } from '../../core/run-records';
import { type FakeScript, ScriptedProvider, type ScriptStep } from '../../models/scripted';
import type { ModelEvent, ModelProvider, ModelRequest } from '../../models/types';
import { ManualClock } from '../../ports/clock';
import { SequentialIdGenerator } from '../../ports/id-generator';
import type { IdentityResolver } from '../../ports/identity';
import { ConsoleLogger } from '../../ports/logger';
import type { StorageAdapter } from '../../ports/storage-adapter';
import { AUTOMATION_SETTINGS_KEY } from '../../authorization/automation-settings';
import { MemoryStorage } from '../../storage/memory/memory-storage';
import type { AgentHost } from '../agent-host';
import type { AgentOptions, RunOptions } from '../agent-options';
import type { GoalFactsSnapshot } from '../goal-facts';
import type { RunBudgets } from '../run-budgets';
import { FORK_STATE_KEY, type ForkState } from '../fork/fork-state';
import { recordedCapabilities } from './recorded-capabilities';
import { type RecordedApproval, readRecordedRun, type RecordedRun, type RecordedTurn } from './recorded-run';

/** Run settings of the host that affect verdicts, applied to the replay's isolated host. @public */
export type ReplayRunSettings = Pick<
  RunOptions,
  | 'budgets'
  | 'loopGuard'
  | 'contextWindowTokens'
  | 'compactionThreshold'
  | 'maxTools'
  | 'systemPrompt'
  | 'goalWaitHours'
  | 'inboxCapacity'
  | 'results'
>;

/** Options of {@link replayRecordedRun}. @public */
export interface ReplayRecordedRunOptions {
  /**
   * The current runtime's registry: each capability the run called is taken from it with its handler replaced by
   * the recorded results. A capability it does not have is a `capability_missing` divergence. Absent: every
   * capability the run called is missing.
   */
  capabilities?: Pick<CapabilityRegistry, 'has' | 'definition'>;
  /** Run settings of the current runtime (budgets, loop guard, context window, …). @defaultValue the SDK's defaults */
  settings?: ReplayRunSettings;
  /**
   * A store whose grants, policy revisions and automation settings are copied into the isolated store before the
   * replay (read only), so authorization verdicts are those of that store now. Absent: none (every side effect
   * needs an approval).
   */
  authorization?: StorageAdapter;
  /** Roles of actors (administrators) as the current runtime resolves them. @defaultValue nobody is an administrator */
  identity?: IdentityResolver;
  /**
   * Real-time limit of the replay in ms; the replayed run is aborted after it (and the replay reports where it
   * stopped).
   * @defaultValue 30 000
   */
  timeoutMs?: number;
}

/** One call of the replayed run. @public */
export interface ReplayedCall {
  /** 0-based model turn of the run (of its subagent, when `subagent` is set). */
  turn: number;
  /** 0-based position of the call in its turn. */
  index: number;
  /** Capability id or runtime tool. */
  capability: string;
  /** Input the scripted model sent. */
  input: JsonValue;
  /** How it ended in the replay. */
  status: string;
  /** Its error code, when it failed, was denied, blocked or is unknown. */
  errorCode?: string;
  /** Index of the subagent in `RecordedRun.subagents` order, when the call was a subagent's. */
  subagent?: number;
}

/** What {@link replayRecordedRun} re-drove. @public */
export interface ReplayedRun {
  /** The replayed run as read back from the isolated store (same shape as the recording). */
  replayed: RecordedRun;
  /** Every call of the replayed run and its subagents, in order. */
  calls: ReplayedCall[];
  /** Status and summary of the replayed run's verified goal report, or null. */
  report: { status: string; summary: string } | null;
  /** Capability ids the run called that the current runtime does not have. */
  missing: string[];
  /** Handler calls answered from the recording. */
  answered: number;
  /** Handler calls that found no recorded result (`REPLAY_NO_RECORDED_RESULT`). */
  unanswered: number;
  /** Model turns the scripted model played. */
  modelTurns: number;
  /** Whether the replay hit `timeoutMs` or waited for a person the recording does not play, and was aborted. */
  stopped: 'timeout' | 'waiting' | null;
}

/** Builds a host from options: `createAgentHost`, given by the composition root (the runtime cannot import it). */
export type ReplayHostFactory = (options: AgentOptions) => AgentHost;

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled', 'budget_exceeded']);
const NO_FACTS: GoalFactsSnapshot = { plans: [], downloads: [], organizes: [], library: [] };

/**
 * Re-drives a recorded run in an isolated host — see `replayRecordedRun` of the SDK's root entry, which gives
 * `createHost`. @internal
 */
export async function driveRecordedRun(
  recorded: RecordedRun,
  options: ReplayRecordedRunOptions,
  createHost: ReplayHostFactory,
): Promise<ReplayedRun> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const storage = new MemoryStorage();
  const clock = new ManualClock(recorded.createdAt);
  const scripted = new ScriptedProvider({ scripts: scriptsOf(recorded), chunkSize: 1 << 20 });
  const { definitions, missing, answers } = recordedCapabilities(recorded, options.capabilities ?? NO_REGISTRY);
  let modelTurns = 0;
  let playedTurns = 0;
  let host: AgentHost | undefined;
  const pendingSteering = [...recorded.steering];
  let runId: string | undefined;
  // The steering that preceded turn t is queued once turn t - 1 was played, so the loop applies it before turn t.
  const queueSteering = async (nextTurn: number) => {
    while (pendingSteering.length > 0 && pendingSteering[0]!.beforeTurn <= nextTurn && host && runId) {
      const s = pendingSteering.shift()!;
      await host.appendToInbox(runId, s.text, { actor: s.actor });
    }
  };
  const provider: ModelProvider = {
    id: 'replay',
    stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent> {
      modelTurns++;
      const turn = topLevelTurn(request, recorded.goal);
      const inner = scripted.stream(request, signal);
      return (async function* () {
        try {
          yield* inner;
        } finally {
          // The loop may stop reading at the turn's end event (the generator is returned): still counted here.
          if (turn !== undefined) {
            playedTurns = Math.max(playedTurns, turn + 1);
            // After a turn with calls the loop asks the model again and applies a message queued meanwhile; after
            // one without, the run settles: its steering is sent once it waits (see `drive`).
            if ((recorded.turns[turn]?.calls.length ?? 0) > 0) await queueSteering(turn + 1);
          }
        }
      })();
    },
  };
  const s = options.settings ?? {};
  host = createHost({
    storage: withForkLineage(storage, recorded),
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    goalFacts: { forRun: async () => recorded.facts ?? NO_FACTS },
    ...(options.identity ? { identity: options.identity } : {}),
    model: { provider },
    runs: {
      pollMs: 5,
      goalPollSec: 1,
      concurrency: 1,
      ...(s.budgets ? { budgets: s.budgets } : {}),
      ...(s.loopGuard ? { loopGuard: s.loopGuard } : {}),
      ...(s.contextWindowTokens ? { contextWindowTokens: s.contextWindowTokens } : {}),
      ...(s.compactionThreshold !== undefined ? { compactionThreshold: s.compactionThreshold } : {}),
      ...(s.maxTools !== undefined ? { maxTools: s.maxTools } : {}),
      ...(s.systemPrompt !== undefined ? { systemPrompt: s.systemPrompt } : {}),
      ...(s.goalWaitHours !== undefined ? { goalWaitHours: s.goalWaitHours } : {}),
      ...(s.inboxCapacity !== undefined ? { inboxCapacity: s.inboxCapacity } : {}),
      ...(s.results ? { results: s.results } : {}),
    },
  });
  for (const d of definitions) host.capabilities.register(d);
  await host.start();
  try {
    await copyAuthorization(
      options.authorization,
      storage,
      definitions.map((d) => d.policy),
    );
    for (const plan of recorded.plans) await storage.plans.insert(plan as never);
    const run = await host.startRun({
      goal: recorded.goal,
      mode: recorded.mode,
      actor: recorded.startedBy,
      origin: recorded.origin,
      budgets: recorded.budgets as Partial<RunBudgets>,
      ...(recorded.capabilityAllowlist ? { capabilityAllowlist: recorded.capabilityAllowlist } : {}),
      ...(recorded.sessionId ? { sessionId: recorded.sessionId } : {}),
    });
    runId = run.id;
    await queueSteering(0);
    const stopped = await drive(host, run.id, recorded, clock, timeoutMs, {
      playedTurns: () => playedTurns,
      steeringLeft: () => pendingSteering.length,
      steerWaiting: () => queueSteering(playedTurns),
    });
    const replayed = await readRecordedRun(storage, run.id);
    return {
      replayed,
      calls: callsOf(replayed),
      report: replayed.report,
      missing,
      answered: answers.answered,
      unanswered: answers.unanswered,
      modelTurns,
      stopped,
    };
  } finally {
    await host.stop({ drainMs: 0 }).catch(() => undefined);
  }
}

/** A registry with no capability (every call is missing). */
const NO_REGISTRY: Pick<CapabilityRegistry, 'has' | 'definition'> = {
  has: () => false,
  definition: (id: string) => {
    throw new Error(`no capability ${id}`);
  },
};

/** The scripted model's scripts: each subagent (matched by its delegated goal) first, then the run. */
function scriptsOf(recorded: RecordedRun): FakeScript[] {
  const part = (turns: RecordedTurn[], finalText: string | null, name: string, match?: string): FakeScript => ({
    name,
    ...(match !== undefined ? { match } : {}),
    steps: turns.map(
      (t): ScriptStep => ({
        ...(t.text !== undefined ? { text: t.text } : {}),
        toolCalls: t.calls.map((c) => ({ capability: c.capability, input: c.input as Record<string, unknown> })),
      }),
    ),
    ...(finalText !== null ? { finalText } : {}),
  });
  return [
    ...recorded.subagents.map((s, i) => part(s.turns, s.finalText, `subagent #${i}`, s.goal)),
    part(recorded.turns, recorded.finalText, 'run'),
  ];
}

/** The 0-based turn a request of the top-level run asks for (its assistant messages so far), else undefined. */
function topLevelTurn(request: ModelRequest, goal: string): number | undefined {
  const first = request.messages.find((m) => m.role === 'user');
  const text =
    first && typeof first.content === 'string'
      ? first.content
      : (first?.content as Array<{ type: string; text?: string }> | undefined)
          ?.map((p) => (p.type === 'text' ? (p.text ?? '') : ''))
          .join('');
  if (text !== goal) return undefined;
  return request.messages.filter((m) => m.role === 'assistant').length;
}

/** Copies grants, the policy revisions they and the capabilities' policy kinds name, and the automation settings. */
async function copyAuthorization(
  from: StorageAdapter | undefined,
  to: StorageAdapter,
  policyKinds: Array<string | undefined>,
): Promise<void> {
  if (!from) return;
  const grants = await from.grants.list();
  const revisions = new Map<string, unknown>();
  for (const kind of new Set(policyKinds.filter((k): k is string => typeof k === 'string')))
    for (const r of await from.policies.listByKind(kind)) revisions.set(r.id, r);
  for (const g of grants)
    if (g.policyRevisionId && !revisions.has(g.policyRevisionId)) {
      const r = await from.policies.get(g.policyRevisionId);
      if (r) revisions.set(r.id, r);
    }
  for (const r of revisions.values()) await to.policies.put(r as never);
  for (const g of grants) await to.grants.insert(g);
  const automation = await from.settings.get(AUTOMATION_SETTINGS_KEY);
  if (automation !== undefined) await to.settings.set(AUTOMATION_SETTINGS_KEY, automation);
}

/**
 * Drives the replayed run to its end as the recorded person did: decides each approval it asks for as recorded
 * (matched by capability and plan, in order), moves the clock a second per poll while the run waits (goal-settled
 * polling), and aborts a run that waits for a person the recording does not play, or past `timeoutMs`.
 */
async function drive(
  host: AgentHost,
  runId: string,
  recorded: RecordedRun,
  clock: ManualClock,
  timeoutMs: number,
  progress: { playedTurns: () => number; steeringLeft: () => number; steerWaiting: () => Promise<void> },
): Promise<'timeout' | 'waiting' | null> {
  const approvals = [...recorded.approvals];
  let asStored = 0;
  const deadline = Date.now() + timeoutMs;
  let afterSeq = 0;
  let idle = 0;
  let stopped: 'timeout' | 'waiting' | null = null;
  const undecided = new Set<string>();
  // Approvals asked for whose recorded decision waits for the steering that preceded it in the stored run.
  const asked: Array<{ approvalId: string; capabilityId: string; planId: string; payloadHash: string }> = [];
  let steered = 0;
  for (;;) {
    const { run, events } = await host.getRun(runId, { afterSeq, limit: 1000 });
    for (const e of events) {
      afterSeq = e.seq;
      if (e.type === 'approval_decided') undecided.delete(e.data.approvalId);
      if (e.type === 'inbox_applied') steered += e.data.inboxIds.length;
      if (e.type === 'approval_requested') asked.push(e.data);
    }
    while (asked.length > 0) {
      const e = asked[0]!;
      const k = approvals.findIndex((a) => a.capabilityId === e.capabilityId && a.planId === e.planId);
      // An approval the recording did not decide: the run would wait for a person forever.
      if (k < 0) {
        undecided.add(e.approvalId);
        asked.shift();
        continue;
      }
      const a = approvals[k]!;
      if (!decisionDue(a, steered, run.status)) break;
      approvals.splice(k, 1);
      asked.shift();
      await host.approvals.decide(e.approvalId, {
        status: a.decision,
        actor: a.decidedBy ?? recorded.startedBy,
        payloadHash: e.payloadHash,
      });
    }
    // Steering a person sent while the run waited, or that woke it after it ended (a conversation goes on after its
    // answer): sent once the replayed run waits or ended after the turns that preceded it.
    if (TERMINAL.has(run.status)) {
      const left = progress.steeringLeft();
      if (stopped === null && left > 0) await progress.steerWaiting();
      if (stopped !== null || left === 0 || progress.steeringLeft() === left) return stopped;
      continue;
    }
    if (run.status === 'waiting' && stopped === null) await progress.steerWaiting();
    // A run not ended when read is replayed as far as it was stored: once the replayed run waits where it waited,
    // with every recorded turn, steering message and approval decision played, the replay ends there (not aborted).
    asStored =
      stopped === null &&
      reachedStoredState(recorded, run, {
        playedTurns: progress.playedTurns(),
        steeringLeft: progress.steeringLeft(),
        approvalsLeft: approvals.length,
      })
        ? asStored + 1
        : 0;
    if (asStored > AS_STORED_POLLS) return null;
    idle = isIdle(run, undecided.size > 0) && events.length === 0 ? idle + 1 : 0;
    if (stopped === null && (idle > 20 || Date.now() > deadline)) {
      stopped = idle > 20 ? 'waiting' : 'timeout';
      await host.abort(runId, stopped === 'waiting' ? 'replay: waits for a person' : 'replay: time limit');
    }
    if (Date.now() > deadline + 10_000) return stopped ?? 'timeout';
    if (run.status === 'waiting') clock.advance(1_000);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Whether a recorded approval decision is due in the replay: once the replayed run applied as many steering messages
 * as the stored run had when the decision came (and, when that is any, waits as the stored run waited).
 * @internal
 */
export function decisionDue(
  approval: Pick<RecordedApproval, 'afterSteering'>,
  steered: number,
  status: RunRecord['status'],
): boolean {
  const after = approval.afterSteering ?? 0;
  return steered >= after && (after === 0 || status === 'waiting');
}

/** Polls the replayed run must stay in the stored run's state before the replay ends there. */
const AS_STORED_POLLS = 3;

/**
 * Whether the replayed run is where the stored run was when read, for a stored run that had not ended: both
 * `waiting` in the same step (when recorded), every recorded model turn played, no steering message left to send and
 * no recorded approval decision left to play (an approval nobody decided is waited for as the stored run waits).
 * @internal
 */
export function reachedStoredState(
  recorded: Pick<RecordedRun, 'status' | 'step' | 'turns'>,
  run: Pick<RunRecord, 'status' | 'step'>,
  progress: { playedTurns: number; steeringLeft: number; approvalsLeft: number },
): boolean {
  if (recorded.status !== 'waiting' || run.status !== 'waiting') return false;
  if (recorded.step !== undefined && run.step !== recorded.step) return false;
  return progress.playedTurns >= recorded.turns.length && progress.steeringLeft === 0 && progress.approvalsLeft === 0;
}

/**
 * The isolated store, whose top-level run gets the stored fork's lineage in its runtime state when it is inserted
 * (so the invocation path applies the duplicate rule as it did; docs/forks.md#the-duplicate-rule).
 */
function withForkLineage(storage: MemoryStorage, recorded: RecordedRun): StorageAdapter {
  const lineage = recorded.forkLineage ?? [];
  if (lineage.length === 0) return storage;
  let seeded = false;
  const seed = (run: RunRecord): RunRecord => {
    if (seeded || run.parentRunId || run.goal !== recorded.goal) return run;
    seeded = true;
    const fork: ForkState = { fromRunId: recorded.runId, atSeq: 0, lineage };
    const state = (run.runtimeState ?? {}) as Record<string, JsonValue>;
    return { ...run, runtimeState: { ...state, [FORK_STATE_KEY]: fork as unknown as JsonValue } };
  };
  const bound = <T extends object>(target: T, override: (key: PropertyKey) => unknown): T =>
    new Proxy(target, {
      get(t, key) {
        const o = override(key);
        if (o !== undefined) return o;
        const v = Reflect.get(t, key, t) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
      },
    });
  const runs = <R extends { insert(run: RunRecord): Promise<void> }>(repo: R): R =>
    bound(repo, (k) => (k === 'insert' ? (run: RunRecord) => repo.insert(seed(run)) : undefined));
  const session = <S extends { runs: { insert(run: RunRecord): Promise<void> } }>(s: S): S =>
    bound(s, (k) => (k === 'runs' ? runs(s.runs) : undefined));
  return bound(storage as StorageAdapter, (k) => {
    if (k === 'runs') return runs(storage.runs);
    if (k === 'transaction')
      return (fn: (s: Parameters<Parameters<StorageAdapter['transaction']>[0]>[0]) => Promise<unknown>, ...rest: []) =>
        storage.transaction((s) => fn(session(s)), ...rest);
    return undefined;
  });
}

/** Waiting for a person: a question (not the goal-settled poll), or an approval the recording does not decide. */
function isIdle(run: RunRecord, undecidedApproval: boolean): boolean {
  return run.status === 'waiting' && (run.step !== 'goal_settled' || undecidedApproval);
}

/** Every call of a (replayed) run and its subagents, with turn and position. @internal */
export function callsOf(run: Pick<RecordedRun, 'turns' | 'subagents'>): ReplayedCall[] {
  const out: ReplayedCall[] = [];
  const add = (turns: RecordedTurn[], subagent?: number): void => {
    for (const [turn, t] of turns.entries())
      for (const [index, c] of t.calls.entries())
        out.push({
          turn,
          index,
          capability: c.capability,
          input: c.input,
          status: c.status,
          ...(c.error ? { errorCode: c.error.code } : {}),
          ...(subagent !== undefined ? { subagent } : {}),
        });
  };
  add(run.turns);
  for (const [i, s] of run.subagents.entries()) add(s.turns, i);
  return out;
}
