// Decisions for people: raise, choose, dismiss, and the automatic investigation and recovery (docs/decisions.md).
// The service orders the steps and stores each change; the rules live in the files beside it.
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import type { InvocationContext, InvocationResult } from '../../capabilities/invocation';
import { parseActor } from '../../core/actor';
import { MediaAgentError } from '../../core/errors';
import type { JsonValue } from '../../core/records';
import type { DecisionExecution, DecisionRecord, DecisionRefusedChoice, RunRecord } from '../../core/run-records';
import type { Clock } from '../../ports/clock';
import type { IdGenerator } from '../../ports/id-generator';
import type { Logger } from '../../ports/logger';
import type { DecisionFilter, StorageAdapter, StorageSession } from '../../ports/storage-adapter';
import { requireAdministrator } from '../../authorization/roles';
import type { IdentityResolver } from '../../ports/identity';
import type { RunEvent } from '../events/run-event';
import type { RunEventBus } from '../events/run-event-bus';
import type { StartRunInput } from '../run-service';
import {
  capabilityExecution,
  choiceExecution,
  chosenDecision,
  dismissedDecision,
  executedDecision,
  thrownInvocationResult,
} from './decision-choice';
import { DecisionError } from './decision-errors';
import { decisionEventData, decisionStream } from './decision-events';
import { checkDecisionFilter } from './decision-filter';
import {
  AUTO_INVESTIGATE_ACTOR,
  AUTO_RECOVER_ACTOR,
  asObject,
  investigationOf,
  investigationSkip,
  recoveryAttempts,
} from './decision-rules';
import type { ResolvedDecisionOptions } from './decision-settings';
import { concludedDecision } from './investigation-conclusion';
import {
  attemptsExhaustedDecision,
  claimedInvestigation,
  investigationOverdue,
  investigationRunInput,
  recoveryCoverage,
  runNeverStoredDecision,
  runNotStartedDecision,
} from './investigation-start';
import { raisedDecisionRecord, type RaiseDecisionInput } from './raised-decision';
import { noGrantSuggestion, withRecheckOption } from './recovery-suggestions';

export { decisionStream } from './decision-events';
export type { RaiseDecisionInput } from './raised-decision';

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
   * @throws `OPTIONS_INVALID` ({@link MediaAgentError}) for a `settings.choiceWaitMs` that is not an integer of at least 0
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
    const { capabilities, maxInputBytes, clock, ids } = this.deps;
    const record = raisedDecisionRecord(input, {
      capabilities,
      maxInputBytes,
      now: () => clock.now(),
      nextId: () => ids.next('dec'),
    });
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
      const next = chosenDecision(d, optionId, actor, note, this.deps.clock.now());
      if (await this.#save(d, next, 'resolved', actor)) break;
    }
    const settled = await this.resolveDecision({ type: 'updated', decisionId });
    return { decision: settled, execution: choiceExecution(settled), first: true };
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
    return { decision: d, execution: choiceExecution(d), first: false };
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
      const next = dismissedDecision(d, actor, note, this.deps.clock.now());
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
      if (asObject(d.evidence).agentInvestigation !== undefined) return;
      const { next, change, actor } = concludedDecision(d, run, mode, {
        capabilities: this.deps.capabilities,
        now: () => this.deps.clock.now(),
      });
      if (await this.#save(d, next, change, actor)) return;
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
      else if (!run && investigationOverdue(d, this.deps.clock.now()))
        // Claimed, but its run was never stored (the process stopped in between): a person takes it.
        await this.#save(d, runNeverStoredDecision(d, inv.runId), 'awaiting_user', AUTO_INVESTIGATE_ACTOR);
    }
  }

  async #investigate(decisionId: string): Promise<DecisionRecord> {
    const { settings, storage, clock, capabilities } = this.deps;
    for (;;) {
      const d = await this.get(decisionId);
      if (investigationSkip(d, settings.autoInvestigate) !== null) return d;
      let mode = settings.autoInvestigateMode;
      const autoRecover: Record<string, JsonValue> = {};
      if (mode === 'recover' && d.rootCause !== null) {
        const attempts = recoveryAttempts(await storage.decisions.list({ rootCause: d.rootCause }), d.id);
        if (attempts >= settings.investigateMaxAttempts) {
          const next = attemptsExhaustedDecision(d, attempts, settings.investigateMaxAttempts);
          if (await this.#save(d, next, 'awaiting_user', AUTO_RECOVER_ACTOR)) return next;
          continue;
        }
        autoRecover.attempt = attempts + 1;
      }
      let options = d.options;
      if (mode === 'recover') {
        const grants = await storage.grants.list({ status: 'active' });
        const { needed, covered } = recoveryCoverage(d.kind, capabilities, grants, clock.now());
        if (covered.length === 0) {
          mode = 'investigate';
          autoRecover.degraded = {
            reason: `no standing grant covers ${needed.join(' or ') || 'a recovery action'}`,
          };
          autoRecover.suggestion = noGrantSuggestion(d);
          options = withRecheckOption(d, capabilities);
        } else autoRecover.recoverAttempted = true;
      }
      const runId = this.deps.ids.next('run');
      const next = claimedInvestigation(d, { options, runId, mode, autoRecover, now: clock.now() });
      const actor = mode === 'recover' ? AUTO_RECOVER_ACTOR : AUTO_INVESTIGATE_ACTOR;
      if (!(await this.#save(d, next, 'investigating', actor, runId))) continue;
      try {
        const input = investigationRunInput(next, mode, capabilities, {
          maxToolCalls: settings.investigateMaxToolCalls,
          maxDurationSec: this.deps.maxDurationSec ?? 600,
        });
        await this.deps.startRun(input, { id: runId, runtimeState: { decision: { decisionId: d.id, mode } } });
      } catch (error) {
        // The run could not start (a daily budget, a bad allowlist): the decision goes to a person with the reason.
        this.deps.logger.warn('could not start the investigation of a decision', {
          decisionId: d.id,
          message: (error as Error).message,
        });
        const stored = await this.get(d.id);
        await this.#save(stored, runNotStartedDecision(stored, runId, error), 'awaiting_user', AUTO_INVESTIGATE_ACTOR);
      }
      return this.get(d.id);
    }
  }

  async #execute(decisionId: string): Promise<DecisionRecord> {
    const d = await this.get(decisionId);
    if (d.status !== 'resolved' || !d.resolution || d.resolution.execution !== null) return d;
    const option = d.options.find((o) => o.id === d.resolution!.optionId);
    let execution: DecisionExecution = { kind: 'none' };
    let refused: DecisionRefusedChoice | undefined;
    if (option?.capabilityId) {
      const actor = d.resolvedBy ?? 'system:decisions';
      let result: InvocationResult;
      try {
        result = await this.deps.capabilities.invoke(option.capabilityId, option.input ?? {}, {
          actor: actor as InvocationContext['actor'],
          taskId: `decision-${d.id}`,
        });
      } catch (error) {
        result = thrownInvocationResult(error);
      }
      const invoked = capabilityExecution(option.capabilityId, result);
      execution = invoked;
      // Denied (nothing ran) or failed (it did not take effect): the person may choose again.
      if (result.status === 'denied' || result.status === 'failed')
        refused = { optionId: option.id, actor, ...invoked, at: this.deps.clock.now() };
    }
    const { next, change } = executedDecision(d, execution, refused);
    await this.#save(d, next, change, d.resolvedBy ?? 'system:decisions');
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
    const data = decisionEventData(d, actor, runId ?? investigationOf(d)?.runId);
    const stream = decisionStream(d);
    return type === 'decision.created'
      ? this.deps.bus.emit(stream, type, data, s)
      : this.deps.bus.emit(stream, type, { ...data, change: change ?? 'updated' }, s);
  }
}
