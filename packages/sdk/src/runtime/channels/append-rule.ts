// The append rule of channel conversations: is a person's message steering for a run that is under way, or the
// start of a conversation of its own? (docs/channels.md#the-append-rules)
import type { ActorRole } from '../../core/actor';
import type { RunStatus } from '../../core/run-records';

/** A run that is still under way: input may be appended to it. */
const ACTIVE: readonly RunStatus[] = ['queued', 'running', 'waiting'];

/**
 * A conversation of the chat, as the append rule sees it: its binding and its run.
 * @public
 */
export interface ChatConversation {
  /** The run. */
  runId: string;
  /** The run's status. */
  status: RunStatus;
  /** True when retention pruned the run (it cannot take a message). */
  pruned: boolean;
  /** Steering messages queued and not yet applied. */
  queued: number;
  /** The channel configuration it was started on. */
  channelId: string;
  /** Its chat. */
  chatId: string;
  /** Its person. */
  person: string;
  /** The person's role when it started. */
  role: ActorRole;
}

/**
 * The facts the rule decides on.
 * @public
 */
export interface AppendFacts {
  /** Where the input came from and who sent it (the person and their role now). */
  input: { channelId: string; chatId: string; person: string; role: ActorRole };
  /** The chat's conversations, newest first (the runs of its session). */
  conversations: readonly ChatConversation[];
  /** The inbox bound: a run with this many queued messages takes no more. */
  inboxLimit: number;
}

/**
 * What becomes of the input.
 * - `append`: a steering message for `runId` (the person's own run, under way, same role, inbox not full);
 * - `start`: a new run of its own, because the person has no conversation here (`new`), theirs ended
 *   (`finished`), its inbox is full (`inbox_full`);
 * - `queue`: a new run of its own while another conversation is under way in the chat, never appended to it:
 *   another person's (`other_person`), or the same person's under another role (`role_changed`).
 * @public
 */
export type AppendDecision =
  | { kind: 'append'; runId: string }
  | { kind: 'start'; reason: 'new' | 'finished' | 'inbox_full' }
  | { kind: 'queue'; reason: 'other_person' | 'role_changed' };

/** True when the run can still take a message. */
function active(c: ChatConversation): boolean {
  return !c.pruned && ACTIVE.includes(c.status);
}

/**
 * Decides where a person's message on a channel goes. Only input from the same person, on the same channel
 * configuration and chat, with the same role, is appended to that person's newest run, and only while the run is
 * under way with room in its inbox; anything else starts (or queues) a conversation of its own. Nothing is dropped.
 * @example
 * ```ts
 * decideAppend({ input: { channelId: 'telegram:home', chatId: '42', person: 'user:1', role: 'admin' },
 *   conversations: [], inboxLimit: 16 }); // { kind: 'start', reason: 'new' }
 * ```
 * @public
 */
export function decideAppend(facts: AppendFacts): AppendDecision {
  const { input } = facts;
  const here = facts.conversations.filter((c) => c.channelId === input.channelId && c.chatId === input.chatId);
  const own = here.find((c) => c.person === input.person);
  const othersActive = here.some((c) => c.person !== input.person && active(c));
  if (own && active(own)) {
    if (own.role !== input.role) return { kind: 'queue', reason: 'role_changed' };
    if (own.queued >= facts.inboxLimit) return { kind: 'start', reason: 'inbox_full' };
    return { kind: 'append', runId: own.runId };
  }
  if (othersActive) return { kind: 'queue', reason: 'other_person' };
  return { kind: 'start', reason: own ? 'finished' : 'new' };
}
