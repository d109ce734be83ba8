// host.undo: runs the declared inverses of what an invocation or a run did, newest first, each through the one
// invocation path as the person undoing (docs/approvals.md#undo). The rules are in undo-rules.ts.
import { resolveRole } from '../../authorization/roles';
import { runOwner } from '../../authorization/run-owner';
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import type { InvocationResult } from '../../capabilities/invocation';
import { type Actor, parseActor } from '../../core/actor';
import { isMediaAgentError } from '../../core/errors';
import type { AuditAction, AuditRecord, LedgerEntry } from '../../core/records';
import type { DecisionRecord } from '../../core/run-records';
import type { Clock } from '../../ports/clock';
import type { IdGenerator } from '../../ports/id-generator';
import type { IdentityResolver } from '../../ports/identity';
import type { Logger } from '../../ports/logger';
import type { StorageAdapter } from '../../ports/storage-adapter';
import type { RaiseDecisionInput } from '../decisions/raised-decision';
import { undoFailedDecision } from './undo-decision';
import { UndoError } from './undo-errors';
import {
  MAX_UNDO_EFFECTS,
  effectPerformer,
  inverseTaskId,
  mayUndo,
  parseUndoTarget,
  undoOrder,
  undoPlanOf,
  undoStatus,
} from './undo-rules';
import type { HostUndo, NotUndoable, UndoNotAttempted, UndoResult, UndoStep, UndoTarget } from './undo-types';

/** The capability id of the `undo.*` audit rows. @internal */
export const UNDO_AUDIT_CAPABILITY = 'host.undo';

/** The call id every inverse is invoked with (its task id, {@link inverseTaskId}, names the effect). @internal */
export const UNDO_CALL_ID = 'undo';

/** Dependencies of {@link UndoService}. @internal */
export interface UndoServiceDeps {
  /** Ledger entries, audit rows and runs are read here; the `undo.*` audit rows are written here. */
  storage: StorageAdapter;
  /** The registered capabilities (their declared inverses) and the one invocation path the inverses run through. */
  capabilities: Pick<CapabilityRegistry, 'has' | 'get' | 'invoke'>;
  /** Who is an administrator. */
  identity: IdentityResolver;
  /** Time of the audit rows. */
  clock: Clock;
  /** Undo and audit row ids. */
  ids: IdGenerator;
  /** Where a failure to audit or to raise a decision is told. */
  logger: Logger;
  /** Raises the `undo_failed` decision (the host's decision service). */
  raiseDecision: (input: RaiseDecisionInput) => Promise<DecisionRecord>;
}

/** One ledger entry as the undo sees it. */
type Planned = { entry: LedgerEntry; plan: ReturnType<typeof undoPlanOf> };

/**
 * Undo through declared inverses (docs/approvals.md#undo): finds what the target did in the ledger, checks who may
 * undo it, then invokes each effect's declared inverse newest first through the one invocation path, as the person
 * undoing, under a task id derived from the effect so an inverse never runs twice; stops at the first inverse that
 * is denied or fails (raising an `undo_failed` decision for a failure). Audited: `undo.requested`, `undo.finished`,
 * `undo.refused`.
 * @internal
 */
export class UndoService implements HostUndo {
  readonly #deps: UndoServiceDeps;

  /** @param deps - storage, registry, identity, clock, ids, logger and the decision hook */
  constructor(deps: UndoServiceDeps) {
    this.#deps = deps;
  }

  /**
   * Undoes the effects of an invocation or a run. See `AgentHost.undo`.
   * @throws `ACTOR_INVALID`; {@link UndoError} `UNDO_REQUEST_INVALID`, `UNDO_NOT_FOUND`, `UNDO_FORBIDDEN` (audited,
   *   nothing ran); storage errors before the first inverse ran
   */
  async undo(target: UndoTarget, options: { actor: string }): Promise<UndoResult> {
    const actor = (options as { actor?: unknown } | undefined)?.actor;
    parseActor(actor);
    const undoer = actor as Actor;
    const undoId = this.#deps.ids.next('undo');
    let parsed: UndoTarget;
    let planned: Planned[];
    let runId: string | null;
    try {
      parsed = parseUndoTarget(target);
      ({ planned, runId } = await this.#find(parsed));
      await this.#checkAccess(parsed, planned, undoer);
    } catch (error) {
      if (error instanceof UndoError)
        await this.#audit('undo.refused', undoer, undoId, null, 'refused', describeTarget(target), error.code);
      throw error;
    }
    const effects = planned.filter((p) => p.plan.kind !== 'skip').length;
    await this.#audit('undo.requested', undoer, undoId, runId, 'requested', { target: parsed, effects });

    const undone: UndoStep[] = [];
    const notUndoable: NotUndoable[] = [];
    const notAttempted: UndoNotAttempted[] = [];
    let stoppedAt: UndoStep | undefined;
    for (const { entry, plan } of planned) {
      const effect = { invocationId: entry.invocationId, capabilityId: entry.capabilityId, idempotencyKey: entry.key };
      if (plan.kind === 'skip') continue;
      if (plan.kind === 'not_undoable') {
        notUndoable.push({ ...effect, reason: plan.reason, message: plan.message });
        continue;
      }
      if (stoppedAt) {
        notAttempted.push({ ...effect, inverseCapabilityId: plan.inverseCapabilityId });
        continue;
      }
      const step = await this.#runInverse(entry, plan, undoer);
      if (step.status === 'undone') undone.push(step);
      else stoppedAt = step;
    }

    const result: UndoResult = {
      undoId,
      status: undoStatus(stoppedAt?.status as 'failed' | 'denied' | undefined, undone.length, notUndoable.length),
      target: parsed,
      undone,
      notUndoable,
      ...(stoppedAt ? { stoppedAt } : {}),
      notAttempted,
    };
    // Another undo running the same inverse right now (LEDGER_IN_PROGRESS) raises its own decision if it fails.
    if (stoppedAt?.status === 'failed' && stoppedAt.error?.code !== 'LEDGER_IN_PROGRESS') {
      const owner = planned.find((p) => p.entry.key === stoppedAt.idempotencyKey)?.entry.runId ?? null;
      const decision = await this.#deps
        .raiseDecision(
          undoFailedDecision({ undoId, target: parsed, actor: undoer, step: stoppedAt, runId: owner, notAttempted }),
        )
        .catch((error: unknown) => {
          this.#deps.logger.warn('could not raise the undo_failed decision', { undoId, message: messageOf(error) });
          return undefined;
        });
      if (decision) result.decisionId = decision.id;
    }
    await this.#audit(
      'undo.finished',
      undoer,
      undoId,
      runId,
      result.status,
      {
        target: parsed,
        undone: undone.length,
        notUndoable: notUndoable.length,
        notAttempted: notAttempted.length,
        ...(stoppedAt ? { stoppedAt: stoppedAt.invocationId } : {}),
      },
      stoppedAt?.error?.code ?? null,
    ).catch((error: unknown) =>
      this.#deps.logger.warn('could not audit the end of an undo', { undoId, message: messageOf(error) }),
    );
    return result;
  }

  /**
   * The ledger entries of the target, newest first, each with what it means for the undo; and the run they belong
   * to. An invocation's entry is found by its audit rows' idempotency key (a read has none; a denial or a refused
   * claim ran nothing: nothing to undo).
   */
  async #find(target: UndoTarget): Promise<{ planned: Planned[]; runId: string | null }> {
    const { storage } = this.#deps;
    let entries: LedgerEntry[];
    let runId: string | null = null;
    if ('runId' in target) {
      runId = target.runId;
      const [run, listed] = await Promise.all([
        storage.runs.get(target.runId),
        storage.ledger.listByRun(target.runId, { limit: MAX_UNDO_EFFECTS + 1 }),
      ]);
      if (!run && listed.length === 0)
        throw new UndoError('UNDO_NOT_FOUND', `no run ${JSON.stringify(target.runId)} left a record to undo`, {
          runId: target.runId,
        });
      if (listed.length > MAX_UNDO_EFFECTS)
        throw new UndoError(
          'UNDO_REQUEST_INVALID',
          `run ${target.runId} made more than ${MAX_UNDO_EFFECTS} calls with effects: undo them by invocationId`,
          { runId: target.runId, max: MAX_UNDO_EFFECTS },
        );
      entries = listed;
    } else {
      const rows = await storage.audit.list({ invocationId: target.invocationId, limit: 1000 });
      const keys = [
        ...new Set(
          rows
            .filter((r) => r.action === 'capability.invoke' && r.outcome !== 'refused' && r.idempotencyKey !== null)
            .map((r) => r.idempotencyKey as string),
        ),
      ];
      const found = (await Promise.all(keys.map((k) => storage.ledger.get(k)))).filter(
        (e): e is LedgerEntry => e !== undefined,
      );
      if (rows.length === 0 || (keys.length > 0 && found.length === 0))
        throw new UndoError(
          'UNDO_NOT_FOUND',
          `no invocation ${JSON.stringify(target.invocationId)} left a record to undo`,
          { invocationId: target.invocationId },
        );
      entries = found;
      runId = found[0]?.runId ?? null;
    }
    const lookup = (id: string) => (this.#deps.capabilities.has(id) ? this.#deps.capabilities.get(id) : undefined);
    return { planned: undoOrder(entries).map((entry) => ({ entry, plan: undoPlanOf(entry, lookup) })), runId };
  }

  /**
   * Refuses (`UNDO_FORBIDDEN`) unless `undoer` performed every effect found (for a run's call: owns the run) or is an
   * administrator; a run target is checked against its owner even when it has nothing to undo.
   */
  async #checkAccess(target: UndoTarget, planned: readonly Planned[], undoer: Actor): Promise<void> {
    const { storage, identity } = this.#deps;
    const owners = new Map<string, Promise<string | undefined>>();
    const ownerOf = (runId: string) => {
      let owner = owners.get(runId);
      if (!owner) {
        owner = storage.runs.get(runId).then((run) => (run ? runOwner(storage.runs, run) : undefined));
        owners.set(runId, owner);
      }
      return owner;
    };
    const performers = new Set<string>();
    if ('runId' in target) {
      const owner = await ownerOf(target.runId);
      if (owner !== undefined) performers.add(owner);
    }
    for (const { entry, plan } of planned) {
      if (plan.kind === 'skip') continue;
      const owner = entry.actor.startsWith('agent:') ? await ownerOf(entry.actor.slice('agent:'.length)) : undefined;
      performers.add(effectPerformer(entry.actor, owner));
    }
    const others = [...performers].filter((p) => !mayUndo(p, undoer, false));
    if (others.length === 0) return;
    const admin = (await resolveRole(identity, undoer)) === 'admin';
    if (others.some((p) => !mayUndo(p, undoer, admin)))
      throw new UndoError(
        'UNDO_FORBIDDEN',
        `${undoer} may not undo what ${others.join(', ')} did: only an administrator may undo another person's effects`,
        { actor: undoer, performers: others },
      );
  }

  /** Invokes one effect's inverse through the invocation path as `undoer`; never throws. */
  async #runInverse(
    entry: LedgerEntry,
    plan: Extract<Planned['plan'], { kind: 'undo' }>,
    undoer: Actor,
  ): Promise<UndoStep> {
    const base = {
      invocationId: entry.invocationId,
      capabilityId: entry.capabilityId,
      idempotencyKey: entry.key,
      inverseCapabilityId: plan.inverseCapabilityId,
    };
    const failed = (code: string, message: string, result: InvocationResult | null = null): UndoStep => ({
      ...base,
      status: 'failed',
      result,
      error: { code, message },
    });
    let input: unknown;
    try {
      input = plan.input(entry.output);
    } catch (error) {
      return failed('UNDO_INVERSE_INVALID', `${entry.capabilityId}'s inverse input(output) threw: ${messageOf(error)}`);
    }
    let result: InvocationResult;
    try {
      result = await this.#deps.capabilities.invoke(plan.inverseCapabilityId, input, {
        actor: undoer,
        taskId: inverseTaskId(entry.key),
        callId: UNDO_CALL_ID,
      });
    } catch (error) {
      if (isMediaAgentError(error, 'INPUT_INVALID') || isMediaAgentError(error, 'INPUT_TOO_LARGE'))
        return failed(
          'UNDO_INVERSE_INVALID',
          `${entry.capabilityId}'s inverse gave an input ${plan.inverseCapabilityId} refuses (${error.code}): ${error.message}`,
        );
      return isMediaAgentError(error)
        ? failed(error.code, error.message)
        : failed('UNDO_INVERSE_FAILED', `calling ${plan.inverseCapabilityId} threw: ${messageOf(error)}`);
    }
    if (result.status === 'succeeded' || result.status === 'pending') return { ...base, status: 'undone', result };
    const error = { code: result.error.code, message: result.error.message };
    return { ...base, status: result.status === 'denied' ? 'denied' : 'failed', result, error };
  }

  /** Appends one `undo.*` audit row (its invocation id is the undo's id). */
  async #audit(
    action: AuditAction,
    actor: string,
    undoId: string,
    runId: string | null,
    outcome: string,
    summary: unknown,
    reason: string | null = null,
  ): Promise<void> {
    const text = JSON.stringify(summary) ?? 'null';
    const row: AuditRecord = {
      id: this.#deps.ids.next('aud'),
      seq: 0,
      at: this.#deps.clock.now(),
      action,
      actor: actor.slice(0, 200),
      capabilityId: UNDO_AUDIT_CAPABILITY,
      invocationId: undoId,
      runId,
      taskId: null,
      outcome,
      approvalId: null,
      grantId: null,
      idempotencyKey: null,
      inputSummary: text.length > 2000 ? `${text.slice(0, 2000)}…` : text,
      reason,
    };
    if (action === 'undo.refused')
      await this.#deps.storage.audit
        .append(row)
        .catch((error: unknown) =>
          this.#deps.logger.warn('could not audit a refused undo', { undoId, message: messageOf(error) }),
        );
    else await this.#deps.storage.audit.append(row);
  }
}

/** A refused target as its audit row shows it (only the two known fields, cut short). */
function describeTarget(target: unknown): unknown {
  if (typeof target !== 'object' || target === null) return { target: typeof target };
  const { invocationId, runId } = target as Record<string, unknown>;
  const cut = (v: unknown) => (typeof v === 'string' ? v.slice(0, 200) : v === undefined ? undefined : typeof v);
  return { target: { invocationId: cut(invocationId), runId: cut(runId) } };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
