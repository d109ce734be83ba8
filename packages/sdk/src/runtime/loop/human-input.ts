// Which messages of the working conversation are a person's input (the goal, steering messages),
// as opposed to host-injected prompts and summaries: what the history archive keeps as `user`.
import type { ModelMessage } from '../../models/types';

const HUMAN_INPUT = new WeakMap<ModelMessage, string>();

/** Marks a message as a person's input with a stable id (`goal`, `inbox:<id>`). */
export function markHumanInput(message: ModelMessage, id: string): ModelMessage {
  HUMAN_INPUT.set(message, id);
  return message;
}

/** The stable id of a person's input, or undefined for any other message. */
export function humanInputId(message: ModelMessage): string | undefined {
  return HUMAN_INPUT.get(message);
}
