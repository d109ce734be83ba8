// Decisions for people: raise, choose, dismiss, and the automatic investigation and recovery (docs/decisions.md).
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import { compileSchema } from '../../capabilities/schema-validator';
import type { InvocationContext, InvocationResult } from '../../capabilities/invocation';
import { parseActor } from '../../core/actor';
import { isMediaAgentError, MediaAgentError } from '../../core/errors';
import type { JsonValue } from '../../core/records';
import type {
  DecisionCapabilityExecution,
  DecisionExecution,
  DecisionOption,
  DecisionRecord,
  DecisionRefusedChoice,
  RunRecord,
} from '../../core/run-records';
import type { Clock } from '../../ports/clock';
import type { IdGenerator } from '../../ports/id-generator';
import type { Logger } from '../../ports/logger';
import type { DecisionFilter, StorageAdapter, StorageSession } from '../../ports/storage-adapter';
import { grantCoversCapability } from '../../authorization/grant-rules';
import { requireAdministrator } from '../../authorization/roles';
import type { IdentityResolver } from '../../ports/identity';
import type { RunEvent } from '../events/run-event';
import type { RunEventBus } from '../events/run-event-bus';
import type { StartRunInput } from '../run-service';
import { DecisionError } from './decision-errors';
import { defaultDecisionKey } from './decision-key';
import {
  AUTO_INVESTIGATE_ACTOR,
  AUTO_RECOVER_ACTOR,
  asObject,
  grantCoversRecovery,
  investigationBudgets,
  investigationOf,
  investigationSkip,
  recoveryAttempts,
  recoveryCapabilities,
} from './decision-rules';
import type { ResolvedDecisionOptions } from './decision-settings';

/** Input of `AgentHost.raiseDecision`. @public */
export interface RaiseDecisionInput {
  /** Kind: `identity_ambiguous`, `download_failed`, `download_stalled`, `agent_budget` or a host-defined one (`[a-z][a-z0-9_.-]*`, ≤ 64). */
  kind: string;
  /** What it is about: `type` (`run`, `download`, `release`, `task` or the host's own) and `id` (each 1–200 characters). */
  subject: { type: string; id: string };
  /** Why a person is asked (1–2000 characters). */
  reason: string;
  /** Who raises it: `system:<name>` for the host, `agent:<runId>` for a run (a run's own decisions are never investigated). */
  raisedBy: string;
  /** Facts for the person: a JSON object (default `{}`), at most the host's `maxInputBytes` as JSON. */
  evidence?: Record<string, JsonValue>;
  /** Choices offered (at most 20, unique ids); an option's `capabilityId` must be registered. */
  options?: DecisionOption[];
  /**
   * The occurrence's key: raising again with a stored key creates nothing (a storm of host events is one decision).
   * @defaultValue `<kind>:<subject.type>:<subject.id>` (length-prefixed when the type holds `:`, see `defaultDecisionKey`)
   */
  dedupeKey?: string;
  /**
   * The cause it shares with other occurrences (automatic recovery is bounded per root cause).
   * @defaultValue `<kind>:<subject.id>`
   */
  rootCause?: string;
}

/** What `chooseDecisionOption` did: the decision as stored, and the execution of the choice. @public */
export interface DecisionChoice {
  /** The decision after the choice (`resolved`), or unchanged when the choice was denied. */
  decision: DecisionRecord;
  /**
   * The execution recorded for the decision's first choice (a second choice returns the first's); for a denied or
   * failed choice, the refused choice (`{ kind: 'capability', status: 'denied' | 'failed', error, optionId, actor, at }`)
   * and the decision stays unresolved; null when nothing is recorded.
   */
  execution: DecisionExecution | DecisionRefusedChoice | null;
  /** False when the decision was already resolved: nothing ran, the first result is returned. */
  first: boolean;
}

/**
 * A trigger of {@link DecisionService.resolveDecision}: `created` (a decision was raised: investigate it
 * automatically when the rules allow) or `updated` (a decision was resolved: execute its chosen option unless its
 * execution is already recorded).
 * @public
 */
export interface DecisionTrigger {
  /** `created` or `updated`. */
  type: 'created' | 'updated';
  /** The decision. */
  decisionId: string;
}

/** Dependencies of {@link DecisionService}. @public */
export interface DecisionServiceDeps {
  /** Storage. */
  storage: StorageAdapter;
  /** The one invocation path (options are executed through it). */
  capabilities: CapabilityRegistry;
  /** Run events (`decision.created`, `decision.updated`). */
  bus: RunEventBus;
  /** Time. */
  clock: Clock;
  /** Ids. */
  ids: IdGenerator;
  /** Logger. */
  logger: Logger;
  /** Starts an investigation run with a given id and runtime state. */
  startRun: (input: StartRunInput, extras: { id: string; runtimeState: JsonValue }) => Promise<RunRecord>;
  /** Decision options with defaults. */
  settings: ResolvedDecisionOptions;
  /** The run budget `maxDurationSec` (the investigation gets at most 600 s of it). */
  maxDurationSec: number | null;
  /** Largest evidence JSON, in UTF-8 bytes. */
  maxInputBytes: number;
  /** Roles of actors: dismissing, and choosing an option that invokes nothing, are for administrators. */
  identity: IdentityResolver;
}

const KIND = /^[a-z][a-z0-9_.-]{0,63}$/;
const OPTION_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * Decisions for people and their automatic handling: raise (deduplicated by key), choose an option (executed
 * through the one invocation path as the chooser), dismiss, and `resolveDecision` — the automatic investigation
 * of a new decision and the execution of a resolved one. Every change is a compare-and-set on the decision's
 * revision, stored with its `decision.created` / `decision.updated` event in one transaction.
 * @public
 */
export class DecisionService {
  /**
   * @param deps - storage, registry, events, clock, ids, logger, run starter, settings
   * @throws {@link MediaAgentError} `OPTIONS_INVALID` for a `settings.choiceWaitMs` that is not an integer of at least 0
   */
  constructor(private readonly deps: DecisionServiceDeps) {
    const waitMs: unknown = deps.settings.choiceWaitMs;
    if (!(typeof waitMs === 'number' && Number.isInteger(waitMs) && waitMs >= 0))
      throw new MediaAgentError(
        'OPTIONS_INVALID',
        `option decisions.choiceWaitMs must be an integer of at least 0; got ${String(waitMs)}`,
        { option: 'decisions.choiceWaitMs' },
      );
  }

  /**
   * Raises a decision: validates it, checks its subject, stores it with a `decision.created` event unless its
   * dedupe key is stored, then runs `resolveDecision({ type: 'created' })` for a new one.
   * @returns the stored decision (the earlier one for a stored dedupe key)
   * @throws {@link DecisionError} `DECISION_INVALID`, `DECISION_SUBJECT_NOT_FOUND`; `ACTOR_INVALID`
   */
  async raise(input: RaiseDecisionInput): Promise<DecisionRecord> {
    const record = this.#validate(input);
    const subject = { type: record.subjectType, id: record.subjectId };
    const exists =
      subject.type === 'run'
        ? (await this.deps.storage.runs.get(subject.id)) !== undefined
        : ((await this.deps.settings.subjects?.exists(subject)) ?? true);
    if (!exists)
      throw new DecisionError(
        'DECISION_SUBJECT_NOT_FOUND',
        `no ${subject.type} ${JSON.stringify(subject.id)} is known to the host`,
        { subject },
      );
    const { inserted, event } = await this.deps.storage.transaction(async (s) => {
      if (!(await s.decisions.insert(record))) return { inserted: false, event: undefined };
      return { inserted: true, event: await this.#emit(s, record, 'decision.created', record.raisedBy) };
    });
    if (!inserted) return (await this.deps.storage.decisions.getByKey(record.dedupeKey)) ?? record;
    this.deps.bus.publish(event!);
    return this.resolveDecision({ type: 'created', decisionId: record.id });
  }

  /**
   * A decision by id.
   * @throws {@link DecisionError} `DECISION_NOT_FOUND`
   */
  async get(id: string): Promise<DecisionRecord> {
    const d = typeof id === 'string' ? await this.deps.storage.decisions.get(id) : undefined;
    if (!d) throw new DecisionError('DECISION_NOT_FOUND', `no decision with id ${JSON.stringify(id)}`, { id });
    return d;
  }

  /**
   * Decisions newest first, filtered by status, subject, kind or root cause.
   * @throws {@link DecisionError} `DECISION_INVALID` for a filter that is not an object, an unknown field or
   * status, or a field that is not a string (a misspelt status would otherwise list nothing, silently)
   */
  async list(filter?: DecisionFilter): Promise<DecisionRecord[]> {
    checkDecisionFilter(filter);
    return this.deps.storage.decisions.list(filter ?? {});
  }

  /**
   * A person chooses an option: the decision is resolved by `actor`, then the option's capability (if any) is
   * invoked through the one invocation path as `actor` (authorized, audited, ledgered under the task
   * `decision-<id>`). A denied invocation, or one that failed (it did not take effect), leaves the decision
   * unresolved (`awaiting_user`) with the denial (`evidence.deniedChoice`) or the failure (`evidence.failedChoice`) in
   * its evidence, so the person can choose again; an `unknown` outcome resolves it (verify before anything else). A decision already resolved returns its first result and runs nothing; a choice made while another is still
   * executing waits for that one's result (at most `choiceWaitMs`) and returns it. An option that invokes nothing
   * only closes the decision: for administrators.
   * @throws {@link DecisionError} `DECISION_NOT_FOUND`, `DECISION_OPTION_NOT_FOUND`, `DECISION_CLOSED`,
   *   `DECISION_IN_PROGRESS`; `ACTOR_INVALID`; `ADMIN_FORBIDDEN` (an option that invokes nothing, chosen by someone
   *   who is not an administrator)
   */
  async choose(decisionId: string, optionId: string, actor: string, note?: string): Promise<DecisionChoice> {
    parseActor(actor);
    // Each lost compare-and-set means another writer changed the decision: read it again (a resolved one returns).
    for (;;) {
      const d = await this.get(decisionId);
      if (d.status === 'resolved') return this.#firstChoice(d);
      if (d.status === 'dismissed')
        throw new DecisionError('DECISION_CLOSED', `decision ${d.id} was dismissed`, { decisionId: d.id });
      const option = d.options.find((o) => o.id === optionId);
      if (!option)
        throw new DecisionError(
          'DECISION_OPTION_NOT_FOUND',
          `decision ${d.id} offers no option ${JSON.stringify(optionId)}`,
          {
            decisionId: d.id,
            optionId,
          },
        );
      // An option that invokes a capability is authorized by the invocation path; one that only records a choice
      // closes the decision, which is for administrators.
      if (!option.capabilityId) await requireAdministrator(this.deps.identity, actor, 'close decisions');
      const now = this.deps.clock.now();
      const next: DecisionRecord = {
        ...d,
        status: 'resolved',
        resolvedBy: actor,
        resolvedAt: now,
        resolution: { optionId, note: typeof note === 'string' ? note.slice(0, 2000) : null, execution: null },
      };
      if (await this.#save(d, next, 'resolved', actor)) break;
    }
    const settled = await this.resolveDecision({ type: 'updated', decisionId });
    if (settled.status !== 'resolved') {
      const evidence = asObject(settled.evidence);
      return { decision: settled, execution: refusedChoice(evidence), first: true };
    }
    return { decision: settled, execution: settled.resolution?.execution ?? null, first: true };
  }

  /**
   * The result of the decision's first choice, for a later chooser: while that choice is still executing (resolved,
   * execution not recorded yet — in this process or another on the same store), waits for it, at most
   * `settings.choiceWaitMs`. A first choice that was denied or failed put the decision back to `awaiting_user`: its
   * denial or failure is returned.
   * @throws {@link DecisionError} `DECISION_IN_PROGRESS` when the wait ends first
   */
  async #firstChoice(resolved: DecisionRecord): Promise<DecisionChoice> {
    const deadline = performance.now() + this.deps.settings.choiceWaitMs;
    let d = resolved;
    let delay = 5;
    while (d.status === 'resolved' && (d.resolution === null || d.resolution.execution === null)) {
      const left = deadline - performance.now();
      if (left <= 0)
        throw new DecisionError(
          'DECISION_IN_PROGRESS',
          `decision ${d.id}: another choice is still executing; read the decision later for its result`,
          { decisionId: d.id },
        );
      await new Promise((r) => setTimeout(r, Math.min(delay, left)));
      delay = Math.min(delay * 2, 200);
      d = await this.get(d.id);
    }
    if (d.status === 'resolved') return { decision: d, execution: d.resolution?.execution ?? null, first: false };
    const evidence = asObject(d.evidence);
    return { decision: d, execution: refusedChoice(evidence), first: false };
  }

  /**
   * Dismisses a decision: nothing is executed; an investigation still running may add its conclusion. For
   * administrators.
   * @throws {@link DecisionError} `DECISION_NOT_FOUND`, `DECISION_CLOSED` (already resolved); `ACTOR_INVALID`;
   *   `ADMIN_FORBIDDEN`
   */
  async dismiss(decisionId: string, actor: string, note?: string): Promise<DecisionRecord> {
    parseActor(actor);
    await requireAdministrator(this.deps.identity, actor, 'dismiss decisions');
    for (;;) {
      const d = await this.get(decisionId);
      if (d.status === 'dismissed') return d;
      if (d.status === 'resolved')
        throw new DecisionError('DECISION_CLOSED', `decision ${d.id} is already resolved`, { decisionId: d.id });
      const next: DecisionRecord = {
        ...d,
        status: 'dismissed',
        resolvedBy: actor,
        resolvedAt: this.deps.clock.now(),
        resolution: { optionId: null, note: note ?? null, execution: { kind: 'none' } },
      };
      if (await this.#save(d, next, 'dismissed', actor)) return next;
    }
  }

  /**
   * Handles a decision event. `created`: starts one bounded investigation run when the rules allow
   * (docs/decisions.md#automatic-investigation) — repeated triggers and reopened decisions start nothing.
   * `updated`: executes the chosen option of a resolved decision whose execution is not recorded (an automatic
   * recovery's resolution is recorded, so its option never runs a second time).
   * @returns the decision as stored afterwards
   * @throws {@link DecisionError} `DECISION_NOT_FOUND`
   */
  async resolveDecision(trigger: DecisionTrigger): Promise<DecisionRecord> {
    if (trigger?.type === 'updated') return this.#execute(trigger.decisionId);
    if (trigger?.type !== 'created')
      throw new DecisionError('DECISION_INVALID', 'trigger type must be created or updated', {});
    return this.#investigate(trigger.decisionId);
  }

  /**
   * Concludes the investigation of a decision when its run ended (or waits for a person): the conclusion goes
   * into `evidence.agentInvestigation`; a recovery the system verified resolves the decision as
   * `system:auto-recover`; anything else hands it to a person (`awaiting_user`). Idempotent.
   */
  async onRunEnded(run: RunRecord): Promise<void> {
    const link = asObject(asObject(run.runtimeState).decision);
    if (typeof link.decisionId !== 'string') return;
    const mode = link.mode === 'recover' ? 'recover' : 'investigate';
    for (;;) {
      const d = await this.deps.storage.decisions.get(link.decisionId);
      if (!d || investigationOf(d)?.runId !== run.id) return;
      const evidence = asObject(d.evidence);
      if (evidence.agentInvestigation !== undefined) return;
      const state = asObject(asObject(run.runtimeState).recover);
      const report = asObject(run.report as JsonValue);
      const conclusion = {
        runId: run.id,
        runStatus: run.status,
        summary: typeof report.summary === 'string' ? report.summary : null,
        conclusion: run.finalText === null ? null : { text: run.finalText.slice(0, 4000), verified: false },
      };
      const next: DecisionRecord = { ...d, evidence: { ...evidence, agentInvestigation: conclusion } };
      // A person closed it meanwhile: the conclusion is kept, their resolution stands.
      if (d.status !== 'open') {
        if (await this.#save(d, next, 'investigated', AUTO_INVESTIGATE_ACTOR)) return;
        continue;
      }
      let change = 'awaiting_user';
      if (mode === 'recover') {
        const outcome =
          run.status === 'budget_exceeded'
            ? 'over_budget'
            : typeof state.outcome === 'string'
              ? state.outcome
              : run.status === 'cancelled' || run.status === 'failed'
                ? `run_${run.status}`
                : 'no_action';
        const denied = Array.isArray(state.denied) ? state.denied : [];
        const autoRecover: Record<string, JsonValue> = {
          ...asObject(evidence.autoRecover),
          outcome,
          actions: state.actions ?? [],
          denied,
        };
        if (outcome === 'verified') {
          next.status = 'resolved';
          next.resolvedBy = AUTO_RECOVER_ACTOR;
          next.resolvedAt = this.deps.clock.now();
          next.resolution = {
            optionId: null,
            note: 'recovered (verified by the system)',
            execution: { kind: 'agent_recover', verified: true, runId: run.id, facts: state.facts ?? null },
          };
          change = 'resolved';
        } else {
          autoRecover.suggestion = recoverSuggestion(outcome, denied.length > 0);
          if (denied.length > 0 && outcome === 'no_action') {
            autoRecover.degraded = { reason: 'the recovery action was denied', denied };
            next.options = withRecheckOption(d, this.deps.capabilities);
          }
        }
        next.evidence = { ...(next.evidence as Record<string, JsonValue>), autoRecover };
      }
      if (next.status === 'open') next.status = 'awaiting_user';
      if (await this.#save(d, next, change, mode === 'recover' ? AUTO_RECOVER_ACTOR : AUTO_INVESTIGATE_ACTOR)) return;
    }
  }

  /**
   * Concludes investigations whose run ended while no process was there to do it (a crash between the run's end
   * and its conclusion), and hands to a person an open decision whose investigation was claimed over a minute ago
   * but whose run was never stored. Called at host start.
   */
  async sweep(): Promise<void> {
    for (const d of await this.deps.storage.decisions.list({ status: 'open' })) {
      const inv = investigationOf(d);
      if (!inv || asObject(d.evidence).agentInvestigation !== undefined) continue;
      const run = await this.deps.storage.runs.get(inv.runId);
      if (run && run.endedAt !== null) await this.onRunEnded(run);
      else if (
        !run &&
        this.deps.clock.now() - Number(asObject(asObject(d.evidence).investigation).startedAt ?? 0) > 60_000
      )
        // Claimed, but its run was never stored (the process stopped in between): a person takes it.
        await this.#save(
          d,
          {
            ...d,
            status: 'awaiting_user',
            evidence: {
              ...asObject(d.evidence),
              agentInvestigation: { runId: inv.runId, runStatus: 'not_started', error: null },
            },
          },
          'awaiting_user',
          AUTO_INVESTIGATE_ACTOR,
        );
    }
  }

  async #investigate(decisionId: string): Promise<DecisionRecord> {
    const { settings, storage, clock, capabilities } = this.deps;
    for (;;) {
      const d = await this.get(decisionId);
      if (investigationSkip(d, settings.autoInvestigate) !== null) return d;
      const evidence = asObject(d.evidence);
      let mode = settings.autoInvestigateMode;
      const autoRecover: Record<string, JsonValue> = {};
      if (mode === 'recover' && d.rootCause !== null) {
        const attempts = recoveryAttempts(await storage.decisions.list({ rootCause: d.rootCause }), d.id);
        if (attempts >= settings.investigateMaxAttempts) {
          const next: DecisionRecord = {
            ...d,
            status: 'awaiting_user',
            evidence: {
              ...evidence,
              autoRecover: {
                skipped: 'attempts_exhausted',
                attempts,
                maxAttempts: settings.investigateMaxAttempts,
                suggestion: `automatic recovery of ${d.rootCause} was attempted ${attempts} times; a person should look at it`,
              },
            },
          };
          if (await this.#save(d, next, 'awaiting_user', AUTO_RECOVER_ACTOR)) return next;
          continue;
        }
        autoRecover.attempt = attempts + 1;
      }
      let options = d.options;
      if (mode === 'recover') {
        const needed = recoveryCapabilities(d.kind).filter((id) => capabilities.has(id));
        const grants = await storage.grants.list({ status: 'active' });
        const now = clock.now();
        const covered = needed.filter((id) =>
          grants.some((g) =>
            grantCoversRecovery(g, (grant) => grantCoversCapability(grant, capabilities.get(id)), now),
          ),
        );
        if (covered.length === 0) {
          mode = 'investigate';
          autoRecover.degraded = {
            reason: `no standing grant covers ${needed.join(' or ') || 'a recovery action'}`,
          };
          autoRecover.suggestion = suggestionFor(d);
          options = withRecheckOption(d, capabilities);
        } else autoRecover.recoverAttempted = true;
      }
      const runId = this.deps.ids.next('run');
      const next: DecisionRecord = {
        ...d,
        options,
        evidence: {
          ...evidence,
          investigation: { runId, mode, dedupeKey: `investigate:${d.id}`, startedAt: clock.now() },
          ...(Object.keys(autoRecover).length > 0 ? { autoRecover } : {}),
        },
      };
      if (
        !(await this.#save(
          d,
          next,
          'investigating',
          mode === 'recover' ? AUTO_RECOVER_ACTOR : AUTO_INVESTIGATE_ACTOR,
          runId,
        ))
      )
        continue;
      try {
        await this.deps.startRun(this.#runInput(next, mode), {
          id: runId,
          runtimeState: { decision: { decisionId: d.id, mode } },
        });
      } catch (error) {
        // The run could not start (a daily budget, a bad allowlist): the decision goes to a person with the reason.
        this.deps.logger.warn('could not start the investigation of a decision', {
          decisionId: d.id,
          message: (error as Error).message,
        });
        const stored = await this.get(d.id);
        await this.#save(
          stored,
          {
            ...stored,
            status: stored.status === 'open' ? 'awaiting_user' : stored.status,
            evidence: {
              ...asObject(stored.evidence),
              agentInvestigation: {
                runId,
                runStatus: 'not_started',
                error: isMediaAgentError(error) ? error.code : 'DRIVER_FAILED',
              },
            },
          },
          'awaiting_user',
          AUTO_INVESTIGATE_ACTOR,
        );
      }
      return this.get(d.id);
    }
  }

  #runInput(d: DecisionRecord, mode: 'investigate' | 'recover'): StartRunInput {
    const { capabilities, settings } = this.deps;
    const reads = capabilities.list({ kind: 'read' }).map((c) => c.id);
    const recovery = ['identity.resolve', 'task.retry', 'download.recheck'].filter((id) => capabilities.has(id));
    const evidence = JSON.stringify(asObject(d.evidence)).slice(0, 4000);
    const task =
      mode === 'recover'
        ? `You may recover it within standing grants: ${recovery.join(', ')} on this subject only. Never replace the release, delete, cancel or organize. Check the facts first (task.inspect), act once, then state what you did.`
        : 'Do not change anything: find the cause with read capabilities.';
    return {
      goal: `Investigate decision ${d.id} (${d.kind}) about ${d.subjectType} ${d.subjectId}: ${d.reason}\nEvidence: ${evidence}\n${task} End with your conclusion and a suggestion for a person.`,
      mode: mode === 'recover' ? 'execute' : 'plan_only',
      actor: mode === 'recover' ? AUTO_RECOVER_ACTOR : AUTO_INVESTIGATE_ACTOR,
      capabilityAllowlist: mode === 'recover' ? [...reads, ...recovery] : reads,
      origin: 'background',
      budgets: investigationBudgets(settings.investigateMaxToolCalls, this.deps.maxDurationSec ?? 600),
    };
  }

  async #execute(decisionId: string): Promise<DecisionRecord> {
    const d = await this.get(decisionId);
    if (d.status !== 'resolved' || !d.resolution || d.resolution.execution !== null) return d;
    const option = d.options.find((o) => o.id === d.resolution!.optionId);
    let execution: DecisionExecution = { kind: 'none' };
    let denied: DecisionRefusedChoice | undefined;
    if (option?.capabilityId) {
      const actor = d.resolvedBy ?? 'system:decisions';
      let result: InvocationResult;
      try {
        result = await this.deps.capabilities.invoke(option.capabilityId, option.input ?? {}, {
          actor: actor as InvocationContext['actor'],
          taskId: `decision-${d.id}`,
        });
      } catch (error) {
        const code = isMediaAgentError(error) ? error.code : 'DRIVER_FAILED';
        result = { status: 'failed', error: { code, message: (error as Error).message }, invocationId: '' };
      }
      const invoked: DecisionCapabilityExecution = {
        kind: 'capability',
        capabilityId: option.capabilityId,
        status: result.status,
        ...(result.output !== undefined ? { output: result.output as JsonValue } : {}),
        ...(result.error ? { error: result.error } : {}),
        ...(result.invocationId ? { invocationId: result.invocationId } : {}),
        ...(result.idempotencyKey ? { idempotencyKey: result.idempotencyKey } : {}),
      };
      execution = invoked;
      // Denied (nothing ran) or failed (it did not take effect): the person may choose again.
      if (result.status === 'denied' || result.status === 'failed')
        denied = { optionId: option.id, actor, ...invoked, at: this.deps.clock.now() };
    }
    const failed = denied?.status === 'failed';
    const { deniedChoice: _denied, failedChoice: _failed, ...evidence } = asObject(d.evidence);
    const next: DecisionRecord = denied
      ? {
          ...d,
          status: 'awaiting_user',
          resolvedBy: null,
          resolvedAt: null,
          resolution: null,
          evidence: { ...evidence, [failed ? 'failedChoice' : 'deniedChoice']: denied },
        }
      : { ...d, resolution: { ...d.resolution, execution } };
    await this.#save(
      d,
      next,
      denied ? (failed ? 'choice_failed' : 'choice_denied') : 'executed',
      d.resolvedBy ?? 'system:decisions',
    );
    return this.get(d.id);
  }

  /** Compare-and-set of a decision with its `decision.updated` event, in one transaction; false when it changed meanwhile. */
  async #save(
    prev: DecisionRecord,
    next: DecisionRecord,
    change: string,
    actor: string,
    runId?: string,
  ): Promise<boolean> {
    const record: DecisionRecord = { ...next, revision: prev.revision + 1, updatedAt: this.deps.clock.now() };
    const event = await this.deps.storage.transaction(async (s) => {
      if (!(await s.decisions.update(record, prev.revision))) return undefined;
      return this.#emit(s, record, 'decision.updated', actor, change, runId);
    });
    if (!event) return false;
    this.deps.bus.publish(event);
    return true;
  }

  #emit(
    s: StorageSession,
    d: DecisionRecord,
    type: 'decision.created' | 'decision.updated',
    actor: string,
    change?: string,
    runId?: string,
  ): Promise<RunEvent> {
    const inv = runId ?? investigationOf(d)?.runId;
    const data = {
      decisionId: d.id,
      kind: d.kind,
      status: d.status,
      subjectType: d.subjectType,
      subjectId: d.subjectId,
      revision: d.revision,
      actor,
      ...(inv ? { runId: inv } : {}),
    };
    const stream = decisionStream(d);
    return type === 'decision.created'
      ? this.deps.bus.emit(stream, type, data, s)
      : this.deps.bus.emit(stream, type, { ...data, change: change ?? 'updated' }, s);
  }

  #validate(input: RaiseDecisionInput): DecisionRecord {
    const bad = (reason: string) => new DecisionError('DECISION_INVALID', reason, {});
    if (!input || typeof input !== 'object') throw bad('the decision must be an object');
    parseActor(input.raisedBy);
    if (typeof input.kind !== 'string' || !KIND.test(input.kind))
      throw bad('kind must match [a-z][a-z0-9_.-]* (at most 64 characters)');
    const subject = input.subject;
    const text = (v: unknown, max: number) => typeof v === 'string' && v.trim().length > 0 && v.length <= max;
    if (!subject || typeof subject !== 'object' || !text(subject.type, 200) || !text(subject.id, 200))
      throw bad('subject must be { type, id } with non-empty strings of at most 200 characters');
    if (!text(input.reason, 2000)) throw bad('reason must be a non-empty string of at most 2000 characters');
    const evidence = input.evidence ?? {};
    if (typeof evidence !== 'object' || evidence === null || Array.isArray(evidence))
      throw bad('evidence must be a JSON object');
    let json: string;
    try {
      json = JSON.stringify(evidence);
    } catch {
      throw bad('evidence must be JSON');
    }
    if (new TextEncoder().encode(json).length > this.deps.maxInputBytes)
      throw bad(`evidence is larger than ${this.deps.maxInputBytes} bytes as JSON`);
    const options = input.options ?? [];
    if (!Array.isArray(options) || options.length > 20) throw bad('options must be an array of at most 20');
    const ids = new Set<string>();
    for (const o of options) {
      if (!o || typeof o !== 'object' || typeof o.id !== 'string' || !OPTION_ID.test(o.id))
        throw bad('every option needs an id of 1–64 letters, digits or _.:-');
      if (ids.has(o.id)) throw bad(`option id ${o.id} is used twice`);
      ids.add(o.id);
      if (!text(o.label, 500)) throw bad(`option ${o.id} needs a label of at most 500 characters`);
      if (o.capabilityId !== undefined && !this.deps.capabilities.has(o.capabilityId))
        throw bad(`option ${o.id} names capability ${o.capabilityId}, which is not registered`);
      if (o.capabilityId !== undefined) {
        // Checked now, as the invocation will check it: an option that can never run is no choice for a person.
        const check = compileSchema(this.deps.capabilities.get(o.capabilityId).input);
        const optionInput = o.input ?? {};
        if (!check.check(optionInput)) {
          const [first] = check.issues(optionInput);
          throw bad(
            `option ${o.id}: its input is not valid for ${o.capabilityId} (${first ? `${first.path || '/'}: ${first.message}` : 'invalid'})`,
          );
        }
      }
    }
    for (const [name, v] of [
      ['dedupeKey', input.dedupeKey],
      ['rootCause', input.rootCause],
    ] as const)
      if (v !== undefined && !text(v, 500)) throw bad(`${name} must be a non-empty string of at most 500 characters`);
    const now = this.deps.clock.now();
    return {
      id: this.deps.ids.next('dec'),
      kind: input.kind,
      dedupeKey: input.dedupeKey ?? defaultDecisionKey(input.kind, subject),
      subjectType: subject.type,
      subjectId: subject.id,
      rootCause: input.rootCause ?? `${input.kind}:${subject.id}`,
      status: 'open',
      reason: input.reason,
      evidence: JSON.parse(json) as JsonValue,
      options: options.map((o) => ({ ...o })),
      raisedBy: input.raisedBy,
      resolvedBy: null,
      resolution: null,
      revision: 1,
      createdAt: now,
      updatedAt: now,
      resolvedAt: null,
    };
  }
}

/** The refused choice kept in a decision's evidence (`deniedChoice`, else `failedChoice`), as the service wrote it. */
function refusedChoice(evidence: Record<string, JsonValue>): DecisionRefusedChoice | null {
  return ((evidence.deniedChoice ?? evidence.failedChoice ?? null) as DecisionRefusedChoice | null) ?? null;
}

/** The event stream of a decision: the run it is about, else one named by its id. @internal */
export function decisionStream(d: Pick<DecisionRecord, 'id' | 'subjectType' | 'subjectId'>): string {
  return d.subjectType === 'run' ? d.subjectId : d.id;
}

/** The decision's options with a ready-to-choose forced recheck of its download, when it is about one. */
function withRecheckOption(d: DecisionRecord, capabilities: CapabilityRegistry): DecisionOption[] {
  if (d.subjectType !== 'download' || !capabilities.has('download.recheck')) return d.options;
  if (d.options.some((o) => o.id === 'recheck')) return d.options;
  return [
    ...d.options,
    {
      id: 'recheck',
      label: `Force a recheck of download ${d.subjectId}`,
      capabilityId: 'download.recheck',
      input: { downloadId: d.subjectId, action: 'recheck' },
    },
  ];
}

function suggestionFor(d: DecisionRecord): string {
  if (d.kind === 'identity_ambiguous') return 'choose the right title for it (identity.resolve)';
  return `force a recheck of download ${d.subjectId} (option "recheck"), or grant download.recheck for automatic recovery`;
}

function recoverSuggestion(outcome: string, denied: boolean): string {
  if (denied) return 'the recovery action was denied: check the standing grants, or choose the recheck option';
  switch (outcome) {
    case 'failed':
      return 'the recovery did not take: the download was removed or failed again; look at the downloader';
    case 'timed_out':
      return 'the download did not move again within the verification time; look at the downloader or its files';
    case 'over_budget':
      return 'the investigation ran out of budget before it could verify a recovery; a person should look at it';
    case 'no_action':
      return 'no recovery action was taken; see the conclusion';
    default:
      return 'the investigation ended without a verified recovery; see the conclusion';
  }
}

const FILTER_FIELDS = new Set(['status', 'subjectId', 'kind', 'rootCause']);
const STATUSES = new Set<string>(['open', 'awaiting_user', 'resolved', 'dismissed']);

/** @throws {@link DecisionError} `DECISION_INVALID` unless the filter is one `list` understands */
function checkDecisionFilter(filter: unknown): void {
  if (filter === undefined || filter === null) return;
  if (typeof filter !== 'object' || Array.isArray(filter))
    throw new DecisionError('DECISION_INVALID', 'a decision filter must be an object');
  for (const [field, value] of Object.entries(filter)) {
    if (!FILTER_FIELDS.has(field))
      throw new DecisionError('DECISION_INVALID', `unknown decision filter field ${JSON.stringify(field)}`, { field });
    if (value !== undefined && typeof value !== 'string')
      throw new DecisionError('DECISION_INVALID', `decision filter ${field} must be a string`, { field });
    if (field === 'status' && value !== undefined && !STATUSES.has(value))
      throw new DecisionError('DECISION_INVALID', `unknown decision status ${JSON.stringify(value)}`, { field });
  }
}
