import type { EventEmitter } from 'eventemitter3';
import { type ActorRole, parseActor } from '../core/actor';
import type { IdentityResolver } from '../ports/identity';
import type { Authorizer } from '../authorization/authorizer';
import type { AuthorizationVerdict } from '../authorization/verdict';
import { resolveRole } from '../authorization/roles';
import { actingForRun } from '../core/acting-for';
import { runOwner } from '../authorization/run-owner';
import { utcDayStart } from '../core/utc-day';
import { MediaAgentError } from '../core/errors';
import { deriveIdempotencyKey, idempotencyScope } from '../ledger/idempotency-key';
import type { InvocationLedger, SettleOutcome } from '../ledger/invocation-ledger';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Logger } from '../ports/logger';
import type { AuditRecord, JsonValue, LedgerEntry, PlanRecord } from '../core/records';
import type { StorageAdapter, StorageSession } from '../ports/storage-adapter';
import type { CapabilityCatalog } from './capability-catalog';
import {
  InputTooLargeError,
  InvalidContextError,
  InvalidInputError,
  CapabilityTimeoutError,
  InvocationAbortedError,
  OutcomeUnknownError,
  VerifierNotReadOnlyError,
} from './errors';
import { summarizeInput } from './input-summary';
import { capabilityDeadlineMs, timedOutState } from './capability-deadline';
import { takeClaimRider } from './claim-rider';
import { takeSettleCarrier, type CarriedSettlement, type SettleCarrier } from './settle-rider';
import type {
  InvocationContext,
  InvocationDryRun,
  InvocationResult,
  InvocationResultBase,
  PriorEffect,
} from './invocation';
import { computeImpact, knownImpact, unknownImpact } from './impact-runner';
import { dryRunVerdict } from './dry-run';
import { authorizationTarget } from './authorization-target';
import { IntentGate, type IntentGateResult } from './intent-gate';
import { duplicateEffect, duplicateEffectReason } from './duplicate-effect';
import { joinMessage, type IntentOptions } from './intent-join';
import { compileSchema } from './schema-validator';
import { LazyAbort } from './lazy-abort';
import type {
  Capability,
  HandlerContext,
  InvocationListener,
  PendingOutcome,
  ReadInvoker,
  VerifierOutcome,
} from './types';
import { isSideEffecting, type CapabilityDescriptor, type InvocationTarget } from '../core/capability-descriptor';
import { findTaint, taintMessage, type TaintFinding } from '../core/run-provenance';

/** Default limit on an input's JSON size, in bytes: 1 MiB (docs/architecture.md#the-invocation-path). @public */
export const DEFAULT_MAX_INPUT_BYTES = 1024 * 1024;

/**
 * Emitted after every invocation has been settled and audited.
 * @public
 */
export interface InvocationEvent {
  /** Capability id. */
  capabilityId: string;
  /** Actor. */
  actor: string;
  /** Run id, when any. */
  runId: string | undefined;
  /** Tool-call id, when any. */
  callId: string | undefined;
  /** The result returned to the caller. */
  result: InvocationResult;
}

/**
 * Events of the invocation path (eventemitter3): `invocation` after each call, `registered` after a capability is
 * registered (its descriptor).
 * @public
 */
export type InvocationEvents = { invocation: [InvocationEvent]; registered: [CapabilityDescriptor] };

/** Dependencies of the pipeline. @internal */
export interface InvocationPipelineDeps {
  catalog: CapabilityCatalog;
  storage: StorageAdapter;
  authorizer: Authorizer;
  ledger: InvocationLedger;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  events: EventEmitter<InvocationEvents>;
  maxInputBytes: number;
  identity: IdentityResolver;
  /** The host's default handler deadline in ms (`capabilityTimeoutMs`; default 120 000). */
  capabilityTimeoutMs?: number;
  /** Deadline of a capability's `impact` in ms (`impactTimeoutMs`; default 3 000). */
  impactTimeoutMs?: number;
  /** How long intents are held (`intents`; docs/intents.md). */
  intents?: IntentOptions;
}

const NEVER_ABORTED = new AbortController().signal;
/** `HandlerContext.pending`, shared by every invocation. */
const pendingOutcome = <O>(output: O): PendingOutcome<O> => ({ __pending: true, output });
const VERIFIER_ACTOR = 'system:ledger-verifier' as const;

interface Prepared {
  capability: Capability;
  input: unknown;
  ctx: InvocationContext;
  target: InvocationTarget;
  invocationId: string;
  summary: string;
  signal: AbortSignal;
  /** The role the call is made with (see `AuthorizationRequest.role`). */
  role: ActorRole;
  /** The settlement handed to the caller's {@link SettleCarrier} (written in the caller's commit). */
  carried?: { carrier: SettleCarrier; write: CarriedSettlement['write'] };
}

/** The ledger identity of a side-effecting call: its idempotency key, input hash, scope and capability. */
interface ClaimedCall {
  key: string;
  argsHash: string;
  scopeId: string;
  descriptor: CapabilityDescriptor;
}

/**
 * The one invocation path: resolve → validate → authorize → claim → handler →
 * validate output, settle, audit, emit. Nothing else runs a handler.
 * @internal
 */
export class InvocationPipeline {
  /** One intent, one job (docs/intents.md). */
  readonly #intents: IntentGate;
  /** Calls of capability handlers and verifiers started so far (host code run; a replay measures it stays 0). */
  hostCodeCalls = 0;

  constructor(private readonly deps: InvocationPipelineDeps) {
    this.#intents = new IntentGate(deps.intents);
  }

  async invoke(id: string, input: unknown, ctx: InvocationContext): Promise<InvocationResult> {
    // A dry run never reaches the handler or the ledger, whichever way it came in; a `dryRun` that is not a boolean
    // is refused by the context check.
    if (ctx?.dryRun === true) return (await this.dryRun(id, input, ctx)) as unknown as InvocationResult;
    let prepared: Prepared;
    try {
      prepared = this.#prepare(id, input, ctx);
    } catch (error) {
      await this.#auditRefusal(id, input, ctx, error);
      throw error;
    }
    // A run's side effect whose arguments came from untrusted text is refused before authorization.
    const finding = this.#taint(prepared);
    const result = finding ? await this.#tainted(prepared, finding, false) : await this.#invokePrepared(prepared);
    const emit = () =>
      this.deps.events.emit('invocation', {
        capabilityId: id,
        actor: ctx.actor,
        runId: ctx.runId,
        callId: ctx.callId,
        result,
      });
    // A settlement the caller carries is published once the caller's commit wrote it.
    if (prepared.carried) prepared.carried.carrier.carry({ write: prepared.carried.write, committed: emit });
    else emit();
    return result;
  }

  async #invokePrepared(prepared: Prepared): Promise<InvocationResult> {
    prepared.role = await this.#roleFor(prepared.ctx, prepared.capability);
    return isSideEffecting(prepared.capability.kind) ? this.#sideEffecting(prepared) : this.#read(prepared);
  }

  /**
   * The taint check of a run's side effect (docs/untrusted-text.md): only with `ctx.provenance` (a run's call), only
   * for `propose`/`approve`/`execute`, only for a capability whose schemas declare provenance. The first finding of
   * {@link findTaint}, or undefined.
   */
  #taint(p: Prepared): TaintFinding | undefined {
    const provenance = p.ctx.provenance;
    if (provenance === undefined || !isSideEffecting(p.capability.kind)) return undefined;
    if (this.deps.catalog.descriptor(p.capability.id).provenance !== 'declared') return undefined;
    return findTaint(p.capability.input, p.input, provenance.shown(), provenance.typed());
  }

  /**
   * A call refused by the taint check: audited as `capability.tainted` (the field, why and the namespace; the input
   * only as its redacted summary), answered `denied` with `TAINTED_ARGUMENT` (a dry run: its verdict says so).
   * Nothing is authorized, claimed, consumed or run.
   */
  async #tainted(p: Prepared, finding: TaintFinding, dryRun: false): Promise<InvocationResult>;
  async #tainted(p: Prepared, finding: TaintFinding, dryRun: true): Promise<InvocationDryRun>;
  async #tainted(p: Prepared, finding: TaintFinding, dryRun: boolean): Promise<InvocationResult | InvocationDryRun> {
    const message = taintMessage(p.capability.id, finding);
    const why = [finding.field, finding.reason, ...(finding.namespace ? [`namespace ${finding.namespace}`] : [])];
    await this.deps.storage.audit.append(
      this.#audit(p, 'capability.tainted', 'denied', {
        reason: `TAINTED_ARGUMENT: ${dryRun ? 'dry run; ' : ''}${why.join('; ')}`.slice(0, 1000),
      }),
    );
    if (dryRun)
      return {
        status: 'dry_run',
        invocationId: p.invocationId,
        impact: unknownImpact('IMPACT_WITHHELD', `${p.capability.id}: its arguments were refused (TAINTED_ARGUMENT)`),
        verdict: { allowed: false, code: 'TAINTED_ARGUMENT', reason: message },
      };
    return { status: 'denied', error: { code: 'TAINTED_ARGUMENT', message }, invocationId: p.invocationId };
  }

  /**
   * A dry run: the same checks as {@link InvocationPipeline.invoke} up to authorization (unknown capability, invalid
   * context or input throw as there), then the verdict and the impact; never the handler, the ledger, an approval's
   * consumption or a grant's charge. Audited as `capability.dry_run`.
   */
  async dryRun(id: string, input: unknown, ctx: InvocationContext): Promise<InvocationDryRun> {
    let p: Prepared;
    try {
      p = this.#prepare(id, input, ctx);
    } catch (error) {
      await this.#auditRefusal(id, input, ctx, error);
      throw error;
    }
    const finding = this.#taint(p);
    if (finding) return this.#tainted(p, finding, true);
    p.role = await this.#roleFor(ctx, p.capability);
    const { storage, clock } = this.deps;
    const descriptor = this.deps.catalog.descriptor(p.capability.id);
    const sideEffecting = isSideEffecting(p.capability.kind);
    const plan = sideEffecting && p.target.planId !== undefined ? await storage.plans.get(p.target.planId) : undefined;
    const key = sideEffecting
      ? deriveIdempotencyKey({
          capabilityId: p.capability.id,
          version: p.capability.version,
          scopeId: idempotencyScope(ctx, p.invocationId),
          input: p.input,
        }).key
      : undefined;
    const authorization = await this.deps.authorizer.authorize(
      {
        actor: ctx.actor,
        role: p.role,
        capability: descriptor,
        target: sideEffecting ? authorizationTarget(p.target, plan) : { bytes: 0 },
        plan,
        approvalId: ctx.approvalId,
        idempotencyKey: key,
        runId: ctx.runId,
        now: clock.now(),
      },
      storage,
    );
    let verdict = dryRunVerdict(authorization, p.target.planId !== undefined);
    // A call that would join another holder's job says so (nothing is acquired).
    const joined = verdict.allowed
      ? await this.#intents.peek(storage, {
          capability: p.capability,
          ctx,
          target: p.target,
          plan,
          key,
          now: clock.now(),
        })
      : undefined;
    if (joined)
      verdict = { allowed: false, code: 'INTENT_IN_PROGRESS', reason: joinMessage(p.capability.id, joined), joined };
    // An administrators-only capability tells an ordinary caller nothing about what it would do (its paths and sizes).
    const withheld = !authorization.allowed && authorization.code === 'AUTH_ADMIN_ONLY';
    const impact = withheld
      ? unknownImpact('IMPACT_WITHHELD', `${p.capability.id} is for administrators only`)
      : sideEffecting
        ? await computeImpact(p.capability, p.input, {
            actor: ctx.actor,
            runId: ctx.runId,
            plan,
            clock,
            logger: this.deps.logger,
            ...(this.deps.impactTimeoutMs !== undefined ? { timeoutMs: this.deps.impactTimeoutMs } : {}),
            signal: p.signal,
          })
        : knownImpact({ reversible: true, notes: [`${p.capability.kind}: changes nothing`] });
    await storage.audit.append(
      this.#audit(p, 'capability.dry_run', verdict.allowed ? 'allowed' : 'denied', {
        key,
        reason: verdict.allowed ? `dry run; impact ${impact.status}` : `${verdict.code}: ${verdict.reason}`,
      }),
    );
    return { status: 'dry_run', invocationId: p.invocationId, impact, verdict };
  }

  /**
   * Every invocation refused before authorization (unknown capability, invalid context, input that is
   * not JSON, too large or invalid) leaves an audit row with the reason and a redacted input summary
   * (only the size for input too large to summarize). A failure to write it never hides the refusal.
   */
  async #auditRefusal(id: unknown, input: unknown, ctx: InvocationContext | undefined, error: unknown): Promise<void> {
    if (!(error instanceof MediaAgentError) || error.code === 'INVOCATION_ABORTED') return;
    const capabilityId = String(id).slice(0, 200);
    const redact = typeof id === 'string' && this.deps.catalog.has(id) ? this.deps.catalog.capability(id).redact : [];
    let summary: string;
    if (error.code === 'INPUT_TOO_LARGE') summary = JSON.stringify({ omitted: true, bytes: error.details.bytes });
    else {
      try {
        summary = summarizeInput(input, redact);
      } catch {
        summary = JSON.stringify({ omitted: true, reason: 'not JSON' });
      }
    }
    const field = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v.slice(0, 200) : null);
    const record: AuditRecord = {
      id: this.deps.ids.next('aud'),
      seq: 0,
      at: this.deps.clock.now(),
      action: 'capability.refused',
      actor: String(ctx?.actor ?? '').slice(0, 200),
      capabilityId,
      invocationId: this.deps.ids.next('inv'),
      runId: field(ctx?.runId),
      taskId: field(ctx?.taskId),
      outcome: 'refused',
      approvalId: field(ctx?.approvalId),
      grantId: null,
      idempotencyKey: null,
      inputSummary: summary,
      reason: `${error.code}: ${error.message}`.slice(0, 1000),
    };
    await this.deps.storage.audit
      .append(record)
      .catch((cause: unknown) =>
        this.deps.logger.warn('could not audit a refused invocation', { capabilityId, message: messageOf(cause) }),
      );
  }

  /**
   * The role a call is made with: the actor's own, or for a run's call (`agent:<runId>`) the role of the
   * run's owner — the person who started it, for a subagent its top-level run's ({@link runOwner}) —
   * whoever steered it since (`user` when the owner is not a person or the run does not exist). A resolver that throws or answers anything but `admin` gives `user` (least privilege). The
   * resolver is asked only when the role matters: an admin-only capability, or a person's side-effecting call.
   */
  async #roleFor(ctx: InvocationContext, capability: Capability): Promise<ActorRole> {
    const actor = parseActor(ctx.actor);
    if (capability.adminOnly !== true && (actor.kind !== 'user' || !isSideEffecting(capability.kind))) return 'user';
    let subject: string | undefined = ctx.actor;
    if (actor.kind === 'agent') {
      const run = await this.deps.storage.runs.get(actor.id);
      // The run's owner (a subagent's: its top-level run's), whoever steered it: never the steering person.
      subject = run ? actingForRun({ startedBy: await runOwner(this.deps.storage.runs, run) }) : undefined;
    }
    if (subject === undefined) return 'user';
    return resolveRole(this.deps.identity, subject, (cause) =>
      this.deps.logger.warn('the identity resolver failed; the call is made as an ordinary user', {
        actor: subject,
        message: messageOf(cause),
      }),
    );
  }

  /** Resolve, check the context, validate the input, compute the target: everything before authorization. */
  #prepare(id: string, input: unknown, ctx: InvocationContext): Prepared {
    const { catalog, ids, maxInputBytes } = this.deps;
    const capability = catalog.capability(id);
    checkContext(ctx);
    if (ctx.signal?.aborted) throw new InvocationAbortedError(id);
    let json: string | undefined;
    try {
      json = JSON.stringify(input);
    } catch (cause) {
      throw new InvalidInputError(id, [{ path: '', message: `input is not JSON: ${messageOf(cause)}` }]);
    }
    if (json === undefined) throw new InvalidInputError(id, [{ path: '', message: 'input is missing' }]);
    // UTF-8 takes at most 3 bytes per UTF-16 code unit: only a long text needs counting.
    if (json.length * 3 > maxInputBytes) {
      const bytes = Buffer.byteLength(json, 'utf8');
      if (bytes > maxInputBytes) throw new InputTooLargeError(id, bytes, maxInputBytes);
    }
    const check = compileSchema(capability.input);
    if (!check.check(input)) throw new InvalidInputError(id, check.issues(input));
    let target: InvocationTarget;
    try {
      target = capability.target?.(input as never) ?? {};
    } catch (cause) {
      throw new MediaAgentError(
        'CAPABILITY_TARGET_FAILED',
        `${id}: its target() failed for this input: ${messageOf(cause)}`,
        { capabilityId: id },
        { cause },
      );
    }
    return {
      capability,
      input,
      ctx,
      target,
      invocationId: ids.next('inv'),
      summary: summarizeInput(input, capability.redact),
      signal: ctx.signal ?? NEVER_ABORTED,
      role: 'user',
    };
  }

  async #read(p: Prepared): Promise<InvocationResult> {
    const { storage, authorizer, clock } = this.deps;
    const descriptor = this.deps.catalog.descriptor(p.capability.id);
    const verdict = await authorizer.authorize(
      {
        actor: p.ctx.actor,
        role: p.role,
        capability: descriptor,
        target: { bytes: 0 },
        plan: undefined,
        approvalId: p.ctx.approvalId,
        idempotencyKey: undefined,
        runId: p.ctx.runId,
        now: clock.now(),
      },
      storage,
    );
    if (!verdict.allowed) {
      await storage.audit.append(
        this.#audit(p, 'capability.denied', 'denied', { reason: `${verdict.code}: ${verdict.reason}` }),
      );
      return { status: 'denied', error: { code: verdict.code, message: verdict.reason }, invocationId: p.invocationId };
    }
    const outcome = await this.#runHandler(p, undefined, undefined);
    const status = outcome.state === 'unknown' ? 'failed' : outcome.state;
    // A read changes nothing: its audit row is batched (see StorageAdapter.appendAuditBatched) instead of
    // waiting for a transaction of its own. A row that cannot be written is logged.
    const row = this.#audit(p, 'capability.invoke', status, { reason: outcome.error?.code ?? null });
    storage.appendAuditBatched(row).catch((cause: unknown) =>
      this.deps.logger.warn('could not audit a read invocation', {
        capabilityId: p.capability.id,
        invocationId: p.invocationId,
        message: messageOf(cause),
      }),
    );
    return this.#result(p, status, outcome.output, outcome.error, {});
  }

  /**
   * One transaction of a side-effecting call: loads the plan its target names, asks the authorizer,
   * and on allow claims the ledger entry (consuming the approval or charging the grant that authorized
   * it). A denial is audited and returned; a recorded result is returned without claiming.
   */
  async #authorizeAndClaim(s: StorageSession, p: Prepared, call: ClaimedCall) {
    const { ledger, clock } = this.deps;
    const { ctx } = p;
    const target = p.target;
    const { key, argsHash, scopeId, descriptor } = call;
    const now = clock.now();
    const plan = target.planId === undefined ? undefined : await s.plans.get(target.planId);
    const authTarget = authorizationTarget(target, plan);
    const { bytes } = authTarget;
    const verdict = await this.deps.authorizer.authorize(
      {
        actor: ctx.actor,
        role: p.role,
        capability: descriptor,
        target: authTarget,
        plan,
        approvalId: ctx.approvalId,
        idempotencyKey: key,
        runId: ctx.runId,
        now,
      },
      s,
    );
    if (!verdict.allowed) {
      await s.audit.append(
        this.#audit(p, 'capability.denied', 'denied', {
          key,
          approvalId: verdict.approvalId,
          grantId: verdict.grantId,
          reason: `${verdict.code}: ${verdict.reason}`,
        }),
      );
      return { kind: 'denied' as const, verdict };
    }
    // A fork repeating a `never` effect of its lineage (docs/forks.md#the-duplicate-rule): refused unless a person
    // approved the plan. Only a fork's calls carry `priorEffects`; every other call skips this at no cost.
    const duplicate = duplicateEffect(
      { capabilityId: descriptor.id, replay: descriptor.replay, argsHash },
      verdict.basis,
      await lineageEffectsNow(s, descriptor.replay, verdict.basis, ctx),
    );
    if (duplicate) {
      const refused: AuthorizationVerdict = {
        allowed: false,
        code: 'FORK_DUPLICATE_EFFECT',
        reason: duplicateEffectReason(descriptor.id, duplicate),
      };
      await s.audit.append(
        this.#audit(p, 'capability.denied', 'denied', {
          key,
          reason: `FORK_DUPLICATE_EFFECT: ${refused.reason}`.slice(0, 1000),
        }),
      );
      return { kind: 'denied' as const, verdict: refused };
    }
    // One intent, one job (capabilities/intent-gate.ts): a call another holder's job covers joins it, unclaimed.
    const intent = await this.#intents.acquire(s, { capability: p.capability, ctx, target, plan, key, now });
    if (intent?.kind === 'joined') {
      const message = joinMessage(p.capability.id, intent.join);
      await s.audit.append(
        this.#audit(p, 'capability.joined', 'failed', { key, reason: `INTENT_IN_PROGRESS: ${message}` }),
      );
      return { kind: 'joined' as const, join: intent.join, message };
    }
    // Authorized: a call that already succeeded (or was accepted) returns its recorded result
    // (the claim reports it without claiming anything).
    const claim = await ledger.claim(s, {
      key,
      argsHash,
      capability: descriptor,
      scopeId,
      callId: ctx.callId,
      actor: ctx.actor,
      invocationId: p.invocationId,
      runId: ctx.runId,
      taskId: ctx.taskId,
      approvalId: verdict.approvalId,
      grantId: verdict.grantId,
      bytes,
      inputSummary: p.summary,
      dryRun: ctx.dryRun === true,
    });
    if (claim.kind === 'recorded') {
      await s.audit.append(
        this.#audit(p, 'capability.invoke', claim.entry.state, {
          key,
          entry: claim.entry,
          reason: 'recorded result returned; handler not called',
        }),
      );
      return claim;
    }
    if (claim.kind === 'claimed') {
      if (verdict.approvalId !== undefined) await this.#consumeApproval(s, verdict.approvalId, key, plan);
      // The grant's daily counters are charged with the claim, in its transaction (the budget check read them).
      if (verdict.grantId !== undefined) await s.grantUsage.add(verdict.grantId, utcDayStart(now), 1, bytes);
    }
    // (Not `{ ...claim, verdict, plan }`: a spread followed by new properties is slow in V8.)
    return claim.kind === 'claimed'
      ? { kind: 'claimed' as const, entry: claim.entry, verdict, plan, intent: held(intent) }
      : { kind: 'unknown' as const, entry: claim.entry, verdict, plan };
  }

  async #sideEffecting(p: Prepared): Promise<InvocationResult> {
    const { storage, ledger } = this.deps;
    const { capability, ctx } = p;
    const scopeId = idempotencyScope(ctx, p.invocationId);
    const { key, argsHash } = deriveIdempotencyKey({
      capabilityId: capability.id,
      version: capability.version,
      scopeId,
      input: p.input,
    });
    const call: ClaimedCall = { key, argsHash, scopeId, descriptor: this.deps.catalog.descriptor(capability.id) };

    // The caller's writes that ride on the claim (see claim-rider.ts): in the first claim's transaction.
    let rider = takeClaimRider(ctx);
    // A verified "did not happen" loops once to execute the call.
    for (let attempt = 0; attempt < 2; attempt++) {
      const riding = rider;
      const phase = await storage
        .transaction(async (s) => {
          if (riding) await riding.write(s);
          return this.#authorizeAndClaim(s, p, call);
        })
        .catch(async (error: unknown) => {
          // A refused claim (reused call id, another executor) ran nothing; it is still audited.
          if (
            error instanceof MediaAgentError &&
            (error.code === 'LEDGER_CALL_ID_CONFLICT' || error.code === 'LEDGER_IN_PROGRESS')
          ) {
            await storage.audit
              .append(
                this.#audit(p, 'capability.invoke', 'refused', { key, reason: `${error.code}: ${error.message}` }),
              )
              .catch(() => undefined);
          }
          throw error;
        });
      if (riding) {
        riding.committed();
        rider = undefined;
      }

      switch (phase.kind) {
        case 'joined':
          return {
            status: 'failed',
            error: { code: 'INTENT_IN_PROGRESS', message: phase.message },
            joined: phase.join,
            invocationId: p.invocationId,
            idempotencyKey: key,
          };
        case 'denied':
          return {
            status: 'denied',
            error: { code: phase.verdict.code, message: phase.verdict.reason },
            invocationId: p.invocationId,
            idempotencyKey: key,
          };
        case 'recorded':
          return this.#result(p, phase.entry.state as 'succeeded' | 'pending', phase.entry.output, undefined, {
            key,
            replayed: true,
            entry: phase.entry,
          });
        case 'unknown': {
          const verified = await this.#verify(p, phase.entry);
          if (verified.status === 'unknown') {
            await storage.audit.append(
              this.#audit(p, 'capability.invoke', 'unknown', {
                key,
                entry: phase.entry,
                reason: `OUTCOME_UNKNOWN: ${verified.reason}`,
              }),
            );
            return this.#result(
              p,
              'unknown',
              undefined,
              {
                code: 'OUTCOME_UNKNOWN',
                message: `the outcome of an earlier attempt is unknown (${verified.reason}); verify it with a read before retrying`,
              },
              { key, replayed: true, entry: phase.entry },
            );
          }
          const settled = await storage.transaction(async (s) => {
            const entry = await ledger.resolveUnknown(
              s,
              key,
              phase.entry.token,
              verified.status === 'succeeded'
                ? { state: 'succeeded', output: verified.output as JsonValue }
                : { state: 'failed', error: { code: 'VERIFIED_NOT_APPLIED', message: verified.reason } },
            );
            if (entry.approvalId !== null && verified.status === 'failed')
              await this.#restoreApproval(s, entry.approvalId, key);
            await s.audit.append(
              this.#audit(p, 'capability.invoke', entry.state, {
                key,
                entry,
                reason: `verified by a read-only verifier: ${entry.state}`,
              }),
            );
            return entry;
          });
          if (settled.state === 'succeeded')
            return this.#result(p, 'succeeded', settled.output, undefined, { key, replayed: true, entry: settled });
          continue; // verified not applied: claim again and execute
        }
        case 'claimed': {
          const entry = phase.entry;
          let outcome: SettleOutcome;
          try {
            outcome = await this.#runHandler(p, key, phase.plan);
          } catch (error) {
            // Nothing after the claim may leave the entry running: an unexpected failure is an unknown outcome.
            outcome = { state: 'unknown', error: { code: 'HANDLER_RESULT_INVALID', message: messageOf(error) } };
          }
          const settle = async (s: StorageSession) => {
            const settled = await ledger.settle(s, key, entry.token, outcome, entry);
            if (entry.approvalId !== null && outcome.state === 'failed')
              await this.#restoreApproval(s, entry.approvalId, key);
            if (phase.intent && (settled.state === 'succeeded' || settled.state === 'pending'))
              await this.#intents.notePlan(s, phase.intent, settled.output, this.deps.clock.now());
            await s.audit.append(
              this.#audit(p, 'capability.invoke', settled.state, {
                key,
                entry: settled,
                reason: outcome.error?.code ?? null,
              }),
            );
            return this.#result(
              p,
              settled.state as Exclude<typeof settled.state, 'running'>,
              settled.output,
              settled.error ?? undefined,
              { key, entry: settled },
            );
          };
          // The caller may carry the settlement into its own next commit (settle-rider.ts): the result is what the
          // settle writes (the compare-and-set on the claim's token sets exactly the outcome).
          const carrier = takeSettleCarrier(ctx);
          if (carrier) {
            p.carried = { carrier, write: async (s) => void (await settle(s)) };
            return this.#result(p, outcome.state, outcome.output ?? null, outcome.error ?? undefined, {
              key,
              entry,
            });
          }
          return storage.transaction(settle);
        }
      }
    }
    throw new MediaAgentError(
      'LEDGER_VERIFY_LOOP',
      `the call ${key} was verified as not applied twice; refusing to loop`,
      { key },
    );
  }

  async #runHandler(p: Prepared, key: string | undefined, plan: PlanRecord | undefined): Promise<SettleOutcome> {
    const { capability, ctx } = p;
    const sideEffecting = key !== undefined;
    // The handler's signal: the caller's, and the call's deadline (docs/architecture.md#deadlines).
    const timeoutMs = capabilityDeadlineMs(capability, this.deps.capabilityTimeoutMs);
    // Made when the handler first reads its signal (most never do).
    const controller = new LazyAbort();
    // The caller's abort (a run aborted, its lease lost, a host stop past its drain time) ends the invocation at
    // once, like the deadline: a handler that ignores its signal does not hold the caller.
    let callerAborted!: () => void;
    const aborted = new Promise<void>((resolve) => (callerAborted = resolve));
    const onCallerAbort = () => {
      controller.abort(p.signal.reason);
      callerAborted();
    };
    if (p.signal.aborted) onCallerAbort();
    // A call without a caller signal has nothing to listen to (one shared signal that never aborts: listening would
    // add a listener per call in flight to it, and Node warns past ten).
    else if (p.signal !== NEVER_ABORTED) p.signal.addEventListener('abort', onCallerAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<CapabilityTimeoutError>((resolve) => {
      timer = setTimeout(() => {
        const reason = new CapabilityTimeoutError(capability.id, timeoutMs);
        controller.abort(reason);
        resolve(reason);
      }, timeoutMs);
    });
    const hctx: HandlerContext = {
      invocationId: p.invocationId,
      idempotencyKey: key,
      actor: ctx.actor,
      runId: ctx.runId,
      taskId: ctx.taskId,
      callId: ctx.callId,
      plan,
      get signal() {
        return controller.signal;
      },
      clock: this.deps.clock,
      logger: this.deps.logger,
      pending: pendingOutcome,
      ...callerChannel(ctx.listener),
    };
    this.hostCodeCalls++;
    const running = (async () => capability.handler(p.input as never, hctx))();
    const first = await Promise.race([
      running.then(
        (value) => ({ kind: 'returned' as const, value }),
        (error: unknown) => ({ kind: 'threw' as const, error }),
      ),
      deadline.then((error) => ({ kind: 'deadline' as const, error })),
      aborted.then(() => ({ kind: 'aborted' as const })),
    ]);
    clearTimeout(timer);
    p.signal.removeEventListener('abort', onCallerAbort);
    const timedOut =
      first.kind === 'deadline' || (first.kind === 'threw' && controller.reason instanceof CapabilityTimeoutError)
        ? (controller.reason as CapabilityTimeoutError)
        : undefined;
    if (timedOut) {
      // The invocation ends here; what the handler does later is logged, never recorded as the outcome.
      if (first.kind === 'deadline')
        running.then(
          () => this.#lateHandler(p, timeoutMs, 'returned', 'deadline'),
          () => this.#lateHandler(p, timeoutMs, 'threw', 'deadline'),
        );
      const state = timedOutState(capability.kind, capability.replay);
      this.deps.logger.warn('capability handler ran past its deadline', {
        capabilityId: capability.id,
        invocationId: p.invocationId,
        timeoutMs,
        outcome: state,
      });
      return {
        state,
        error: {
          code: 'CAPABILITY_TIMEOUT',
          message:
            state === 'unknown'
              ? `${timedOut.message}; the effect may have happened: verify it with a read before retrying`
              : timedOut.message,
        },
      };
    }
    if (first.kind === 'aborted') {
      // The invocation ends here, whether the handler stops or not; what it does later is logged only.
      running.then(
        () => this.#lateHandler(p, timeoutMs, 'returned', 'abort'),
        () => this.#lateHandler(p, timeoutMs, 'threw', 'abort'),
      );
      return abortedOutcome(capability.id, sideEffecting);
    }
    if (first.kind === 'threw') {
      const error = first.error;
      if (error instanceof OutcomeUnknownError || (sideEffecting && p.signal.aborted)) {
        return { state: 'unknown', error: { code: 'OUTCOME_UNKNOWN', message: messageOf(error) } };
      }
      const code = error instanceof MediaAgentError ? error.code : 'HANDLER_FAILED';
      this.deps.logger.warn('capability handler failed', {
        capabilityId: capability.id,
        invocationId: p.invocationId,
        code,
      });
      return { state: 'failed', error: { code, message: messageOf(error) } };
    }
    const returned = first.kind === 'returned' ? first.value : undefined; // (a deadline returned above)
    const pending = isPending(returned);
    const output = pending ? (returned as PendingOutcome<unknown>).output : returned;
    const check = compileSchema(capability.output);
    if (!check.check(output)) {
      const issues = check
        .issues(output)
        .slice(0, 5)
        .map((i) => `${i.path || '/'}: ${i.message}`)
        .join('; ');
      const error = {
        code: 'OUTPUT_INVALID',
        message: `${capability.id} returned output that does not match its schema: ${issues}`,
      };
      this.deps.logger.error('capability output invalid', {
        capabilityId: capability.id,
        invocationId: p.invocationId,
      });
      // The effect happened (or not) but its receipt cannot be trusted: unknown for side effects.
      return { state: sideEffecting ? 'unknown' : 'failed', error };
    }
    let json: JsonValue;
    try {
      json = toJson(output);
    } catch (error) {
      return {
        state: sideEffecting ? 'unknown' : 'failed',
        error: {
          code: 'OUTPUT_INVALID',
          message: `${capability.id} returned output with no JSON form: ${messageOf(error)}`,
        },
      };
    }
    return { state: pending ? 'pending' : 'succeeded', output: json };
  }

  /**
   * A handler that settled after its deadline or after the caller's abort: logged only (the call was already
   * settled without it).
   */
  #lateHandler(p: Prepared, timeoutMs: number, how: 'returned' | 'threw', after: 'deadline' | 'abort'): void {
    this.deps.logger.warn(`capability handler finished after its ${after}; its result was not recorded`, {
      capabilityId: p.capability.id,
      invocationId: p.invocationId,
      timeoutMs,
      how,
    });
  }

  /**
   * Reads back the effect of a call that succeeded: the capability's read-only verifier on the call's input.
   * Nothing is claimed, settled or audited; the verifier's reads go through the invocation path as usual.
   */
  readBack(
    id: string,
    input: unknown,
    entry: LedgerEntry,
    ctx: { runId?: string; signal?: AbortSignal },
  ): Promise<VerifierOutcome<unknown>> {
    const capability = this.deps.catalog.capability(id);
    return this.#verify(
      { capability, input, signal: ctx.signal ?? NEVER_ABORTED, ctx: ctx.runId ? { runId: ctx.runId } : {} },
      entry,
    );
  }

  async #verify(
    p: Pick<Prepared, 'capability' | 'input' | 'signal'> & { ctx: Pick<InvocationContext, 'runId'> },
    entry: LedgerEntry,
  ): Promise<VerifierOutcome<unknown>> {
    const verifier = this.deps.catalog.verifier(p.capability.id);
    if (!verifier) return { status: 'unknown', reason: 'no read-only verifier is registered for this capability' };
    const read: ReadInvoker = async (capabilityId, input) => {
      const descriptor = this.deps.catalog.descriptor(capabilityId);
      if (isSideEffecting(descriptor.kind)) throw new VerifierNotReadOnlyError(capabilityId, descriptor.kind);
      const result = await this.invoke(capabilityId, input, {
        actor: VERIFIER_ACTOR,
        ...(p.ctx.runId ? { runId: p.ctx.runId } : {}),
        signal: p.signal,
      });
      if (result.status !== 'succeeded')
        throw new MediaAgentError<string>(
          result.error?.code ?? 'VERIFIER_READ_FAILED',
          result.error?.message ?? `${capabilityId} ${result.status}`,
        );
      return result.output;
    };
    // The caller's abort ends the verification at once, like a handler's (a verifier that ignores its signal).
    const abort = abortedVerdict(p.signal);
    try {
      this.hostCodeCalls++;
      const verified = await Promise.race([verifier({ input: p.input, entry, read, signal: p.signal }), abort.verdict]);
      if (verified?.status === 'succeeded') {
        const check = compileSchema(p.capability.output);
        if (!check.check(verified.output))
          return { status: 'unknown', reason: 'the verifier returned output that does not match the schema' };
        return verified;
      }
      if (verified?.status === 'failed' || verified?.status === 'unknown') return verified;
      return { status: 'unknown', reason: 'the verifier returned no verdict' };
    } catch (error) {
      return { status: 'unknown', reason: `the verifier failed: ${messageOf(error)}` };
    } finally {
      abort.dispose();
    }
  }

  async #consumeApproval(
    s: StorageSession,
    approvalId: string,
    key: string,
    plan: PlanRecord | undefined,
  ): Promise<void> {
    const approval = await s.approvals.get(approvalId);
    if (approval?.status === 'approved') {
      const ok = await s.approvals.compareAndSet(approvalId, 'approved', {
        status: 'consumed',
        consumedBy: key,
        consumedAt: this.deps.clock.now(),
        // The payload the execution runs with (the approval checked it equals the approved one).
        executedPayloadHash: plan?.payloadHash ?? approval.payloadHash,
      });
      if (!ok)
        throw new MediaAgentError('APPROVAL_STATE', `approval ${approvalId} changed while it was being used`, {
          approvalId,
        });
    }
  }

  /** A failed execution did not use up the approval: it becomes usable again. */
  async #restoreApproval(s: StorageSession, approvalId: string, key: string): Promise<void> {
    const approval = await s.approvals.get(approvalId);
    if (approval?.status === 'consumed' && approval.consumedBy === key) {
      await s.approvals.compareAndSet(approvalId, 'consumed', {
        status: 'approved',
        consumedBy: null,
        consumedAt: null,
        executedPayloadHash: null,
      });
    }
  }

  #audit(
    p: Prepared,
    action: AuditRecord['action'],
    outcome: string,
    extra: {
      key?: string;
      entry?: LedgerEntry;
      approvalId?: string | undefined;
      grantId?: string | undefined;
      reason?: string | null;
    },
  ): AuditRecord {
    return {
      id: this.deps.ids.next('aud'),
      seq: 0,
      at: this.deps.clock.now(),
      action,
      actor: p.ctx.actor,
      capabilityId: p.capability.id,
      invocationId: p.invocationId,
      runId: p.ctx.runId ?? null,
      taskId: p.ctx.taskId ?? null,
      outcome,
      approvalId: extra.entry?.approvalId ?? extra.approvalId ?? null,
      grantId: extra.entry?.grantId ?? extra.grantId ?? null,
      idempotencyKey: extra.key ?? null,
      inputSummary: p.summary,
      reason: extra.reason ?? null,
    };
  }

  #result(
    p: Prepared,
    status: InvocationResult['status'],
    output: unknown,
    error: { code: string; message: string } | undefined,
    extra: { key?: string; replayed?: boolean; entry?: LedgerEntry },
  ): InvocationResult {
    // Built field by field, then returned as the union member its status names (output for succeeded/pending, error otherwise).
    const result: InvocationResultBase & {
      status: InvocationResult['status'];
      output?: unknown;
      error?: { code: string; message: string };
    } = { status, invocationId: p.invocationId };
    if (status === 'succeeded' || status === 'pending') result.output = output ?? null;
    if (error) result.error = { code: error.code, message: error.message };
    if (extra.key !== undefined) result.idempotencyKey = extra.key;
    if (extra.replayed) result.replayed = true;
    if (extra.entry?.approvalId) result.approvalId = extra.entry.approvalId;
    if (extra.entry?.grantId) result.grantId = extra.entry.grantId;
    return result as InvocationResult;
  }
}

/**
 * The effects a fork's duplicate rule checks: those it carried from its making, and — for a `replay: 'never'` call not
 * approved by a person, the only one the rule can refuse — the ledger entries its lineage's runs hold now, read in the
 * claim's transaction (an effect the original performed after the fork was made counts too). Nothing is read for a
 * run that is not a fork.
 */
async function lineageEffectsNow(
  s: StorageSession,
  replay: string,
  basis: string,
  ctx: InvocationContext,
): Promise<readonly PriorEffect[] | undefined> {
  const runs = ctx.lineageRunIds;
  if (runs === undefined || runs.length === 0 || replay !== 'never' || basis === 'approval') return ctx.priorEffects;
  const now: PriorEffect[] = [...(ctx.priorEffects ?? [])];
  for (const runId of runs)
    for (const e of await s.ledger.listByRun(runId, { limit: 1000 }))
      now.push({ key: e.key, capabilityId: e.capabilityId, argsHash: e.argsHash, outcome: e.state, runId });
  return now;
}

/** The intent a call holds, when the gate gave it one. */
function held(result: IntentGateResult | undefined) {
  return result?.kind === 'held' ? result.intent : undefined;
}

/**
 * The outcome of a call whose caller aborted it while its handler ran: a side effect is `unknown`
 * (`OUTCOME_UNKNOWN`: it may have happened, only a verifier may settle it), a read or preview `failed`
 * (`INVOCATION_ABORTED`).
 */
function abortedOutcome(capabilityId: string, sideEffecting: boolean): SettleOutcome {
  return sideEffecting
    ? {
        state: 'unknown',
        error: {
          code: 'OUTCOME_UNKNOWN',
          message: `the call to ${capabilityId} was aborted while its handler ran; the effect may have happened: verify it with a read before retrying`,
        },
      }
    : {
        state: 'failed',
        error: {
          code: 'INVOCATION_ABORTED',
          message: `the call to ${capabilityId} was aborted while its handler ran; its result was not awaited`,
        },
      };
}

/** Resolves with an `unknown` verdict when `signal` aborts (at once if it has); `dispose` removes its listener. */
function abortedVerdict(signal: AbortSignal): { verdict: Promise<VerifierOutcome<unknown>>; dispose: () => void } {
  let onAbort = (): void => undefined;
  const verdict = new Promise<VerifierOutcome<unknown>>((resolve) => {
    onAbort = () => resolve({ status: 'unknown', reason: 'the call was aborted while its verifier ran' });
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { verdict, dispose: () => signal.removeEventListener('abort', onAbort) };
}

function isPending(value: unknown): value is PendingOutcome<unknown> {
  return typeof value === 'object' && value !== null && (value as { __pending?: unknown }).__pending === true;
}

/** A message for any thrown value, never throwing itself (objects without a prototype, hostile toString). */
function messageOf(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message);
    return typeof error === 'string' ? error : String(error);
  } catch {
    return 'a value that cannot be described was thrown';
  }
}

/**
 * The context is built by the host or the runtime, not by the model; still, a wrong type must fail
 * here, the same way on every storage, before any work (`CONTEXT_INVALID`).
 */
function checkContext(ctx: InvocationContext): void {
  parseActor(ctx?.actor);
  for (const field of ['runId', 'taskId', 'callId', 'approvalId'] as const) {
    const value = ctx[field];
    if (value !== undefined && !(typeof value === 'string' && value.length > 0 && value.length <= 200))
      throw new InvalidContextError(field, 'a non-empty string of at most 200 characters');
  }
  if (ctx.signal !== undefined && !(ctx.signal instanceof AbortSignal))
    throw new InvalidContextError('signal', 'an AbortSignal');
  if (ctx.priorEffects !== undefined && !Array.isArray(ctx.priorEffects))
    throw new InvalidContextError('priorEffects', 'an array of prior effects');
  if (ctx.lineageRunIds !== undefined && !Array.isArray(ctx.lineageRunIds))
    throw new InvalidContextError('lineageRunIds', 'an array of run ids');
  if (ctx.listener !== undefined && (typeof ctx.listener !== 'object' || ctx.listener === null))
    throw new InvalidContextError('listener', 'an object with progress and log functions');
  // Only `true` asks for a dry run: any other value is refused, never taken as "not a dry run" and executed.
  if (ctx.dryRun !== undefined && typeof ctx.dryRun !== 'boolean') throw new InvalidContextError('dryRun', 'a boolean');
  const provenance = ctx.provenance as Partial<Record<'shown' | 'typed', unknown>> | undefined;
  if (
    provenance !== undefined &&
    (typeof provenance !== 'object' ||
      provenance === null ||
      typeof provenance.shown !== 'function' ||
      typeof provenance.typed !== 'function')
  )
    throw new InvalidContextError('provenance', 'an object with shown() and typed() functions');
}

/** `ctx.progress` and `ctx.logToCaller` of one call: growing progress only; a listener's failure is ignored. */
function callerChannel(listener: InvocationListener | undefined): Pick<HandlerContext, 'progress' | 'logToCaller'> {
  let last = Number.NEGATIVE_INFINITY;
  return {
    progress(update) {
      const progress = update?.progress;
      if (typeof progress !== 'number' || !Number.isFinite(progress) || progress <= last) return;
      if (update.total !== undefined && (typeof update.total !== 'number' || !Number.isFinite(update.total))) return;
      last = progress;
      try {
        listener?.progress?.({
          progress,
          ...(update.total !== undefined ? { total: update.total } : {}),
          ...(typeof update.message === 'string' ? { message: update.message } : {}),
        });
      } catch {
        // the caller's channel; never the call's failure
      }
    },
    logToCaller(level, message, data) {
      try {
        listener?.log?.(level, String(message), data);
      } catch {
        // as above
      }
    },
  };
}

/**
 * The JSON form of a handler's output (what `JSON.parse(JSON.stringify(value))` gives), as a copy. Plain
 * objects, arrays, strings, booleans, null and finite numbers other than -0 are copied directly; anything
 * else (toJSON, class instances, non-finite numbers, undefined or functions in arrays…) takes the
 * stringify/parse round trip, so the result is the same.
 */
function toJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  const copied = plainJson(value, 0);
  return copied !== NOT_PLAIN ? copied : (JSON.parse(JSON.stringify(value)) as JsonValue);
}

const NOT_PLAIN: unique symbol = Symbol('not plain JSON');

function plainJson(value: unknown, depth: number): JsonValue | typeof NOT_PLAIN {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0) ? value : NOT_PLAIN;
    case 'object': {
      if (value === null) return null;
      if (depth > 64) return NOT_PLAIN;
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype) return NOT_PLAIN;
        const out: JsonValue[] = new Array<JsonValue>(value.length);
        for (let i = 0; i < value.length; i++) {
          const item = plainJson(value[i], depth + 1);
          if (item === NOT_PLAIN || value[i] === undefined) return NOT_PLAIN;
          out[i] = item;
        }
        return out;
      }
      if (
        Object.getPrototypeOf(value) !== Object.prototype ||
        typeof (value as { toJSON?: unknown }).toJSON === 'function'
      )
        return NOT_PLAIN;
      const out: { [key: string]: JsonValue } = {};
      for (const key of Object.keys(value)) {
        if (key === '__proto__') return NOT_PLAIN;
        const raw = (value as Record<string, unknown>)[key];
        if (raw === undefined) continue;
        const item = plainJson(raw, depth + 1);
        if (item === NOT_PLAIN) return NOT_PLAIN;
        out[key] = item;
      }
      return out;
    }
    default:
      return NOT_PLAIN;
  }
}
