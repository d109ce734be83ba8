import Type from 'typebox';
import { canonicalJson, type JsonValue } from '@media-agent/sdk/storage';
import {
  defineCapability,
  type Capability,
  type CapabilityKind,
  type CapabilityRegistry,
  type HandlerContext,
  type ReplayPolicy,
  type Verifier,
} from '@media-agent/sdk';
import type { PlanService } from '@media-agent/sdk/authorization';
import { MediaAgentError } from '@media-agent/sdk';
import { parseActor } from '@media-agent/sdk/authorization';
import { MediaStateError } from '@media-agent/sdk/media';
import type { V3Client } from './client';
import { V3_OPERATIONS } from './contract/operations';
import type { V3Operation } from './contract/types';
import { verifyV3TransferFile } from './verifiers';

/** Verifiers that read the host's state back, by operation id (the other `never` writes settle `unknown`). @internal */
const READ_BACK: Readonly<Record<string, Verifier<any, any>>> = { 'transfer.file': verifyV3TransferFile };

/** Plan type of a frozen catalog call (`mp.operation.plan`); approvals of `mp.*` writes bind to it. @public */
export const MP_OPERATION_PLAN_TYPE = 'mp.operation';

/**
 * Kind and replay policy of a catalog operation: a `safe_read` the host lets run without confirmation →
 * `read`/`safe`; every other operation (writes, side effects, a read whose `confirmation` is `required`)
 * → `execute`, with `reconcile` when the operation's recovery is `idempotent` or it is a read, and
 * `never` (settled by a verifier) otherwise. An `execute` capability runs only on an approval or a grant,
 * so a read that needs confirmation is authorized like a write.
 * @param op - the catalog entry
 * @returns kind and replay
 * @public
 */
export function kindOfV3Operation(op: V3Operation): { kind: CapabilityKind; replay: ReplayPolicy } {
  const read = op.effect === 'safe_read' || op.effect === 'sensitive_read';
  if (read && op.confirmation !== 'required') return { kind: 'read', replay: 'safe' };
  return { kind: 'execute', replay: read || op.recovery === 'idempotent' ? 'reconcile' : 'never' };
}

/**
 * Whether a call of this operation needs a single-use approval (not a grant) for the actor:
 * `destructive_write` for every non-human actor, `confirmation: required` (a read's too) for agent actors.
 * People (`user:`) never need one.
 * @param op - the catalog entry
 * @param actorKind - `user`, `apikey`, `agent` or `system`
 * @public
 */
export function v3NeedsApproval(op: V3Operation, actorKind: string): boolean {
  if (actorKind === 'user') return false;
  return op.effect === 'destructive_write' || (op.confirmation === 'required' && actorKind === 'agent');
}

/**
 * A query or body flag the host may read as true: present and not one of the false spellings its
 * parser (pydantic) accepts (`0 off f false n no`, any case); a repeated query value counts by its last.
 * Anything else (`yes`, `on`, `t`, `y`, `true`, `1`, a list) is taken as true: a secret read refused
 * wrongly costs a retry, one let through hands secrets to the model.
 */
const isTrue = (v: unknown): boolean => {
  const last = Array.isArray(v) ? v[v.length - 1] : v;
  if (last === undefined || last === null || last === false || last === 0) return false;
  return !(typeof last === 'string' && /^(0|off|f|false|n|no|)$/i.test(last.trim()));
};

/**
 * The classification the host gives one call of a catalog operation: the catalog entry, re-classified
 * by its arguments as the host's agent policy does — `config.system.get` with `show_secrets` true (in
 * the query, or in the body the host merges into a GET's query) is a `sensitive_read` whose result is
 * `secret` and needs confirmation.
 * @param op - the catalog entry
 * @param input - the call's `{query, body}`
 * @returns the entry, or a copy with `effect`, `confirmation` and `result_sensitivity` re-classified
 * @internal
 */
export function v3CallClassification(op: V3Operation, input: { query?: unknown; body?: unknown }): V3Operation {
  const flag = (o: unknown) =>
    o !== null && typeof o === 'object' ? (o as Record<string, unknown>).show_secrets : undefined;
  if (op.operation_id === 'config.system.get' && (isTrue(flag(input.query)) || isTrue(flag(input.body))))
    return { ...op, effect: 'sensitive_read', confirmation: 'required', result_sensitivity: 'secret' };
  return op;
}

/** Secret-result refusals by invocation id, until the registry turns the failed result into `denied`. */
const SECRET_REFUSALS = new Map<string, { code: string; message: string }>();
/** How many refusals wait at most (oldest dropped first). */
const MAX_SECRET_REFUSALS = 1_000;

/**
 * The result, `denied` when the call was refused because it would hand a secret to a non-human actor
 * (see {@link v3OperationCapabilities}); any other result unchanged.
 * @param result - an invocation's result
 * @internal
 */
export function settleSecretRefusal<
  R extends { status: string; invocationId: string; error?: { code: string; message: string } | undefined },
>(result: R): R {
  const refusal = SECRET_REFUSALS.get(result.invocationId);
  if (!refusal) return result;
  SECRET_REFUSALS.delete(result.invocationId);
  // Only the failure the refusal itself caused (ids of two hosts may coincide: the error must match too).
  const own =
    result.status === 'failed' && result.error?.code === refusal.code && result.error.message === refusal.message;
  return own ? { ...result, status: 'denied', error: refusal } : result;
}

/** Capability id of a catalog operation: `mp.<operation_id>`. @param operationId - e.g. `transfer.file` @public */
export function mpCapabilityId(operationId: string): string {
  return `mp.${operationId}`;
}

const Args = {
  path_params: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]), {
      description: 'Route parameters by name.',
    }),
  ),
  query: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), { description: 'Query parameters (GET routes take filters here).' }),
  ),
  body: Type.Optional(Type.Unknown({ description: 'JSON body (writes).' })),
};
const CallInput = Type.Object(
  {
    ...Args,
    planId: Type.Optional(
      Type.String({
        maxLength: 128,
        description: 'Plan from mp.operation.plan (needed when the operation requires an approval).',
      }),
    ),
  },
  { additionalProperties: false },
);
const CallOutput = Type.Object({
  status: Type.Integer({ description: 'HTTP status.' }),
  success: Type.Boolean(),
  message: Type.String(),
  data: Type.Unknown(),
  collection: Type.Optional(
    Type.Object({
      result_count: Type.Optional(Type.Integer()),
      total_count: Type.Optional(Type.Integer()),
      page: Type.Optional(Type.Integer()),
      count: Type.Optional(Type.Integer()),
    }),
  ),
});

/** The payload of an `mp.operation` plan freezing one catalog call. @internal */
export const frozenV3Call = (operationId: string, i: { path_params?: unknown; query?: unknown; body?: unknown }) => ({
  operation_id: operationId,
  path_params: i.path_params ?? {},
  query: i.query ?? {},
  body: i.body ?? null,
});
const frozen = frozenV3Call;

/**
 * Every catalog operation as a capability `mp.<operation_id>`, plus
 * `mp.operation.plan` (freezes a call as a plan an administrator approves) and `mp.operations.search`
 * (tool discovery over the catalog). Input is the host gateway's shape `{path_params, query, body}`
 * plus `planId`; output the unwrapped answer `{status, success, message, data, collection}`.
 *
 * Result sensitivity: a call the host classifies as returning `secret` results
 * ({@link v3CallClassification}: `config.system.get` with `show_secrets`) is refused for every actor but a
 * person (`user:`), before any request and whatever approval it has — `denied` with `AUTH_NO_AUTHORIZATION`
 * through {@link V3CapabilityRegistry}. `private` results (49 operations: site user data, storage,
 * transfer history, plugin settings…) are offered as the host's own agent gateway offers them: the
 * admin-only ones to host superusers only (see {@link V3Authorizer}).
 * @internal
 */
export function v3OperationCapabilities(deps: {
  client: V3Client;
  plans: PlanService;
  registry: () => CapabilityRegistry;
  reveal: (ids: string[]) => void;
}): Capability<any, any>[] {
  const { client, plans } = deps;
  const out: Capability<any, any>[] = V3_OPERATIONS.map((op) => {
    const { kind, replay } = kindOfV3Operation(op);
    const verify: Verifier<any, any> | undefined =
      kind === 'execute' && replay === 'never'
        ? (READ_BACK[op.operation_id] ??
          (async () => ({
            status: 'unknown',
            reason: `MoviePilot ${op.operation_id} (${op.recovery}) has no receipt to read back; check the host's state with the matching read operation before retrying`,
          })))
        : undefined;
    return defineCapability({
      id: mpCapabilityId(op.operation_id),
      version: 1,
      title: `MoviePilot ${op.operation_id}`,
      description: `${op.method} ${op.path} — ${op.effect}${op.admin_only ? ', host superusers only' : ''}${op.confirmation === 'required' ? ", needs a person's approval (plan it with mp.operation.plan)" : ''}. ${op.notes ?? ''}${op.operation_id === 'config.system.get' ? ' Secret values (show_secrets=true) are for people only: refused to agents, keys and background jobs.' : ''}`,
      kind,
      replay,
      input: CallInput,
      output: CallOutput,
      tags: ['moviepilot', 'mp', ...op.operation_id.split('.'), op.effect],
      aliases: [op.operation_id],
      target: (input: { planId?: string }) =>
        input.planId ? { planType: MP_OPERATION_PLAN_TYPE, planId: input.planId } : {},
      ...(verify ? { verify } : {}),
      handler: async (
        input: {
          path_params?: Record<string, string | number>;
          query?: Record<string, unknown>;
          body?: unknown;
          planId?: string;
        },
        ctx: HandlerContext,
      ) => {
        // A secret result (the host's own classification of this call) goes only to a person: to an agent it
        // would reach the model, to a key or a background job whoever reads their output. Refused before any
        // request, approval or not (the host bars such calls from background and sub-agent callers too).
        const actorKind = parseActor(ctx.actor).kind;
        if (v3CallClassification(op, input).result_sensitivity === 'secret' && actorKind !== 'user') {
          const error = new MediaAgentError(
            'AUTH_NO_AUTHORIZATION',
            `MoviePilot ${op.operation_id} with these arguments returns secrets (show_secrets); only a person may read them, not ${actorKind} actors — nothing was sent. Call it without show_secrets (secret values stay masked)`,
            { operationId: op.operation_id, resultSensitivity: 'secret' },
          );
          SECRET_REFUSALS.set(ctx.invocationId, { code: error.code, message: error.message });
          while (SECRET_REFUSALS.size > MAX_SECRET_REFUSALS)
            SECRET_REFUSALS.delete(SECRET_REFUSALS.keys().next().value!);
          throw error;
        }
        if (ctx.plan) {
          const expected = canonicalJson(frozen(op.operation_id, input) as unknown as JsonValue);
          if (ctx.plan.type !== MP_OPERATION_PLAN_TYPE || canonicalJson(ctx.plan.payload) !== expected)
            throw new MediaStateError(
              'MEDIA_PLAN_CONFLICT',
              `plan ${ctx.plan.id} froze another call than this ${op.operation_id} call`,
              { planId: ctx.plan.id },
            );
        }
        const r = await client.call(op.operation_id, {
          ...(input.path_params ? { pathParams: input.path_params } : {}),
          ...(input.query ? { query: input.query as Record<string, string> } : {}),
          ...(input.body !== undefined ? { body: input.body } : {}),
          signal: ctx.signal,
        });
        const result = {
          status: r.status,
          success: r.success,
          message: r.message,
          data: (r.data ?? null) as unknown,
          ...(r.collection ? { collection: r.collection } : {}),
        };
        return op.operation_id === 'scheduler.run' && r.success ? ctx.pending(result) : result;
      },
    } as never) as Capability<any, any>;
  });
  out.push(
    defineCapability({
      id: 'mp.operation.plan',
      version: 1,
      title: 'Plan a MoviePilot operation call',
      description:
        'Freezes one MoviePilot catalog call {operation_id, path_params, query, body} as a plan; a console administrator approves its payload hash, then call mp.<operation_id> with the same arguments and planId.',
      kind: 'propose',
      replay: 'reconcile',
      input: Type.Object(
        { operation_id: Type.String({ minLength: 1, maxLength: 128 }), ...Args },
        { additionalProperties: false },
      ),
      output: Type.Object({
        plan: Type.Object({
          id: Type.String(),
          type: Type.String(),
          payloadHash: Type.String(),
          revision: Type.Integer(),
        }),
      }),
      tags: ['moviepilot', 'mp', 'plan', 'approval'],
      handler: async (input, ctx) => {
        const id = mpCapabilityId(input.operation_id);
        if (!deps.registry().has(id))
          throw new MediaStateError('MEDIA_NOT_FOUND', `no MoviePilot operation ${input.operation_id}`, {
            operationId: input.operation_id,
          });
        // No approval lets a secret result reach a non-person actor: planning such a call would only mislead.
        const op = V3_OPERATIONS.find((o) => o.operation_id === input.operation_id);
        const actorKind = parseActor(ctx.actor).kind;
        if (op && v3CallClassification(op, input).result_sensitivity === 'secret' && actorKind !== 'user')
          throw new MediaAgentError(
            'AUTH_NO_AUTHORIZATION',
            `MoviePilot ${input.operation_id} with these arguments returns secrets (show_secrets); no approval lets ${actorKind} actors read them — plan it without show_secrets`,
            { operationId: input.operation_id, resultSensitivity: 'secret' },
          );
        const plan = await plans.create({
          type: MP_OPERATION_PLAN_TYPE,
          payload: frozen(input.operation_id, input) as unknown as JsonValue,
          actor: ctx.actor,
        });
        deps.reveal([id]);
        return { plan: { id: plan.id, type: plan.type, payloadHash: plan.payloadHash, revision: plan.revision } };
      },
    }),
    defineCapability({
      id: 'mp.operations.search',
      version: 1,
      title: 'Find MoviePilot operations',
      description:
        'Searches the 221 MoviePilot V3 operations (subscriptions, sites, plugins, workflows, filters, storage, system…) by keywords; the matches become callable tools named mp.<operation_id>.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object(
        {
          query: Type.String({ minLength: 1, maxLength: 200 }),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 16 })),
        },
        { additionalProperties: false },
      ),
      output: Type.Object({
        operations: Type.Array(
          Type.Object({
            capabilityId: Type.String(),
            method: Type.String(),
            path: Type.String(),
            effect: Type.String(),
            adminOnly: Type.Boolean(),
            confirmation: Type.String(),
            notes: Type.String(),
          }),
        ),
      }),
      tags: ['moviepilot', 'mp', 'discover', 'search', 'tools'],
      aliases: ['查找操作', '工具'],
      handler: async (input) => {
        const hits = deps
          .registry()
          .search(input.query, 64)
          .map((h) => h.capability.id)
          .filter((id) => id.startsWith('mp.') && id !== 'mp.operations.search' && id !== 'mp.operation.plan')
          .slice(0, input.limit ?? 8);
        deps.reveal(hits);
        const byId = new Map(V3_OPERATIONS.map((o) => [mpCapabilityId(o.operation_id), o]));
        return {
          operations: hits.map((id) => {
            const o = byId.get(id)!;
            return {
              capabilityId: id,
              method: o.method,
              path: o.path,
              effect: o.effect,
              adminOnly: o.admin_only,
              confirmation: o.confirmation,
              notes: o.notes ?? '',
            };
          }),
        };
      },
    }),
  );
  return out;
}
