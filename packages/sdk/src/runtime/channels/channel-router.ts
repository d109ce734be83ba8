// The channel router: every input a channel port receives (a message, a tap) becomes a steering message, a new run,
// a decided approval or a refusal the person is told about (docs/channels.md).
import { createHash } from 'node:crypto';
import type { ActorRole } from '../../core/actor';
import type { ApprovalRecord, AuditRecord, JsonValue } from '../../core/records';
import type { InboxRecord, RunRecord } from '../../core/run-records';
import { isMediaAgentError, MediaAgentError } from '../../core/errors';
import type { ApprovalService } from '../../authorization/approval-service';
import { resolveRole } from '../../authorization/roles';
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import type { ChannelInput, ChannelPort } from '../../ports/channel';
import type { Clock } from '../../ports/clock';
import type { IdGenerator } from '../../ports/id-generator';
import type { IdentityResolver } from '../../ports/identity';
import type { Logger } from '../../ports/logger';
import type { StorageAdapter } from '../../ports/storage-adapter';
import type { StartRunInput } from '../run-service';
import { decideAppend, type AppendDecision, type ChatConversation } from './append-rule';
import { ChannelInputRefusedError } from './channel-refusal';
import { confirmCode, parseConfirmation } from './confirm-code';
import {
  CHANNEL_STATE_KEY,
  channelInboxId,
  conversationOf,
  conversationSessionId,
  type ChannelConversation,
} from './conversation-binding';
import { verifyTap } from './tap-data';

/** Runs of a chat read to apply the append rule (newest first); a person's older conversation is past anyway. */
const CHAT_RUNS_READ = 50;

/**
 * What became of one channel input.
 * - `appended`: a steering message for the person's run under way;
 * - `started` / `queued`: a new run of its own (see {@link AppendDecision} for the reasons);
 * - `decided`: an approval decided by a tap or a text confirmation;
 * - `refused`: a typed refusal the person was told about (`CHANNEL_UNKNOWN_USER`, `CHANNEL_TAP_FORGED`,
 *   `CHANNEL_TAP_STALE`, `AUTH_ADMIN_ONLY`, `ADMIN_FORBIDDEN`, or the error that kept a run from starting);
 * - `duplicate`: the same message (channel, chat, channel message id) or tap was handled before — a redelivery
 *   after a crash or a webhook retry; nothing was done again (`key` the input's once key, `by` the run or inbox id
 *   it made);
 * - `ignored`: from a channel this host has no port for.
 * @public
 */
export type ChannelInputOutcome =
  | { kind: 'appended'; runId: string; inboxId: string }
  | { kind: 'started' | 'queued'; runId: string; reason: string }
  | { kind: 'decided'; approvalId: string; status: 'approved' | 'rejected' }
  | { kind: 'refused'; error: MediaAgentError }
  | { kind: 'duplicate'; key: string; by: string }
  | { kind: 'ignored' };

/** A notice for a chat, written to the outbox (the router's own words: refusals, confirmations). */
export type ChannelNotice = { channelId: string; chatId: string; text: string; replyTo: string | null; key: string };

/** What the router needs. */
export interface ChannelRouterDeps {
  /** Storage (runs of a chat, inbox counts, approvals and plans, audit, settings). */
  storage: StorageAdapter;
  /** Who a channel user is (`personOf`) and their role (`roleOf`). */
  identity: IdentityResolver;
  /** Decides approvals as the tapping person. */
  approvals: ApprovalService;
  /** Whether an approval's capability is admin-only. */
  capabilities: CapabilityRegistry;
  /** Time. */
  clock: Clock;
  /** Ids (inbox ids, audit rows). */
  ids: IdGenerator;
  /** Logger. */
  logger: Logger;
  /** The ports by channel id. */
  ports: ReadonlyMap<string, ChannelPort>;
  /** The channel secret (loaded at start). */
  secret: () => string;
  /** The inbox bound: a run with this many queued messages takes no more. */
  inboxLimit: number;
  /**
   * Starts a run (through the host's run start limits) with its initial runtime state, claiming the input's `once`
   * key in the run's transaction (`RUN_INPUT_DUPLICATE` when it was claimed before).
   */
  startRun: (input: StartRunInput, runtimeState: JsonValue, once: string) => Promise<RunRecord>;
  /** Queues a steering message with the given inbox id, claiming `once` the same way. */
  appendToInbox: (runId: string, text: string, actor: string, inboxId: string, once: string) => Promise<InboxRecord>;
  /** Writes a notice to the chat's outbox. */
  notify: (notice: ChannelNotice) => Promise<void>;
}

/**
 * Routes channel inputs: the `onInput` every channel port is started with.
 * @public
 */
export class ChannelRouter {
  /** @param deps - see {@link ChannelRouterDeps} */
  constructor(private readonly deps: ChannelRouterDeps) {}

  /**
   * Handles one input. Never throws for a bad input: a refusal is a typed outcome, told to the person (and audited
   * where it concerns authority). Storage errors propagate (the port redelivers or logs).
   */
  async handle(input: ChannelInput): Promise<ChannelInputOutcome> {
    const port = this.deps.ports.get(input.channelId);
    if (!port) {
      this.deps.logger.warn('channel input from a channel with no port', { channelId: input.channelId });
      return { kind: 'ignored' };
    }
    const person = await this.#personOf(input);
    if (person === null) return this.#unknownUser(port, input);
    const role = await resolveRole(this.deps.identity, person);
    if (input.kind === 'tap') return this.#tap(port, input, person, role);
    const confirmation = parseConfirmation(input.text);
    if (confirmation) return this.#confirm(input, person, role, confirmation);
    return this.route(input, person, role, messageText(input), inputOnceKey(input));
  }

  /**
   * The append rule applied to one message of `person` in the input's chat: appended to their run under way, or
   * a new run (origin `channel`, the chat's session, the conversation binding in its runtime state).
   */
  async route(
    input: Pick<ChannelInput, 'channelId' | 'chatId' | 'chatType' | 'messageId'>,
    person: string,
    role: ActorRole,
    text: string,
    once: string,
  ): Promise<ChannelInputOutcome> {
    const sessionId = conversationSessionId(input.channelId, input.chatId);
    const runs = await this.deps.storage.runs.list({ sessionId, limit: CHAT_RUNS_READ });
    const conversations: ChatConversation[] = [];
    for (const run of runs) {
      const c = conversationOf(run);
      if (!c) continue;
      const mine = c.person === person && ['queued', 'running', 'waiting'].includes(run.status);
      conversations.push({
        runId: run.id,
        status: run.status,
        pruned: run.prunedAt !== undefined,
        queued: mine ? (await this.deps.storage.inbox.listQueued(run.id)).length : 0,
        channelId: c.channelId,
        chatId: c.chatId,
        person: c.person,
        role: c.role,
      });
    }
    const decision = decideAppend({
      input: { channelId: input.channelId, chatId: input.chatId, person, role },
      conversations,
      inboxLimit: this.deps.inboxLimit,
    });
    if (decision.kind === 'append') {
      try {
        const inboxId = channelInboxId(this.deps.ids.next('msg'), input.messageId);
        const record = await this.deps.appendToInbox(decision.runId, text, person, inboxId, once);
        return { kind: 'appended', runId: decision.runId, inboxId: record.id };
      } catch (error) {
        const duplicate = duplicateOf(error);
        if (duplicate) return duplicate;
        // Pruned or gone since it was read: the message starts a conversation of its own, nothing is dropped.
        if (!(isMediaAgentError(error) && ['RUN_PRUNED', 'RUN_NOT_FOUND'].includes(error.code))) throw error;
        return this.#start(input, person, role, text, { kind: 'start', reason: 'finished' }, once);
      }
    }
    return this.#start(input, person, role, text, decision, once);
  }

  async #start(
    input: Pick<ChannelInput, 'channelId' | 'chatId' | 'chatType' | 'messageId'>,
    person: string,
    role: ActorRole,
    text: string,
    decision: Exclude<AppendDecision, { kind: 'append' }>,
    once: string,
  ): Promise<ChannelInputOutcome> {
    const conversation: ChannelConversation = {
      channelId: input.channelId,
      chatId: input.chatId,
      chatType: input.chatType,
      person,
      role,
      replyTo: input.messageId,
      open: null,
      rows: 0,
      choice: null,
    };
    try {
      const run = await this.deps.startRun(
        {
          goal: text,
          actor: person,
          origin: 'channel',
          sessionId: conversationSessionId(input.channelId, input.chatId),
        },
        { [CHANNEL_STATE_KEY]: conversation as unknown as JsonValue },
        once,
      );
      return { kind: decision.kind === 'queue' ? 'queued' : 'started', runId: run.id, reason: decision.reason };
    } catch (error) {
      const duplicate = duplicateOf(error);
      if (duplicate) return duplicate;
      if (!isMediaAgentError(error)) throw error;
      // Refused (over the run start limits, a goal too long …): the person is told why, nothing is silently lost.
      await this.#tell(input, `Could not start a task: ${error.message}`, `start:${input.messageId}`);
      return { kind: 'refused', error };
    }
  }

  async #personOf(input: ChannelInput): Promise<string | null> {
    const resolve = this.deps.identity.personOf;
    if (!resolve) return null;
    try {
      const person = await resolve.call(this.deps.identity, input.channelId, input.userId);
      return typeof person === 'string' && person.startsWith('user:') ? person : null;
    } catch (error) {
      this.deps.logger.warn('personOf failed; the channel user counts as unknown', {
        channelId: input.channelId,
        message: error instanceof Error ? error.message : String(error),
      });
      return null;
    }
  }

  /** Refused, audited `channel.unknown_user`; the chat is told once per channel user (remembered in settings). */
  async #unknownUser(port: ChannelPort, input: ChannelInput): Promise<ChannelInputOutcome> {
    const error = new ChannelInputRefusedError(
      'CHANNEL_UNKNOWN_USER',
      'This chat account is not linked to a person of this household; ask an administrator to link it.',
      { channelId: input.channelId, chatId: input.chatId, userId: input.userId },
    );
    await this.#audit('channel.unknown_user', `channel:${input.channelId}`, input, 'CHANNEL_UNKNOWN_USER', null);
    if (input.kind === 'tap') await this.#answerTap(port, input.tapId, error.message, true);
    const key = `channels.told_unlinked:${input.channelId}:${input.chatId}:${input.userId}`;
    const first = await this.deps.storage.transaction(async (s) => {
      if ((await s.settings.get(key)) !== undefined) return false;
      await s.settings.set(key, this.deps.clock.now());
      return true;
    });
    if (first) await this.#tell(input, error.message, `unlinked:${input.userId}`);
    return { kind: 'refused', error };
  }

  async #tap(
    port: ChannelPort,
    input: Extract<ChannelInput, { kind: 'tap' }>,
    person: string,
    role: ActorRole,
  ): Promise<ChannelInputOutcome> {
    const request = verifyTap(this.deps.secret(), input.channelId, input.chatId, input.data);
    if (!request) {
      const error = new ChannelInputRefusedError('CHANNEL_TAP_FORGED', 'This button is not valid; nothing was done.', {
        channelId: input.channelId,
        chatId: input.chatId,
      });
      await this.#audit('channel.tap_refused', person, input, 'CHANNEL_TAP_FORGED', null);
      await this.#answerTap(port, input.tapId, error.message, true);
      return { kind: 'refused', error };
    }
    if (request.kind === 'choose') {
      const run = await this.deps.storage.runs.get(request.ref);
      const choice = run ? conversationOf(run)?.choice : undefined;
      const option = choice && choice.hash === request.hash ? choice.options[request.option] : undefined;
      if (!run || option === undefined || !['queued', 'running', 'waiting'].includes(run.status)) {
        const error = new ChannelInputRefusedError(
          'CHANNEL_TAP_STALE',
          'This choice no longer stands (it was answered, or the task moved on); nothing was done.',
          { channelId: input.channelId, chatId: input.chatId, runId: request.ref },
        );
        await this.#answerTap(port, input.tapId, error.message, true);
        await this.#tell(input, error.message, `tap:${input.tapId}`);
        return { kind: 'refused', error };
      }
      await this.#answerTap(port, input.tapId, `Chosen: ${option}`, false);
      return this.route(input, person, role, option, inputOnceKey(input));
    }
    const status = request.kind === 'approve' ? 'approved' : 'rejected';
    const outcome = await this.#decide(input, person, role, request.ref, request.hash, status);
    const told =
      outcome.kind === 'decided' ? (status === 'approved' ? 'Approved.' : 'Rejected.') : errorOf(outcome).message;
    await this.#answerTap(port, input.tapId, told, outcome.kind !== 'decided');
    if (outcome.kind !== 'decided') await this.#tell(input, told, `tap:${input.tapId}`);
    return outcome;
  }

  /** A text confirmation `YES <code>` / `NO <code>`: the open approval whose code (in this chat) it is. */
  async #confirm(
    input: Extract<ChannelInput, { kind: 'text' }>,
    person: string,
    role: ActorRole,
    confirmation: { status: 'approved' | 'rejected'; code: string },
  ): Promise<ChannelInputOutcome> {
    const secret = this.deps.secret();
    const open = await this.deps.storage.approvals.list({ status: 'requested' });
    const approval = open.find(
      (a) =>
        confirmCode(secret, input.channelId, input.chatId, { id: a.id, payloadHash: a.payloadHash }) ===
        confirmation.code,
    );
    const outcome = approval
      ? await this.#decide(input, person, role, approval.id, approval.payloadHash, confirmation.status)
      : {
          kind: 'refused' as const,
          error: new ChannelInputRefusedError(
            'CHANNEL_TAP_STALE',
            `No open approval has the code ${confirmation.code} (it was decided, it expired, or it is mistyped); nothing was done.`,
            { channelId: input.channelId, chatId: input.chatId },
          ),
        };
    const told =
      outcome.kind === 'decided'
        ? confirmation.status === 'approved'
          ? 'Approved.'
          : 'Rejected.'
        : errorOf(outcome).message;
    await this.#tell(input, told, `confirm:${input.messageId}`);
    return outcome;
  }

  /**
   * Decides approval `id` as `person`, when what they were shown still stands: the payload hash they saw (its
   * prefix `hash`), still requested, not expired, its plan not edited since; admin-only capabilities only for an
   * administrator. Never decides twice (the approval service's compare-and-set).
   */
  async #decide(
    input: ChannelInput,
    person: string,
    role: ActorRole,
    id: string,
    hash: string,
    status: 'approved' | 'rejected',
  ): Promise<ChannelInputOutcome> {
    const approval = await this.deps.storage.approvals.get(id);
    const stale = (why: string) => ({
      kind: 'refused' as const,
      error: new ChannelInputRefusedError('CHANNEL_TAP_STALE', `${why}; nothing was done.`, {
        channelId: input.channelId,
        chatId: input.chatId,
        approvalId: id,
      }),
    });
    if (!approval) return stale('This approval no longer exists');
    const why = await this.#staleReason(approval, hash);
    if (why) return stale(why);
    if (approval.capabilityId && this.#adminOnly(approval.capabilityId) && role !== 'admin') {
      const error = new MediaAgentError(
        'AUTH_ADMIN_ONLY',
        `${approval.capabilityId} is for administrators only: only an administrator may decide this approval.`,
        { approvalId: id, capabilityId: approval.capabilityId },
      );
      await this.#audit('channel.tap_refused', person, input, 'AUTH_ADMIN_ONLY', id);
      return { kind: 'refused', error };
    }
    try {
      await this.deps.approvals.decide(id, { status, actor: person, payloadHash: approval.payloadHash });
      return { kind: 'decided', approvalId: id, status };
    } catch (error) {
      if (!isMediaAgentError(error)) throw error;
      // ADMIN_FORBIDDEN (audited by the approval service), or decided concurrently (APPROVAL_STATE).
      if (error.code === 'APPROVAL_STATE') return stale('This approval was decided meanwhile');
      return { kind: 'refused', error };
    }
  }

  /** Why a tap or code on `approval` no longer stands, or undefined. */
  async #staleReason(approval: ApprovalRecord, hash: string): Promise<string | undefined> {
    if (!approval.payloadHash.startsWith(hash)) return 'The plan changed since this preview';
    if (approval.status !== 'requested') return `This approval was already ${approval.status}`;
    if (this.deps.clock.now() >= approval.expiresAt) return 'This approval has expired';
    const plan = await this.deps.storage.plans.get(approval.planId);
    if (!plan || plan.payloadHash !== approval.payloadHash || plan.revision !== approval.revision)
      return 'The plan was edited since this preview; a new preview is needed';
    return undefined;
  }

  #adminOnly(capabilityId: string): boolean {
    return this.deps.capabilities.has(capabilityId) && this.deps.capabilities.get(capabilityId).adminOnly === true;
  }

  async #answerTap(port: ChannelPort, tapId: string, text: string, alert: boolean): Promise<void> {
    try {
      await port.answerTap?.(tapId, text, alert);
    } catch (error) {
      // The tap's answer is a courtesy (it expires within seconds); the notice in the outbox is durable.
      this.deps.logger.warn('could not answer a tap', {
        channelId: port.id,
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }

  async #tell(
    input: Pick<ChannelInput, 'channelId' | 'chatId' | 'messageId'>,
    text: string,
    key: string,
  ): Promise<void> {
    await this.deps.notify({
      channelId: input.channelId,
      chatId: input.chatId,
      text,
      replyTo: input.messageId,
      key: `notice:${input.channelId}:${input.chatId}:${key}`,
    });
  }

  async #audit(
    action: 'channel.unknown_user' | 'channel.tap_refused',
    actor: string,
    input: ChannelInput,
    reason: string,
    approvalId: string | null,
  ): Promise<void> {
    const row: AuditRecord = {
      id: this.deps.ids.next('aud'),
      seq: 0,
      at: this.deps.clock.now(),
      action,
      actor: actor.startsWith('user:') ? actor : `system:${actor.replace(/\s/g, '_').slice(0, 190)}`,
      capabilityId: 'host.channels',
      invocationId: this.deps.ids.next('inv'),
      runId: null,
      taskId: null,
      outcome: 'refused',
      approvalId,
      grantId: null,
      idempotencyKey: null,
      inputSummary: JSON.stringify({
        channelId: input.channelId,
        chatId: input.chatId,
        userId: input.userId,
        kind: input.kind,
      }),
      reason,
    };
    await this.deps.storage.audit.append(row);
  }
}

/** Longest once key kept as written; a longer one is hashed. */
const MAX_ONCE_KEY = 200;

/**
 * The key that makes one channel input count once, across restarts: `channels.input:<channelId>:<chatId>:<message
 * id>` for a message, `channels.tap:<channelId>:<chatId>:<tap id>` for a tap (`channels.sha256:<hex>` past 200
 * characters). Claimed in the transaction of the run or inbox message the input makes.
 * @public
 */
export function inputOnceKey(input: ChannelInput): string {
  const plain =
    input.kind === 'tap'
      ? `channels.tap:${input.channelId}:${input.chatId}:${input.tapId}`
      : `channels.input:${input.channelId}:${input.chatId}:${input.messageId}`;
  if (plain.length <= MAX_ONCE_KEY) return plain;
  return `channels.sha256:${createHash('sha256').update(plain).digest('hex')}`;
}

/** The `duplicate` outcome of a `RUN_INPUT_DUPLICATE` error, or undefined for any other. */
function duplicateOf(error: unknown): ChannelInputOutcome | undefined {
  if (!isMediaAgentError(error, 'RUN_INPUT_DUPLICATE')) return undefined;
  const details = error.details as { key?: unknown; by?: unknown };
  return { kind: 'duplicate', key: String(details.key ?? ''), by: String(details.by ?? '') };
}

/** The error of a refused outcome. */
function errorOf(outcome: ChannelInputOutcome): MediaAgentError {
  return outcome.kind === 'refused' ? outcome.error : new MediaAgentError('CHANNEL_TAP_STALE', 'nothing was done');
}

/** A message's text, with a line per attachment (the model reads what was attached; the bytes stay on the channel). */
function messageText(input: Extract<ChannelInput, { kind: 'text' }>): string {
  const lines = input.text.trim() ? [input.text] : [];
  for (const a of input.attachments ?? [])
    lines.push(`[attachment: ${a.name} (${a.mimeType}, ${a.size} bytes, ref ${a.ref})]`);
  return lines.join('\n') || '(empty message)';
}
